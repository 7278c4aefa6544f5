// Float VIF as libvmaf 3.2.0's "float_vif" extractor computes it (float_vif.c,
// vif.c, vif_tools.c, vif_options.h at master f85a8536).
//
// Both luma planes are copied to floats less 128 and optionally rescaled
// (vif_prescale); then at each of four scales — the plane low-passed and
// decimated by 2 for scales 1 to 3 — five separable float filters (mu1, mu2,
// ref², dist², ref·dist) feed the per-pixel VIF statistic, whose float log2
// is libvmaf's polynomial approximation, summed row by row in float. The
// scores are the scales' num / den in double.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "common/feature_stage.h"
#include "common/float_plane.h"

namespace vmafexact::float_vif {

inline constexpr int kScales = 4;

// The options that change the arithmetic (libvmaf's names and defaults).
struct FloatVifParams {
  bool debug = false;                  // debug: also vif, vif_num, vif_den and per scale
  double enhn_gain_limit = 100.0;      // vif_enhn_gain_limit
  double kernelscale = 1.0;            // vif_kernelscale
  double prescale = 1.0;               // vif_prescale
  double scale_min_val[kScales] = {};  // vif_scale1..3_min_val (index 0 unused)
  ScaleMethod prescale_method = ScaleMethod::kNearest;  // vif_prescale_method
  double sigma_nsq = 2.0;                               // vif_sigma_nsq
  bool skip_scale0 = false;                             // vif_skip_scale0
};

// libvmaf's approximate log2 (VIF_OPT_FAST_LOG2): the float exponent plus a
// degree-8 polynomial of the mantissa, in float.
float log2f_approx(float x);

// Whether libvmaf accepts a kernel scale (vif_validate_kernelscale(), on the
// value as a float): one of its 21 listed scales, within 1e-3.
bool valid_kernelscale(double kernelscale);

// The Gaussian filter of a scale (vif_get_filter()): its width and taps.
std::vector<float> vif_filter(int scale, double kernelscale);

// The picture size (after prescaling) at each scale: halved (rounding down)
// from one scale to the next.
struct ScaleSize {
  unsigned width, height;
};
std::array<ScaleSize, kScales> scale_sizes(unsigned width, unsigned height);

// The prescaled size: (int)(side * vif_prescale + 0.5).
ScaleSize prescaled_size(unsigned width, unsigned height, double prescale);

// One frame's per-scale sums: num and den as libvmaf's float accumulators
// leave them (scale 0 left 0 with vif_skip_scale0).
struct FloatVifSums {
  std::array<float, kScales> num{};
  std::array<float, kScales> den{};
  bool operator==(const FloatVifSums&) const = default;
};

// The statistic's constants, from the options.
struct StatisticConstants {
  double sigma_nsq;     // vif_sigma_nsq: the divisions take it as a double
  float sigma_max_inv;  // powf(sigma_nsq, 2) / 255^2, as a float
  float gain_limit;     // vif_enhn_gain_limit, as a float
};

// The statistic's constants of a run's options.
StatisticConstants statistic_constants(const FloatVifParams& params);

// The finish of a scale's num (or den), for both backends: the rows' sums
// (each row's terms added in column order, pixel::serial_sum()) added in row
// order from 0, as libvmaf's float accumulator.
float finish_rows(std::span<const float> row_sums);

// The row kernels of compute_vif(): the scalar reference (float_vif.cpp) and
// its SIMD twins (float_vif_simd.cpp), each output formed by the same float
// operations in the same order, so every twin gives the reference's bits
// (the twin harness, FloatVifTwin, checks it).
struct FloatVifDsp {
  const char* isa;
  // The vertical pass of one output row over columns begin..end-1: for
  // each column j, the float sum from 0, over the taps in order, of tap * the
  // sample of that tap's row: out[0] from ref_rows, out[1] from dist_rows, and
  // with `moments` out[2..4] from the products ref * ref, dist * dist, ref * dist.
  void (*vertical)(const float* taps, int taps_count, const float* const* ref_rows,
                   const float* const* dist_rows, unsigned begin, unsigned end, bool moments,
                   float* const* out);
  // The horizontal pass of columns begin..end-1, whose taps all lie inside
  // `row`: out[j] = the float sum over the taps of tap * row[j - half + k].
  void (*horizontal)(const float* taps, int taps_count, const float* row, int begin, int end,
                     float* out);
  // vif_statistic_s()'s terms of one row's pixels: num[j] and den[j] from
  // mu1, mu2, ref², dist², ref·dist filtered (rows[0..4]).
  void (*statistic)(const float* const* rows, unsigned width, const StatisticConstants& constants,
                    float* num, float* den);
};
const FloatVifDsp& float_vif_dsp_scalar();
// The twin of one ISA (cpu::kAvx2, cpu::kAvx512), nullptr where this build has none.
const FloatVifDsp* float_vif_dsp_isa(unsigned cpu_flag);
// The best table the CPU flags allow.
const FloatVifDsp& float_vif_dsp(unsigned cpu_flags);
// The ISA twins' tables (float_vif_simd.cpp, compiled once per ISA).
const FloatVifDsp& float_vif_dsp_avx2();
const FloatVifDsp& float_vif_dsp_avx512();

// What compute_vif() works in, kept from frame to frame so that a run
// allocates only at its first frame: the filters, the scales' planes and the
// rows of the filters' passes.
struct FloatVifWorkspace {
  double kernelscale = 0;  // of the filters held
  std::array<std::vector<float>, kScales> filters;
  FloatPlane ref_scale, dist_scale, next_ref, next_dist;
  std::array<std::vector<float>, 5> vertical, filtered;  // mu1, mu2, ref², dist², ref·dist
  std::vector<const float*> ref_rows, dist_rows;         // the rows of the taps
  std::vector<float> num, den;                           // the statistic's terms of a row
  std::vector<float> row_num, row_den;                   // each row's sums
};

// compute_vif() on two planes of one size, with the row kernels of `dsp`.
FloatVifSums compute_vif(const FloatPlane& ref, const FloatPlane& dist,
                         const FloatVifParams& params, const FloatVifDsp& dsp,
                         FloatVifWorkspace& workspace);

// The CPU stage: the luma planes copied, prescaled and scored.
class FloatVifCpuStage final : public FeatureStage<FloatVifSums> {
 public:
  FloatVifCpuStage(const PictureFormat& format, const FloatVifParams& params);
  FloatVifSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  PictureFormat format_;
  FloatVifParams params_;
  const FloatVifDsp* dsp_;
  FloatPlane ref_, dist_, ref_scaled_, dist_scaled_;
  PrescaleTables prescale_;  // vif_prescale's, made once
  FloatVifWorkspace workspace_;
};

}  // namespace vmafexact::float_vif
