#include "float_vif/float_vif.h"

#include <math.h>  // ::powf, as libvmaf calls it

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "common/cpu.h"
#include "common/dispatch.h"
#include "float_vif/float_vif_pixel.h"

namespace vmafexact::float_vif {

namespace {

// vif_tools.h's valid_kernelscales, each written as libvmaf writes it.
constexpr float kValidKernelscales[] = {
    1.0,           1.0f / 2.0f,    3.0f / 2.0f, 2.0f,         2.0f / 3.0f,
    24.0f / 10.0f, 360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f,
    4.25f / 3.0f,  5.0f / 3.0f,    3.0f,        1.0f / 2.25f, 1.4746f,
    1.54f,         1.6f,           1.06667f,    0.711111f,    0.740740f,
    1.111111f,
};

constexpr double kPi = 3.14159265358979323846;  // M_PI

int round_up_to_odd(float f) {
  const int ceiling = static_cast<int>(std::ceil(static_cast<double>(f)));
  return ceiling % 2 == 0 ? ceiling + 1 : ceiling;
}

// get_gaussian_pdf(): exp and sqrt in double, the result as floats.
float gaussian_pdf(float x, float mean, float stdev) {
  const float num = static_cast<float>(std::exp(-0.5 * (x - mean) / stdev * (x - mean) / stdev));
  const float den = static_cast<float>(1 / (stdev * std::sqrt(2 * kPi)));
  return num / den;
}

int filter_size(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  const int size = round_up_to_odd(static_cast<float>(n) * kernelscale);
  return size > 3 ? size : 3;
}

using pixel::mirror;

// --- The scalar reference's row kernels: vif_filter1d_s() (and its _sq and
// _xy variants, whose products are formed before the tap's) and
// vif_statistic_s(). The filters loop over the taps outside and the columns
// inside, so that each column's sum sees the same operations in the same
// order as libvmaf's column by column, and the compiler may run the columns
// side by side.

// out[j] = sum over the taps of tap * value(row k's sample j), from 0, for
// columns begin..end-1.
template <class Value>
void tap_sums(const float* taps, int taps_count, const float* const* rows, unsigned begin,
              unsigned end, Value value, float* out) {
  std::fill(out + begin, out + end, 0.0f);
  for (int k = 0; k < taps_count; ++k) {
    const float tap = taps[k];
    const float* row = rows[k];
    for (unsigned j = begin; j < end; ++j) out[j] += tap * value(row[j]);
  }
}

void vertical_scalar(const float* taps, int taps_count, const float* const* ref_rows,
                     const float* const* dist_rows, unsigned begin, unsigned end, bool moments,
                     float* const* out) {
  const auto sample = [](float x) { return x; };
  const auto square = [](float x) { return x * x; };
  tap_sums(taps, taps_count, ref_rows, begin, end, sample, out[0]);
  tap_sums(taps, taps_count, dist_rows, begin, end, sample, out[1]);
  if (!moments) return;
  tap_sums(taps, taps_count, ref_rows, begin, end, square, out[2]);
  tap_sums(taps, taps_count, dist_rows, begin, end, square, out[3]);
  std::fill(out[4] + begin, out[4] + end, 0.0f);
  for (int k = 0; k < taps_count; ++k)
    for (unsigned j = begin; j < end; ++j)
      out[4][j] += taps[k] * (ref_rows[k][j] * dist_rows[k][j]);
}

void horizontal_scalar(const float* taps, int taps_count, const float* row, int begin, int end,
                       float* out) {
  const float* first = row - taps_count / 2;  // the first tap's sample of column 0
  std::fill(out + begin, out + end, 0.0f);
  for (int k = 0; k < taps_count; ++k) {
    const float tap = taps[k];
    for (int j = begin; j < end; ++j) out[j] += tap * first[j + k];
  }
}

void statistic_scalar(const float* const* rows, unsigned width, const StatisticConstants& c,
                      float* num, float* den) {
  for (unsigned j = 0; j < width; ++j)
    pixel::statistic(rows[0][j], rows[1][j], rows[2][j], rows[3][j], rows[4][j], c, num[j], den[j]);
}

// One getter a line, the twins' under the build's condition.
// clang-format off
constexpr simd::IsaTables<FloatVifDsp> kTables{
    float_vif_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    float_vif_dsp_avx2,
    float_vif_dsp_avx512,
#endif
};
// clang-format on

// Rows `count` of the workspace's `filtered`: the vertical pass of plane row
// `i` (rows mirrored at the top and bottom) into `vertical`, then the
// horizontal pass of each (the mirrored columns at the sides here, the inner
// ones by the DSP). count 2: mu1 and mu2; 5: with the moments.
void filter_row(const std::vector<float>& taps, const FloatPlane& ref, const FloatPlane& dist,
                int i, int count, const FloatVifDsp& dsp, FloatVifWorkspace& w) {
  const int taps_count = static_cast<int>(taps.size());
  const int width = static_cast<int>(ref.width), height = static_cast<int>(ref.height);
  w.ref_rows.resize(taps.size());
  w.dist_rows.resize(taps.size());
  for (int k = 0; k < taps_count; ++k) {
    const auto row = static_cast<unsigned>(mirror(i - taps_count / 2 + k, height));
    w.ref_rows[static_cast<std::size_t>(k)] = ref.row(row);
    w.dist_rows[static_cast<std::size_t>(k)] = dist.row(row);
  }
  float* vertical[5];
  for (int q = 0; q < 5; ++q) {
    w.vertical[q].resize(ref.width);
    w.filtered[q].resize(ref.width);
    vertical[q] = w.vertical[q].data();
  }
  dsp.vertical(taps.data(), taps_count, w.ref_rows.data(), w.dist_rows.data(), 0, ref.width,
               count == 5, vertical);
  const int half = taps_count / 2;
  const int inner_begin = half < width ? half : width;
  const int inner_end = width - half > inner_begin ? width - half : inner_begin;
  for (int q = 0; q < count; ++q) {
    const float* tmp = vertical[q];
    float* out = w.filtered[q].data();
    dsp.horizontal(taps.data(), taps_count, tmp, inner_begin, inner_end, out);
    for (int j = 0; j < width; ++j) {
      if (j == inner_begin) j = inner_end;
      if (j >= width) break;
      float accum = 0;
      for (int k = 0; k < taps_count; ++k)
        accum += taps[static_cast<std::size_t>(k)] * tmp[mirror(j - half + k, width)];
      out[j] = accum;
    }
  }
}

// A plane of w x h, reusing its storage.
void resize(FloatPlane& plane, unsigned w, unsigned h) {
  plane.width = w;
  plane.height = h;
  plane.stride = w;
  plane.data.resize(std::size_t{w} * h);
}

}  // namespace

float log2f_approx(float x) { return pixel::log2_approx(x); }

float finish_rows(std::span<const float> row_sums) {
  return pixel::serial_sum(row_sums.data(), static_cast<int>(row_sums.size()));
}

StatisticConstants statistic_constants(const FloatVifParams& params) {
  // powf of the float value, divided in double, stored as a float.
  return {params.sigma_nsq,
          static_cast<float>(::powf(static_cast<float>(params.sigma_nsq), 2.0f) / (255.0 * 255.0)),
          static_cast<float>(params.enhn_gain_limit)};
}

bool valid_kernelscale(double kernelscale) {
  const float k = static_cast<float>(kernelscale);
  for (const float valid : kValidKernelscales)
    if (std::fabs(k - valid) < 1e-3) return true;
  return false;
}

std::vector<float> vif_filter(int scale, double kernelscale) {
  const int size = filter_size(scale, static_cast<float>(kernelscale));
  const float stdev = static_cast<float>(size) / 5.0f;
  // get_1d_gaussian_kernel(): the pdf at -k..k, normalised by its float sum.
  std::vector<float> out(static_cast<std::size_t>(size));
  float sum = 0;
  const int k = (size - 1) / 2;
  for (int i = 0; i < size; ++i) {
    out[i] = gaussian_pdf(static_cast<float>(i - k), 0, stdev);
    sum += out[i];
  }
  for (auto& tap : out) tap /= sum;
  return out;
}

std::array<ScaleSize, kScales> scale_sizes(unsigned width, unsigned height) {
  std::array<ScaleSize, kScales> sizes{};
  sizes[0] = {width, height};
  for (int s = 1; s < kScales; ++s) sizes[s] = {sizes[s - 1].width / 2, sizes[s - 1].height / 2};
  return sizes;
}

ScaleSize prescaled_size(unsigned width, unsigned height, double prescale) {
  return {static_cast<unsigned>(static_cast<int>(width * prescale + 0.5)),
          static_cast<unsigned>(static_cast<int>(height * prescale + 0.5))};
}

const FloatVifDsp& float_vif_dsp_scalar() {
  static constexpr FloatVifDsp dsp{"scalar", vertical_scalar, horizontal_scalar, statistic_scalar};
  return dsp;
}
const FloatVifDsp* float_vif_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }
const FloatVifDsp& float_vif_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

// libvmaf's compute_vif() row by row: each scale's five filtered planes are
// formed a row at a time and the row's statistic summed at once (the same
// values: each output depends only on its own taps), and scales 1 to 3 are the
// previous scale low-passed at its even rows and columns, the samples
// vif_dec2_s() keeps.
FloatVifSums compute_vif(const FloatPlane& ref, const FloatPlane& dist,
                         const FloatVifParams& params, const FloatVifDsp& dsp,
                         FloatVifWorkspace& w) {
  FloatVifSums sums;
  const StatisticConstants constants = statistic_constants(params);
  if (w.filters[0].empty() || w.kernelscale != params.kernelscale) {
    for (int scale = 0; scale < kScales; ++scale)
      w.filters[static_cast<std::size_t>(scale)] = vif_filter(scale, params.kernelscale);
    w.kernelscale = params.kernelscale;
  }
  const FloatPlane* cur_ref = &ref;
  const FloatPlane* cur_dist = &dist;
  for (int scale = params.skip_scale0 ? 1 : 0; scale < kScales; ++scale) {
    const std::vector<float>& taps = w.filters[static_cast<std::size_t>(scale)];
    if (scale > 0) {
      // Low-pass the previous scale with this scale's filter and keep every
      // other sample of every other row.
      const unsigned width = cur_ref->width / 2, height = cur_ref->height / 2;
      resize(w.next_ref, width, height);
      resize(w.next_dist, width, height);
      for (unsigned i = 0; i < height; ++i) {
        filter_row(taps, *cur_ref, *cur_dist, static_cast<int>(2 * i), 2, dsp, w);
        for (unsigned j = 0; j < width; ++j) {
          w.next_ref.row(i)[j] = w.filtered[0][2 * j];
          w.next_dist.row(i)[j] = w.filtered[1][2 * j];
        }
      }
      std::swap(w.ref_scale, w.next_ref);
      std::swap(w.dist_scale, w.next_dist);
      cur_ref = &w.ref_scale;
      cur_dist = &w.dist_scale;
    }
    const unsigned width = cur_ref->width;
    w.num.resize(width);
    w.den.resize(width);
    w.row_num.resize(cur_ref->height);
    w.row_den.resize(cur_ref->height);
    for (unsigned i = 0; i < cur_ref->height; ++i) {
      filter_row(taps, *cur_ref, *cur_dist, static_cast<int>(i), 5, dsp, w);
      const float* filtered[5];
      for (int q = 0; q < 5; ++q) filtered[q] = w.filtered[q].data();
      dsp.statistic(filtered, width, constants, w.num.data(), w.den.data());
      // Each row's terms summed in column order, then the rows in order.
      w.row_num[i] = pixel::serial_sum(w.num.data(), static_cast<int>(width));
      w.row_den[i] = pixel::serial_sum(w.den.data(), static_cast<int>(width));
    }
    sums.num[static_cast<std::size_t>(scale)] = finish_rows(w.row_num);
    sums.den[static_cast<std::size_t>(scale)] = finish_rows(w.row_den);
  }
  return sums;
}

FloatVifCpuStage::FloatVifCpuStage(const PictureFormat& format, const FloatVifParams& params)
    : format_(format), params_(params), dsp_(&float_vif_dsp(cpu::flags())) {
  const ScaleSize scaled = prescaled_size(format.width, format.height, params.prescale);
  ref_scaled_ = FloatPlane(scaled.width, scaled.height);
  dist_scaled_ = FloatPlane(scaled.width, scaled.height);
  prescale_ = prescale_tables(params.prescale_method, format.width, format.height, scaled.width,
                              scaled.height);
}

FloatVifSums FloatVifCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  copy_plane_to_float(ref.planes[0], format_.bpc, -128, ref_);
  copy_plane_to_float(dist.planes[0], format_.bpc, -128, dist_);
  scale_plane(prescale_, ref_, ref_scaled_);
  scale_plane(prescale_, dist_, dist_scaled_);
  return compute_vif(ref_scaled_, dist_scaled_, params_, *dsp_, workspace_);
}

}  // namespace vmafexact::float_vif
