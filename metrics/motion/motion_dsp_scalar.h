// The scalar references of motion_dsp.h's routines, over column ranges so the
// SIMD twins can hand them their borders and tails.
#pragma once

#include <cstdint>

#include "motion/motion.h"
#include "motion/motion_dsp.h"
#include "motion/motion_pixel.h"

namespace vmafexact::motion::scalar {

// The values v[x] for x in [begin, end), split into hi[x] and lo[x]
// (motion_dsp.h); returns the OR of the values.
template <typename Sample>
inline std::int32_t vertical(const Sample* const* prev, const Sample* const* cur, unsigned bpc,
                             unsigned begin, unsigned end, std::int16_t* hi, std::int16_t* lo) {
  std::int32_t any_nonzero = 0;
  for (unsigned x = begin; x < end; ++x) {
    std::int64_t diff[5];
    for (int k = 0; k < 5; ++k)
      diff[k] = static_cast<std::int32_t>(prev[k][x]) - static_cast<std::int32_t>(cur[k][x]);
    const std::int32_t v =
        pixel::vertical_round(pixel::filter5(diff[0], diff[1], diff[2], diff[3], diff[4]), bpc);
    hi[x] = split_hi(v);
    lo[x] = split_lo(v);
    any_nonzero |= v;
  }
  return any_nonzero;
}

// The wrapping uint32 sum of horizontal_abs() over columns [begin, end) of a
// row of width w (mirrored at both ends), its values split (motion_dsp.h).
inline std::uint32_t horizontal(const std::int16_t* hi, const std::int16_t* lo, unsigned begin,
                                unsigned end, unsigned w) {
  const int width = static_cast<int>(w);
  const int first = static_cast<int>(begin);
  const int last = static_cast<int>(end);  // exclusive
  std::uint32_t sad = 0;
  auto add = [&](std::int64_t sum) { sad += pixel::horizontal_abs(sum); };
  const auto value = [&](int x) { return std::int64_t{split_join(hi[x], lo[x])}; };
  auto mirrored_sum = [&](int x) {
    const auto at = [&](int k) { return value(pixel::mirror(x - kFilterRadius + k, width)); };
    return pixel::filter5(at(0), at(1), at(2), at(3), at(4));
  };
  // Columns below kFilterRadius and from width - kFilterRadius on are mirrored.
  const int interior_begin = kFilterRadius > first ? kFilterRadius : first;
  const int interior_end = width - kFilterRadius < last ? width - kFilterRadius : last;
  int x = first;
  for (; x < interior_begin && x < last; ++x) add(mirrored_sum(x));
  for (; x < interior_end; ++x)
    add(pixel::filter5(value(x - 2), value(x - 1), value(x), value(x + 1), value(x + 2)));
  for (; x < last; ++x) add(mirrored_sum(x));
  return sad;
}

}  // namespace vmafexact::motion::scalar
