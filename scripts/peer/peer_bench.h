// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) the decgpe authors.
//
// Timing harness for the paper's own GPU code (GpuDecGpe, GPL-3, not part of decgpe). The patches
// in patches/ include this header right after a lattice's mesh.h; nothing here is upstream code.
// With -DPEER_BENCH the patched main() calls peerbench::run() and the patched integrateInTime()
// calls peerbench::time_steps() in place of its iteration loop. Environment:
//   PEER_DOFS         target number of dual 0-cells (default 64e6)
//   PEER_STEPS        timed kernel launches, one leapfrog step of every cell each (default 1000)
//   PEER_SAMPLES      the timed launches are split into this many CUDA-event samples (default 5)
//   PEER_WARMUP       untimed launches first (default 20)
//   PEER_STATE_ITERS  relaxation sweeps for the vortex profile that fills psi (default 10000)
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <limits>
#include <vector>

#ifndef PEER_LATTICE
#define PEER_LATTICE "unknown"
#endif

// ---------------------------------------------------------------------------------------------
// Neighbour tables as byte offsets. The FCC, A15 and Z kernels of the upstream tree read every
// neighbour from global memory at prevPsi + offset and expect getLaplacian(offsets, hodges,
// structure bytes, row pitch, slice pitch[, per-cell (first face, face count)]); the committed
// mesh.h files only provide the (direction, local index) form. This overload builds the offsets
// from that form for the pitched layout that cudaMalloc3D gave. The call into mesh.h is
// dependent on the pack, so the right mesh.h overload is picked per lattice.
template <class... Extra>
ddouble getLaplacian(Buffer<int2>& offsets, Buffer<ddouble>& hodges, size_t structure_bytes,
                     size_t row_pitch, size_t slice_pitch, Extra&... extra) {
  Buffer<int3> directions;
  Buffer<int> local_index;
  const ddouble result = getLaplacian(directions, local_index, hodges, extra...);
  offsets.resize(directions.size());
  for (uint f = 0; f < directions.size(); ++f) {
    const long long bytes =
        static_cast<long long>(directions[f].z) * static_cast<long long>(slice_pitch) +
        static_cast<long long>(directions[f].y) * static_cast<long long>(row_pitch) +
        static_cast<long long>(directions[f].x) * static_cast<long long>(structure_bytes);
    if (bytes > std::numeric_limits<int>::max() || bytes < std::numeric_limits<int>::min()) {
      std::fprintf(stderr, "peer-bench: %s: a neighbour offset does not fit in int\n",
                   PEER_LATTICE);
      std::exit(2);
    }
    offsets[f] = make_int2(static_cast<int>(bytes), local_index[f]);
  }
  return result;
}

namespace peerbench {

inline const std::chrono::steady_clock::time_point program_start = std::chrono::steady_clock::now();

inline double seconds_since_start() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start).count();
}

inline double env_number(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0')
    return fallback;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || !(value > 0.0)) {
    std::fprintf(stderr, "peer-bench: %s=%s is not a positive number\n", name, text);
    std::exit(2);
  }
  return value;
}

[[noreturn]] inline void fail(const char* what, cudaError_t error = cudaSuccess) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "peer-bench: %s: %s: %s\n", PEER_LATTICE, what, cudaGetErrorString(error));
  } else {
    std::fprintf(stderr, "peer-bench: %s: %s\n", PEER_LATTICE, what);
  }
  std::exit(2);
}

inline void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess)
    fail(what, error);
}

struct Counts {
  uint x = 0, y = 0, z = 0;
};

/// Structure counts of the benchmark grid; set by run(), read by the patched integrateInTime().
inline Counts counts;

/// The structure counts whose cell count comes closest to `dofs` among near-cubic boxes (every
/// side within 25% of the cube root of the box volume). This is the rule of decgpe's
/// bench/bench_step.cpp, so both codes time the same number of cells on every lattice.
inline Counts closest_counts(double dofs, int cells_per_structure, const Vector3& width) {
  const double ms = cells_per_structure;
  const double side = std::cbrt(dofs / ms * width.x * width.y * width.z);
  const auto lo = [&](double w) { return std::max(1, static_cast<int>(0.75 * side / w)); };
  const auto hi = [&](double w) { return std::max(1, static_cast<int>(1.25 * side / w) + 1); };
  Counts best{1, 1, 1};
  double best_error = std::numeric_limits<double>::infinity();
  for (int x = lo(width.x); x <= hi(width.x); ++x) {
    for (int y = lo(width.y); y <= hi(width.y); ++y) {
      const int z = std::max(1, static_cast<int>(std::lround(dofs / (ms * x * y))));
      const double error = std::abs(ms * x * y * z - dofs);
      const double zlen = z * width.z;
      if (error < best_error && zlen >= 0.75 * side && zlen <= 1.25 * side) {
        best = {static_cast<uint>(x), static_cast<uint>(y), static_cast<uint>(z)};
        best_error = error;
      }
    }
  }
  return best;
}

using IntegrateFn = uint (*)(const VortexState&, const ddouble, const Vector3&, const Vector3&,
                             const ddouble, const uint);
using PotentialFn = ddouble (*)(const ddouble, const ddouble);

/// Replaces the upstream main(): a vortex profile (kappa, g of the upstream file) on the coarse
/// radial grid only (the fine second solve and state.dat are skipped: the values do not change
/// the kernel's work), the domain made a cube around it as in the paper's performance test, and
/// the structure counts from PEER_DOFS.
inline int run(IntegrateFn integrate, PotentialFn potential, uint kappa, ddouble g) {
  VortexState state;
  state.setKappa(kappa);
  state.setG(g);
  state.setRange(0.0, 15.0, 15.0, 0.2, 0.2);
  state.iterateSolution(potential, static_cast<uint>(env_number("PEER_STATE_ITERS", 10000)), 1e-29);
  const ddouble eps = 1e-5 * state.searchFunctionMax();
  const ddouble radius = std::max(state.searchMaxR(eps), state.searchMaxZ(eps));

  counts = closest_counts(env_number("PEER_DOFS", 64e6), VALUES_IN_BLOCK, BLOCK_WIDTH);
  const Vector3 extent(counts.x * BLOCK_WIDTH.x, counts.y * BLOCK_WIDTH.y,
                       counts.z * BLOCK_WIDTH.z);
  const ddouble scale = 2.0 * radius / std::max(extent.x, std::max(extent.y, extent.z));
  const Vector3 half(0.5 * scale * extent.x, 0.5 * scale * extent.y, 0.5 * scale * extent.z);
  std::printf(
      "peer-bench: %s: state ready after %.1f s, radius %.3f, structures %ux%ux%u, scale %.5f\n",
      PEER_LATTICE, seconds_since_start(), radius, counts.x, counts.y, counts.z, scale);
  std::fflush(stdout);
  return static_cast<int>(
      integrate(state, scale, Vector3(-half.x, -half.y, -half.z), half, 1.0, 1));
}

/// Replaces the upstream iteration loop. `launch(parity)` issues one upstream kernel launch
/// (parity 0: odd level from even, 1: even level from odd, the upstream order); every launch
/// advances each of the `dofs` cells of one level by one leapfrog step. `copy_back` brings the
/// even level to `host_even` (pitched host copy, `host_doubles` doubles, zero padding included)
/// for a finiteness and norm check after the timing.
template <class Launch, class CopyBack>
uint time_steps(Launch launch, CopyBack copy_back, const void* host_even, size_t host_doubles,
                unsigned long long dofs, dim3 grid, dim3 block) {
  const int samples = std::max(1, static_cast<int>(env_number("PEER_SAMPLES", 5)));
  const long requested = static_cast<long>(env_number("PEER_STEPS", 1000));
  // Every sample holds an even number of launches, so both levels are advanced equally often.
  const long per_sample = std::max(2L, 2 * ((requested + 2L * samples - 1) / (2L * samples)));
  const long steps = per_sample * samples;
  const long warmup = 2 * ((static_cast<long>(env_number("PEER_WARMUP", 20)) + 1) / 2);

  const double* values = static_cast<const double*>(host_even);
  const auto norm = [&] {
    double sum = 0.0;
    for (size_t i = 0; i < host_doubles; ++i)
      sum += values[i] * values[i];
    return sum;
  };
  const double norm_before = norm();

  check(cudaGetLastError(), "before the timed launches");
  const double setup_s = seconds_since_start();
  for (long k = 0; k < warmup; ++k)
    launch(static_cast<int>(k & 1));
  check(cudaGetLastError(), "warm-up launch");
  check(cudaDeviceSynchronize(), "warm-up launches");

  std::vector<cudaEvent_t> events(samples + 1);
  for (cudaEvent_t& e : events)
    check(cudaEventCreate(&e), "cudaEventCreate");
  check(cudaEventRecord(events[0]), "cudaEventRecord");
  for (int s = 0; s < samples; ++s) {
    for (long k = 0; k < per_sample; ++k)
      launch(static_cast<int>(k & 1));
    check(cudaEventRecord(events[s + 1]), "cudaEventRecord");
  }
  check(cudaGetLastError(), "timed launch");
  check(cudaEventSynchronize(events[samples]), "timed launches");
  std::vector<double> sample_ms(samples);
  double total_ms = 0.0;
  for (int s = 0; s < samples; ++s) {
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, events[s], events[s + 1]), "cudaEventElapsedTime");
    sample_ms[s] = ms;
    total_ms += ms;
  }
  for (cudaEvent_t& e : events)
    cudaEventDestroy(e);

  copy_back();
  check(cudaDeviceSynchronize(), "copy back");
  const double norm_after = norm();
  if (!std::isfinite(norm_after))
    fail("psi is not finite after the timed steps");
  const double drift = norm_after / norm_before - 1.0;
  if (!(std::abs(drift) < 0.05))
    fail("the squared norm of psi drifted by more than 5% over the timed steps");

  std::vector<double> sorted = sample_ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[samples / 2];
  const double spread_pct = 100.0 * (sorted.back() - sorted.front()) / median;
  const double rate =
      static_cast<double>(dofs) * static_cast<double>(steps) / (total_ms * 1e-3) / 1e9;
  std::printf("peer %s dofs=%llu steps=%ld ms=%.3f gdofs_per_s=%.2f structures=%ux%ux%u "
              "block=%ux%ux%u grid=%ux%ux%u "
              "samples=%d spread_pct=%.1f norm_drift=%.2e setup_s=%.1f\n",
              PEER_LATTICE, dofs, steps, total_ms, rate, counts.x, counts.y, counts.z, block.x,
              block.y, block.z, grid.x, grid.y, grid.z, samples, spread_pct, drift, setup_s);
  std::fflush(stdout);
  return 0;
}

} // namespace peerbench
