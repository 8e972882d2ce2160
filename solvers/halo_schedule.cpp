#include "solvers/halo_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace decgpe {

namespace {

SliceRange intersect(SliceRange a, SliceRange b) {
  return {std::max(a.begin, b.begin), std::min(a.end, b.end)};
}

bool covers(SliceRange outer, SliceRange inner) {
  return outer.begin <= inner.begin && inner.end <= outer.end;
}

} // namespace

HaloSchedule::HaloSchedule(const Grid& slab)
    : stored_{0, slab.size[2]}, owned_{slab.owned_begin, slab.owned_end}, depth_(slab.halo_depth()),
      lower_(slab.owned_begin > 0), upper_(slab.owned_end < slab.size[2]) {}

void HaloSchedule::created(VectorId v) {
  at(v) = stored_;
}

void HaloSchedule::uploaded(VectorId v) {
  at(v) = owned_;
}

SliceRange& HaloSchedule::at(VectorId v) {
  if (v < 0) {
    throw std::logic_error("no such vector: " + std::to_string(v));
  }
  if (static_cast<std::size_t>(v) >= current_.size()) {
    current_.resize(static_cast<std::size_t>(v) + 1, stored_);
  }
  return current_[static_cast<std::size_t>(v)];
}

SliceRange HaloSchedule::current(VectorId v) const {
  return v >= 0 && static_cast<std::size_t>(v) < current_.size()
             ? current_[static_cast<std::size_t>(v)]
             : stored_;
}

SliceRange HaloSchedule::reach(SliceRange r) const {
  return {lower_ ? r.begin + 1 : r.begin, upper_ ? r.end - 1 : r.end};
}

KernelAccess access(const Rk4Stage& s) {
  if (s.stage == 0) { // acc is written, not read
    return {s.input, {s.base, kNoVector}, {s.acc, s.next}};
  }
  if (s.stage == 3) { // base is not read, acc not written
    return {s.input, {s.acc, kNoVector}, {s.next, kNoVector}};
  }
  return {s.input, {s.base, s.acc}, {s.acc, s.next}};
}

KernelAccess access(const PolynomialTerm& t) {
  return {t.in, {t.prev, t.first ? kNoVector : t.acc}, {t.out, t.acc}};
}

KernelAccess access(const FaceSweep& s) {
  return {s.in, {kNoVector, kNoVector}, {s.out, kNoVector}};
}

KernelAccess apply_m_access(VectorId in, VectorId out) {
  return {in, {kNoVector, kNoVector}, {out, kNoVector}};
}

KernelAccess leapfrog_access(VectorId older, VectorId newer) {
  return {newer, {older, kNoVector}, {older, kNoVector}};
}

KernelAccess diagnostics_access(VectorId current, VectorId previous, VectorId reference) {
  return {current, {previous, reference}, {kNoVector, kNoVector}};
}

KernelAccess vortex_flux_access(VectorId psi) {
  return {psi, {kNoVector, kNoVector}, {kNoVector, kNoVector}};
}

SliceRange HaloSchedule::computable(const KernelAccess& kernel) const {
  SliceRange r = reach(current(kernel.stencil_input));
  for (const VectorId v : kernel.pointwise) {
    if (v != kNoVector) {
      r = intersect(r, current(v));
    }
  }
  return r;
}

StencilPlan HaloSchedule::stencil(const KernelAccess& kernel) {
  StencilPlan plan;
  SliceRange computed = computable(kernel);
  if (covers(computed, owned_)) {
    plan.during = computed;
  } else {
    // Exchange every input not current on all stored slices: k kernels pass before the next.
    for (const VectorId v : {kernel.stencil_input, kernel.pointwise[0], kernel.pointwise[1]}) {
      if (v != kNoVector && current(v) != stored_ &&
          std::find(plan.exchange.begin(), plan.exchange.end(), v) == plan.exchange.end()) {
        plan.exchange.push_back(v);
        at(v) = stored_;
      }
    }
    computed = computable(kernel);
    if (!covers(computed, owned_)) {
      throw std::logic_error("a stencil kernel's input is not current on its owned slices");
    }
    // In flight: the owned slices that neither read a halo slice nor overwrite a sent one.
    plan.during = {lower_ ? owned_.begin + depth_ : owned_.begin,
                   upper_ ? owned_.end - depth_ : owned_.end};
    if (plan.during.empty()) {
      plan.during = {};
      plan.after = {computed, SliceRange{}};
    } else {
      plan.after = {SliceRange{computed.begin, plan.during.begin},
                    SliceRange{plan.during.end, computed.end}};
    }
  }
  for (const VectorId v : kernel.outputs) {
    if (v != kNoVector) {
      at(v) = computed;
    }
  }
  return plan;
}

int HaloSchedule::leapfrog_singles(VectorId older, VectorId newer, int steps) const {
  HaloSchedule trial = *this;
  trial.stencil(leapfrog_access(older, newer));
  for (int j = 1; j < steps; ++j) {
    std::swap(older, newer);
    if (!trial.stencil(leapfrog_access(older, newer)).exchange.empty()) {
      return j;
    }
  }
  return 0;
}

StencilPlan HaloSchedule::leapfrog_launch(VectorId older, VectorId newer, int steps) {
  HaloSchedule after = *this; // kept only where no step but the first exchanges
  const std::vector<VectorId> exchange = after.stencil(leapfrog_access(older, newer)).exchange;
  for (int j = 1; j < steps; ++j) {
    std::swap(older, newer);
    if (!after.stencil(leapfrog_access(older, newer)).exchange.empty()) {
      throw std::logic_error("a launch of leapfrog steps would exchange inside it");
    }
  }
  *this = std::move(after);
  StencilPlan plan;
  plan.exchange = exchange;
  (exchange.empty() ? plan.during : plan.after[0]) = stored_;
  return plan;
}

void HaloSchedule::pointwise(VectorId out, std::initializer_list<VectorId> inputs) {
  SliceRange r = stored_;
  for (const VectorId v : inputs) {
    if (v != kNoVector) {
      r = intersect(r, current(v));
    }
  }
  at(out) = r;
}

} // namespace decgpe
