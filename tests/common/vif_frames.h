// The synthetic luma frames of the VIF tests: the unit tests' expected scores
// were printed by libvmaf fed these very frames (tests/unit/test_vif.cpp), and
// the CUDA twin's checks (tests/harness/check_vif_cuda.cpp) draw theirs from
// the same generator with a seed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vmafexact::test {

enum class VifPattern { kNoise, kEdges, kExtremes, kFlat, kNoisyCopy, kAboveRange };

// Marsaglia's xorshift32: the same numbers on every platform and library.
struct XorShift {
  std::uint32_t state;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

// One synthetic luma frame, row-major, width * height samples. Seed 0 gives
// the frames libvmaf scored for the unit tests; kAboveRange uses the whole
// 16-bit range whatever bpc says (libvmaf reads such samples, and so must the
// twins).
inline std::vector<std::uint16_t> vif_frame(VifPattern pattern, unsigned width, unsigned height,
                                            unsigned bpc, bool distorted, std::uint32_t seed = 0) {
  const unsigned max = pattern == VifPattern::kAboveRange && bpc > 8 ? 65535u : (1u << bpc) - 1;
  XorShift rng{(distorted ? 0x9e3779b9u : 0x12345678u) ^ seed};
  std::vector<std::uint16_t> frame(static_cast<std::size_t>(width) * height);
  for (unsigned y = 0; y < height; ++y)
    for (unsigned x = 0; x < width; ++x) {
      unsigned v = 0;
      switch (pattern) {
        case VifPattern::kNoise:
        case VifPattern::kAboveRange:
          v = rng.next() % (max + 1);
          break;
        case VifPattern::kEdges: {
          const unsigned xs = distorted ? x + 1 : x;
          v = ((xs / 4 + y / 4) % 2) ? max : 0;
          if (distorted && (x * 7 + y * 3) % 23 == 0) v = max / 2;
          break;
        }
        case VifPattern::kExtremes: {
          XorShift cell{(y * width + x) * 2654435761u + 1u + seed};
          v = (cell.next() & 1) ? max : 0;
          if (distorted && rng.next() % 4 == 0) v = max - v;
          break;
        }
        case VifPattern::kFlat:
          v = distorted ? max / 2 : max / 3;
          break;
        case VifPattern::kNoisyCopy: {
          XorShift cell{(y * width + x) * 2246822519u + 7u + seed};
          const long base = static_cast<long>((x * 5 + y * 3) % 64) * max / 64 +
                            static_cast<long>(cell.next() % (max / 8 + 1));
          const long noise = distorted ? static_cast<long>(rng.next() % 9) - 4 : 0;
          v = static_cast<unsigned>(std::clamp(base + noise * static_cast<long>(max / 255 + 1), 0L,
                                               static_cast<long>(max)));
          break;
        }
      }
      frame[static_cast<std::size_t>(y) * width + x] = static_cast<std::uint16_t>(v);
    }
  return frame;
}

}  // namespace vmafexact::test
