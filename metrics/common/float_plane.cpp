#include "common/float_plane.h"

#include <cmath>
#include <cstdint>
#include <numbers>

#include "common/float_plane_pixel.h"

namespace vmafexact {

void copy_plane_to_float(const PlaneView& plane, unsigned bpc, int offset, FloatPlane& out) {
  if (out.width != plane.width || out.height != plane.height || out.stride < plane.width)
    out = FloatPlane(plane.width, plane.height);
  if (bpc == 8) {
    for (unsigned y = 0; y < plane.height; ++y) {
      const std::uint8_t* in = plane.row<std::uint8_t>(y);
      float* row = out.row(y);
      for (unsigned x = 0; x < plane.width; ++x)
        row[x] = float_pixel::sample_to_float(in[x], offset);
    }
    return;
  }
  const float scaler = float_pixel::sample_scaler(bpc);
  for (unsigned y = 0; y < plane.height; ++y) {
    const std::uint16_t* in = plane.row<std::uint16_t>(y);
    float* row = out.row(y);
    for (unsigned x = 0; x < plane.width; ++x)
      row[x] = float_pixel::sample_to_float(in[x], scaler, offset);
  }
}

std::optional<ScaleMethod> scale_method_from_name(std::string_view name) {
  if (name == "nearest") return ScaleMethod::kNearest;
  if (name == "bilinear") return ScaleMethod::kBilinear;
  if (name == "bicubic") return ScaleMethod::kBicubic;
  if (name == "lanczos4") return ScaleMethod::kLanczos4;
  return std::nullopt;
}

namespace {

using float_pixel::mirror_coordinate;
using float_pixel::source_coordinate;

float bicubic_kernel(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float bicubic_sample(const FloatPlane& src, float x, float y) {
  const int x0 = static_cast<int>(std::floor(static_cast<double>(x)));
  const int y0 = static_cast<int>(std::floor(static_cast<double>(y)));
  const float dx = x - x0;
  const float dy = y - y0;
  float weights_x[4];
  float weights_y[4];
  for (int i = -1; i <= 2; ++i) {
    weights_x[i + 1] = bicubic_kernel(i - dx);
    weights_y[i + 1] = bicubic_kernel(i - dy);
  }
  const float right = static_cast<float>(static_cast<int>(src.width) - 1);
  const float bottom = static_cast<float>(static_cast<int>(src.height) - 1);
  float value = 0.0f;
  for (int j = -1; j <= 2; ++j)
    for (int i = -1; i <= 2; ++i) {
      const int xi = static_cast<int>(mirror_coordinate(static_cast<float>(x0 + i), 0, right));
      const int yi = static_cast<int>(mirror_coordinate(static_cast<float>(y0 + j), 0, bottom));
      const float weight = weights_x[i + 1] * weights_y[j + 1];
      value += src.row(static_cast<unsigned>(yi))[xi] * weight;
    }
  return value;
}

// libvmaf computes the kernel in double (M_PI is a double) and returns a float.
float lanczos4_kernel(float x, float a) {
  constexpr double pi = 3.14159265358979323846;
  if (x == 0.0) return 1.0f;
  if (x > -a && x < a)
    return static_cast<float>(a * std::sin(pi * x) * std::sin(pi * x / a) / (pi * pi * x * x));
  return 0.0f;
}

float lanczos4_sample(const FloatPlane& src, float x, float y) {
  const int a = 4;
  const int x0 = static_cast<int>(std::floor(static_cast<double>(x)));
  const int y0 = static_cast<int>(std::floor(static_cast<double>(y)));
  const float dx = x - x0;
  const float dy = y - y0;
  float weights_x[9];
  float weights_y[9];
  for (int i = -a; i <= a; ++i) {
    weights_x[i + a] = lanczos4_kernel(i - dx, static_cast<float>(a));
    weights_y[i + a] = lanczos4_kernel(i - dy, static_cast<float>(a));
  }
  const float right = static_cast<float>(static_cast<int>(src.width) - 1);
  const float bottom = static_cast<float>(static_cast<int>(src.height) - 1);
  float value = 0.0f;
  float weight_sum = 0.0f;
  for (int iy = -a; iy <= a; ++iy)
    for (int ix = -a; ix <= a; ++ix) {
      const float weight = weights_x[ix + a] * weights_y[iy + a];
      weight_sum += weight;
      const int xi = static_cast<int>(mirror_coordinate(static_cast<float>(x0 + ix), 0, right));
      const int yi = static_cast<int>(mirror_coordinate(static_cast<float>(y0 + iy), 0, bottom));
      value += src.row(static_cast<unsigned>(yi))[xi] * weight;
    }
  return value / weight_sum;
}

}  // namespace

void scale_plane(ScaleMethod method, const FloatPlane& src, FloatPlane& dst) {
  if (src.width == dst.width && src.height == dst.height) {
    for (unsigned y = 0; y < src.height; ++y)
      std::copy(src.row(y), src.row(y) + src.width, dst.row(y));
    return;
  }
  const int src_w = static_cast<int>(src.width), src_h = static_cast<int>(src.height);
  const int dst_w = static_cast<int>(dst.width), dst_h = static_cast<int>(dst.height);
  const float ratio_x = static_cast<float>(src_w) / static_cast<float>(dst_w);
  const float ratio_y = static_cast<float>(src_h) / static_cast<float>(dst_h);
  switch (method) {
    case ScaleMethod::kNearest:
      for (int y = 0; y < dst_h; ++y)
        for (int x = 0; x < dst_w; ++x) {
          const int sy = static_cast<int>(static_cast<float>(y) * ratio_y);
          const int sx = static_cast<int>(static_cast<float>(x) * ratio_x);
          dst.row(static_cast<unsigned>(y))[x] = src.row(static_cast<unsigned>(sy))[sx];
        }
      return;
    case ScaleMethod::kBilinear: {
      // Per column: both source columns and the weight (float_plane_pixel.h).
      std::vector<float_pixel::BilinearTap> columns(dst.width);
      for (int x = 0; x < dst_w; ++x)
        columns[x] = float_pixel::bilinear_tap(x, ratio_x, static_cast<float>(src_w - 1));
      for (int y = 0; y < dst_h; ++y) {
        const auto row = float_pixel::bilinear_tap(y, ratio_y, static_cast<float>(src_h - 1));
        const float* r1 = src.row(static_cast<unsigned>(row.first));
        const float* r2 = src.row(static_cast<unsigned>(row.second));
        float* out = dst.row(static_cast<unsigned>(y));
        for (int x = 0; x < dst_w; ++x) {
          const auto& column = columns[x];
          out[x] =
              float_pixel::bilinear_value(row.weight, column.weight, r1[column.first],
                                          r1[column.second], r2[column.first], r2[column.second]);
        }
      }
      return;
    }
    case ScaleMethod::kBicubic:
    case ScaleMethod::kLanczos4:
      for (int y = 0; y < dst_h; ++y) {
        const float yy = source_coordinate(y, ratio_y);
        for (int x = 0; x < dst_w; ++x) {
          const float xx = source_coordinate(x, ratio_x);
          dst.row(static_cast<unsigned>(y))[x] = method == ScaleMethod::kBicubic
                                                     ? bicubic_sample(src, xx, yy)
                                                     : lanczos4_sample(src, xx, yy);
        }
      }
      return;
  }
}

}  // namespace vmafexact
