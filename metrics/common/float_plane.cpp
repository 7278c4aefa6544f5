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

float bicubic_kernel(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

// lanczos4_kernel(x, a): in double (sin, M_PI), rounded to float.
float lanczos4_kernel(float x, float a) {
  constexpr double pi = 3.14159265358979323846;
  if (x == 0.0f) return 1.0f;
  if (x > -a && x < a) {
    const double xd = x, ad = a;
    return static_cast<float>(ad * std::sin(pi * xd) * std::sin(pi * xd / ad) /
                              (pi * pi * xd * xd));
  }
  return 0.0f;
}

// The source indices and weights of output sample `i` along an axis of
// `size` source samples with `ratio` = (float)src / dst.
void taps_of(ScaleMethod method, int i, float ratio, unsigned size, int* index, float* weight) {
  if (method == ScaleMethod::kNearest) {
    index[0] = static_cast<int>(static_cast<float>(i) * ratio);
    weight[0] = 0;
    return;
  }
  const float right = static_cast<float>(static_cast<int>(size) - 1);
  if (method == ScaleMethod::kBilinear) {
    // Both source samples and dx, taken from the mirrored first.
    const auto tap = float_pixel::bilinear_tap(i, ratio, right);
    index[0] = tap.first;
    index[1] = tap.second;
    weight[0] = tap.weight;
    weight[1] = 0;
    return;
  }
  // Bicubic and lanczos4: the mirrored x0 - 1 .. x0 + 2 (x0 - 4 .. x0 + 4)
  // and their kernel weights at k - dx.
  const float at = float_pixel::source_coordinate(i, ratio);
  const int x0 = static_cast<int>(std::floor(static_cast<double>(at)));
  const float d = at - static_cast<float>(x0);
  const int reach = method == ScaleMethod::kBicubic ? 1 : 4;
  const int last = method == ScaleMethod::kBicubic ? 2 : 4;
  unsigned k = 0;
  for (int offset = -reach; offset <= last; ++offset, ++k) {
    const float t = static_cast<float>(offset) - d;
    weight[k] = method == ScaleMethod::kBicubic ? bicubic_kernel(t) : lanczos4_kernel(t, 4.0f);
    index[k] = static_cast<int>(mirror_coordinate(static_cast<float>(x0 + offset), 0, right));
  }
}

}  // namespace

PrescaleTables prescale_tables(ScaleMethod method, unsigned src_w, unsigned src_h, unsigned dst_w,
                               unsigned dst_h) {
  PrescaleTables t;
  if (src_w == dst_w && src_h == dst_h) {  // the identity, as nearest
    for (unsigned y = 0; y < dst_h; ++y) t.rows.push_back(static_cast<int>(y));
    for (unsigned x = 0; x < dst_w; ++x) t.columns.push_back(static_cast<int>(x));
    t.row_weights.assign(dst_h, 0.0f);
    t.column_weights.assign(dst_w, 0.0f);
    return t;
  }
  t.method = method;
  t.taps = method == ScaleMethod::kNearest    ? 1
           : method == ScaleMethod::kBilinear ? 2
           : method == ScaleMethod::kBicubic  ? 4
                                              : 9;
  const float ratio_x = static_cast<float>(src_w) / static_cast<float>(dst_w);
  const float ratio_y = static_cast<float>(src_h) / static_cast<float>(dst_h);
  t.columns.resize(std::size_t{dst_w} * t.taps);
  t.column_weights.resize(t.columns.size());
  for (unsigned x = 0; x < dst_w; ++x)
    taps_of(method, static_cast<int>(x), ratio_x, src_w, &t.columns[std::size_t{x} * t.taps],
            &t.column_weights[std::size_t{x} * t.taps]);
  t.rows.resize(std::size_t{dst_h} * t.taps);
  t.row_weights.resize(t.rows.size());
  for (unsigned y = 0; y < dst_h; ++y)
    taps_of(method, static_cast<int>(y), ratio_y, src_h, &t.rows[std::size_t{y} * t.taps],
            &t.row_weights[std::size_t{y} * t.taps]);
  return t;
}

void scale_plane(const PrescaleTables& t, const FloatPlane& src, FloatPlane& dst) {
  if (src.width == dst.width && src.height == dst.height) {
    for (unsigned y = 0; y < src.height; ++y)
      std::copy(src.row(y), src.row(y) + src.width, dst.row(y));
    return;
  }
  for (unsigned y = 0; y < dst.height; ++y) {
    const int* rows = &t.rows[std::size_t{y} * t.taps];
    const float* wy = &t.row_weights[std::size_t{y} * t.taps];
    const auto tap = [&](unsigned j, int column) {
      return src.row(static_cast<unsigned>(rows[j]))[column];
    };
    float* out = dst.row(y);
    for (unsigned x = 0; x < dst.width; ++x)
      out[x] = float_pixel::prescaled_sample(t.method, tap, &t.columns[std::size_t{x} * t.taps],
                                             &t.column_weights[std::size_t{x} * t.taps], wy);
  }
}

void scale_plane(ScaleMethod method, const FloatPlane& src, FloatPlane& dst) {
  scale_plane(prescale_tables(method, src.width, src.height, dst.width, dst.height), src, dst);
}

}  // namespace vmafexact
