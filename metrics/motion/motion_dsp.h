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

// Vertical pass at one row: prev[k] / cur[k] (k < 5) are the rows of the
// filter window (mirrored by the caller); blurred[x] = vertical_round(
// filter5(prev - cur), bpc) for x in 0 .. w-1. Returns the OR of the outputs
// (0 when the whole row is zero).
template <typename Sample>
using MotionVerticalFn = std::int32_t (*)(const Sample* const* prev, const Sample* const* cur,
                                          unsigned bpc, unsigned w, std::int32_t* blurred);

// Horizontal pass at one row of w values (mirrored at both ends; any values
// the vertical pass gives, |blurred| < 2^23) and the sum of the absolute
// values, wrapping in 32 bits.
using MotionHorizontalFn = std::uint32_t (*)(const std::int32_t* blurred, unsigned w);

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
