// SpEED (spatial efficient entropic differencing) as libvmaf's speed.c computes
// it for its two extractors, speed_chroma and speed_temporal (master f85a8536),
// bit for bit: every float and double operation of libvmaf's portable C code,
// in its order.
//
// One picture (a chroma plane, or the difference of two luma frames) goes
// through:
//  1. the optional prescale (speed_prescale, speed_prescale_method);
//  2. an antialiasing Gaussian (vif_filter1d_s) and 16x decimation: only the
//     filtered samples at rows and columns that are multiples of 16 survive,
//     so only those are computed (the same per-sample sums);
//  3. subtraction of the local mean (a small Gaussian of the decimated picture);
//  4. per 5x5 block statistics (est_params): the 25x25 covariance of the
//     positions within a block, its eigenvalues, a linear solve per block,
//     giving each block's variance and entropy.
// The score of a pair compares the reference's and the distorted picture's
// block statistics (get_speed_score).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/float_plane.h"
#include "common/picture.h"
#include "speed/speed_dsp.h"
#include "speed/speed_pixel.h"

namespace vmafexact::speed {

inline constexpr unsigned kDecimation = 16;  // libvmaf's NUM_SCALES = 4: 2^4
inline constexpr unsigned kBlockSide = 5;    // DEFAULT_BLOCK_SIZE
inline constexpr unsigned kBlockElements = kBlockSide * kBlockSide;
// The smallest scaled side with one whole block after decimation (80). Below
// it libvmaf logs "SpEED: image too small" but goes on, and crashes reading
// far outside its buffers.
inline constexpr unsigned kMinScaledSide = kBlockSide * kDecimation;

inline constexpr std::string_view kScaleMethodNames = "nearest, bilinear, bicubic, lanczos4";

// vif_validate_kernelscale: the kernel scales of libvmaf's table (within 1e-3,
// compared in float); others give no filter (libvmaf then crashes).
bool is_valid_kernelscale(double kernelscale);
inline constexpr std::string_view kKernelscaleValues =
    "1, 1/2, 3/2, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, "
    "1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111";

// The antialiasing filter (speed_get_antialias_filter: the size of VIF's scale-1
// filter, sigma sqrt(4) times larger) and the local-mean filter of the
// decimated picture (vif_get_filter at scale 4), normalized as libvmaf does.
std::vector<float> antialias_filter(double kernelscale);
std::vector<float> local_mean_filter(double kernelscale);

// The options that change the arithmetic (libvmaf's SpeedOptions).
struct SpeedParams {
  double kernelscale = 1.0;
  double prescale = 1.0;
  ScaleMethod prescale_method = ScaleMethod::kNearest;
  double sigma_nn = 0.29;
  double nn_floor = 0.0;
  int weight_var_mode = 0;  // 0 .. 6
};

// libvmaf's SpeedDimensions of one picture.
struct SpeedGeometry {
  unsigned width = 0, height = 0;                // the picture
  unsigned scaled_width = 0, scaled_height = 0;  // (int)(side * prescale + 0.5)
  // False when the prescale is within 1e-3 of 1 (libvmaf's ALMOST_EQUAL): the
  // picture is then not scaled, only cut to the scaled size.
  bool rescaled = false;
  unsigned low_width = 0, low_height = 0;  // scaled >> 4: the decimated picture
  unsigned blocks_x = 0, blocks_y = 0;     // whole 5x5 blocks in it
  // The region of the positions' samples: (5 * blocks - 4) per side.
  unsigned region_width = 0, region_height = 0;

  static SpeedGeometry of(unsigned width, unsigned height, double prescale);
  unsigned blocks() const { return blocks_x * blocks_y; }
  bool has_blocks() const { return blocks_x > 0 && blocks_y > 0; }
};

// Rows of the picture before prescaling (width x height floats, the values
// libvmaf's picture_copy writes, or their differences).
class RowSource {
 public:
  virtual ~RowSource() = default;
  // Writes row y (width floats) to `out`.
  virtual void row(unsigned y, float* out) = 0;
};

// A plane of samples converted as picture_copy does (offset -128; samples of
// 10, 12, 16 bits divided by 4, 16, 256).
class PlaneRows final : public RowSource {
 public:
  PlaneRows(const PlaneView& plane, unsigned bpc, const SpeedDsp& dsp)
      : plane_(plane), bpc_(bpc), dsp_(&dsp) {}
  void row(unsigned y, float* out) override;

 private:
  PlaneView plane_;
  unsigned bpc_;
  const SpeedDsp* dsp_;
};

// The difference of two pictures' rows, a - b (libvmaf's subtract_image).
class DifferenceRows final : public RowSource {
 public:
  DifferenceRows(RowSource& a, RowSource& b, unsigned width, const SpeedDsp& dsp)
      : a_(a), b_(b), scratch_(width), dsp_(&dsp) {}
  void row(unsigned y, float* out) override;

 private:
  RowSource& a_;
  RowSource& b_;
  std::vector<float> scratch_;
  const SpeedDsp* dsp_;
};

// est_params' results for one picture: per block (row-major), its entropy and
// variance, and whether the covariance could not be inverted (then every
// block's solution was taken as 0).
struct BlockStats {
  std::vector<float> entropies;
  std::vector<float> variances;
  bool singular = false;
};

// The prescaler's tables (common/float_plane.h): a picture that is not
// rescaled, or rescaled to its own size, has the identity tables of kNearest.
using vmafexact::PrescaleTables;

// The 25x25 covariance of the positions of a block (row-major, symmetric).
using Covariance = std::array<float, kBlockElements * kBlockElements>;

// speed_extract_score's result: the score, and whether either picture's
// covariance was singular (its return value).
struct SpeedScore {
  float score = 0;
  bool singular = false;
  bool operator==(const SpeedScore&) const = default;
};

// The work of one picture size and one set of options, with its buffers.
class SpeedKernel {
 public:
  SpeedKernel(const SpeedGeometry& geometry, const SpeedParams& params, const SpeedDsp& dsp);
  ~SpeedKernel();
  SpeedKernel(SpeedKernel&&) noexcept;

  // speed_extract_score: both pictures' block statistics and their score.
  SpeedScore score(RowSource& ref, RowSource& dis);

  // The steps, for tests: the decimated picture less its local mean
  // (low_width x low_height), and its block statistics.
  const std::vector<float>& low_pass(RowSource& source);
  BlockStats block_stats(const std::vector<float>& low);
  // block_stats() in two steps, for backends that compute the covariance
  // (compute_mean, compute_covariance) themselves.
  Covariance covariance(const std::vector<float>& low);
  BlockStats block_stats(const std::vector<float>& low, const Covariance& covariance);

  // The tables every backend filters with: the antialiasing filter and, per
  // decimated row / column, the mirrored scaled row / column of each tap; the
  // local-mean filter and its mirrored decimated rows / columns; the prescaler.
  const std::vector<float>& antialias() const { return antialias_; }
  const std::vector<int>& antialias_rows() const { return antialias_rows_; }
  const std::vector<int>& antialias_columns() const { return antialias_columns_; }
  const std::vector<float>& local_mean() const { return local_mean_; }
  const std::vector<int>& local_mean_rows() const { return local_mean_rows_; }
  const std::vector<int>& local_mean_columns() const { return local_mean_columns_; }
  PrescaleTables prescale_tables() const;

  const SpeedGeometry& geometry() const { return geometry_; }

 private:
  class Prescaler;
  const float* scaled_row(RowSource& source, unsigned y);
  const float* source_row(RowSource& source, unsigned y);

  SpeedGeometry geometry_;
  SpeedParams params_;
  const SpeedDsp* dsp_;
  std::vector<float> antialias_, local_mean_;
  // Per decimated row / column, the mirrored source row / column of each tap.
  std::vector<int> antialias_rows_, antialias_columns_, local_mean_rows_, local_mean_columns_;
  std::vector<float> scaled_row_, filtered_row_, low_, low_mean_;
  // Rows of the unscaled picture that the prescaler reads, cached by y % 16.
  std::vector<float> source_rows_;
  std::vector<long> source_row_tags_;
  std::vector<double> centered_, sums_;
  std::vector<float> independent_, solution_, work_;
  std::unique_ptr<const Prescaler> prescaler_;  // null when not rescaled
};

// The tail of speed_extract_score: the score of two pictures' statistics (0
// when exactly one of them is singular).
SpeedScore pair_score(const BlockStats& ref, const BlockStats& dis, const SpeedParams& params);

// get_speed_score: the mean over blocks of |entropy-weighted log variances|
// (libvmaf's float sum), by speed_weight_var_mode.
float speed_score(const BlockStats& ref, const BlockStats& dis, const SpeedParams& params);

}  // namespace vmafexact::speed
