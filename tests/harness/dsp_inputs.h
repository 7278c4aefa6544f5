// Inputs of the row-level DSP checks (tests/harness/check_*.cpp): widths
// around every vector width, windows of rows with guard samples after them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// Equal as the scalar code's outputs must be: the same bits, or both NaN (a
// NaN's payload depends on operand order, which no score can show).
template <typename T>
bool same(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename T>
::testing::AssertionResult same_values(const std::vector<T>& ref, const std::vector<T>& twin) {
  if (ref.size() != twin.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (!same(ref[i], twin[i]))
      return ::testing::AssertionFailure()
             << "at " << i << ": " << ref[i] << " (scalar) vs " << twin[i] << " (twin)";
  return ::testing::AssertionSuccess();
}

// libvmaf's picture_copy() of a row, as DSP tables hold it (convert_row_8 and
// convert_row_16 with the 10-, 12- and 16-bit scalers): the twin against the
// scalar table on rows of every width and fill, with guard floats after them.
template <class Dsp>
void expect_same_convert_rows(const Dsp& ref, const Dsp& twin, std::mt19937_64& rng,
                              const std::vector<unsigned>& widths) {
  for (unsigned w : widths)
    for (Fill fill : kFills) {
      const auto s8 = samples<std::uint8_t>(rng, w + 64, 8, fill);
      std::vector<float> a(w + kGuard, 7.0f), b(w + kGuard, 7.0f);
      ref.convert_row_8(s8.data(), w, a.data());
      twin.convert_row_8(s8.data(), w, b.data());
      ASSERT_TRUE(same_values(a, b)) << twin.isa << " convert_row_8 w " << w;
      for (unsigned bpc : {10u, 12u, 16u}) {
        const auto s16 = samples<std::uint16_t>(rng, w + 64, bpc, fill);
        const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
        std::fill(a.begin(), a.end(), 7.0f);
        std::fill(b.begin(), b.end(), 7.0f);
        ref.convert_row_16(s16.data(), w, scaler, a.data());
        twin.convert_row_16(s16.data(), w, scaler, b.data());
        ASSERT_TRUE(same_values(a, b)) << twin.isa << " convert_row_16 bpc " << bpc << " w " << w;
      }
    }
}

}  // namespace vmafexact::harness
