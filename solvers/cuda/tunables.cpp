#include "solvers/cuda/tunables.hpp"

namespace decgpe::cuda {

namespace {

Tunable block_shape() {
  return {.key = "cuda.block_shape",
          .type = Tunable::Type::string,
          .units = "name",
          .default_value = "none",
          .choices = {"sweep", "1x256", "1x512", "2x256"},
          .meaning =
              "The `cuda:plain` leapfrog kernel's blocks: `sweep` (blocks walk z-slices, the "
              "fastest on every lattice; five blocks an SM in single and mixed precision in the "
              "lab frame, four elsewhere, and there on cubic a thread takes two instances; the lab "
              "frame's leapfrog on cubic, cubic4, BCC and FCC in single and mixed precision "
              "takes the staged sweep, tiles of 64 × 8, 8 × 8 or 4 × 8 instances in shared memory, "
              "where the grid fits it) or one "
              "slice a block, y-rows × threads (docs/gpu.md); "
              "unset: `DECGPE_PLAIN_SHAPE`, else `\"sweep\"`.",
          .environment = "DECGPE_PLAIN_SHAPE",
          .environment_default = "`sweep`",
          .environment_meaning =
              "`cuda.block_shape` where the case sets none (or no case is read, as in "
              "`bench_step`); besides the case's four values it takes the sweep's settings for "
              "tuning a new GPU (`1x256z8a2b4f`, `p` for pairs of instances) and the staged "
              "sweep's (`t64x8z32a0b4`: docs/gpu.md); "
              "anything else fails the run. The "
              "results record the shape used and where it came from (case, environment or "
              "default) in the attribute `tuning_cuda_block_shape`."};
}

Tunable graphs() {
  return {.key = "cuda.graphs",
          .type = Tunable::Type::boolean,
          .units = "—",
          .default_value = "none",
          .meaning = "Replay pairs of leapfrog steps as CUDA graphs; unset: `DECGPE_CUDA_GRAPHS`, "
                     "else on.",
          .environment = "DECGPE_CUDA_GRAPHS",
          .environment_default = "on",
          .environment_meaning =
              "`cuda.graphs` where the case sets none: `0` or `off` turns the graphs off, any "
              "other value leaves them on. The results record the setting used and where it came "
              "from in the attribute `tuning_cuda_graphs`."};
}

// bench_step also takes the kernel's shape after k (2x32y8z64: parse_blocked, the temporal
// blocking; 2s1l4r4b8: parse_wavefront); a case file gives k alone.
Tunable steps_per_sweep() {
  return {.key = "cuda.steps_per_sweep",
          .type = Tunable::Type::integer,
          .units = "steps",
          .default_value = "none",
          .lo = 1,
          .hi = 8,
          .meaning =
              "k: the `cuda` leapfrog's steps per launch on one GPU, bitwise k single steps. On "
              "cubic (k = 2-4) the temporal blocking: a block keeps k levels of a tile of slices "
              "in shared memory and writes the last two, 64 B per k updates; on the H100 at 64M "
              "DOFs k = 2 runs at 65.4 G DOF-updates/s against the single step's 60.6, k = 3 and 4"
              " slower; on an H200 k = 2 is slower (65.3 against 66.9 at 64M DOFs, 54.0 against "
              "64.8 at 8M; docs/gpu.md, \"Several steps a launch\"). It takes two more vectors of "
              "the grid's size. Elsewhere the wavefront (step j + 1 reads step j's level back from"
              " L2), slower than single steps on every lattice. Runs of steps that are not a "
              "multiple of k end with single steps. Unset: 1. Recorded as "
              "`tuning_cuda_steps_per_sweep` (and the kernel's shape). A slab rank takes k steps a"
              " launch with the temporal blocking where its halos hold k slices "
              "(`scaleout.halo_depth`), their exchange made before the launch, and singly where "
              "its single steps would exchange inside one; the other schemes, the rotating frame "
              "and single and mixed precision step one at a time.",
          .bench_tag = "k",
          .only_scheme = "leapfrog"};
}

// bench_step also takes the tile after the count (2x16y8z64: parse_blocked).
Tunable rk4_stages_per_sweep() {
  return {.key = "cuda.rk4_stages_per_sweep",
          .type = Tunable::Type::integer,
          .units = "stages",
          .default_value = "none",
          .lo = 1,
          .hi = 2,
          .meaning =
              "RK4's stages per pass over memory on one GPU: 2 fuses stages 0-1 and 2-3 on the "
              "temporal blocking's tiles (y and k of the first stage of a pair kept in shared "
              "memory), 112 B per cell and step instead of 256, bitwise the four stages "
              "(docs/gpu.md, \"RK4's stages in pairs\"). It takes one more vector of the grid's "
              "size. Unset: 2 where an instance is one cell and the tiles make a wave of 3 blocks "
              "an SM (cubic on the H100: 15.5 G cell-steps/s against 11.5 at 64M DOFs, 1.13x at 8M "
              "with 500 blocks; at 1M, 104 blocks, 2.3x slower), else 1 (BCC, FCC and cubic4 "
              "measured slower: the "
              "grown rims of larger instances). Recorded as `tuning_cuda_rk4_stages_per_sweep` "
              "(with the tile); "
              "the rotating frame, slab ranks, single and mixed precision, and instances of more "
              "than 12 cells run a stage a pass.",
          .bench_tag = "s",
          .only_scheme = "rk4"};
}

} // namespace

const TunableTable& tunables() {
  static const TunableTable table{
      "cuda",
      "The CUDA backend's tunables: they change its speed, never its results, and are recorded "
      "in the results.",
      {block_shape(), graphs(), steps_per_sweep(), rk4_stages_per_sweep()}};
  return table;
}

} // namespace decgpe::cuda
