// The DSP routines of PSNR's per-pixel stage (the sum of squared errors), one
// row at a time, and their dispatch table (dav1d's model, metrics/common/cpu.h).
// psnr_dsp.cpp holds the scalar references (libvmaf's loops); psnr_dsp_simd.cpp
// (compiled once per ISA) twins with identical outputs for every input
// (tests/unit/test_simd.cpp checks it). All integer.
#pragma once

#include <cstdint>

namespace vmafexact::psnr {

// 8 bit: the row's sum of (ref - dist)^2 in a wrapping uint32, as libvmaf's
// row accumulator is 32 bits wide.
using SseRow8Fn = std::uint32_t (*)(const std::uint8_t* ref, const std::uint8_t* dist, unsigned w);
// 16-bit containers: the row's sum of (ref - dist)^2, exact in uint64.
using SseRow16Fn = std::uint64_t (*)(const std::uint16_t* ref, const std::uint16_t* dist,
                                     unsigned w);

struct PsnrDsp {
  const char* isa;
  SseRow8Fn sse_row_8;
  SseRow16Fn sse_row_16;
};

const PsnrDsp& psnr_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const PsnrDsp* psnr_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags`.
const PsnrDsp& psnr_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const PsnrDsp& psnr_dsp_avx2();
const PsnrDsp& psnr_dsp_avx512();
#endif

namespace scalar {

inline std::uint32_t sse_row_8(const std::uint8_t* r, const std::uint8_t* d, unsigned begin,
                               unsigned end) {
  std::uint32_t row_sse = 0;  // libvmaf's row accumulator is 32 bits wide
  for (unsigned x = begin; x < end; ++x) {
    const int e = int{r[x]} - int{d[x]};
    row_sse += static_cast<std::uint32_t>(e * e);
  }
  return row_sse;
}

inline std::uint64_t sse_row_16(const std::uint16_t* r, const std::uint16_t* d, unsigned begin,
                                unsigned end) {
  std::uint64_t sse = 0;
  for (unsigned x = begin; x < end; ++x) {
    const int e = int{r[x]} - int{d[x]};
    const auto a = static_cast<std::uint32_t>(e < 0 ? -e : e);
    sse += a * a;  // below 2^32 even at 16 bits
  }
  return sse;
}

}  // namespace scalar

}  // namespace vmafexact::psnr
