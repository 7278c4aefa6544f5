// The CUDA twin of float_vif (cuda/float_vif/) against the CPU path.
//  - float_vif_cuda_emulation: no device needed (runs in CI). Every kernel's
//    output computed on the host with the kernels' own __host__ __device__
//    functions (float_vif_cuda_tile.h), one output at a time, in the kernels'
//    passes (convert, prescale, decimate, the maps' column pass, the terms,
//    the rows' sums), finished as the stage finishes: the per-scale num and
//    den must equal the CPU stage's bit for bit.
//  - float_vif_cuda_device: the stage and the extractor on a device (skipped
//    without one), == the CPU, with every option.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "cuda_backend.h"
#include "device_stage.h"
#include "float_emulation.h"
#include "float_vif/float_vif.h"
#include "float_vif/float_vif_cuda_stage.h"
#include "float_vif/float_vif_cuda_tile.h"
#include "float_vif/float_vif_extractor.h"
#include "harness.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using test::Fill;
namespace tile = vmafexact::cuda::float_vif::tile;
namespace fv = vmafexact::float_vif;

namespace {

// A picture with hard edges over a gradient, noise, and (`fill`) runs of
// extreme or out-of-range samples: every branch of the statistic is taken.
void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
  const unsigned max = (1u << plane.bpc()) - 1;
  const unsigned container = plane.bpc() == 8 ? 255u : 65535u;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      unsigned value = (x * 29u + y * 13u + seed * 71u) % (max + 1);
      if ((x / 5 + y / 7 + seed) % 4 == 0) value = (x + y) % 2 ? max : 0;
      if ((x * 3 + y) % 11 == seed % 11) value = static_cast<unsigned>(rng() % (max + 1));
      if (y % 9 == 4) value = max / 2;  // flat rows: sigma below eps
      if (fill == Fill::kExtremes && (x + 2 * y) % 5 == 0) value = rng() % 2 ? max : 0;
      if (fill == Fill::kFullRange && (x * y) % 7 == 3)
        value = static_cast<unsigned>(rng() % (container + 1));
      plane.set(x, y, value);
    }
}

// The kernels' passes on the host, output by output, finished as the stage does.
fv::FloatVifSums emulate(const test::TestPlane& ref, const test::TestPlane& dist,
                         const fv::FloatVifParams& params) {
  const int w = static_cast<int>(ref.width()), h = static_cast<int>(ref.height());
  std::vector<float> planes[2] = {float_picture(ref, tile::kSampleOffset),
                                  float_picture(dist, tile::kSampleOffset)};
  const fv::ScaleSize scaled = fv::prescaled_size(ref.width(), ref.height(), params.prescale);
  int sw = static_cast<int>(scaled.width), sh = static_cast<int>(scaled.height);
  if (sw != w || sh != h) {
    const PrescaleTables t = prescale_tables(params.prescale_method, ref.width(), ref.height(),
                                             scaled.width, scaled.height);
    const tile::Prescale tables{t.method,
                                t.taps,
                                t.rows.data(),
                                t.columns.data(),
                                t.row_weights.data(),
                                t.column_weights.data()};
    for (auto& plane : planes) {
      std::vector<float> out(static_cast<std::size_t>(sw) * sh);
      for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x)
          out[static_cast<std::size_t>(y) * sw + x] =
              tile::prescale_output(plane.data(), w, tables, x, y);
      plane = std::move(out);
    }
  }
  const tile::StatisticConstants constants = fv::statistic_constants(params);
  fv::FloatVifSums sums;
  for (int s = 0; s < fv::kScales; ++s) {
    const std::vector<float> taps = fv::vif_filter(s, params.kernelscale);
    const int count = static_cast<int>(taps.size());
    if (s > 0) {
      const int nw = sw / 2, nh = sh / 2;
      for (auto& plane : planes) {
        std::vector<float> next(static_cast<std::size_t>(nw) * nh);
        for (int i = 0; i < nh; ++i)
          for (int j = 0; j < nw; ++j)
            next[static_cast<std::size_t>(i) * nw + j] =
                tile::decimated_output(plane.data(), sw, sh, taps.data(), count, i, j);
        plane = std::move(next);
      }
      sw = nw, sh = nh;
    }
    if (s < (params.skip_scale0 ? 1 : 0)) continue;
    const std::size_t map_floats = static_cast<std::size_t>(sw) * sh;
    std::vector<float> maps(tile::kMaps * map_floats), num(map_floats), den(map_floats);
    for (int y = 0; y < sh; ++y)
      for (int x = 0; x < sw; ++x) {
        float out[tile::kMaps];
        tile::vertical_maps(planes[0].data(), planes[1].data(), sw, sh, taps.data(), count, x, y,
                            out);
        for (int q = 0; q < tile::kMaps; ++q)
          maps[q * map_floats + static_cast<std::size_t>(y) * sw + x] = out[q];
      }
    for (int y = 0; y < sh; ++y)
      for (int x = 0; x < sw; ++x)
        tile::pixel_terms(maps.data(), map_floats, sw, x, y, taps.data(), count, constants,
                          num[static_cast<std::size_t>(y) * sw + x],
                          den[static_cast<std::size_t>(y) * sw + x]);
    std::vector<float> row_num(static_cast<std::size_t>(sh)), row_den(row_num.size());
    for (int y = 0; y < sh; ++y) {
      row_num[y] = tile::pixel::serial_sum(num.data() + static_cast<std::size_t>(y) * sw, sw);
      row_den[y] = tile::pixel::serial_sum(den.data() + static_cast<std::size_t>(y) * sw, sw);
    }
    sums.num[s] = fv::finish_rows(row_num);
    sums.den[s] = fv::finish_rows(row_den);
  }
  return sums;
}

std::string describe(const fv::FloatVifSums& sums) {
  std::string text;
  char buffer[64];
  for (int s = 0; s < fv::kScales; ++s) {
    std::snprintf(buffer, sizeof buffer, " %a/%a", sums.num[s], sums.den[s]);
    text += buffer;
  }
  return text;
}

const std::vector<FeatureOptions> kOptionSets = {
    {},
    {{"vif_skip_scale0", "true"}, {"vif_enhn_gain_limit", "1.0"}},
    {{"vif_kernelscale", "0.5"}, {"vif_sigma_nsq", "1.5"}},
    {{"vif_kernelscale", "1.5"}},
    {{"vif_prescale", "0.5"}, {"vif_prescale_method", "bilinear"}},
    {{"vif_prescale", "1.5"}, {"vif_prescale_method", "bicubic"}},
    {{"vif_prescale", "0.75"}, {"vif_prescale_method", "lanczos4"}},
    {{"vif_prescale", "2"}},
    {{"vif_scale1_min_val", "0.5"}, {"debug", "true"}}};

// float_vif's parts, for the device checks (device_stage.h).
struct FloatVifTwin {
  static constexpr const char* kFeature = "float_vif";
  using Sums = fv::FloatVifSums;
  using CpuStage = fv::FloatVifCpuStage;
  using CudaStage = cuda::float_vif::FloatVifCudaStage;
  static fv::FloatVifParams params(const FeatureOptions& options) {
    return fv::params_of(feature_entry(kFeature).descriptor.parse(options));
  }
  static void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
    ::paint(plane, seed, fill, rng);
  }
};

}  // namespace

TEST(float_vif_cuda_emulation, ScaleSumsEqualTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xF1F0);
  const std::vector<Size> sizes = {{32, 32}, {33, 35}, {47, 39}, {64, 48}, {97, 71}};
  unsigned compared = 0;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes)
      for (const auto& options : kOptionSets) {
        const PictureFormat format{w, h, bpc, ChromaFormat::k400};
        if (!feature_takes("float_vif", format, options)) continue;
        const fv::FloatVifParams params =
            fv::params_of(feature_entry("float_vif").descriptor.parse(options));
        for (const Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange}) {
          test::TestPlane ref(w, h, bpc), dist(w, h, bpc);
          paint(ref, 1, fill, rng);
          paint(dist, 2, fill, rng);
          fv::FloatVifCpuStage cpu(format, params);
          const fv::FloatVifSums expected = cpu.compute(ref.view(), dist.view(), 0);
          const fv::FloatVifSums emulated = emulate(ref, dist, params);
          EXPECT_TRUE(emulated == expected)
              << case_label(w, h, bpc, options) << ": cpu" << describe(expected) << " emulated"
              << describe(emulated);
          ++compared;
        }
      }
  EXPECT_GT(compared, 100u);
}

HARNESS_DEVICE_FIXTURE(float_vif);

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// every frame's sums == the CPU stage's.
TEST_F(float_vif_cuda_device, StageContractEqualsTheCpuStage) {
  expect_stage_contract<FloatVifTwin>(
      {{32, 32}, {47, 39}, {331, 177}, {1920, 1080}, {1277, 719}}, {8u, 10u, 16u},
      {FeatureOptions{},
       FeatureOptions{{"vif_prescale", "0.75"}, {"vif_prescale_method", "bicubic"}}},
      0xF1F01);
}

// The extractor on both backends with every option: the same collector.
TEST_F(float_vif_cuda_device, TwinEqualsTheCpuWithEveryOption) {
  expect_extractor_with_every_option<FloatVifTwin>({{33, 35}, {97, 71}, {640, 360}}, {8u, 12u},
                                                   kOptionSets, 0xF1F02);
}
