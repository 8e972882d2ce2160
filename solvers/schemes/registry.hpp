#pragma once
// The one table of schemes: the case file, --scheme, the benchmark and the tests read it. A new
// scheme is its own folder plus one line in registry.cpp.

#include "solvers/schemes/scheme.hpp"

#include <limits>
#include <span>

namespace decgpe {

/// SchemeEntry::limit_factor of a scheme that is stable at every Δt.
inline constexpr double kUnconditionallyStable = std::numeric_limits<double>::infinity();

struct SchemeEntry {
  std::string_view name;
  std::string_view description;
  int order; ///< its order of accuracy in Δt (what the work-precision study asserts)
  /// Stable while Δt·ρ(M) < this: the scheme's stability interval on the imaginary axis
  /// (kUnconditionallyStable: any Δt).
  double limit_factor;
  /// What Diagnostics::invariant holds for this scheme, and how it should behave.
  std::string_view invariant;
  /// Whether the invariant may fall (RK4's norm, by O(Δt⁴) a unit time), rather than being
  /// conserved to round-off: what the benchmark's self-check allows.
  bool invariant_decays;
  /// The time levels a step reads (2: the leapfrog's ψⁿ⁻¹ and ψⁿ, whose buffers swap roles each
  /// step; 1: ψⁿ alone).
  int levels;
  bool takes_previous_level; ///< accepts StartLevels::previous (the paper's start)
  int peak_vectors;          ///< the most backend vectors it holds at once (its start included)
  int start_vectors;         ///< of them, those only its own start of ψ^{−1} holds
  StepControl adaptive;      ///< how it chooses adaptive steps (fixed: it cannot)
  int adaptive_vectors;      ///< the further vectors it holds when adaptive
  /// Why it has no damped form (Scheme::make_damped, the case's time.damping); empty: it has one.
  std::string_view no_damped_form;
  /// bench_step's names begin with this: the scheme's name, but "step" for the leapfrog, the name
  /// it had before there were other schemes, which the committed benchmark data and the
  /// performance gate's comparison carry.
  std::string_view benchmark_name;
  std::unique_ptr<Scheme> (*make)(Backend& backend, double dt);
};

std::span<const SchemeEntry> scheme_registry();
/// Throws std::invalid_argument naming the known schemes.
const SchemeEntry& find_scheme(std::string_view name);
std::unique_ptr<Scheme> make_scheme(std::string_view name, Backend& backend, double dt);

} // namespace decgpe
