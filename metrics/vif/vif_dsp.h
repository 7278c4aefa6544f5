// The DSP routines of integer VIF's per-pixel stage, one row at a time, and
// their dispatch table (dav1d's model, metrics/common/cpu.h).
//
// vif_dsp_scalar.h holds the scalar reference of each routine: the ground
// truth, written as libvmaf's C code computes it. vif_dsp_simd.cpp
// (compiled once per ISA) holds twins that must give identical outputs for every
// input (tests/unit/test_simd.cpp checks it, checkasm-style). Every routine is
// integer arithmetic except accumulate_pixel's double gain, which the twins
// compute with the same IEEE operations per element (no FMA, no reordering);
// integer sums are exact in any order.
#pragma once

#include <array>
#include <cstdint>

#include "vif/vif.h"
#include "vif/vif_tables.h"

namespace vmafexact::vif {

// The rounding of the statistic's vertical pass: means (acc + round_mu) >>
// shift_mu cut to 16 bits, squares (acc + round_sq) >> shift_sq cut to 32 bits.
struct VerticalRounding {
  std::uint32_t round_mu = 0;
  unsigned shift_mu = 0;
  std::uint64_t round_sq = 0;
  unsigned shift_sq = 0;
};

// The statistic's row buffers: filtered ref and dis (mu1, mu2, 16 bits), and
// ref^2, dis^2, ref*dis, each of these 32-bit sums stored as its low and its
// high 16 bits in two rows (xx = xx_hi << 16 | xx_lo). Every entry is a value
// below 2^16 stored biased, as value - 32768 in an int16 (biased()). The SIMD
// twins' horizontal pass filters these rows with int16 multiply-adds (pmaddwd,
// two taps per instruction; the taps sum to 65536, so a filtered row fits in
// 32 bits and the bias adds a known 32768 * 65536); the scalar reference
// reads the values back (unbiased(), join_split()). For the horizontal pass
// they point at column 0 and are readable from column -half to w - 1 + half
// (mirrored), and one column beyond.
struct StatRows {
  std::int16_t* mu1;
  std::int16_t* mu2;
  std::int16_t* xx_lo;
  std::int16_t* xx_hi;
  std::int16_t* yy_lo;
  std::int16_t* yy_hi;
  std::int16_t* xy_lo;
  std::int16_t* xy_hi;

  static constexpr unsigned kCount = 8;
  // Every row, in the order above.
  std::array<std::int16_t*, kCount> all() const {
    return {mu1, mu2, xx_lo, xx_hi, yy_lo, yy_hi, xy_lo, xy_hi};
  }
};

// A value below 2^16 as a StatRows entry, and back.
inline std::int16_t biased(std::uint32_t value) {
  return static_cast<std::int16_t>(static_cast<std::int32_t>(value) - 32768);
}
inline std::uint32_t unbiased(std::int16_t entry) {
  return static_cast<std::uint32_t>(std::int32_t{entry} + 32768);
}

// A 32-bit vertical sum stored split, and joined back.
inline void store_split(std::int16_t* lo, std::int16_t* hi, unsigned j, std::uint32_t value) {
  lo[j] = biased(value & 0xFFFF);
  hi[j] = biased(value >> 16);
}
inline std::uint32_t join_split(const std::int16_t* lo, const std::int16_t* hi, int j) {
  return unbiased(hi[j]) << 16 | unbiased(lo[j]);
}

// Vertical pass of the statistic at one row: `ref[k]`, `dis[k]` (k < fwidth)
// are the rows of the filter window; columns 0 .. w-1 are written to `out`.
template <typename Sample>
using StatVerticalFn = void (*)(const Sample* const* ref, const Sample* const* dis,
                                const Filter& filter, const VerticalRounding& rounding, unsigned w,
                                const StatRows& out);

// The 8-bit vertical pass for kStatBlock consecutive rows at once: `ref[k]`,
// `dis[k]` (k < fwidth + kStatBlock - 1) are the rows of the block's window and
// output row n (n < kStatBlock) is the StatVerticalFn of rows n .. n + fwidth - 1,
// written to out[n] (kStatBlock: vif.h). The SIMD twins read each window row
// once for the block. With `lowpass`, the block also gives the decimation's
// vertical low-pass (LowpassVerticalFn) of its rows 0 and 2 (the even picture
// rows of a block that starts on one), centred on the same rows: row n's
// window is rows n + half - lowpass.filter->half() on.
struct LowpassRows {
  const Filter* filter;
  std::uint32_t round;
  unsigned shift;
  std::int16_t* ref_out[2];  // block rows 0 and 2
  std::int16_t* dis_out[2];
};
using StatVerticalBlockFn = void (*)(const std::uint8_t* const* ref, const std::uint8_t* const* dis,
                                     const Filter& filter, const VerticalRounding& rounding,
                                     unsigned w, const StatRows* out, const LowpassRows* lowpass);

// Horizontal pass of the statistic at one row and accumulate_pixel() per pixel,
// for columns 0 .. w-1, added to `sums`.
using StatHorizontalFn = void (*)(const StatRows& in, const Filter& filter, unsigned w,
                                  const std::uint16_t* log2_table, double enhn_gain_limit,
                                  ScaleSums& sums);

// Vertical low-pass before decimation at one row: (acc + round) >> shift cut to
// 16 bits, columns 0 .. w-1, for both pictures, stored biased (biased(): the
// horizontal pass filters int16 pairs, as the statistic's does).
template <typename Sample>
using LowpassVerticalFn = void (*)(const Sample* const* ref, const Sample* const* dis,
                                   const Filter& filter, std::uint32_t round, unsigned shift,
                                   unsigned w, std::int16_t* ref_out, std::int16_t* dis_out);

// Horizontal low-pass at the even columns of a biased row: output oj
// (0 .. out_w-1) filters the (mirrored) row around column 2*oj,
// (acc + 32768) >> 16 cut to 16 bits.
using LowpassHorizontalFn = void (*)(const std::int16_t* ref_in, const std::int16_t* dis_in,
                                     const Filter& filter, unsigned out_w, std::uint16_t* ref_out,
                                     std::uint16_t* dis_out);

struct VifDsp {
  const char* isa;
  StatVerticalFn<std::uint8_t> stat_vertical_8;
  StatVerticalFn<std::uint16_t> stat_vertical_16;
  StatVerticalBlockFn stat_vertical_8_block;
  StatHorizontalFn stat_horizontal;
  LowpassVerticalFn<std::uint8_t> lowpass_vertical_8;
  LowpassVerticalFn<std::uint16_t> lowpass_vertical_16;
  LowpassHorizontalFn lowpass_horizontal;
};

// The scalar reference table.
const VifDsp& vif_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const VifDsp* vif_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags` (cpu::flags() by default).
const VifDsp& vif_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const VifDsp& vif_dsp_avx2();
const VifDsp& vif_dsp_avx512();
const VifDsp& vif_dsp_avx512vnni();  // needs cpu::kAvx512Vnni too
#endif

}  // namespace vmafexact::vif
