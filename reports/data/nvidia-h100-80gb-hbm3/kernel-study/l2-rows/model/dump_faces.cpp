#include "lattices/cell_complex.hpp"

#include <cstdio>
int main() {
  for (std::string_view name : decgpe::lattices::lattice_names()) {
    const auto& c = decgpe::lattices::cell_complex(name);
    for (int l = 0; l < c.cells_per_structure(); ++l) {
      for (const auto& f : c.cells[l].faces) {
        std::printf("%s %d %d %d %d %d %d\n", std::string(name).c_str(), c.cells_per_structure(), l,
                    f.neighbour, f.offset[0], f.offset[1], f.offset[2]);
      }
    }
  }
}
