#pragma once
// Parameterising a test over the six lattices, with readable test names.

#include "lattices/cell_complex.hpp"
#include "lattices/crystal.hpp"

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

inline std::string lattice_name(const ::testing::TestParamInfo<std::string_view>& param) {
  return std::string(param.param);
}

} // namespace decgpe::verify
