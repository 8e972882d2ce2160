#pragma once
// RAII for HDF5 identifiers and a status check, shared by everything in decgpe that reads or writes
// HDF5 through the C API (results files, the vortex cache). Failures become exceptions with one
// line of our own; callers turn HDF5's automatic error printing off.

#include <cerrno>
#include <cstring>
#include <hdf5.h>
#include <stdexcept>
#include <string>

namespace decgpe::hdf5 {

/// `what`, and the system's reason where the failure was the disk's (HDF5 leaves the errno of its
/// failed write): "…: No space left on device".
inline std::string with_cause(const std::string& what) {
  const int e = errno;
  const bool disk = e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO || e == EROFS;
  return disk ? what + ": " + std::strerror(e) : what;
}

/// Closes an HDF5 identifier when it leaves scope; a negative identifier throws `what`.
class Handle {
public:
  Handle(hid_t id, herr_t (*closer)(hid_t), const std::string& what) : id_(id), close_(closer) {
    if (id_ < 0) {
      throw std::runtime_error(with_cause(what));
    }
  }
  ~Handle() {
    if (id_ >= 0) {
      close_(id_);
    }
  }
  /// Closes now and reports failure (a file's data reach the disk when it closes).
  herr_t close() {
    const herr_t status = close_(id_);
    id_ = -1;
    return status;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hid_t() const { return id_; }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

inline void check(herr_t status, const std::string& what) {
  if (status < 0) {
    throw std::runtime_error(with_cause(what));
  }
}

} // namespace decgpe::hdf5
