#include "hdf5/output_claim.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace decgpe::io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const fs::path& target, const std::string& reason) {
  throw std::runtime_error("cannot write output '" + target.string() + "': " + reason);
}

void check_target(const fs::path& target, const std::vector<fs::path>& inputs, bool replace) {
  if (target.empty() || target.filename().empty() || target.filename() == "." ||
      target.filename() == "..") {
    refuse(target, "not a file name");
  }
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (!fs::exists(status)) {
    return;
  }
  if (fs::is_directory(status)) {
    refuse(target, "is a directory");
  }
  if (!fs::is_regular_file(status)) {
    refuse(target, "not a regular file");
  }
  for (const fs::path& input : inputs) {
    if (fs::equivalent(target, input, ec)) {
      refuse(target, "it is the input '" + input.string() + "'");
    }
  }
  if (!replace) {
    refuse(target, "exists (--force replaces it)");
  }
}

/// Temporaries of `target` (ResultsFile's "<name>.tmp-<pid>") that a killed run left behind: with
/// the target's lock held, no live run is writing them.
void remove_stale_temporaries(const fs::path& target) {
  const fs::path folder = target.has_parent_path() ? target.parent_path() : ".";
  const std::string prefix = target.filename().string() + ".tmp-";
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    if (e.path().filename().string().starts_with(prefix)) {
      fs::remove(e.path(), ec);
    }
  }
}

/// Refuses names too long for the files beside them and two targets that are one file.
void check_names(const std::vector<OutputTarget>& targets) {
  // The longest name given to a target's files: its temporary, "<name>.tmp-<pid>" (pid ≤ 4194304).
  constexpr std::size_t kLongestSuffix = std::string_view(".tmp-4194304").size();
  for (const OutputTarget& t : targets) {
    const std::size_t length = t.path.filename().string().size();
    if (length + kLongestSuffix > NAME_MAX) {
      refuse(t.path, "its file name is " + std::to_string(length) +
                         " characters, too long for the temporary and lock beside it (file "
                         "names take at most " +
                         std::to_string(NAME_MAX) + ")");
    }
  }
  for (std::size_t k = 0; k < targets.size(); ++k) {
    for (std::size_t j = 0; j < k; ++j) {
      std::error_code ec;
      if (fs::weakly_canonical(targets[j].path, ec) == fs::weakly_canonical(targets[k].path, ec)) {
        refuse(targets[k].path, "named for two outputs");
      }
    }
  }
}

/// The descriptor of `lock` (target's lock file), opened and locked, or a refusal when another run
/// holds it.
int take_lock(const fs::path& target, const fs::path& lock) {
  // The lock file may have been unlinked by the run that held it between our open and flock:
  // then it is not the file under that name, and we try again.
  for (;;) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      refuse(target, std::string("cannot create its lock: ") + std::strerror(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      refuse(target, "another run is writing it (" + lock.string() + " is locked)");
    }
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(lock.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
      return fd;
    }
    ::close(fd);
  }
}

} // namespace

OutputClaim::OutputClaim(const std::vector<OutputTarget>& targets,
                         const std::vector<fs::path>& inputs) {
  check_names(targets);
  try {
    for (const auto& [target, may_replace] : targets) {
      check_target(target, inputs, may_replace);
      std::error_code ec;
      if (target.has_parent_path()) {
        note_missing_folders(target.parent_path());
        fs::create_directories(target.parent_path(), ec);
        if (ec) {
          refuse(target, ec.message());
        }
      }
      fs::path lock = target;
      lock += ".lock";
      locks_.push_back({lock, take_lock(target, lock)});
      remove_stale_temporaries(target);
    }
  } catch (...) {
    release();
    throw;
  }
}

OutputClaim::~OutputClaim() {
  release();
}

void OutputClaim::note_missing_folders(const fs::path& folder) {
  std::error_code ec;
  std::vector<fs::path> missing;
  for (fs::path f = fs::absolute(folder, ec); !f.empty() && !fs::exists(f, ec);
       f = f.parent_path()) {
    missing.push_back(f); // deepest first
    if (f == f.root_path()) {
      break;
    }
  }
  created_.insert(created_.end(), missing.begin(), missing.end());
}

void OutputClaim::release() {
  for (const Lock& lock : locks_) {
    ::unlink(lock.path.c_str()); // before the unlock: a waiting run then retries on a new file
    ::close(lock.fd);
  }
  locks_.clear();
  // The folders this claim made go again if nothing was written into them (a refused run);
  // fs::remove leaves a folder that holds anything.
  for (const fs::path& folder : created_) {
    std::error_code ec;
    fs::remove(folder, ec);
  }
  created_.clear();
}

} // namespace decgpe::io
