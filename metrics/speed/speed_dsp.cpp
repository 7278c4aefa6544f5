#include "speed/speed_dsp.h"

#include "common/dispatch.h"
#include "speed/speed_dsp_scalar.h"

namespace vmafexact::speed {

namespace {

void convert_row_8_c(const std::uint8_t* src, unsigned w, float* dst) {
  scalar::convert_row_8(src, 0, w, dst);
}
void convert_row_16_c(const std::uint16_t* src, unsigned w, float scaler, float* dst) {
  scalar::convert_row_16(src, 0, w, scaler, dst);
}
void subtract_row_c(float* dst, const float* sub, unsigned w) { scalar::subtract_row(dst, sub, 0, w); }
void accumulate_row_c(float* acc, const float* row, float coeff, unsigned w) {
  scalar::accumulate_row(acc, row, coeff, 0, w);
}
void covariance_c(const double* centered, unsigned count, double* sums) {
  scalar::covariance(centered, count, 0, 25, sums);
}
void matmul_c(const float* x, const float* y, unsigned rows, unsigned inner, unsigned cols,
              float* dst) {
  scalar::matmul(x, y, rows, inner, cols, 0, cols, dst);
}

}  // namespace

const SpeedDsp& speed_dsp_scalar() {
  static constexpr SpeedDsp dsp{"scalar",         convert_row_8_c, convert_row_16_c, subtract_row_c,
                                accumulate_row_c, covariance_c,    matmul_c};
  return dsp;
}

namespace {

constexpr simd::IsaTables<SpeedDsp> kTables{
    speed_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    speed_dsp_avx2,
    speed_dsp_avx512,
#endif
};

}  // namespace

const SpeedDsp* speed_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const SpeedDsp& speed_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::speed
