// Inputs of the row-level DSP checks (tests/harness/check_*.cpp): widths
// around every vector width, windows of rows with guard samples after them.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "test_pictures.h"

namespace vmafexact::harness {

using test::Fill;
using test::kFills;
using test::samples;

// Widths: tiny, around every vector width (8, 16 lanes; 2x for the decimation),
// odd, and a large one.
inline const std::vector<unsigned> kWidths = {1,  2,  3,  5,  7,  8,  9,  15, 16, 17, 23, 24,
                                       31, 32, 33, 47, 48, 63, 64, 65, 100, 127, 129, 1283};

// fwidth rows of `w` samples and 64 more (routines may read ahead), as row pointers.
template <typename Sample>
struct Window {
  Window(std::mt19937_64& rng, unsigned fwidth, unsigned w, unsigned bpc, Fill fill) {
    for (unsigned k = 0; k < fwidth; ++k) rows.push_back(samples<Sample>(rng, w + 64, bpc, fill));
    for (auto& r : rows) pointers.push_back(r.data());
  }
  std::vector<std::vector<Sample>> rows;
  std::vector<const Sample*> pointers;
};

// Sentinel entries after (and around) output rows.
inline constexpr unsigned kGuard = 24;

// The widths of the wide-row routines (motion, PSNR): kWidths and more around
// their vector widths, and 1080p rows.
inline std::vector<unsigned> motion_widths() {
  std::vector<unsigned> widths = kWidths;
  for (unsigned w : {4u, 6u, 10u, 11u, 18u, 19u, 20u, 21u, 34u, 35u, 1920u, 1921u})
    widths.push_back(w);
  return widths;
}

// A sample drawn as `fill` says (test::sample_of).
inline std::uint32_t motion_sample(std::mt19937_64& rng, Fill fill, unsigned bpc, unsigned bytes) {
  return test::sample_of(rng, fill, bpc, bytes);
}

}  // namespace vmafexact::harness
