#pragma once
// NVTX ranges, so that an Nsight Systems timeline reads like the algorithm (steps, diagnostics,
// snapshots, I/O). Without the CUDA toolkit they compile to nothing.

#if DECGPE_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace decgpe {

class NvtxRange {
public:
#if DECGPE_HAVE_NVTX
  explicit NvtxRange(const char* name) {
    nvtxRangePushA(name);
  }
  ~NvtxRange() {
    nvtxRangePop();
  }
#else
  explicit NvtxRange(const char* /*name*/) {}
#endif
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

} // namespace decgpe
