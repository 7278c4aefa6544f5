#include "cambi/cambi_dsp.h"

#include "cambi/cambi_dsp_scalar.h"
#include "common/dispatch.h"

namespace vmafexact::cambi {

namespace {

std::uint16_t preprocess_8_c(const std::uint8_t* row, const std::uint8_t* below, unsigned w,
                             bool anti_dither, std::uint16_t* out) {
  return scalar::preprocess_8(row, below, 0, w, w, anti_dither, out);
}

std::uint16_t preprocess_16_c(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                              unsigned shift, bool anti_dither, std::uint16_t* out) {
  return scalar::preprocess_16(row, below, 0, w, w, shift, anti_dither, out);
}

void anti_dither_c(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                   std::uint16_t* out) {
  scalar::anti_dither(row, below, 0, w, w, out);
}

void derivative_c(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                  std::uint8_t* out) {
  scalar::derivative(row, below, 0, w, w, out);
}

void update_counts_c(std::uint8_t* counts, const std::uint8_t* entering,
                     const std::uint8_t* leaving, unsigned w) {
  scalar::update_counts(counts, entering, leaving, 0, w);
}

void mask_row_c(const std::uint8_t* counts, unsigned w, unsigned index, std::uint8_t* mask) {
  scalar::mask_row(counts, 0, w, index, mask);
}

void decimate_16_c(const std::uint16_t* src, unsigned w, std::uint16_t* dst) {
  scalar::decimate(src, 0, w, dst);
}

void decimate_8_c(const std::uint8_t* src, unsigned w, std::uint8_t* dst) {
  scalar::decimate(src, 0, w, dst);
}

void mode_horizontal_c(const std::uint16_t* src, unsigned w, std::uint16_t* out) {
  scalar::mode_horizontal(src, 0, w, w, out);
}

void mode_vertical_c(const std::uint16_t* a, const std::uint16_t* b, const std::uint16_t* c,
                     unsigned w, std::uint16_t* out) {
  scalar::mode_vertical(a, b, c, 0, w, out);
}

void slide_c(const HistogramView& histogram, unsigned w, unsigned pad, int band_base,
             const std::uint16_t* leaving, const std::uint8_t* leaving_mask,
             const std::uint16_t* entering, const std::uint8_t* entering_mask) {
  scalar::slide(histogram, 0, w, w, pad, band_base, leaving, leaving_mask, entering, entering_mask);
}

void c_values_row_c(const HistogramView& histogram, const ContrastRowTables& tables,
                    const std::uint16_t* image, const std::uint8_t* mask, unsigned w, float* out) {
  scalar::c_values_row(histogram, tables, image, mask, 0, w, out);
}

void quick_select_c(float* values, int n, int k) { scalar::quick_select(values, n, k); }

double ordered_sum_c(const float* values, int k) { return scalar::ordered_sum(values, 0, k); }

}  // namespace

const CambiDsp& cambi_dsp_scalar() {
  static constexpr CambiDsp dsp{"scalar",        preprocess_8_c,    preprocess_16_c,
                                anti_dither_c,   derivative_c,      update_counts_c,
                                mask_row_c,      decimate_16_c,     decimate_8_c,
                                mode_horizontal_c, mode_vertical_c, slide_c,
                                c_values_row_c,  quick_select_c,  ordered_sum_c};
  return dsp;
}

namespace {

constexpr simd::IsaTables<CambiDsp> kTables{
    cambi_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    cambi_dsp_avx2,
    cambi_dsp_avx512,
#endif
};

}  // namespace

const CambiDsp* cambi_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const CambiDsp& cambi_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::cambi
