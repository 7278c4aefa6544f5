#include "psnr/psnr_dsp.h"

#include <initializer_list>

#include "common/cpu.h"

namespace vmafexact::psnr {

namespace {

std::uint32_t sse_row_8_c(const std::uint8_t* r, const std::uint8_t* d, unsigned w) {
  return scalar::sse_row_8(r, d, 0, w);
}
std::uint64_t sse_row_16_c(const std::uint16_t* r, const std::uint16_t* d, unsigned w) {
  return scalar::sse_row_16(r, d, 0, w);
}

}  // namespace

const PsnrDsp& psnr_dsp_scalar() {
  static const PsnrDsp dsp{"scalar", sse_row_8_c, sse_row_16_c};
  return dsp;
}

const PsnrDsp* psnr_dsp_isa(unsigned cpu_flag) {
#if defined(VMAFEXACT_X86_64_SIMD)
  if (cpu_flag == cpu::kAvx2) return &psnr_dsp_avx2();
  if (cpu_flag == cpu::kAvx512) return &psnr_dsp_avx512();
#else
  (void)cpu_flag;
#endif
  return nullptr;
}

const PsnrDsp& psnr_dsp(unsigned cpu_flags) {
  for (unsigned flag : {cpu::kAvx512, cpu::kAvx2})
    if (cpu_flags & flag)
      if (const PsnrDsp* dsp = psnr_dsp_isa(flag)) return *dsp;
  return psnr_dsp_scalar();
}

}  // namespace vmafexact::psnr
