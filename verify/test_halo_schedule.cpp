// The deep-halo schedule on its own (solvers/halo_schedule.hpp): which vectors a stencil kernel
// exchanges, when, and which slices it computes before and after the exchange. The mpi tests hold
// the slabs bitwise to the reference at every depth; these pin the communication the depth buys.

#include "lattices/cell_complex.hpp"
#include "solvers/grid.hpp"
#include "solvers/halo_schedule.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

namespace decgpe {
namespace {

/// The slab owning global slices [6, 11) of 20 with k halo slices each side (or none at a face).
Grid slab(int k, bool lower = true, bool upper = true) {
  const Grid whole = make_grid(lattices::cell_complex("cubic"), {2, 2, 20}, 1.0);
  const int owned_first = lower ? 6 : 0, owned_last = upper ? 11 : 20;
  return make_slab(whole, lower ? owned_first - k : 0, upper ? owned_last + k : 20, owned_first,
                   owned_last);
}

/// Leapfrog steps on vectors 0 and 1 after both are uploaded: the steps at which one exchanges.
std::vector<int> leapfrog_exchanges(HaloSchedule& s, int steps, std::vector<std::size_t>* sizes) {
  VectorId older = 0, newer = 1;
  s.uploaded(older);
  s.uploaded(newer);
  std::vector<int> at;
  for (int n = 1; n <= steps; ++n) {
    const StencilPlan p = s.stencil(leapfrog_access(older, newer));
    if (!p.exchange.empty()) {
      at.push_back(n);
      if (sizes != nullptr) {
        sizes->push_back(p.exchange.size());
      }
    }
    std::swap(older, newer);
  }
  return at;
}

TEST(HaloSchedule, KHaloSlicesExchangeEveryKLeapfrogStepsBothLevelsAtOnce) {
  for (int k = 1; k <= 4; ++k) {
    const Grid g = slab(k);
    ASSERT_EQ(g.halo_depth(), k);
    HaloSchedule s(g);
    std::vector<std::size_t> sizes;
    const std::vector<int> at = leapfrog_exchanges(s, 12, &sizes);
    std::vector<int> expected;
    for (int n = 1; n <= 12; n += k) {
      expected.push_back(n);
    }
    if (k == 1) { // one halo slice: the older level stays current, only the newer one moves
      EXPECT_EQ(at, std::vector<int>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
      EXPECT_EQ(sizes.back(), 1U);
    } else {
      EXPECT_EQ(at, expected) << "k = " << k;
      EXPECT_EQ(sizes.back(), 2U) << "k = " << k;
    }
  }
}

// A launch of k leapfrog steps (the CUDA temporal blocking on a slab) makes the first step's
// exchanges before it and leaves every vector current where the k single steps would: at k halo
// slices every launch starts with the exchange of both levels.
TEST(HaloSchedule, ALaunchOfKLeapfrogStepsExchangesFirstAndLeavesWhatTheSingleStepsLeave) {
  for (int k = 2; k <= 4; ++k) {
    const Grid g = slab(k);
    HaloSchedule s(g);
    s.uploaded(0);
    s.uploaded(1);
    VectorId older = 0, newer = 1;
    for (int launch = 0; launch < 3; ++launch) {
      ASSERT_EQ(s.leapfrog_singles(older, newer, k), 0) << "k = " << k;
      HaloSchedule singly = s;
      VectorId a = older, b = newer;
      for (int j = 0; j < k; ++j, std::swap(a, b)) {
        singly.stencil(leapfrog_access(a, b));
      }
      const StencilPlan p = s.leapfrog_launch(older, newer, k);
      EXPECT_EQ(p.exchange, (std::vector<VectorId>{newer, older})) << "k = " << k;
      EXPECT_TRUE(p.during.empty());
      EXPECT_EQ(p.after[0], (SliceRange{0, g.size[2]}));
      EXPECT_TRUE(p.after[1].empty());
      EXPECT_EQ(s, singly) << "k = " << k << ", launch " << launch;
      if (k % 2 != 0) {
        std::swap(older, newer);
      }
    }
  }
}

// Where a launch's window holds an exchange after its first step, the steps before it run singly
// and the next launch starts at it: k = 2 at two halo slices, one step out of phase.
TEST(HaloSchedule, AnExchangeInsideALaunchRunsTheStepsBeforeItSingly) {
  HaloSchedule s(slab(2));
  s.uploaded(0);
  s.uploaded(1);
  s.stencil(leapfrog_access(0, 1)); // step 1 exchanges; steps 2 and 3 would hold step 3's
  EXPECT_EQ(s.leapfrog_singles(1, 0, 2), 1);
  EXPECT_THROW(s.leapfrog_launch(1, 0, 2), std::logic_error);
  EXPECT_TRUE(s.stencil(leapfrog_access(1, 0)).exchange.empty()); // step 2, singly
  EXPECT_EQ(s.leapfrog_singles(0, 1, 2), 0);
  EXPECT_EQ(s.leapfrog_launch(0, 1, 2).exchange, (std::vector<VectorId>{1, 0}));
}

TEST(HaloSchedule, AnExchangingKernelComputesTheInteriorFirstAndTheEdgesAfter) {
  const int k = 2;
  const Grid g = slab(k); // stored 0..8, owned [2, 7)
  HaloSchedule s(g);
  s.uploaded(0);
  const StencilPlan p = s.stencil(apply_m_access(0, 1));
  EXPECT_EQ(p.exchange, std::vector<VectorId>({0}));
  // In flight: neither the sent slices [2, 4), [5, 7) nor the halos are touched.
  EXPECT_EQ(p.during, (SliceRange{4, 5}));
  // After: the owned edges and the halo slices the fresh halos allow (k − 1 = 1 each side).
  EXPECT_EQ(p.after[0], (SliceRange{1, 4}));
  EXPECT_EQ(p.after[1], (SliceRange{5, 8}));
  EXPECT_EQ(s.current(1), (SliceRange{1, 8}));
  // The next kernel on vector 1 needs no exchange and computes the owned slices only.
  const StencilPlan q = s.stencil(apply_m_access(1, 2));
  EXPECT_TRUE(q.exchange.empty());
  EXPECT_EQ(q.during, (SliceRange{2, 7}));
}

TEST(HaloSchedule, TheDomainFaceNeitherShrinksNorExchanges) {
  const Grid g = slab(3, /*lower=*/false); // owned [0, 11), halos above only
  HaloSchedule s(g);
  s.uploaded(0);
  const StencilPlan p = s.stencil(apply_m_access(0, 1));
  ASSERT_EQ(p.exchange.size(), 1U);
  EXPECT_EQ(p.during, (SliceRange{0, 8}));
  EXPECT_TRUE(p.after[0].empty());
  EXPECT_EQ(s.current(1), (SliceRange{0, 13}));
}

TEST(HaloSchedule, PointwiseKernelsAreCurrentWhereAllTheirInputsAre) {
  HaloSchedule s(slab(2));
  s.created(0); // unset values: every slice holds them
  s.uploaded(1);
  s.pointwise(2, {0, 1});
  EXPECT_EQ(s.current(2), s.current(1));
  EXPECT_EQ(s.current(0), (SliceRange{0, 9}));
}

TEST(HaloSchedule, AKernelWithoutOutputsStillBringsItsInputsHalosUp) {
  // The diagnostics' ½Lψ: it reads ψ at neighbours and writes nothing.
  HaloSchedule s(slab(1));
  s.uploaded(0);
  EXPECT_EQ(s.stencil(diagnostics_access(0, kNoVector, 0)).exchange.size(), 1U);
  EXPECT_TRUE(s.stencil(diagnostics_access(0, kNoVector, 0)).exchange.empty());
}

} // namespace
} // namespace decgpe
