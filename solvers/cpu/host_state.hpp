#pragma once
// The two leapfrog buffers and the reference state in host memory, shared by the CPU backends.

#include "solvers/backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace decgpe::cpu {

class HostState {
public:
  explicit HostState(std::int64_t cells)
      : a_(static_cast<std::size_t>(cells)), b_(a_.size()), reference_(a_.size()) {}

  void load(std::span<const Complex> previous, std::span<const Complex> current,
            std::span<const Complex> reference) {
    if (previous.size() != a_.size() || current.size() != a_.size() ||
        reference.size() != a_.size()) {
      throw std::invalid_argument("state has the wrong number of cells");
    }
    std::copy(previous.begin(), previous.end(), a_.begin());
    std::copy(current.begin(), current.end(), b_.begin());
    std::copy(reference.begin(), reference.end(), reference_.begin());
    previous_ = a_.data();
    current_ = b_.data();
  }
  void store(std::span<Complex> current, std::span<Complex> previous) const {
    std::copy(current_, current_ + a_.size(), current.begin());
    std::copy(previous_, previous_ + a_.size(), previous.begin());
  }
  /// After a step has overwritten ψ^{n−1} with ψ^{n+1}.
  void swap() { std::swap(previous_, current_); }

  Complex* previous() { return previous_; }
  const Complex* current() const { return current_; }
  const Complex* reference() const { return reference_.data(); }

private:
  std::vector<Complex> a_, b_, reference_;
  Complex* previous_ = a_.data();
  Complex* current_ = b_.data();
};

} // namespace decgpe::cpu
