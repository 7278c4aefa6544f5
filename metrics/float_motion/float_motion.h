// Float motion as libvmaf 3.2.0's "float_motion" extractor computes it
// (float_motion.c, motion.c, common/convolution.c at master f85a8536).
//
// Each reference luma plane (and chroma, with motion_add_uv) is copied to
// floats less 128, blurred with a separable float filter (vertical pass, then
// horizontal, mirrored at the borders) and compared with the previous frame's
// blurred plane: the mean absolute difference, summed row by row in float.
// Everything is float arithmetic in libvmaf's order; only the per-frame score
// becomes a double.
#pragma once

#include <optional>
#include <span>

#include "common/feature_stage.h"
#include "common/float_plane.h"

namespace vmafexact::float_motion {

// The options that change the arithmetic (libvmaf's names and defaults).
struct FloatMotionParams {
  bool debug = true;           // debug: also write the frame's own score ("motion")
  bool force_zero = false;     // motion_force_zero
  double fps_weight = 1.0;     // motion_fps_weight
  double blend_factor = 1.0;   // motion_blend_factor
  double blend_offset = 40.0;  // motion_blend_offset
  bool add_scale1 = false;     // motion_add_scale1
  int filter_size = 5;         // motion_filter_size: 1 (no-op), 3, anything else 5
  bool add_uv = false;         // motion_add_uv
  double max_val = 10000.0;    // motion_max_val
};

// The filter libvmaf picks for motion_filter_size (motion_tools.h).
std::span<const float> motion_filter(int filter_size);

// The smallest side the filter mirrors inside the plane (libvmaf reads
// outside it below this: radius + 1).
unsigned min_side(int filter_size);

// convolution_f32_c_s(): `src` blurred by `filter` vertically into `tmp`, then
// horizontally into `dst` (both resized to src's size).
void blur_plane(std::span<const float> filter, const FloatPlane& src, FloatPlane& tmp,
                FloatPlane& dst);

// vmaf_image_sad_c()'s finish, for both backends: the float sum of the rows'
// sums of |a - b| (pixel::row_abs_difference()), in row order, over the
// plane's area.
float mean_abs_difference(std::span<const float> row_sums, int width, int height);

// vmaf_image_sad_c(): the mean absolute difference of two planes of one size
// (float); with add_scale1, plus that of both planes bilinearly halved
// (pixel::half_side() a side).
float image_sad(const FloatPlane& a, const FloatPlane& b, bool add_scale1);

// One frame's per-pixel result: its score against the previous frame (luma,
// plus both chroma planes with add_uv, in double), nullopt for the first frame.
using FloatMotionSums = std::optional<double>;

// The CPU stage: the blurred planes of the previous reference frame, kept
// from one frame to the next.
class FloatMotionCpuStage final : public FeatureStage<FloatMotionSums> {
 public:
  FloatMotionCpuStage(const PictureFormat& format, const FloatMotionParams& params);
  FloatMotionSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  PictureFormat format_;
  FloatMotionParams params_;
  unsigned planes_;
  FloatPlane copy_, tmp_;
  FloatPlane blurred_[3], previous_[3];
  bool have_previous_ = false;
};

}  // namespace vmafexact::float_motion
