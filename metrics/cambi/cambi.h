// CAMBI, libvmaf's banding metric, as libvmaf 3.2.0's "cambi" extractor
// computes it (feature/cambi.c at master f85a8536).
//
// One picture's score: its luma converted to 10 bits (scaled to the encoding
// size, anti-dithered below 10 bits), a spatial mask of the flat areas (7x7
// counts of samples equal to their right and lower neighbours), then at five
// scales (each half the previous, after a 3x3 mode filter) the "c-value" of
// every masked sample from a histogram of its window, pooled as the mean of
// the largest topk of them. Everything up to the c-values is integer; each
// c-value is two rounded float operations; the pooling sums floats in double
// in the order libvmaf's quick select leaves them; the weighting of the five
// scales is the finishing function (cambi_extractor.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cambi/cambi_dsp.h"
#include "common/feature_extractor.h"
#include "common/picture.h"

namespace vmafexact::cambi {

inline constexpr int kNumScales = 5;
// libvmaf's weight of each scale's pooled c-values, finest first.
inline constexpr std::array<int, kNumScales> kScaleWeights = {16, 8, 4, 2, 1};
// libvmaf's suprathreshold contrast weights, by diff (1 .. 32).
inline constexpr std::array<std::int32_t, 32> kContrastWeights = {
    1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

// libvmaf's CAMBI_MIN_WIDTH_HEIGHT: a picture (or the encoding size, or the
// source size) is refused when both its width and its height are below it.
inline constexpr unsigned kMinSide = 216;
// The spatial mask's window (MASK_FILTER_SIZE) and its half.
inline constexpr int kMaskFilterSize = 7;
inline constexpr int kMaskPad = kMaskFilterSize / 2;
// The largest sample of the 10-bit working picture: 12- and 16-bit input
// rounds up to 1024 (libvmaf's (v + round) >> shift).
inline constexpr unsigned kMaxWorkingSample = 1024;

// libvmaf's reciprocal table (CAMBI_RECIPROCAL_LUT_SIZE entries): the windows'
// sample counts index it, so the window must hold fewer samples than that.
inline constexpr int kReciprocalSize = 4226;
extern const std::array<float, kReciprocalSize> kReciprocal;

enum class Eotf { kBt1886, kPq };

// libvmaf's numeric defaults of the options, as constants for the option table
// (CambiParams, which holds strings, cannot be a constant for every compiler).
struct CambiDefaults {
  static constexpr double max_val = 1000.0;
  static constexpr int window_size = 65;
  static constexpr double topk = 0.6;
  static constexpr double cambi_topk = 0.6;
  static constexpr double tvi_threshold = 0.019;
  static constexpr double vis_lum_threshold = 0.0;
  static constexpr int max_log_contrast = 2;
  static constexpr bool full_ref = false;
  static constexpr int high_res_speedup = 0;
};

// The options, as libvmaf names them (cambi.c's option table), with its defaults.
struct CambiParams {
  double max_val = CambiDefaults::max_val;  // cambi_max_val
  int enc_width = 0;                        // 0: the picture's
  int enc_height = 0;
  int enc_bitdepth = 0;                     // 0: the picture's
  int src_width = 0;                        // full_ref only; 0: the picture's
  int src_height = 0;
  int window_size = CambiDefaults::window_size;
  double topk = CambiDefaults::topk;        // used when not 0.6, else cambi_topk
  double cambi_topk = CambiDefaults::cambi_topk;
  double tvi_threshold = CambiDefaults::tvi_threshold;
  double vis_lum_threshold = CambiDefaults::vis_lum_threshold;  // cambi_vis_lum_threshold
  int max_log_contrast = CambiDefaults::max_log_contrast;
  bool full_ref = CambiDefaults::full_ref;
  std::string eotf = "bt1886";
  std::string cambi_eotf = "bt1886";        // used when not "bt1886", else eotf
  int high_res_speedup = CambiDefaults::high_res_speedup;  // cambi_high_res_speedup: 0, 1080, 1440 or 2160
};

// --- libvmaf's tables and sizes (exposed for the tests) -----------------------

// 10-bit limited range: foot 64, head 940.
inline constexpr int kLumaFoot = 64;
inline constexpr int kLumaHead = 940;
// libvmaf's EOTFs (luminance_tools.c) and the luminance of a 10-bit sample.
double bt1886_eotf(double v);
double pq_eotf(double v);
double luminance(int sample, Eotf eotf);
// The largest sample whose luminance step to sample + diff is still visible
// (libvmaf's get_tvi_for_diff, its bisection), 0 or 1023 at the ends.
int tvi_for_diff(int diff, double tvi_threshold, Eotf eotf);
// The smallest sample whose luminance reaches the threshold, 0 when the foot does.
int vlt_luma(double vis_lum_threshold, Eotf eotf);
// libvmaf's adjust_window_size: scaled by (w + h) / 6000, halved with the
// high-resolution speed-up, made odd.
unsigned adjusted_window(unsigned window_size, unsigned width, unsigned height, bool speedup);
// libvmaf's get_mask_index: the count of flat samples a 7x7 window must exceed.
unsigned mask_index(unsigned width, unsigned height);
// libvmaf's get_pixels_in_window: the samples of the odd window.
unsigned pixels_in_window(unsigned window);
// libvmaf's nearest-neighbour map of decimate_generic: out -> in index,
// with its float steps.
std::vector<unsigned> nearest_map(unsigned in_size, unsigned out_size);

// The contrast tables, made once at init.
struct ContrastTables {
  int num_diffs = 4;
  std::array<std::int32_t, 32> weights{};
  std::array<std::uint16_t, 32> tvi{};  // libvmaf's tvi_for_diff (plus num_diffs)
  std::uint16_t vlt = 0;                // libvmaf's vlt_luma
  int band_base = 0;                    // libvmaf's v_band_base
  int band_size = 0;                    // libvmaf's v_band_size; <= 0: no sample counts
  // (three entries more: the SIMD twins gather 32 bits at a time from it)
  std::array<std::uint8_t, kMaxWorkingSample + 1 + 3> first_diff{};
  ContrastRowTables row_tables() const;
};
ContrastTables make_contrast_tables(int max_log_contrast, double tvi_threshold,
                                    double vis_lum_threshold, Eotf eotf);

// One picture's pass (the distorted one at the encoding size, the reference
// one at the source size in full-reference mode).
struct PassSetup {
  unsigned width = 0;   // the size it is scaled to
  unsigned height = 0;
  unsigned window = 0;  // adjusted window
};

// Everything init() decides: options resolved against the picture format.
struct CambiSetup {
  PictureFormat format;
  PassSetup enc;
  PassSetup src;
  unsigned enc_bitdepth = 8;
  bool high_res_speedup = false;
  bool full_ref = false;
  double topk = 0.6;
  double max_val = 1000.0;
  ContrastTables contrast;
};

// Resolves the options for a format as libvmaf's init does; throws
// vmafexact::Error for what libvmaf refuses (both sides below kMinSide, an
// encoding or source size inconsistent with the picture, a window too large
// for the reciprocal table, an unknown EOTF) and for what libvmaf would
// compute from outside its buffers (see docs/features/cambi.md).
CambiSetup resolve_setup(const CambiParams& params, const PictureFormat& format);

// The five pooled scores of one picture, finest scale first.
using ScaleScores = std::array<double, kNumScales>;

// The weighted score of the scales (libvmaf's weight_scores_per_scale).
double weighted_score(const ScaleScores& scores, unsigned window);

// libvmaf's spatial_pooling: quick select of the topk largest c-values, then
// their mean in double in the order the selection leaves them. Reorders
// `values` (n non-negative floats, with kReadAhead floats of slack before and
// after them: dsp.quick_select's scans read them).
double spatial_pooling(float* values, unsigned n, double topk, const CambiDsp& dsp);

// The per-picture pipeline and its buffers, for one setup.
class CambiPicture {
 public:
  CambiPicture(const CambiSetup& setup, const CambiDsp& dsp);

  // The five pooled scores of a luma plane (bpc bits) at a pass's size.
  ScaleScores score(const PlaneView& luma, const PassSetup& pass);

  // The steps, for the tests: the working picture after preprocessing, and
  // the mask of flat areas, at the pass's size (stride: width).
  const std::vector<std::uint16_t>& image() const { return image_; }
  const std::vector<std::uint8_t>& mask() const { return mask_; }
  void preprocess(const PlaneView& luma, const PassSetup& pass);
  void spatial_mask(unsigned width, unsigned height);
  // c-values of the current image and mask at a scale's size into c_values()
  // (row-major, width per row).
  void compute_c_values(unsigned width, unsigned height, unsigned window);
  float* c_values() { return c_values_.data() + kReadAhead; }

 private:
  void mode_filter(unsigned width, unsigned height);
  void decimate(unsigned width, unsigned height);

  const CambiSetup* setup_;
  const CambiDsp* dsp_;
  ContrastRowTables row_tables_;
  unsigned stride_ = 0;  // of image_ and mask_: the widest pass
  std::vector<std::uint16_t> image_;
  std::vector<std::uint8_t> mask_;
  std::vector<float> c_values_;  // with kReadAhead floats of slack on both sides
  std::vector<std::uint16_t> histogram_;
  std::vector<std::uint16_t> rows_;          // scratch rows (preprocessing, mode filter)
  std::vector<std::uint8_t> derivatives_;    // 7 rows of the mask's window
  std::vector<std::uint8_t> counts_;         // their column counts, zero-padded
};

}  // namespace vmafexact::cambi
