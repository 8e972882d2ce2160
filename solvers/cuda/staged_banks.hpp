#pragma once
// The staged sweep's shared-memory layout against bank conflicts (staged_sweep.cuh). On BCC and
// FCC a face of local cell l reaches another local index, row and slice for each l, so a warp's
// reads of one face land on the same banks several times over: BCC's t8x8 in single takes 2.8
// times the wavefronts of a conflict-free read, FCC's 1.9 (this model). A few cells of padding
// after each grown row and each ring slot shift the rows and the slices against each other; the
// plan models the wavefronts of every padding within one bank period and takes the fewest.

#include "solvers/cuda/device_tables.hpp"
#include "solvers/grid.hpp"

namespace decgpe::cuda {

/// Cells left unused after each grown row and each ring slot of the staged sweep.
struct StagedPads {
  int row = 0, slot = 0;
};

/// The shared-memory wavefronts of one staged block's face reads over the ring's four phases, its
/// rows and warps: 32 banks of 4 bytes, a warp's 8-byte reads taken a half-warp at a time and its
/// 16-byte reads a quarter at a time, each part as many wavefronts as the most distinct words on
/// one bank. The reads of ψ at the cells themselves, the table's and the copies are conflict-free.
long long staged_wavefronts(const Grid& g, const Tiling& t, int value_bytes, StagedPads pads);

/// The pads of fewest wavefronts among those of whole 16-byte words under one bank period (the
/// smallest of those tied; none where no padding beats none, as on cubic).
StagedPads quietest_pads(const Grid& g, const Tiling& t, int value_bytes);

/// A staged tiling's pads, where its shape gave none (−1), made quietest_pads()'.
void settle_staged_pads(Tiling& t, const Grid& g, int value_bytes);

} // namespace decgpe::cuda
