// The DSP routines of CAMBI's per-pixel stages, one row at a time, and their
// dispatch table (dav1d's model, metrics/common/cpu.h).
//
// cambi_dsp_scalar.h holds the scalar reference of each routine;
// cambi_dsp_simd.cpp (compiled once per ISA) holds twins that give identical
// outputs for every input (tests/harness/check_cambi.cpp checks it). Every
// routine is integer except c_values_row, whose floats are formed lane by lane
// with the same two rounded operations as the scalar code (an int32 product
// converted to float, times a float of the reciprocal table), and the max of
// such values, which is exact in any order.
//
// Samples of the working picture are 10-bit values in uint16 (at most 1024:
// libvmaf's rounding of 12- and 16-bit input can reach 1024); masks are 0 or 1
// in uint8. Routines may read up to kReadAhead samples past the end of a row
// of their inputs (the buffers hold that much slack), and write only [0, w)
// (slide's twins may add 0 to counts past a row: they stay as they were).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vmafexact::cambi {

// Slack the routines may read past a row's end (samples of 16 bits or bytes).
inline constexpr unsigned kReadAhead = 64;

// The contrast tables of c_values_row (cambi.h's ContrastTables, flattened).
struct ContrastRowTables {
  int num_diffs = 0;              // 1 << max_log_contrast, at most 32
  int band_base = 0;              // the lowest sample value the histograms hold
  const std::int32_t* weights = nullptr;  // libvmaf's contrast weight of each diff
  // first_diff[v] for every sample value v (0 .. 1024): the first diff index d
  // whose visibility conditions hold for v (they hold for every later one too),
  // num_diffs where none does or v is outside the histograms' band.
  const std::uint8_t* first_diff = nullptr;
  const float* reciprocal = nullptr;  // the reciprocal table (cambi.h)
};

// A histogram window over a picture's columns: row r (r = value - band_base,
// -num_diffs <= r < band_size + num_diffs) of count[r * stride + c] holds how
// many masked samples of value band_base + r lie in the window centred on
// column c (the rows outside [0, band_size) stay zero).
struct HistogramView {
  std::uint16_t* count = nullptr;  // row 0
  std::ptrdiff_t stride = 0;       // samples from one value row to the next
  int band_size = 0;               // rows 0 .. band_size - 1 are counted
};

struct CambiDsp {
  const char* isa;

  // Preprocessing of one row of the picture to 10 bits (libvmaf's
  // cambi_preprocessing): each sample converted (8 bit: v << 2; 16-bit
  // containers: (v + round) >> shift, round = shift ? 1 << (shift - 1) : 0),
  // then, with anti_dither, averaged with its right, lower and lower-right
  // neighbours: (a + b + c + d) >> 2, (a + c) >> 1 in the last column,
  // (a + b) >> 1 in the last row (below == nullptr), a in its last sample.
  // Returns the largest input sample of the row (libvmaf's validation).
  std::uint16_t (*preprocess_8)(const std::uint8_t* row, const std::uint8_t* below, unsigned w,
                                bool anti_dither, std::uint16_t* out);
  std::uint16_t (*preprocess_16)(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                                 unsigned shift, bool anti_dither, std::uint16_t* out);
  // The anti-dithering alone, of two converted rows (for scaled input).
  void (*anti_dither)(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                      std::uint16_t* out);

  // Spatial mask. derivative: out[c] = 1 where row[c] equals its right
  // neighbour (always in the last column) and its lower one (always in the
  // last row, below == nullptr), else 0.
  void (*derivative)(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                     std::uint8_t* out);
  // counts[c] += entering[c] - leaving[c] (either may be nullptr): the column
  // counts of the derivative over the rows of the 7-row window.
  void (*update_counts)(std::uint8_t* counts, const std::uint8_t* entering,
                        const std::uint8_t* leaving, unsigned w);
  // mask[c] = (sum of counts[c - 3 .. c + 3] > index): `counts` has 3 zero
  // bytes before it and 3 + kReadAhead after its w values.
  void (*mask_row)(const std::uint8_t* counts, unsigned w, unsigned index, std::uint8_t* mask);

  // Scales. decimate: dst[j] = src[2 j] for j < w (dst may be src).
  void (*decimate_16)(const std::uint16_t* src, unsigned w, std::uint16_t* dst);
  void (*decimate_8)(const std::uint8_t* src, unsigned w, std::uint8_t* dst);
  // The 3-tap mode filter: out[j] = mode3(src[j - 1], src[j], src[j + 1]) for
  // 0 < j < w - 1, the first and last samples copied; mode3 is the value two
  // of them share, else the smallest.
  void (*mode_horizontal)(const std::uint16_t* src, unsigned w, std::uint16_t* out);
  // out[j] = mode3(a[j], b[j], c[j]).
  void (*mode_vertical)(const std::uint16_t* a, const std::uint16_t* b, const std::uint16_t* c,
                        unsigned w, std::uint16_t* out);

  // The histogram window moved by one row: the masked samples of `leaving`
  // (with its mask; nullptr for none) leave and those of `entering` join the
  // windows of the columns within `pad` of theirs (clipped to [0, w)); samples
  // outside the band [band_base, band_base + band_size) are not counted.
  void (*slide)(const HistogramView& histogram, unsigned w, unsigned pad, int band_base,
                const std::uint16_t* leaving, const std::uint8_t* leaving_mask,
                const std::uint16_t* entering, const std::uint8_t* entering_mask);
  // c-values of one row: out[c] = 0 where mask[c] is 0 or no diff applies to
  // image[c] (first_diff), else the largest over d >= first_diff of
  //   (float)(weights[d] * p0 * pm) * reciprocal[p0 + pm],
  // p0 the count of image[c]'s value, pm the larger of the counts of the
  // values d + 1 above and below it, in column c of the histogram.
  void (*c_values_row)(const HistogramView& histogram, const ContrastRowTables& tables,
                       const std::uint16_t* image, const std::uint8_t* mask, unsigned w,
                       float* out);

  // libvmaf's quick_select of the k largest of n non-negative values (no NaN,
  // zeros as +0) into [0, k), 1 <= k <= n: the same partitions, so the same
  // final order.
  // The array has kReadAhead floats of slack before and after it (the twins'
  // scans read them, never choose them).
  void (*quick_select)(float* values, int n, int k);
  // values[0] + values[1] + ... + values[k - 1] in double, in that order
  // (libvmaf's average_topk_elements before its division); the values are
  // non-negative, so the zeros, which leave the sum as it is, may be skipped.
  double (*ordered_sum)(const float* values, int k);
};

const CambiDsp& cambi_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const CambiDsp* cambi_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags`.
const CambiDsp& cambi_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const CambiDsp& cambi_dsp_avx2();
const CambiDsp& cambi_dsp_avx512();
#endif

}  // namespace vmafexact::cambi
