#pragma once
// Bitwise equality of states: what "backends agree" and "a restart continues exactly" mean.

#include "solvers/complex.hpp"

#include <cstring>
#include <vector>

namespace decgpe::verify {

inline bool bitwise_equal(const std::vector<Complex>& a, const std::vector<Complex>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Complex)) == 0;
}

} // namespace decgpe::verify
