// The DSP routines of integer VIF's per-pixel stage, one row at a time, and
// their dispatch table (dav1d's model, metrics/common/cpu.h).
//
// vif_dsp_scalar.h holds the scalar reference of each routine: the ground
// truth, written as libvmaf's C code computes it. vif_dsp_avx2.cpp and
// vif_dsp_avx512.cpp hold twins that must give identical outputs for every
// input (tests/unit/test_simd.cpp checks it, checkasm-style). Every routine is
// integer arithmetic except accumulate_pixel's double gain, which the twins
// compute with the same IEEE operations per element (no FMA, no reordering);
// integer sums are exact in any order.
#pragma once

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

// The statistic's five row buffers: filtered ref and dis, ref^2, dis^2, ref*dis.
// For the horizontal pass they point at column 0 and are readable from column
// -half to w - 1 + half (mirrored).
struct StatRows {
  std::uint32_t* mu1;
  std::uint32_t* mu2;
  std::uint32_t* xx;
  std::uint32_t* yy;
  std::uint32_t* xy;
};

// Vertical pass of the statistic at one row: `ref[k]`, `dis[k]` (k < fwidth)
// are the rows of the filter window; columns 0 .. w-1 are written to `out`.
template <typename Sample>
using StatVerticalFn = void (*)(const Sample* const* ref, const Sample* const* dis,
                                const Filter& filter, const VerticalRounding& rounding,
                                unsigned w, const StatRows& out);

// Horizontal pass of the statistic at one row and accumulate_pixel() per pixel,
// for columns 0 .. w-1, added to `sums`.
using StatHorizontalFn = void (*)(const StatRows& in, const Filter& filter, unsigned w,
                                  const std::uint16_t* log2_table, double enhn_gain_limit,
                                  ScaleSums& sums);

// Vertical low-pass before decimation at one row: (acc + round) >> shift cut to
// 16 bits, columns 0 .. w-1, for both pictures.
template <typename Sample>
using LowpassVerticalFn = void (*)(const Sample* const* ref, const Sample* const* dis,
                                   const Filter& filter, std::uint32_t round, unsigned shift,
                                   unsigned w, std::uint32_t* ref_out, std::uint32_t* dis_out);

// Horizontal low-pass at the even columns: output oj (0 .. out_w-1) filters
// the (mirrored) row around column 2*oj, (acc + 32768) >> 16 cut to 16 bits.
using LowpassHorizontalFn = void (*)(const std::uint32_t* ref_in, const std::uint32_t* dis_in,
                                     const Filter& filter, unsigned out_w,
                                     std::uint16_t* ref_out, std::uint16_t* dis_out);

struct VifDsp {
  const char* isa;
  StatVerticalFn<std::uint8_t> stat_vertical_8;
  StatVerticalFn<std::uint16_t> stat_vertical_16;
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
#endif

}  // namespace vmafexact::vif
