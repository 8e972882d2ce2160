#include "solvers/cuda/staged_banks.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace decgpe::cuda {

namespace {

constexpr int kBankBytes = 128; // 32 banks of 4 bytes: one wavefront
constexpr int kWarp = 32;
constexpr int kSlots = 4; // the ring's (kStagedSlots)

/// A lane's read of a face: where it lies in the ring, in values.
struct Read {
  int thread;
  long long word;
};

/// The grown tile's geometry with pads: the staged sweep's StagedShape, on the host.
struct Geometry {
  int ms, lead, row, cells, rows_at_once, rows_a_thread;

  Geometry(const Grid& g, const Tiling& t, StagedPads pads)
      : ms(g.ms), lead(g.ms == 1 ? 2 : g.ms), row(t.tile * g.ms + 2 * lead + pads.row),
        cells(row * (t.rows + 2) + pads.slot), rows_at_once(t.threads / (t.tile * g.ms)),
        rows_a_thread((t.rows + rows_at_once - 1) / rows_at_once) {}
};

/// The wavefronts of one request: `reads` of a warp's lanes, `group` lanes at a time, each word on
/// bank (word mod group) when a word is 128 / group bytes.
long long request_wavefronts(const std::vector<Read>& reads, int group) {
  long long total = 0;
  for (int first = 0; first < kWarp; first += group) {
    std::unordered_map<long long, std::unordered_set<long long>> on_bank;
    for (const Read& r : reads) {
      if (r.thread >= first && r.thread < first + group) {
        on_bank[r.word % group].insert(r.word);
      }
    }
    std::size_t most = 0;
    for (const auto& [bank, words] : on_bank) {
      most = std::max(most, words.size());
    }
    total += static_cast<long long>(most);
  }
  return total;
}

/// Where `thread` reads face f in its r-th row in ring phase `phase`; false where it reads none.
bool face_read(const Grid& g, const Tiling& t, const Geometry& s, int thread, int r, int f,
               int phase, long long& word) {
  const int width = t.tile * g.ms;
  const int column = thread % width, ty = thread / width + r * s.rows_at_once;
  const int l = column % g.ms;
  const int entry = g.row_begin[static_cast<std::size_t>(l)] + f;
  if (thread >= t.threads || ty >= t.rows ||
      entry >= g.row_begin[static_cast<std::size_t>(l) + 1]) {
    return false;
  }
  const StencilEntry& e = g.stencil[static_cast<std::size_t>(entry)];
  const int slots = (phase + e.dz + kSlots) % kSlots - phase;
  const long long at =
      static_cast<long long>(phase) * s.cells + (ty + 1LL) * s.row + s.lead + column;
  word =
      at + static_cast<long long>(slots) * s.cells + e.dy * s.row + e.dx * g.ms + e.neighbour - l;
  return true;
}

} // namespace

long long staged_wavefronts(const Grid& g, const Tiling& t, int value_bytes, StagedPads pads) {
  const Geometry s(g, t, pads);
  const int group = kBankBytes / value_bytes;
  int faces = 0;
  for (int l = 0; l < g.ms; ++l) {
    faces = std::max(faces, g.row_begin[static_cast<std::size_t>(l) + 1] -
                                g.row_begin[static_cast<std::size_t>(l)]);
  }
  long long total = 0;
  std::vector<Read> reads;
  for (int phase = 0; phase < kSlots; ++phase) {
    for (int r = 0; r < s.rows_a_thread; ++r) {
      for (int warp = 0; warp * kWarp < t.threads; ++warp) {
        for (int f = 0; f < faces; ++f) {
          reads.clear();
          for (int lane = 0; lane < kWarp; ++lane) {
            long long word = 0;
            if (face_read(g, t, s, warp * kWarp + lane, r, f, phase, word)) {
              reads.push_back({lane, word});
            }
          }
          total += request_wavefronts(reads, group);
        }
      }
    }
  }
  return total;
}

StagedPads quietest_pads(const Grid& g, const Tiling& t, int value_bytes) {
  const int unit = 16 / value_bytes; // pads of whole 16-byte words keep the copies aligned
  const int period = kBankBytes / value_bytes; // a pad of a period shifts no bank
  StagedPads best;
  long long fewest = std::numeric_limits<long long>::max();
  for (int slot = 0; slot < period; slot += unit) {
    for (int row = 0; row < period; row += unit) {
      const long long w = staged_wavefronts(g, t, value_bytes, {row, slot});
      if (w < fewest || (w == fewest && row + slot < best.row + best.slot)) {
        fewest = w;
        best = {row, slot};
      }
    }
  }
  return best;
}

void settle_staged_pads(Tiling& t, const Grid& g, int value_bytes) {
  if (t.staged && t.row_pad < 0) { // a shape gives both pads or neither
    const StagedPads quiet = quietest_pads(g, t, value_bytes);
    t.row_pad = quiet.row;
    t.slot_pad = quiet.slot;
  }
}

} // namespace decgpe::cuda
