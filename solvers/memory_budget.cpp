#include "solvers/memory_budget.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <sys/resource.h>

namespace decgpe {

namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kComplexBytes = 16;
/// Libraries, lattice tables, the CUDA context's host side and everything else not per cell.
constexpr std::uint64_t kFixedHostBytes = 256ULL << 20;

/// The first number after `key` in a /proc-style file, times `unit`; kUnlimited when absent.
std::uint64_t read_field(const char* file, const std::string& key, std::uint64_t unit) {
  std::ifstream in(file);
  std::string word;
  while (in >> word) {
    if (word == key) {
      std::uint64_t value = 0;
      return in >> value ? value * unit : kUnlimited;
    }
  }
  return kUnlimited;
}

/// A cgroup v2 file holding one number or "max".
std::uint64_t read_cgroup(const char* file) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word) || word == "max") {
    return kUnlimited;
  }
  return std::stoull(word);
}

} // namespace

std::int64_t checked_cell_count(std::array<int, 3> size, int ms) {
  std::int64_t cells = ms;
  for (const int s : size) {
    if (s < 1 || cells > kMaxCells / s) {
      throw std::invalid_argument("a grid of " + std::to_string(size[0]) + " x " +
                                  std::to_string(size[1]) + " x " + std::to_string(size[2]) +
                                  " structures is too large (more than 2^40 cells)");
    }
    cells *= s;
  }
  return cells;
}

MemoryNeed memory_need(const RunShape& shape) {
  const auto per_cell = [&](std::uint64_t bytes) {
    return bytes * static_cast<std::uint64_t>(shape.cells);
  };
  const std::uint64_t levels = static_cast<std::uint64_t>(shape.levels);
  // Held for the whole run, of this rank's cells: ψ⁰ (the overlap's reference), ψ^{−1} of the
  // paper's start, a tabulated V, the levels for checkpoints and results (a restart reads its
  // checkpoint into them) and the snapshot buffer.
  std::uint64_t host = per_cell(kComplexBytes * (1 + (shape.previous_level ? 1 : 0) + levels + 1) +
                                (shape.tabulated_potential ? 8 : 0));
  const std::uint64_t slab_vectors = per_cell(static_cast<std::uint64_t>(shape.value_bytes) *
                                              static_cast<std::uint64_t>(shape.scheme_vectors));
  MemoryNeed need;
  if (shape.memory == MemorySpace::host) {
    host += slab_vectors;
  } else {
    need.device = slab_vectors + (64ULL << 20); // tables, reduction partials, graphs
  }
  // The set-up's Lanczos vectors (four doubles per cell) are freed before the backend allocates.
  need.host = kFixedHostBytes + std::max(host, per_cell(kComplexBytes * 2 + 32));
  return need;
}

std::uint64_t free_host_memory() {
  std::uint64_t free = read_field("/proc/meminfo", "MemAvailable:", 1024);
  const std::uint64_t limit = read_cgroup("/sys/fs/cgroup/memory.max");
  const std::uint64_t used = read_cgroup("/sys/fs/cgroup/memory.current");
  if (limit != kUnlimited && used != kUnlimited) {
    free = std::min(free, limit > used ? limit - used : 0);
  }
  struct rlimit as {};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t in_use = read_field("/proc/self/status", "VmSize:", 1024);
    const std::uint64_t cap = as.rlim_cur;
    free = std::min(free, in_use == kUnlimited || in_use > cap ? 0 : cap - in_use);
  }
  return free;
}

std::string format_bytes(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g GiB", bytes / double(1ULL << 30));
  return buffer;
}

void check_memory(const MemoryNeed& need, std::uint64_t free_host, std::uint64_t free_device) {
  if (need.host > free_host) {
    throw std::runtime_error("not enough host memory: the run needs " +
                             format_bytes(static_cast<double>(need.host)) + ", " +
                             format_bytes(static_cast<double>(free_host)) + " is free");
  }
  if (need.device > free_device) {
    throw std::runtime_error("not enough GPU memory: the run needs " +
                             format_bytes(static_cast<double>(need.device)) + ", " +
                             format_bytes(static_cast<double>(free_device)) + " is free");
  }
}

} // namespace decgpe
