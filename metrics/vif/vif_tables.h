// The two constant tables of libvmaf's integer VIF, derived at run time from
// their definitions: the four Gaussian filters in 16-bit fixed point, and the
// table of 2048 * log2(i) for 16-bit i.
#pragma once

#include <array>
#include <cstdint>

#include "vif/vif_pixel.h"

namespace vmafexact::vif {

inline constexpr unsigned kScaleCount = 4;
inline constexpr unsigned kMaxFilterWidth = 17;

// One 1-D filter: `width` taps (17, 9, 5, 3 at scales 0..3) of a Gaussian with
// sigma = width / 5, in units of 1/65536, symmetric and summing to exactly 65536.
struct Filter {
  unsigned width = 0;
  std::array<std::uint16_t, kMaxFilterWidth> taps{};
  unsigned half() const { return width / 2; }
};

// The filter libvmaf's integer VIF uses at `scale` (0..3). Scale s is both the
// filter of VIF's statistics at scale s and the low-pass applied to scale s-1
// before it is decimated into scale s.
const Filter& vif_filter(unsigned scale);

// Builds the filter of `width` taps: round(65536 * g_k / sum(g)) for
// g_k = exp(-k^2 / (2 sigma^2)), sigma = width / 5, then the symmetric integer
// vector closest in the least-squares sense to those exact values among those
// within one unit of the rounded ones that sum to 65536. (Plain rounding gives
// sums of 65534 and 65537 for 17 and 9 taps; libvmaf's tables are this vector.)
Filter make_gaussian_filter(unsigned width);

// 2048 * log2(i) rounded, as libvmaf tabulates it: log2 of the float i, rounded
// to float, times 2048 (exact in float), rounded half away from zero. libvmaf
// fills i = 32767..65535 and reads only 32768..65535.
class Log2Table {
 public:
  static constexpr unsigned kFirst = 32767;
  static constexpr unsigned kLast = 65535;

  Log2Table();
  std::uint16_t operator[](unsigned i) const { return table_[i]; }

  // log2 of a 32-bit value >= 2^16 in units of 1/2048: its top 16 bits looked up,
  // plus 2048 per bit dropped (libvmaf's log2_32; vif_pixel.h).
  std::int32_t log2_32(std::uint32_t x) const { return vif_log2_32(table_.data(), x); }
  // The same for a 64-bit value >= 2^17 (libvmaf's log2_64).
  std::int32_t log2_64(std::uint64_t x) const { return vif_log2_64(table_.data(), x); }

  // All 65536 entries (0 below kFirst), e.g. for a copy in device memory.
  const std::uint16_t* data() const { return table_.data(); }

 private:
  std::array<std::uint16_t, 65536> table_{};
};

const Log2Table& log2_table();

// The value of one entry computed from the definition: float(log2(i)) * 2048,
// rounded half away from zero (log2 evaluated in double and rounded once to
// float, which equals the correctly rounded float log2 of these i).
std::uint16_t log2_entry(unsigned i);

}  // namespace vmafexact::vif
