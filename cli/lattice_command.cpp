#include "cli/lattice_command.hpp"

#include "lattices/cell_complex.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace decgpe::cli {

namespace {

nlohmann::json vec(const lattices::Vec3& v) {
  return {v.x, v.y, v.z};
}

nlohmann::json to_json(const lattices::CellComplex& complex) {
  nlohmann::json cells = nlohmann::json::array();
  for (const lattices::Cell& cell : complex.cells) {
    nlohmann::json faces = nlohmann::json::array();
    for (const lattices::Face& f : cell.faces) {
      faces.push_back({{"area", f.area},
                       {"dual_edge_length", f.dual_length},
                       {"neighbour", f.neighbour},
                       {"offset", f.offset},
                       {"weight", f.weight}});
    }
    nlohmann::json vertices = nlohmann::json::array();
    for (const lattices::Vec3& v : cell.vertices) {
      vertices.push_back(vec(v));
    }
    cells.push_back({{"circumcentre", vec(cell.circumcentre)},
                     {"volume", cell.volume},
                     {"vertices", vertices},
                     {"faces", faces}});
  }
  return {{"lattice", complex.name},
          {"length_unit", "structure edge"},
          {"box", vec(complex.box)},
          {"points", complex.point_count},
          {"cells_per_structure", complex.cells_per_structure()},
          {"cells", cells}};
}

void print_text(const lattices::CellComplex& c) {
  std::printf("lattice %s: box %.6f x %.6f x %.6f (structure edge 1), %d points, m_s = %d\n",
              c.name.c_str(), c.box.x, c.box.y, c.box.z, c.point_count, c.cells_per_structure());
  for (std::size_t i = 0; i < c.cells.size(); ++i) {
    const lattices::Cell& cell = c.cells[i];
    std::printf("cell %zu: circumcentre (%.6f, %.6f, %.6f)  |B| = %.8f  faces %zu\n", i,
                cell.circumcentre.x, cell.circumcentre.y, cell.circumcentre.z, cell.volume,
                cell.faces.size());
    for (const lattices::Face& f : cell.faces) {
      std::printf(
          "  |F| = %.8f  |E*| = %.8f  -> cell %3d offset (%2d,%2d,%2d)  |F|/(|E*||B|) = %.8f\n",
          f.area, f.dual_length, f.neighbour, f.offset[0], f.offset[1], f.offset[2], f.weight);
    }
  }
}

} // namespace

void add_lattice_command(CLI::App& app) {
  struct Options {
    std::string name;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "lattice", "Print a lattice's replicable structure, cells and Hodge weights");
  std::string names; // the registry's
  for (const std::string_view n : lattices::lattice_names()) {
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  cmd->add_option("name", options->name, names + " (cubic4: the cubic grid, fourth-order operator)")
      ->required();
  cmd->add_flag("--json", options->json, "Print JSON instead of a table");
  cmd->callback([options] {
    const lattices::CellComplex& complex = lattices::cell_complex(options->name);
    if (options->json) {
      std::cout << to_json(complex).dump(1) << '\n';
    } else {
      print_text(complex);
    }
  });
}

} // namespace decgpe::cli
