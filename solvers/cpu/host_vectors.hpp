#pragma once
// The vectors of a CPU backend in host memory, by VectorId, of Value (a precision's stored complex:
// solvers/precision.hpp); upload rounds the FP64 values to it, download widens them back exactly.

#include "solvers/backend.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace decgpe::cpu {

template <class Value> class HostVectors {
public:
  explicit HostVectors(std::int64_t cells) : cells_(static_cast<std::size_t>(cells)) {}

  VectorId create() {
    std::vector<Value> v;
    try {
      v.resize(cells_);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error("host out of memory: a state vector of " + std::to_string(cells_) +
                               " cells (" + std::to_string(cells_ * sizeof(Value) >> 20) +
                               " MiB) cannot be allocated");
    }
    const auto free = std::find_if(store_.begin(), store_.end(),
                                   [](const std::vector<Value>& s) { return s.empty(); });
    if (free != store_.end()) {
      *free = std::move(v);
      return static_cast<VectorId>(free - store_.begin());
    }
    store_.push_back(std::move(v));
    return static_cast<VectorId>(store_.size() - 1);
  }
  void destroy(VectorId v) { std::vector<Value>().swap(at(v)); }

  void upload(VectorId v, std::span<const Complex> values) {
    check_size(values.size());
    std::transform(values.begin(), values.end(), at(v).begin(),
                   [](const Complex& a) { return convert<decltype(Value::re)>(a); });
  }
  void download(VectorId v, std::span<Complex> values) {
    check_size(values.size());
    std::transform(at(v).begin(), at(v).end(), values.begin(),
                   [](const Value& a) { return convert<double>(a); });
  }

  Value* operator[](VectorId v) { return at(v).data(); }
  /// The vector, or nullptr for kNoVector.
  const Value* optional(VectorId v) { return v == kNoVector ? nullptr : at(v).data(); }
  std::size_t cells() const { return cells_; }

private:
  std::vector<Value>& at(VectorId v) {
    if (v < 0 || static_cast<std::size_t>(v) >= store_.size() || store_[v].empty()) {
      throw std::logic_error("no such vector: " + std::to_string(v));
    }
    return store_[static_cast<std::size_t>(v)];
  }
  void check_size(std::size_t n) const {
    if (n != cells_) {
      throw std::invalid_argument("a state of " + std::to_string(n) + " values for a grid of " +
                                  std::to_string(cells_) + " cells");
    }
  }

  std::size_t cells_;
  std::vector<std::vector<Value>> store_;
};

} // namespace decgpe::cpu
