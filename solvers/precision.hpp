#pragma once
// The precision a run stores and steps ψ in (`[numerics] precision`), a parameter of every backend:
// the kernels are written once, templated on the two types below.
//   double: ψ stored and stepped in FP64 (16 B a value).
//   single: ψ stored and stepped in FP32 (8 B): every operation on ψ in FP32, the coefficients (V,
//           w_F, τ) rounded to FP32 from their FP64 values.
//   mixed:  ψ stored in FP32, every operation on it in FP64 (the face sum, the update), the result
//           rounded once to FP32 when it is stored: single's bytes, less of its rounding.
// In every precision the diagnostics and the step maxima measure the stored state in FP64 (their
// sums too): they are the instrument the precision's cost is read with.

#include "solvers/complex.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace decgpe {

enum class Precision { double_, single, mixed };

inline constexpr std::array<std::string_view, 3> kPrecisionNames{"double", "single", "mixed"};

constexpr std::string_view precision_name(Precision p) {
  return kPrecisionNames[static_cast<std::size_t>(p)];
}

/// The precision of that name, or none.
constexpr std::optional<Precision> precision_named(std::string_view name) {
  for (std::size_t k = 0; k < kPrecisionNames.size(); ++k) {
    if (kPrecisionNames[k] == name) {
      return static_cast<Precision>(k);
    }
  }
  return std::nullopt;
}

/// Bytes of one stored value of ψ.
constexpr int value_bytes(Precision p) {
  return p == Precision::double_ ? 16 : 8;
}

/// The types of a precision: Store is what a vector holds, Real what the per-cell arithmetic
/// computes in.
template <Precision P> struct PrecisionTypes {
  static constexpr Precision precision = P;
  using Store = double;
  using Real = double;
};
template <> struct PrecisionTypes<Precision::single> {
  static constexpr Precision precision = Precision::single;
  using Store = float;
  using Real = float;
};
template <> struct PrecisionTypes<Precision::mixed> {
  static constexpr Precision precision = Precision::mixed;
  using Store = float;
  using Real = double;
};

/// f(PrecisionTypes<p>{}): one instantiation per precision, chosen at run time.
template <class F> decltype(auto) with_precision(Precision p, F&& f) {
  switch (p) {
  case Precision::single:
    return f(PrecisionTypes<Precision::single>{});
  case Precision::mixed:
    return f(PrecisionTypes<Precision::mixed>{});
  case Precision::double_:
    break;
  }
  return f(PrecisionTypes<Precision::double_>{});
}

} // namespace decgpe
