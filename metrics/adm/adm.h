// Integer ADM as libvmaf 3.2.0's "adm" extractor computes it (integer_adm.c,
// portable C path).
//
// Split in two stages, as every feature here is:
//  - AdmCpuStage::compute() is the per-pixel stage. Everything in it is integer
//    arithmetic (the DWT, the decoupling, the CSF, the contrast masking and the
//    cube sums, each with libvmaf's shifts and rounding), and it returns, per
//    scale and per orientation, the three integer sums libvmaf converts to
//    floating point: the DLM numerator (int64), the denominator (uint64) and
//    the AIM numerator (int64). Each sum is libvmaf's sum of per-row rounded
//    partial sums, so it is exact and independent of the order of the rows.
//    (One comparison inside the decoupling is evaluated in float/double per
//    pixel, exactly as libvmaf does; nothing floating point is accumulated.)
//  - finish_scores() is the finishing function: it turns those integers into
//    libvmaf's float per-scale values and double scores, in libvmaf's order.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "adm/adm_pixel.h"
#include "common/bands.h"
#include "common/feature_stage.h"
#include "common/picture.h"

namespace vmafexact::adm {

struct AdmDsp;  // adm_dsp.h

// libvmaf's options of the "adm" extractor, with its defaults.
struct AdmOptions {
  double csf_scale = 1.0;         // adm_csf_scale (scf): Barten CSF modes only
  double csf_diag_scale = 1.0;    // adm_csf_diag_scale (scfd): Barten CSF modes only
  double dlm_weight = 0.5;        // adm_dlm_weight (dlmw): weight of DLM in adm3
  double enhn_gain_limit = 100.0; // adm_enhn_gain_limit (egl)
  double norm_view_dist = 3.0;    // adm_norm_view_dist (nvd)
  int ref_display_height = 1080;  // adm_ref_display_height (rdh)
  int csf_mode = 0;               // adm_csf_mode (csf): 0 = Watson 1997
  double noise_weight = 0.03125;  // adm_noise_weight (nw)
  bool skip_aim = false;          // adm_skip_aim (not part of score names)
  bool skip_scale0 = false;       // adm_skip_scale0 (ssz)
  double min_val = 0.0;           // adm_min_val (min): lower bound of adm3
  bool debug = false;             // debug: also write num/den scores
};

// The smallest width and height ADM can score. libvmaf's DWT mirrors at most
// one sample beyond the top edge and needs at least 5 input rows/columns at
// every one of its 4 levels (33 -> 17 -> 9 -> 5); below that its index table
// points outside the picture (it reads memory before its buffers for sides
// 17..32, and crashes for sides of 16 or less).
constexpr unsigned kMinimumSide = 33;

// Throws vmafexact::Error for a picture smaller than kMinimumSide either way.
void check_picture_size(unsigned width, unsigned height);

// The contrast-sensitivity weights of one configuration, derived once from the
// options exactly as libvmaf derives them (float, then fixed point).
struct CsfWeights {
  // float 1/Q per scale and orientation (h, v, d), Q from Watson et al. 1997.
  std::array<std::array<float, 3>, 4> rfactor{};
  // scale 0 in fixed point: h, v scaled by 2^21, d by 2^23 (uint16).
  std::array<std::uint16_t, 3> scale0_fixed{};
  // scales 1..3 in fixed point, scaled by 2^32 (uint32); index 0 unused.
  std::array<std::array<std::uint32_t, 3>, 4> fixed{};
};

// Throws vmafexact::Error for options libvmaf refuses or that are not supported.
CsfWeights csf_weights(const AdmOptions& options);

// libvmaf's dwt_quant_step(): the visibility threshold Q of DWT level `lambda`
// (0 finest .. 3) and orientation `theta` (1 vertical, 2 diagonal) of Watson
// et al. 1997, with libvmaf's float/double mix (float_adm reads it too).
float watson_quant_step(int lambda, int theta, double norm_view_dist, int ref_display_height);

// The host-built constants of the per-pixel stage (shared with the CUDA twin,
// which uploads them): the db2 taps in Q15, float(cos(1 degree)^2) of the
// decoupling's angle test, and libvmaf's division table (65537 entries:
// 32768 + i holds 2^30 / i, 32768 - i its negation).
pixel::Db2Taps db2_taps();
float cos_1deg_sq();
const std::vector<std::int32_t>& division_table();

// Where libvmaf scores one scale: the band size and the integer shifts that
// depend on it. Shared by both stages.
struct ScaleGeometry {
  int width = 0, height = 0;                     // band size at this scale
  int left = 0, top = 0, right = 0, bottom = 0;  // scored region [left,right) x [top,bottom)
  // Denominator (reference cube sums): per-value cube shift (scales 1..3) and
  // per-row shift.
  std::uint32_t den_cube_shift = 0;
  std::uint32_t den_row_shift = 0;
  // Numerator (masked cube sums): per-value cube shift of h, v and d, and the
  // per-row shift.
  std::array<std::uint32_t, 3> num_cube_shift{};
  std::uint32_t num_row_shift = 0;
};

// Geometry of the 4 scales of a width x height picture (both >= kMinimumSide).
std::array<ScaleGeometry, 4> scale_geometry(unsigned width, unsigned height);

// The integer output of the per-pixel stage for one scale, per orientation
// h, v, d.
struct ScaleSums {
  std::array<std::int64_t, 3> num{};   // DLM: masked cube sums of the restored image
  std::array<std::uint64_t, 3> den{};  // cube sums of the reference
  std::array<std::int64_t, 3> aim{};   // AIM: masked cube sums of the additive impairment
  bool operator==(const ScaleSums&) const = default;
};

struct FrameSums {
  std::array<ScaleSums, 4> scales{};
  bool operator==(const FrameSums&) const = default;
};

// What the extractor writes, as libvmaf computes it.
struct AdmScores {
  double adm2 = 0, aim = 0, adm3 = 0;
  std::array<double, 4> scale{};     // integer_adm_scale0..3
  double num = 0, den = 0;           // debug: integer_adm_num, integer_adm_den
  std::array<double, 8> num_den{};   // debug: num_scale0, den_scale0, num_scale1, ...
};

// The finishing function: libvmaf's float per-scale numerators/denominators
// (powf of the scaled sums), their double totals and the scores.
AdmScores finish_scores(const FrameSums& sums, unsigned width, unsigned height,
                        const AdmOptions& options, const CsfWeights& weights);

// The per-pixel stage, with its working buffers sized once for a picture size.
// Its row loops run through an AdmDsp table (adm_dsp.h: the scalar reference or
// an AVX2 / AVX-512 twin with identical results).
class AdmCpuStage final : public FeatureStage<FrameSums> {
 public:
  // With the best DSP table cpu::flags() allows, or with the given one.
  AdmCpuStage(unsigned width, unsigned height, const AdmOptions& options);
  AdmCpuStage(unsigned width, unsigned height, const AdmOptions& options, const AdmDsp& dsp);
  // Luma planes (plane 0) of reference and distorted picture; bpc 8..16.
  // Each pass over the rows is cut into bands that `runner` runs (side by
  // side on a pool); the sums are the same for any runner.
  FrameSums compute(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                    BandRunner& runner = serial_band_runner());
  // The stage's contract: compute() of the luma planes on the runner set last.
  FrameSums compute(const PictureView& ref, const PictureView& dist, unsigned) override {
    return compute(ref.planes[0], dist.planes[0], ref.bpc, *runner_);
  }
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

  const CsfWeights& weights() const { return weights_; }

 private:
  unsigned width_, height_;
  AdmOptions options_;
  CsfWeights weights_;
  std::array<ScaleGeometry, 4> geometry_;
  const AdmDsp* dsp_;
  // Scale 0 works on int16 bands (rows of them, transformed as the masking
  // pass reads them), scales 1..3 on int32 bands, as libvmaf does.
  std::vector<std::int32_t> ref32_, dist32_;
  // The masking pass's row windows, one per band (adm.cpp's MaskingWindow).
  std::vector<std::int16_t> windows16_;
  std::vector<std::int32_t> windows32_;
  std::vector<std::int32_t> rows32_;              // DWT intermediate rows, per band
  std::vector<std::int16_t> rows16_;              // the same at scale 0, with its approximation row
  BandRunner* runner_ = &serial_band_runner();
};

}  // namespace vmafexact::adm
