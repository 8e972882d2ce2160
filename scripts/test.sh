#!/usr/bin/env bash
# The README's test command: set up, build, and run every test. GPU tests skip with a message when no GPU is present.
# In CI (CI=true) the CPU build is then repeated under AddressSanitizer and UBSan (the sanitize preset), which runs
# the cpu tests, the case fuzzer among them; the long numerical sweeps (stability, orders, conservation, the split's
# growth, the work-precision study) and the reports' rendering are left to the main build, since they run the same code
# 6x slower there and would double CI.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=$(scripts/build.sh | tail -n 1)
# A failed test's output is printed (CI's log is all there is to read); MPI tests reserve their processors
# (verify/CMakeLists.txt), so -j never runs a 3-rank test beside others on a 2-core machine.
ctest --preset "$preset" -j "$(nproc)" --output-on-failure "$@"
if [ "${CI:-}" = "true" ]; then
  cmake --preset sanitize >/dev/null
  cmake --build --preset sanitize -j "$(nproc)"
  ctest --preset sanitize -j "$(nproc)" --output-on-failure
fi
