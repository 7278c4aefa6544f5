// The DSP routines of integer motion's per-pixel stage, one row at a time, and
// their dispatch table (dav1d's model, metrics/common/cpu.h).
//
// motion_dsp_scalar.h holds the scalar reference of each routine (the loops
// motion.cpp always had, over motion_pixel.h). motion_dsp_simd.cpp
// (compiled once per ISA) holds twins that give identical outputs for every input
// (tests/unit/test_simd.cpp checks it). All integer.
#pragma once

#include <cstdint>

namespace vmafexact::motion {

// The vertical pass's values v of a row (|v| < 2^23) are held split in two
// int16 rows, v = 256 hi + lo with hi = v >> 8 (arithmetic: |hi| <= 2^15 - 1)
// and lo = v & 255: both fit the int16 multiply-adds of the SIMD twins'
// horizontal pass (pmaddwd, two taps of adjacent columns per instruction),
// whose int32 products of v would overflow.
inline std::int16_t split_hi(std::int32_t v) { return static_cast<std::int16_t>(v >> 8); }
inline std::int16_t split_lo(std::int32_t v) { return static_cast<std::int16_t>(v & 255); }
inline std::int32_t split_join(std::int16_t hi, std::int16_t lo) { return hi * 256 + lo; }

// Vertical pass at one row: prev[k] / cur[k] (k < 5) are the rows of the
// filter window (mirrored by the caller); v[x] = vertical_round(
// filter5(prev - cur), bpc) for x in 0 .. w-1, stored split into hi[x] and
// lo[x]. Returns the OR of the values v (0 when the whole row is zero).
template <typename Sample>
using MotionVerticalFn = std::int32_t (*)(const Sample* const* prev, const Sample* const* cur,
                                          unsigned bpc, unsigned w, std::int16_t* hi,
                                          std::int16_t* lo);

// Horizontal pass at one row of w split values (mirrored at both ends; any
// values v with |v| < 2^23, as the vertical pass gives) and the sum of the
// absolute values, wrapping in 32 bits.
using MotionHorizontalFn = std::uint32_t (*)(const std::int16_t* hi, const std::int16_t* lo,
                                             unsigned w);

struct MotionDsp {
  const char* isa;
  MotionVerticalFn<std::uint8_t> vertical_8;
  MotionVerticalFn<std::uint16_t> vertical_16;
  MotionHorizontalFn horizontal;
};

const MotionDsp& motion_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const MotionDsp* motion_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags`.
const MotionDsp& motion_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const MotionDsp& motion_dsp_avx2();
const MotionDsp& motion_dsp_avx512();
#endif

}  // namespace vmafexact::motion
