#pragma once
// Claims the files a run will write before it starts, so that a wrong target fails at once and two
// runs cannot write the same file.

#include <filesystem>
#include <vector>

namespace decgpe::io {

/// A file a run will write, and whether an existing one may be replaced.
struct OutputTarget {
  std::filesystem::path path;
  bool may_replace = false;
};

/// Holds a lock (flock on `<target>.lock`, released by the kernel even on SIGKILL) on each target
/// for as long as it lives. Refuses, with one line naming the target: an existing file unless it
/// may be replaced; anything that is not a regular file (a folder, a device, a FIFO); a target
/// that is one of the `inputs`; a target another run holds. Temporaries of a target that a killed
/// run left are removed once its lock is held.
class OutputClaim {
public:
  OutputClaim(const std::vector<OutputTarget>& targets,
              const std::vector<std::filesystem::path>& inputs);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

private:
  void release();
  struct Lock {
    std::filesystem::path path;
    int fd;
  };
  std::vector<Lock> locks_;
};

} // namespace decgpe::io
