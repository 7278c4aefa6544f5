#include "ssim/ssim_dsp.h"

#include "common/dispatch.h"
#include "ssim/ssim_dsp_scalar.h"

namespace vmafexact::ssim {

namespace {

void convert_row_8_c(const std::uint8_t* src, unsigned w, float* dst) {
  scalar::convert_row_8(src, 0, w, dst);
}
void convert_row_16_c(const std::uint16_t* src, unsigned w, float scaler, float* dst) {
  scalar::convert_row_16(src, 0, w, scaler, dst);
}
void decimate_row_c(const float* img, int w, int h, const float* kernel, int taps, int factor,
                    int y, unsigned out_w, float* dst, float*) {
  scalar::decimate_row(img, w, h, kernel, taps, factor, y, 0, out_w, dst);
}
void gaussian_row_c(const float* src, unsigned out_w, float* dst) {
  scalar::gaussian_row(src, 0, out_w, dst);
}
void gaussian_column_c(const float* const* rows, unsigned w, float* dst) {
  scalar::gaussian_column(rows, 0, w, dst);
}
void products_row_c(const float* ref, const float* dist, unsigned w, float* rr, float* dd,
                    float* rd) {
  scalar::products_row(ref, dist, 0, w, rr, dd, rd);
}
void terms_row_c(const float* mu_r, const float* mu_d, const float* rr, const float* dd,
                 const float* rd, unsigned w, TermSums* sums) {
  scalar::terms_row(mu_r, mu_d, rr, dd, rd, 0, w, sums);
}

}  // namespace

const SsimDsp& ssim_dsp_scalar() {
  static constexpr SsimDsp dsp{"scalar",          convert_row_8_c,   convert_row_16_c,
                               decimate_row_c,    gaussian_row_c,    gaussian_column_c,
                               products_row_c,    terms_row_c};
  return dsp;
}

namespace {

constexpr simd::IsaTables<SsimDsp> kTables{
    ssim_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    ssim_dsp_avx2,
    ssim_dsp_avx512,
#endif
};

}  // namespace

const SsimDsp* ssim_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const SsimDsp& ssim_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::ssim
