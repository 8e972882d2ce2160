#pragma once
// The diagnostics' real fields described once: each with its name in the records
// (/diagnostics/<name> of results and checkpoints) and how it combines over ranks. The writers
// (io/results, io/checkpoint) and the slab backend's reduction go through this list, so a new
// field is added here and where it is computed (cell_arithmetic.hpp's CellSums, Diagnostics::from,
// the CUDA reduction). Diagnostics::overlap (complex, summed) and finite (all ranks) stand apart.

#include "solvers/backend.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string_view>

namespace decgpe {

enum class Reduction { sum, max };

struct DiagnosticField {
  std::string_view name;
  double Diagnostics::*value;
  Reduction reduction;
};

/// In the records' order.
inline constexpr std::array kDiagnosticFields{
    DiagnosticField{"norm", &Diagnostics::norm, Reduction::sum},
    DiagnosticField{"energy", &Diagnostics::energy, Reduction::sum},
    DiagnosticField{"kinetic", &Diagnostics::kinetic, Reduction::sum},
    DiagnosticField{"trap", &Diagnostics::trap, Reduction::sum},
    DiagnosticField{"interaction", &Diagnostics::interaction, Reduction::sum},
    DiagnosticField{"rotation", &Diagnostics::rotation, Reduction::sum},
    DiagnosticField{"invariant", &Diagnostics::invariant, Reduction::sum},
    DiagnosticField{"max_abs", &Diagnostics::max_abs, Reduction::max},
    DiagnosticField{"max_diagonal", &Diagnostics::max_diagonal, Reduction::max},
};

/// The position of `value`'s field in kDiagnosticFields.
constexpr std::size_t diagnostic_index(double Diagnostics::*value) {
  for (std::size_t k = 0; k < kDiagnosticFields.size(); ++k) {
    if (kDiagnosticFields[k].value == value) {
      return k;
    }
  }
  throw std::logic_error("a field of Diagnostics that kDiagnosticFields does not list");
}

} // namespace decgpe
