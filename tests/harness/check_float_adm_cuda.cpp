// The CUDA twin of float_adm (cuda/float_adm/) against the CPU path.
//  - float_adm_cuda_emulation: no device needed (runs in CI). Every kernel's
//    output computed on the host with the kernels' own __host__ __device__
//    functions (float_adm_cuda_tile.h), in the kernels' passes and order,
//    over a band arena laid out as the device's (the DWT's two passes, the
//    decoupling, the den rows, the CSF, the masking terms and their rows),
//    finished as the stage finishes: each level's num, den and AIM num must
//    equal the CPU stage's bit for bit, at the small sizes too where
//    libvmaf's reads reach into values earlier levels left.
//  - float_adm_cuda_device: the stage and the extractor on a device (skipped
//    without one), == the CPU, with every option the twin computes.
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "cuda_backend.h"
#include "device_stage.h"
#include "float_adm/float_adm.h"
#include "float_adm/float_adm_cuda_stage.h"
#include "float_adm/float_adm_cuda_tile.h"
#include "float_adm/float_adm_extractor.h"
#include "float_emulation.h"
#include "harness.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using test::Fill;
namespace tile = vmafexact::cuda::float_adm::tile;
namespace fa = vmafexact::float_adm;
namespace pixel = vmafexact::float_adm::pixel;

namespace {

// A picture with hard edges over a gradient, noise, flat rows and (`fill`)
// runs of extreme or out-of-range samples: the decoupling's clamps, its angle
// test and the masking's clip at 0 are all taken.
void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
  const unsigned max = (1u << plane.bpc()) - 1;
  const unsigned container = plane.bpc() == 8 ? 255u : 65535u;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      unsigned value = (x * 23u + y * 17u + seed * 53u) % (max + 1);
      if ((x / 4 + y / 6 + seed) % 3 == 0) value = (x + y) % 2 ? max : 0;
      if ((x * 5 + y) % 13 == seed % 13) value = static_cast<unsigned>(rng() % (max + 1));
      if (y % 11 == 5) value = max / 3;  // flat rows
      if (fill == Fill::kExtremes && (x + 3 * y) % 7 == 0) value = rng() % 2 ? max : 0;
      if (fill == Fill::kFullRange && (x * y) % 9 == 4)
        value = static_cast<unsigned>(rng() % (container + 1));
      plane.set(x, y, value);
    }
}

// The kernels' passes on the host, output by output, in the stage's order,
// finished as the stage does.
fa::FloatAdmSums emulate(const test::TestPlane& ref, const test::TestPlane& dist,
                         const fa::FloatAdmParams& params) {
  const int width = static_cast<int>(ref.width()), height = static_cast<int>(ref.height());
  std::vector<float> pictures[2] = {float_picture(ref, tile::kSampleOffset),
                                    float_picture(dist, tile::kSampleOffset)};
  const fa::ArenaLayout layout = fa::arena_layout(ref.width(), ref.height());
  std::vector<float> arena(layout.floats(), 0.0f);
  std::size_t row_count = 0, terms_count = 0;
  const auto levels = tile::plan_levels(ref.width(), ref.height(), params, row_count, terms_count);
  std::vector<float> rows(row_count), terms(terms_count);
  const std::size_t scratch = ((static_cast<std::size_t>(height) + 1) / 2) * width;
  std::vector<float> lo(scratch), hi(scratch);
  const float cos_sq = pixel::cos_1deg_sq();
  const bool masking = params.bypass_cm == 0;

  // enqueue_dwt(): every vertical output, then every horizontal one.
  const auto dwt = [&](const float* source, std::ptrdiff_t stride, int w, int h, bool lo_only,
                       int dst_first) {
    for (int i = 0; i < (h + 1) / 2; ++i)
      for (int j = 0; j < w; ++j)
        tile::dwt_vertical(source, stride, h, i, j, lo_only,
                           lo[static_cast<std::size_t>(i) * w + j],
                           hi[static_cast<std::size_t>(i) * w + j]);
    for (int i = 0; i < (h + 1) / 2; ++i)
      for (int j = 0; j < (w + 1) / 2; ++j) {
        float out[4];
        tile::dwt_horizontal(lo.data() + static_cast<std::size_t>(i) * w,
                             hi.data() + static_cast<std::size_t>(i) * w, w, j, lo_only, out);
        for (int band = 0; band < (lo_only ? 1 : 4); ++band)
          arena[static_cast<std::size_t>(layout.at(dst_first + band, i, j))] = out[band];
      }
  };
  const auto csf = [&](int src_first, int dst_first, int flt_first, const tile::Level& level) {
    const pixel::Region& r = level.taps;
    for (int theta = 0; theta < 3; ++theta)
      for (int i = r.top; i < r.bottom; ++i)
        for (int j = r.left; j < r.right; ++j)
          pixel::csf(arena[static_cast<std::size_t>(layout.at(src_first + theta, i, j))],
                     level.factors.f[theta],
                     arena[static_cast<std::size_t>(layout.at(dst_first + theta, i, j))],
                     arena[static_cast<std::size_t>(layout.at(flt_first + theta, i, j))]);
  };
  const auto cm_rows = [&](const pixel::CmBands& bands, const tile::Level& level, float* row_sums) {
    const int row_n = level.rows.count(), column_n = level.columns.count();
    const std::size_t plane = static_cast<std::size_t>(row_n) * column_n;
    for (int v = 0; v < row_n; ++v)
      for (int u = 0; u < column_n; ++u) {
        float out[3];
        tile::cm_terms_at(arena.data(), layout, bands, level.rows, level.columns, v, u,
                          level.factors, masking, params.p_norm, out);
        for (int theta = 0; theta < 3; ++theta)
          terms[theta * plane + static_cast<std::size_t>(v) * column_n + u] = out[theta];
      }
    for (int v = 0; v < row_n; ++v)
      for (int theta = 0; theta < 3; ++theta)
        row_sums[theta * row_n + v] = tile::serial_sum(
            terms.data() + theta * plane + static_cast<std::size_t>(v) * column_n, column_n);
  };

  int w = width, h = height;
  for (std::size_t s = 0; s < levels.size(); ++s) {
    const tile::Level& level = levels[s];
    const bool first = s == 0;
    const std::ptrdiff_t stride = first ? w : layout.stride;
    dwt(first ? pictures[0].data() : arena.data() + layout.at(fa::kRefA, 0, 0), stride, w, h,
        !level.scored, fa::kRefA);
    dwt(first ? pictures[1].data() : arena.data() + layout.at(fa::kDisA, 0, 0), stride, w, h,
        !level.scored, fa::kDisA);
    w = level.width;
    h = level.height;
    if (!level.scored) continue;
    for (int i = level.taps.top; i < level.taps.bottom; ++i)
      for (int j = level.taps.left; j < level.taps.right; ++j)
        tile::decouple(arena.data(), layout, i, j, params.enhn_gain_limit, cos_sq,
                       fa::rcp_estimate_table());
    for (int v = 0; v < level.den_rows(); ++v) {
      float inner[3];
      tile::den_row(arena.data(), layout, level.inner.top + v, level.inner.left, level.inner.right,
                    level.factors, params.p_norm, inner);
      for (int theta = 0; theta < 3; ++theta)
        rows[level.den + static_cast<std::size_t>(theta * level.den_rows() + v)] = inner[theta];
    }
    csf(fa::kDecouplA, fa::kCsfA, fa::kCsfF, level);
    cm_rows({fa::kDecouplR, fa::kCsfF, fa::kCsfA}, level, rows.data() + level.num);
    csf(fa::kDecouplR, fa::kCsfF, fa::kCsfA, level);
    cm_rows({fa::kDecouplA, fa::kCsfA, fa::kCsfF}, level, rows.data() + level.aim);
  }
  return tile::finish_levels(levels, rows.data(), params);
}

std::string describe(const fa::FloatAdmSums& sums) {
  std::string text;
  char buffer[96];
  for (int s = 0; s < fa::kScales; ++s) {
    std::snprintf(buffer, sizeof buffer, " %a/%a/%a", sums.num[s], sums.den[s], sums.aim_num[s]);
    text += buffer;
  }
  return text;
}

bool same_bits(const fa::FloatAdmSums& a, const fa::FloatAdmSums& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Every option the twin computes (adm_p_norm stays 3: cuda_refusal()).
const std::vector<FeatureOptions> kOptionSets = {
    {},
    {{"debug", "true"}, {"adm_enhn_gain_limit", "1.0"}},
    {{"adm_csf_mode", "1"}, {"adm_csf_scale", "1.5"}, {"adm_csf_diag_scale", "0.5"}},
    {{"adm_csf_mode", "2"}, {"adm_norm_view_dist", "1.5"}, {"adm_ref_display_height", "2160"}},
    {{"adm_bypass_cm", "1"}, {"adm_noise_weight", "0.5"}},
    {{"adm_skip_scale0", "true"}, {"adm_skip_aim_scale", "1"}},
    {{"adm_f1s0", "0.25"}, {"adm_f2s3", "2"}, {"adm_adm3_apply_hm", "true"}},
    {{"adm_noise_weight", "0"}, {"adm_dlm_weight", "0.8"}, {"adm_min_val", "0.1"}}};

// float_adm's parts, for the device checks (device_stage.h).
struct FloatAdmTwin {
  static constexpr const char* kFeature = "float_adm";
  using Sums = fa::FloatAdmSums;
  using CpuStage = fa::FloatAdmCpuStage;
  using CudaStage = cuda::float_adm::FloatAdmCudaStage;
  static fa::FloatAdmParams params(const FeatureOptions& options) {
    return fa::params_of(feature_entry(kFeature).descriptor.parse(options));
  }
  static void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
    ::paint(plane, seed, fill, rng);
  }
};

}  // namespace

TEST(float_adm_cuda_emulation, LevelSumsEqualTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xFADA);
  // From the smallest sizes libvmaf defines (some below 17: their reads reach
  // into earlier levels' values) to a few dozen samples a side.
  const std::vector<Size> sizes = {{16, 16}, {9, 16},  {12, 10}, {17, 17}, {18, 23},
                                   {33, 35}, {64, 48}, {97, 71}, {5, 40},  {40, 6}};
  unsigned compared = 0, small = 0;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes)
      for (const auto& options : kOptionSets) {
        const PictureFormat format{w, h, bpc, ChromaFormat::k400};
        if (!feature_takes("float_adm", format, options)) continue;
        const fa::FloatAdmParams params =
            fa::params_of(feature_entry("float_adm").descriptor.parse(options));
        for (const Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange}) {
          test::TestPlane ref(w, h, bpc), dist(w, h, bpc);
          paint(ref, 1, fill, rng);
          paint(dist, 2, fill, rng);
          fa::FloatAdmCpuStage cpu(format, params);
          const fa::FloatAdmSums expected = cpu.compute(ref.view(), dist.view(), 0);
          const fa::FloatAdmSums emulated = emulate(ref, dist, params);
          EXPECT_TRUE(same_bits(emulated, expected))
              << case_label(w, h, bpc, options) << ": cpu" << describe(expected) << " emulated"
              << describe(emulated);
          ++compared;
          small += w < fa::kCleanSide || h < fa::kCleanSide;
        }
      }
  EXPECT_GT(compared, 300u);
  EXPECT_GT(small, 20u);  // the sizes whose reads reach outside the bands were taken
}

// The twin refuses what it cannot compute, naming it.
TEST(float_adm_cuda_emulation, RefusesWhatItCannotCompute) {
  fa::FloatAdmParams params;
  EXPECT_EQ(cuda::float_adm::cuda_refusal(params), "");
  params.p_norm = 2.5;
  EXPECT_NE(cuda::float_adm::cuda_refusal(params).find("adm_p_norm=2.5"), std::string::npos);
  EXPECT_THROW(cuda::float_adm::FloatAdmCudaStage(PictureFormat{64, 64, 8, ChromaFormat::k400},
                                                  params, nullptr),
               Error);
}

HARNESS_DEVICE_FIXTURE(float_adm);

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// every frame's sums == the CPU stage's.
TEST_F(float_adm_cuda_device, StageContractEqualsTheCpuStage) {
  expect_stage_contract<FloatAdmTwin>(
      {{16, 16}, {12, 10}, {47, 39}, {331, 177}, {1920, 1080}, {1277, 719}}, {8u, 10u, 16u},
      {FeatureOptions{}, FeatureOptions{{"adm_skip_scale0", "true"}, {"adm_csf_mode", "1"}}},
      0xFADA1);
}

// The extractor on both backends with every option: the same collector.
TEST_F(float_adm_cuda_device, TwinEqualsTheCpuWithEveryOption) {
  expect_extractor_with_every_option<FloatAdmTwin>({{16, 16}, {33, 35}, {97, 71}, {640, 360}},
                                                   {8u, 12u}, kOptionSets, 0xFADA2);
}
