#pragma once
// Parameterising a test over the six lattices, with readable test names.

#include "lattices/cell_complex.hpp"
#include "lattices/crystal.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <string>

namespace decgpe::verify {

inline auto all_lattices() {
  return ::testing::ValuesIn(lattices::crystal_names().begin(), lattices::crystal_names().end());
}

/// The six crystals and cubic4 (the cubic grid with the fourth-order operator): for the tests of
/// what every stencil must do.
inline auto every_stencil() {
  return ::testing::ValuesIn(lattices::lattice_names().begin(), lattices::lattice_names().end());
}

/// The mean cell spacing of `lattice` per unit h: equal cell densities across lattices at
/// h/spacing_unit.
inline double spacing_unit(const std::string& lattice) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  return std::cbrt(c.structure_volume() / c.cells_per_structure());
}

inline std::string lattice_name(const ::testing::TestParamInfo<std::string_view>& param) {
  return std::string(param.param);
}

} // namespace decgpe::verify
