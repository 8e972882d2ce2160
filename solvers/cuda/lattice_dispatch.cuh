#pragma once
// Kernels are instantiated per lattice shape (m_s, most faces per cell): index arithmetic by m_s
// becomes a multiply-shift and the face loop unrolls.

#include <stdexcept>
#include <string>
#include <type_traits>

namespace decgpe::cuda {

template <class F> void dispatch_lattice(int ms, int faces, F&& f) {
  using std::integral_constant;
  if (ms == 1 && faces == 6) {
    f(integral_constant<int, 1>{}, integral_constant<int, 6>{}); // cubic
  } else if (ms == 12 && faces == 8) {
    f(integral_constant<int, 12>{}, integral_constant<int, 8>{}); // FCC
  } else if (ms == 12 && faces == 4) {
    f(integral_constant<int, 12>{}, integral_constant<int, 4>{}); // BCC
  } else if (ms == 46 && faces == 4) {
    f(integral_constant<int, 46>{}, integral_constant<int, 4>{}); // A15
  } else if (ms == 136 && faces == 4) {
    f(integral_constant<int, 136>{}, integral_constant<int, 4>{}); // C15
  } else if (ms == 80 && faces == 4) {
    f(integral_constant<int, 80>{}, integral_constant<int, 4>{}); // Z
  } else if (ms == 8 && faces == 12) {
    f(integral_constant<int, 8>{}, integral_constant<int, 12>{}); // cubic4
  } else {
    throw std::invalid_argument("no CUDA kernel for a lattice with m_s = " + std::to_string(ms) +
                                " and " + std::to_string(faces) + " faces per cell");
  }
}

} // namespace decgpe::cuda
