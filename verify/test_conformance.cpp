// One conformance suite (Ginkgo's habit): every backend of this build against the reference oracle,
// bit for bit, on every scheme and every lattice, its instances generated from the registries, so
// that a new backend, scheme or lattice is checked here without a line of its own. The host
// backends' instances (Host/...) are cpu tests; the device backends' (Device/...) are gpu tests
// and skip with a message where no device is usable.

#include "lattices/crystal.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/scheme_runs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <gtest/gtest.h>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decgpe {
namespace {

using verify::bitwise_equal;
using verify::LiveScheme;

/// A backend, a scheme (empty for the kernel set alone), a lattice and the precision both run in.
struct Case {
  std::string_view backend, scheme, lattice;
  Precision precision = Precision::double_;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.backend << " " << c.scheme << " " << c.lattice << " " << precision_name(c.precision);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::string(info.param.backend) + "_" +
                     (info.param.scheme.empty() ? "" : std::string(info.param.scheme) + "_") +
                     std::string(info.param.lattice);
  if (info.param.precision != Precision::double_) { // double's names as they were
    name += "_" + std::string(precision_name(info.param.precision));
  }
  std::replace_if(
      name.begin(), name.end(), [](char c) { return std::isalnum(c) == 0; }, '_');
  return name;
}

/// Every registered backend but the reference whose vectors live on a device (or on the host),
/// with every scheme of the registry (or none, for the kernel set) and every lattice, in
/// `precision`.
std::vector<Case> cases(bool on_device, bool with_schemes,
                        Precision precision = Precision::double_) {
  std::vector<std::string_view> schemes{""};
  if (with_schemes) {
    schemes.clear();
    for (const SchemeEntry& s : scheme_registry()) {
      schemes.push_back(s.name);
    }
  }
  std::vector<Case> out;
  for (const BackendEntry& b : backend_registry()) {
    if (b.name == "reference" || (b.memory != MemorySpace::host) != on_device) {
      continue;
    }
    for (std::string_view scheme : schemes) {
      for (std::string_view lattice : lattices::lattice_names()) {
        out.push_back({b.name, scheme, lattice, precision});
      }
    }
  }
  return out;
}

// GTEST_SKIP returns from the function it is written in, so this must be a macro.
#define SKIP_WHERE_UNAVAILABLE(backend)                                                            \
  if (const std::string why = backend_unavailable(backend); !why.empty()) {                        \
    GTEST_SKIP() << backend << ": " << why                                                         \
                 << " (GPU tests run on the GPU machine: scripts/device-run.sh)";                  \
  }

/// Trap-sized, interacting, non-stationary, with boundary and interior cells on every axis.
Problem make_problem(std::string_view lattice, Precision precision = Precision::double_) {
  Problem p = verify::trap_problem(lattice, 12000.0, 1.4, 200.0);
  p.precision = precision;
  return p;
}

class Conformance : public ::testing::TestWithParam<Case> {};

/// `scheme` on `backend` and on the reference from the vortex: every level bitwise, and the
/// diagnostics.
void expect_scheme_matches_reference(std::string_view backend, std::string_view scheme,
                                     const Problem& p) {
  const std::vector<Complex> psi0 = verify::vortex(p.grid);
  const double dt = verify::test_step(scheme, p, psi0);
  const long steps = verify::comparison_steps(scheme, 151);
  LiveScheme ref("reference", scheme, p, dt, psi0);
  LiveScheme other(backend, scheme, p, dt, psi0);
  ref.scheme->advance(steps);
  other.scheme->advance(steps);
  for (int level = 0; level < static_cast<int>(ref.scheme->level_names().size()); ++level) {
    EXPECT_TRUE(bitwise_equal(ref.level(level, p), other.level(level, p)))
        << "level " << ref.scheme->level_names()[level];
  }
  const Diagnostics a = ref.scheme->diagnostics(), b = other.scheme->diagnostics();
  EXPECT_NEAR(b.norm, a.norm, 1e-13 * a.norm);
  EXPECT_NEAR(b.energy, a.energy, 1e-12 * std::abs(a.energy));
  EXPECT_NEAR(b.kinetic, a.kinetic, 1e-12 * std::abs(a.energy));
  EXPECT_NEAR(b.trap, a.trap, 1e-12 * std::abs(a.energy));
  EXPECT_NEAR(b.interaction, a.interaction, 1e-12 * std::abs(a.energy));
  EXPECT_NEAR(b.rotation, a.rotation, 1e-12 * std::abs(a.energy));
  EXPECT_NEAR(b.invariant, a.invariant, 1e-13 * std::abs(a.invariant));
  EXPECT_NEAR(b.overlap.re, a.overlap.re, 1e-12);
  EXPECT_NEAR(b.overlap.im, a.overlap.im, 1e-12);
  EXPECT_EQ(b.max_abs, a.max_abs);
  EXPECT_NEAR(b.max_diagonal, a.max_diagonal, 1e-12 * a.max_diagonal);
  EXPECT_TRUE(b.finite);
}

TEST_P(Conformance, SchemeIsBitwiseTheReferences) {
  const auto [backend, scheme, lattice, precision] = GetParam();
  SKIP_WHERE_UNAVAILABLE(backend);
  expect_scheme_matches_reference(backend, scheme, make_problem(lattice, precision));
}

class RotatingConformance : public ::testing::TestWithParam<Case> {};

/// The conformance problem in a frame rotating about an axis off the trap's centre.
Problem make_rotating_problem(std::string_view lattice, Precision precision) {
  Problem p = make_problem(lattice, precision);
  p.potential.rotation = {0.6, 0.3, -0.2};
  return p;
}

// Every backend runs the rotating frame, bitwise the reference.
TEST_P(RotatingConformance, SchemeIsBitwiseTheReferences) {
  const auto [backend, scheme, lattice, precision] = GetParam();
  SKIP_WHERE_UNAVAILABLE(backend);
  expect_scheme_matches_reference(backend, scheme, make_rotating_problem(lattice, precision));
}

class KernelConformance : public ::testing::TestWithParam<Case> {};

/// The kernel set's trail on `backend` against the reference's, bit for bit.
void expect_kernels_match_reference(std::string_view backend, const Problem& p) {
  const std::vector<Complex> psi0 = verify::vortex(p.grid);
  const auto reference = verify::kernel_trail(*make_backend("reference", p), psi0);
  const auto other = verify::kernel_trail(*make_backend(backend, p), psi0);
  for (std::size_t k = 0; k < reference.size(); ++k) {
    EXPECT_TRUE(bitwise_equal(reference[k], other[k])) << "kernel trail entry " << k;
  }
}

TEST_P(KernelConformance, EveryKernelIsBitwiseTheReferences) {
  const auto [backend, lattice] = std::pair(GetParam().backend, GetParam().lattice);
  SKIP_WHERE_UNAVAILABLE(backend);
  expect_kernels_match_reference(backend, make_problem(lattice, GetParam().precision));
}

class RotatingKernelConformance : public ::testing::TestWithParam<Case> {};

TEST_P(RotatingKernelConformance, EveryKernelIsBitwiseTheReferences) {
  const auto [backend, lattice] = std::pair(GetParam().backend, GetParam().lattice);
  SKIP_WHERE_UNAVAILABLE(backend);
  expect_kernels_match_reference(backend, make_rotating_problem(lattice, GetParam().precision));
}

INSTANTIATE_TEST_SUITE_P(Host, Conformance, ::testing::ValuesIn(cases(false, true)), case_name);
INSTANTIATE_TEST_SUITE_P(Host, KernelConformance, ::testing::ValuesIn(cases(false, false)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Host, RotatingConformance, ::testing::ValuesIn(cases(false, true)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Host, RotatingKernelConformance, ::testing::ValuesIn(cases(false, false)),
                         case_name);
// Single and mixed precision: each backend bitwise the reference in the same precision.
INSTANTIATE_TEST_SUITE_P(HostSingle, Conformance,
                         ::testing::ValuesIn(cases(false, true, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(HostMixed, Conformance,
                         ::testing::ValuesIn(cases(false, true, Precision::mixed)), case_name);
INSTANTIATE_TEST_SUITE_P(HostSingle, KernelConformance,
                         ::testing::ValuesIn(cases(false, false, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(HostMixed, KernelConformance,
                         ::testing::ValuesIn(cases(false, false, Precision::mixed)), case_name);
INSTANTIATE_TEST_SUITE_P(HostSingle, RotatingConformance,
                         ::testing::ValuesIn(cases(false, true, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(HostMixed, RotatingConformance,
                         ::testing::ValuesIn(cases(false, true, Precision::mixed)), case_name);
INSTANTIATE_TEST_SUITE_P(HostSingle, RotatingKernelConformance,
                         ::testing::ValuesIn(cases(false, false, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(HostMixed, RotatingKernelConformance,
                         ::testing::ValuesIn(cases(false, false, Precision::mixed)), case_name);
// None in a build without a device backend.
INSTANTIATE_TEST_SUITE_P(Device, Conformance, ::testing::ValuesIn(cases(true, true)), case_name);
INSTANTIATE_TEST_SUITE_P(Device, KernelConformance, ::testing::ValuesIn(cases(true, false)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Device, RotatingConformance, ::testing::ValuesIn(cases(true, true)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Device, RotatingKernelConformance, ::testing::ValuesIn(cases(true, false)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(DeviceSingle, Conformance,
                         ::testing::ValuesIn(cases(true, true, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceMixed, Conformance,
                         ::testing::ValuesIn(cases(true, true, Precision::mixed)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceSingle, KernelConformance,
                         ::testing::ValuesIn(cases(true, false, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceMixed, KernelConformance,
                         ::testing::ValuesIn(cases(true, false, Precision::mixed)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceSingle, RotatingConformance,
                         ::testing::ValuesIn(cases(true, true, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceMixed, RotatingConformance,
                         ::testing::ValuesIn(cases(true, true, Precision::mixed)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceSingle, RotatingKernelConformance,
                         ::testing::ValuesIn(cases(true, false, Precision::single)), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceMixed, RotatingKernelConformance,
                         ::testing::ValuesIn(cases(true, false, Precision::mixed)), case_name);

} // namespace
} // namespace decgpe
