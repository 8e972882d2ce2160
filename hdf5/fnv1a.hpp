#pragma once
// A 64-bit FNV-1a hash: what identifies a run in its checkpoints and a solved state in the cache.

#include "solvers/problem.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace decgpe::io {

/// FNV-1a over bytes: stable across builds and machines of the same endianness.
class Fnv1a {
public:
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < n; ++k) {
      hash_ = (hash_ ^ p[k]) * 1099511628211ULL;
    }
  }
  template <class T> void value(const T& v) { bytes(&v, sizeof v); }
  void text(const std::string& s) {
    value(s.size());
    bytes(s.data(), s.size());
  }
  template <class T> void values(std::span<const T> v) {
    value(v.size());
    bytes(v.data(), v.size_bytes());
  }
  /// The equation but for a tabulated potential's values: lattice, the whole domain's grid, the
  /// potential's kind and g (the same for every part of a domain split over ranks).
  void problem(const Problem& p) {
    text(p.grid.lattice);
    value(p.grid.h);
    value(std::array<int, 3>{p.grid.size[0], p.grid.size[1], p.grid.global_z});
    value(p.grid.origin);
    value(static_cast<int>(p.potential.kind));
    value(p.potential.lambda);
    value(p.g);
    if (p.potential.rotation.active()) { // the lab frame's fingerprints as they were
      value(p.potential.rotation.omega);
      value(p.potential.rotation.x0);
      value(p.potential.rotation.y0);
    }
    if (p.precision != Precision::double_) { // double's fingerprints as they were
      text(std::string(precision_name(p.precision)));
    }
  }
  std::uint64_t digest() const { return hash_; }
  std::string hex() const {
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash_));
    return buffer;
  }

private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

} // namespace decgpe::io
