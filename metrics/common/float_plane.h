// Pictures as libvmaf's float extractors hold them (float_motion, float_vif,
// float_adm): one plane of floats per picture, copied by picture_copy.c and
// rescaled by vif_tools.c's vif_scale_frame_s().
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "common/float_plane_pixel.h"
#include "common/picture.h"

namespace vmafexact {

// A width x height plane of floats, rows `stride` floats apart.
struct FloatPlane {
  unsigned width = 0;
  unsigned height = 0;
  std::size_t stride = 0;
  std::vector<float> data;

  FloatPlane() = default;
  FloatPlane(unsigned w, unsigned h) : width(w), height(h), stride(w), data(std::size_t{w} * h) {}

  float* row(unsigned y) { return data.data() + stride * y; }
  const float* row(unsigned y) const { return data.data() + stride * y; }
};

// libvmaf's picture_copy(): each sample as a float plus `offset`; 10-, 12- and
// 16-bit samples are first divided by 4, 16 and 256 (float arithmetic, in that
// order). `out` is resized to the plane.
void copy_plane_to_float(const PlaneView& plane, unsigned bpc, int offset, FloatPlane& out);

// ScaleMethod by libvmaf's names ("nearest", "bilinear", "bicubic", "lanczos4").
std::optional<ScaleMethod> scale_method_from_name(std::string_view name);

// libvmaf's bilinear tables live on the stack for at most this many output
// columns (VIF_BILINEAR_MAX_WIDTH); its extractors refuse wider ones.
inline constexpr unsigned kBilinearMaxWidth = 7680;

// vif_scale_frame_s() from a src_w x src_h picture to dst_w x dst_h as tables:
// per output row and per output column, `taps` source rows / columns
// (mirrored) and their weights, as float_pixel::prescaled_sample() reads them
// (nearest: 1 tap, bilinear 2, bicubic 4, lanczos4 9), each the float
// expression libvmaf evaluates per sample, computed once. Equal sizes give the
// identity as nearest. The CPU's scale_plane() and the CUDA twins read them.
struct PrescaleTables {
  ScaleMethod method = ScaleMethod::kNearest;
  unsigned taps = 1;
  std::vector<int> rows, columns;                  // dst_h (dst_w) * taps
  std::vector<float> row_weights, column_weights;  // the same sizes
};
PrescaleTables prescale_tables(ScaleMethod method, unsigned src_w, unsigned src_h, unsigned dst_w,
                               unsigned dst_h);

// vif_scale_frame_s(): `src` resampled to dst's size (set by the caller), a
// plain copy when the sizes are equal; with `tables` made for these sizes
// (a stage that scales every frame makes them once).
void scale_plane(const PrescaleTables& tables, const FloatPlane& src, FloatPlane& dst);
void scale_plane(ScaleMethod method, const FloatPlane& src, FloatPlane& dst);

}  // namespace vmafexact
