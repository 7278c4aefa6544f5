// What the host emulations of the float features' CUDA twins share
// (check_float_*_cuda.cpp): the device copy of a picture, the label of a case,
// and whether the feature takes a format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/float_plane_pixel.h"
#include "registry.h"
#include "test_pictures.h"

namespace vmafexact::harness {

// The device's copy of a picture (enqueue_float_pictures()): each sample
// float_pixel::picture_sample() plus `offset`, rows of exactly its width.
inline std::vector<float> float_picture(const test::TestPlane& plane, int offset) {
  const unsigned w = plane.width(), h = plane.height();
  const float scaler = float_pixel::sample_scaler(plane.bpc());
  const PlaneView view = plane.plane();
  std::vector<float> out(static_cast<std::size_t>(w) * h);
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x)
      out[static_cast<std::size_t>(y) * w + x] =
          plane.bpc() == 8
              ? float_pixel::picture_sample(view.row<std::uint8_t>(y)[x], scaler, offset)
              : float_pixel::picture_sample(view.row<std::uint16_t>(y)[x], scaler, offset);
  return out;
}

// "WxH B-bit option=value ...".
inline std::string case_label(unsigned w, unsigned h, unsigned bpc,
                              const FeatureOptions& options = {}) {
  std::string text =
      std::to_string(w) + "x" + std::to_string(h) + " " + std::to_string(bpc) + "-bit";
  for (const auto& [name, value] : options) text += " " + name + "=" + value;
  return text;
}

// Whether the feature's extractor takes the format with these options.
inline bool feature_takes(std::string_view feature, const PictureFormat& format,
                          const FeatureOptions& options) {
  try {
    make_feature_extractor(feature, options)->init(format);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace vmafexact::harness
