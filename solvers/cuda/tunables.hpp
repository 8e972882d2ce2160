#pragma once
// The CUDA backend's tunables as the case file's [cuda] table: compiled in every build, so that a
// case written for a GPU reads (and docs/cases.md comes out the same) on a machine without one.

#include "solvers/backend_tuning.hpp"

namespace decgpe::cuda {

/// [cuda]: the block shape, the CUDA graphs and the leapfrog's steps per launch.
const TunableTable& tunables();

} // namespace decgpe::cuda
