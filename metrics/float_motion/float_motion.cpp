#include "float_motion/float_motion.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "float_motion/float_motion_pixel.h"

namespace vmafexact::float_motion {

namespace {

// Double literals rounded to float, as libvmaf's C initialisers are (a float
// literal could round differently).
constexpr std::array<float, 5> kFilter5 = {0.054488685, 0.244201342, 0.402619947, 0.244201342,
                                           0.054488685};
constexpr std::array<float, 3> kFilter3 = {0.166378498, 0.667243004, 0.166378498};
// motion_filter_size 1: still five taps read, four of them weighted 0.
constexpr std::array<float, 5> kNoOp5 = {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};

using pixel::mirror;

}  // namespace

std::span<const float> motion_filter(int filter_size) {
  if (filter_size == 1) return kNoOp5;
  if (filter_size == 3) return kFilter3;
  return kFilter5;
}

unsigned min_side(int filter_size) {
  return static_cast<unsigned>(motion_filter(filter_size).size() / 2 + 1);
}

void blur_plane(std::span<const float> filter, const FloatPlane& src, FloatPlane& tmp,
                FloatPlane& dst) {
  const int w = static_cast<int>(src.width), h = static_cast<int>(src.height);
  const int taps = static_cast<int>(filter.size()), radius = taps / 2;
  if (tmp.width != src.width || tmp.height != src.height) tmp = FloatPlane(src.width, src.height);
  if (dst.width != src.width || dst.height != src.height) dst = FloatPlane(src.width, src.height);
  // libvmaf's interior and edge loops add the same products in the same
  // order (k = 0 up), so mirrored rows give their bits. The loops run over
  // the taps outside and the columns inside: each output's float sum sees the
  // same operations in the same order, and the compiler may run the columns
  // side by side (-ffp-contract=off: no fused multiply-adds).
  for (int i = 0; i < h; ++i) {
    float* out = tmp.row(static_cast<unsigned>(i));
    std::fill(out, out + w, 0.0f);
    for (int k = 0; k < taps; ++k) {
      const float tap = filter[k];
      const float* in = src.row(static_cast<unsigned>(mirror(i - radius + k, h)));
      for (int j = 0; j < w; ++j) out[j] += tap * in[j];
    }
  }
  const int inner_begin = radius < w ? radius : w;
  const int inner_end = w - radius > inner_begin ? w - radius : inner_begin;
  for (int i = 0; i < h; ++i) {
    const float* in = tmp.row(static_cast<unsigned>(i));
    float* out = dst.row(static_cast<unsigned>(i));
    for (int j = inner_begin; j < inner_end; ++j) out[j] = 0.0f;
    for (int k = 0; k < taps; ++k) {
      const float tap = filter[k];
      const float* shifted = in + (k - radius);
      for (int j = inner_begin; j < inner_end; ++j) out[j] += tap * shifted[j];
    }
    for (int j = 0; j < w; ++j) {  // the mirrored borders
      if (j == inner_begin) j = inner_end;
      if (j >= w) break;
      out[j] = pixel::blur_sum(filter.data(), taps,
                               [&](int k) { return in[mirror(j - radius + k, w)]; });
    }
  }
}

float mean_abs_difference(std::span<const float> row_sums, int width, int height) {
  float accum = 0.0f;
  for (const float row : row_sums) accum += row;
  // accum / (width * height): the int product converted to float.
  return accum / static_cast<float>(width * height);
}

namespace {

float plane_mean_abs_difference(const FloatPlane& a, const FloatPlane& b,
                                std::vector<float>& row_sums) {
  row_sums.resize(a.height);
  for (unsigned i = 0; i < a.height; ++i)
    row_sums[i] = pixel::row_abs_difference(a.row(i), b.row(i), static_cast<int>(a.width));
  return mean_abs_difference(row_sums, static_cast<int>(a.width), static_cast<int>(a.height));
}

}  // namespace

float image_sad(const FloatPlane& a, const FloatPlane& b, bool add_scale1) {
  std::vector<float> row_sums;
  const float scale0 = plane_mean_abs_difference(a, b, row_sums);
  if (!add_scale1) return scale0;
  FloatPlane a_scaled(static_cast<unsigned>(pixel::half_side(static_cast<int>(a.width))),
                      static_cast<unsigned>(pixel::half_side(static_cast<int>(a.height))));
  FloatPlane b_scaled(a_scaled.width, a_scaled.height);
  scale_plane(ScaleMethod::kBilinear, a, a_scaled);
  scale_plane(ScaleMethod::kBilinear, b, b_scaled);
  return scale0 + plane_mean_abs_difference(a_scaled, b_scaled, row_sums);
}

FloatMotionCpuStage::FloatMotionCpuStage(const PictureFormat& format,
                                         const FloatMotionParams& params)
    : format_(format), params_(params), planes_(params.add_uv ? 3u : 1u) {}

FloatMotionSums FloatMotionCpuStage::compute(const PictureView& ref, const PictureView&, unsigned) {
  const auto filter = motion_filter(params_.filter_size);
  for (unsigned p = 0; p < planes_; ++p) {
    copy_plane_to_float(ref.planes[p], format_.bpc, -128, copy_);
    blur_plane(filter, copy_, tmp_, blurred_[p]);
  }
  FloatMotionSums score;
  if (have_previous_) {
    // compute_motion() per plane; the chroma scores are added to luma's in double.
    double sum = image_sad(previous_[0], blurred_[0], params_.add_scale1);
    for (unsigned p = 1; p < planes_; ++p)
      sum += image_sad(previous_[p], blurred_[p], params_.add_scale1);
    score = sum;
  }
  for (unsigned p = 0; p < planes_; ++p) std::swap(previous_[p], blurred_[p]);
  have_previous_ = true;
  return score;
}

}  // namespace vmafexact::float_motion
