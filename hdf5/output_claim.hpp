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
/// run left are removed once its lock is held. Folders it had to create for a target are removed
/// again on release when nothing was written into them (a refused run leaves no empty folder).
class OutputClaim {
public:
  OutputClaim(const std::vector<OutputTarget>& targets,
              const std::vector<std::filesystem::path>& inputs);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

private:
  void release();
  /// Remembers the folders above a target that do not exist yet (the claim creates them).
  void note_missing_folders(const std::filesystem::path& folder);
  struct Lock {
    std::filesystem::path path;
    int fd;
  };
  std::vector<Lock> locks_;
  std::vector<std::filesystem::path> created_; ///< deepest first; removed on release when empty
};

} // namespace decgpe::io
