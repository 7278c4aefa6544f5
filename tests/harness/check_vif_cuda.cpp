// The CUDA twin of integer VIF ("vif", cuda/vif/) against the CPU stage with
// the scalar table.
//  - vif_cuda_emulation: no device needed (runs in CI). The twin's tile phases
//    (vif_cuda_tile.h), plan and parameters, emulated block by block on the
//    host (vif_cuda_emulation.h), must give the CPU's four accumulators per
//    scale (==) on many sizes, bit depths, contents and options — the smallest
//    sizes included, where libvmaf's padding reads entries its buffers kept
//    from the third scale.
//  - vif_cuda_device: the kernels (VifCudaStage) on the device, skipped
//    without one: the same sums, and the same scores as the CPU extractor.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "device_stage.h"
#include "harness.h"
#include "registry.h"
#include "vif/vif.h"
#include "vif/vif_cuda.h"
#include "vif/vif_cuda_emulation.h"
#include "vif/vif_cuda_plan.h"
#include "vif/vif_dsp.h"
#include "vif/vif_extractor.h"
#include "vif_frames.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using vmafexact::test::TestPlane;
using vmafexact::vif::FrameSums;
using vmafexact::vif::VifParams;

namespace {

// The frames of the unit tests (tests/common/vif_frames.h), drawn with a seed.
using Pattern = test::VifPattern;
using test::vif_frame;

struct Case {
  unsigned width, height, bpc;
  Pattern pattern;
  VifParams params;
};

std::string label(const Case& c) {
  return std::to_string(c.width) + "x" + std::to_string(c.height) + " " + std::to_string(c.bpc) +
         "-bit pattern " + std::to_string(static_cast<int>(c.pattern)) + " egl " +
         std::to_string(c.params.enhn_gain_limit) + (c.params.skip_scale0 ? " skip_scale0" : "");
}

std::string describe(const FrameSums& sums) {
  std::string text;
  for (const auto& s : sums)
    text += "[" + std::to_string(s.num_log) + " " + std::to_string(s.den_log) + " " +
            std::to_string(s.num_non_log) + " " + std::to_string(s.den_non_log) + "] ";
  return text;
}

// Sizes: the smallest (fourth scale one sample wide and/or high: stale reads),
// sides around the tile size (64 x 16) and its halves, odd sides, a wide and a
// tall strip.
const std::vector<std::pair<unsigned, unsigned>> kSizes = {
    {8, 8},   {9, 13},  {15, 8},   {8, 15},   {15, 15},  {8, 100},  {100, 8},  {16, 16},
    {17, 9},  {23, 31}, {33, 33},  {63, 15},  {64, 16},  {65, 17},  {127, 33}, {128, 32},
    {129, 97}, {200, 9}, {12, 140}, {331, 177}};

std::vector<Case> small_cases() {
  std::vector<Case> cases;
  const Pattern patterns[] = {Pattern::kNoisyCopy, Pattern::kNoise, Pattern::kEdges,
                              Pattern::kExtremes, Pattern::kFlat, Pattern::kAboveRange};
  unsigned n = 0;
  for (const auto& [w, h] : kSizes)
    for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
      Case c{w, h, bpc, patterns[n % 6], {}};
      if (n % 5 == 1) c.params.enhn_gain_limit = 1.0;
      if (n % 7 == 2) c.params.skip_scale0 = true;
      if (n % 11 == 3) c.params.enhn_gain_limit = 2.5;
      cases.push_back(c);
      ++n;
    }
  // The sizes the brief names, every option combination, every depth.
  for (const auto& [w, h] : {std::pair{8u, 8u}, {9u, 13u}, {15u, 8u}})
    for (const unsigned bpc : {8u, 10u, 12u, 16u})
      for (const double egl : {100.0, 1.0})
        for (const bool skip : {false, true})
          cases.push_back({w, h, bpc, Pattern::kNoisyCopy, {egl, skip}});
  return cases;
}

// The CPU stage with the scalar table: the reference of every twin.
FrameSums cpu_sums(const Case& c, TestPlane& ref, TestPlane& dist) {
  vif::VifCpuStage kernel(c.width, c.height, c.bpc, c.params, vif::vif_dsp_scalar());
  return run_guarded(ref, dist, 1, [&] { return kernel.compute(ref.view(), dist.view(), 0); });
}

FeatureOptions options_of(const VifParams& params, bool debug) {
  FeatureOptions options;
  if (debug) options.emplace_back("debug", "true");
  if (params.enhn_gain_limit != vif::kDefaultEnhnGainLimit) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", params.enhn_gain_limit);
    options.emplace_back("vif_enhn_gain_limit", text);
  }
  if (params.skip_scale0) options.emplace_back("vif_skip_scale0", "true");
  return options;
}

HARNESS_DEVICE_FIXTURE(vif);

}  // namespace

TEST(vif_cuda_emulation, PlanReadsTheRowsAndColumnsTheCpuReads) {
  // Standard mirroring where the sides allow it.
  const auto plan = cuda::vif::make_vif_plan(100, 60, false);
  const auto& s0 = plan.scales[0];
  EXPECT_EQ(s0.rows[-1 + 8], 1);
  EXPECT_EQ(s0.rows[-8 + 8], 8);
  EXPECT_EQ(s0.rows[60 + 8], 58);
  EXPECT_EQ(s0.columns[-3 + 8], 3);
  EXPECT_EQ(s0.columns[100 + 8], 98);
  const auto& s1 = plan.scales[1];
  EXPECT_EQ(s1.first_row, 0);
  EXPECT_EQ(plan.scales[2].first_row, 30);
  EXPECT_EQ(plan.scales[3].first_row, 45);
  EXPECT_EQ(plan.pyramid_rows, 30u + 15u + 7u);
  EXPECT_EQ(plan.pyramid_pitch, 50u);
  EXPECT_EQ(plan.scales[2].rows[-2 + 8], 30 + 2);
  EXPECT_FALSE(plan.scales[2].save_last_row);
  // 9x13: the fourth scale is 1x1. Its padded rows are the third scale's row 1
  // (in the third scale's part of the pyramid), its padded columns the third
  // scale's saved vertical sums at column 1.
  const auto tiny = cuda::vif::make_vif_plan(9, 13, false);
  const auto& s3 = tiny.scales[3];
  EXPECT_EQ(s3.width, 1u);
  EXPECT_EQ(s3.height, 1u);
  EXPECT_EQ(s3.rows[-1 + 8], tiny.scales[2].first_row + 1);
  EXPECT_EQ(s3.rows[1 + 8], tiny.scales[2].first_row + 1);
  EXPECT_EQ(s3.columns[0], -1 - 1);
  EXPECT_EQ(s3.columns[2], -1 - 1);
  EXPECT_TRUE(tiny.scales[2].save_last_row);
  EXPECT_THROW(cuda::vif::make_vif_plan(7, 8, false), Error);
}

TEST(vif_cuda_emulation, SumsEqualTheCpuOnEverySizeDepthAndOption) {
  for (const Case& c : small_cases()) {
    TestPlane ref(vif_frame(c.pattern, c.width, c.height, c.bpc, false, c.width), c.width, c.height,
                  c.bpc);
    TestPlane dist(vif_frame(c.pattern, c.width, c.height, c.bpc, true, c.height), c.width,
                   c.height, c.bpc, 7);
    const FrameSums expected = cpu_sums(c, ref, dist);
    const auto plan = cuda::vif::make_vif_plan(c.width, c.height, c.params.skip_scale0);
    const FrameSums emulated = run_guarded(ref, dist, 2, [&] {
      return cuda::vif::emulate_frame(plan, c.bpc, c.params, ref.plane(), dist.plane());
    });
    EXPECT_EQ(emulated, expected) << label(c) << "\n cpu  " << describe(expected) << "\n twin "
                                  << describe(emulated);
  }
}

TEST(vif_cuda_emulation, SumsEqualTheCpuAt1080p) {
  for (const unsigned bpc : {8u, 10u}) {
    const Case c{1920, 1080, bpc, Pattern::kNoisyCopy, {}};
    TestPlane ref(vif_frame(c.pattern, c.width, c.height, bpc, false, 1), c.width, c.height, bpc);
    TestPlane dist(vif_frame(c.pattern, c.width, c.height, bpc, true, 2), c.width, c.height, bpc);
    const auto plan = cuda::vif::make_vif_plan(c.width, c.height, false);
    EXPECT_EQ(cuda::vif::emulate_frame(plan, bpc, c.params, ref.plane(), dist.plane()),
              cpu_sums(c, ref, dist))
        << label(c);
  }
}

TEST_F(vif_cuda_device, SumsEqualTheCpuOnEverySizeDepthAndOption) {
  cuda::Stream stream;
  unsigned identical = 0, compared = 0;
  std::vector<Case> cases = small_cases();
  for (const unsigned bpc : {8u, 10u, 12u, 16u}) cases.push_back({1920, 1080, bpc, Pattern::kNoisyCopy, {}});
  cases.push_back({3840, 2160, 10, Pattern::kNoise, {}});
  cases.push_back({1277, 719, 8, Pattern::kEdges, {1.0, true}});
  for (const Case& c : cases) {
    TestPlane ref(vif_frame(c.pattern, c.width, c.height, c.bpc, false, c.width), c.width, c.height,
                  c.bpc);
    TestPlane dist(vif_frame(c.pattern, c.width, c.height, c.bpc, true, c.height), c.width,
                   c.height, c.bpc, 7);
    const FrameSums expected = cpu_sums(c, ref, dist);
    cuda::DevicePicture ref_device, dist_device;
    ref_device.upload(ref.view(), stream.get());
    dist_device.upload(dist.view(), stream.get());
    cuda::vif::VifCudaStage kernel(c.width, c.height, c.bpc, c.params, stream.get());
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second frame finds the buffers used
      const FrameSums sums = kernel.compute(ref_device.view().planes[0], dist_device.view().planes[0]);
      ++compared;
      if (sums == expected)
        ++identical;
      else
        ADD_FAILURE() << label(c) << "\n cpu  " << describe(expected) << "\n cuda " << describe(sums);
    }
  }
  std::printf("[cuda parity] vif sums: %u of %u frames identical\n", identical, compared);
}

TEST_F(vif_cuda_device, ScoresEqualTheCpuWithEveryOption) {
  cuda::Stream stream;
  unsigned identical = 0, compared = 0;
  for (const auto& [w, h] : {std::pair{8u, 8u}, {9u, 13u}, {15u, 8u}, {64u, 40u}, {331u, 177u}})
    for (const unsigned bpc : {8u, 10u, 12u, 16u})
      for (const double egl : {100.0, 1.0, 2.5})
        for (const bool skip : {false, true}) {
          const Case c{w, h, bpc, Pattern::kNoisyCopy, {egl, skip}};
          const FeatureOptions options = options_of(c.params, true);
          const PictureFormat format{w, h, bpc, ChromaFormat::k400};
          auto cpu = make_feature_extractor("vif", options);
          auto twin = make_feature_extractor("vif", options, Backend::kCuda, stream.get());
          cpu->init(format);
          twin->init(format);
          FeatureCollector cpu_scores, twin_scores;
          for (unsigned f = 0; f < 3; ++f) {
            const TestPlane ref(vif_frame(c.pattern, w, h, bpc, false, f), w, h, bpc);
            const TestPlane dist(vif_frame(c.pattern, w, h, bpc, true, 3 * f + 1), w, h, bpc);
            cpu->extract(ref.view(), dist.view(), f, cpu_scores);
            cuda::DevicePicture ref_device, dist_device;
            ref_device.upload(ref.view(), stream.get());
            dist_device.upload(dist.view(), stream.get());
            twin->extract(ref_device.view(), dist_device.view(), f, twin_scores);
          }
          ASSERT_EQ(twin_scores.names(), cpu_scores.names()) << label(c);
          for (const auto& name : cpu_scores.names())
            for (unsigned f = 0; f < 3; ++f) {
              const auto a = cpu_scores.score(name, f), b = twin_scores.score(name, f);
              ++compared;
              if (a == b || (a && b && std::isnan(*a) && std::isnan(*b)))
                ++identical;
              else
                ADD_FAILURE() << label(c) << " " << name << " frame " << f;
            }
        }
  std::printf("[cuda parity] vif scores with options: %u of %u values identical\n", identical, compared);
  EXPECT_GT(compared, 0u);
}

namespace {

// --bench: the device stage per frame (kernels and the read-back of the sums,
// pictures already on the device), on the host clock.
const BenchRegistration vif_cuda_bench({{"vif", "cuda_device", [](unsigned w, unsigned h, unsigned bpc)
                                             -> std::function<void()> {
  if (!cuda_skip_reason().empty()) return nullptr;
  struct State {
    cuda::Stream stream;
    cuda::DevicePicture ref, dist;
    std::unique_ptr<cuda::vif::VifCudaStage> stage;
    unsigned frame = 0;
  };
  auto state = std::make_shared<State>();
  const TestPlane ref(vif_frame(Pattern::kNoisyCopy, w, h, bpc, false, 1), w, h, bpc);
  const TestPlane dist(vif_frame(Pattern::kNoisyCopy, w, h, bpc, true, 2), w, h, bpc);
  state->ref.upload(ref.view(), state->stream.get());
  state->dist.upload(dist.view(), state->stream.get());
  state->stage = std::make_unique<cuda::vif::VifCudaStage>(w, h, bpc, VifParams{}, state->stream.get());
  return [state] {
    state->stage->compute(state->ref.view(), state->dist.view(), state->frame++);
  };
}}});

}  // namespace

// The stage contract (VifCudaStage as a FeatureStage, frames submitted one
// ahead) against VifCpuStage with the scalar table.
TEST_F(vif_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  for (const auto& [w, h] : {std::pair{8u, 8u}, {9u, 13u}, {33u, 31u}, {331u, 177u}, {1920u, 1080u}})
    for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
      std::vector<HostFrame> frames;
      for (unsigned f = 0; f < 3; ++f)
        frames.push_back(
            {TestPlane(vif_frame(Pattern::kNoisyCopy, w, h, bpc, false, f), w, h, bpc),
             TestPlane(vif_frame(Pattern::kNoisyCopy, w, h, bpc, true, f + 9), w, h, bpc, 7)});
      vif::VifCpuStage cpu(w, h, bpc, VifParams{}, vif::vif_dsp_scalar());
      cuda::vif::VifCudaStage twin(w, h, bpc, VifParams{}, stream.get());
      expect_device_stage_equals_cpu<FrameSums>(frames, cpu, twin, stream.get(),
                                                std::to_string(w) + "x" + std::to_string(h) + " " +
                                                    std::to_string(bpc) + "-bit");
    }
}
