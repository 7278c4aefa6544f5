#include "psnr/psnr_dsp.h"

#include "common/dispatch.h"

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
  static constexpr PsnrDsp dsp{"scalar", sse_row_8_c, sse_row_16_c};
  return dsp;
}

namespace {

constexpr simd::IsaTables<PsnrDsp> kTables{
    psnr_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    psnr_dsp_avx2,
    psnr_dsp_avx512,
#endif
};

}  // namespace

const PsnrDsp* psnr_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const PsnrDsp& psnr_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::psnr
