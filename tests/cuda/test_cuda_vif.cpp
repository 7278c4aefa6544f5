// The CUDA twin of integer VIF ("vif"), cuda/vif/.
//
// VifCudaEmulation.* run without a GPU (in CI): the twin's tile phases
// (vif_cuda_tile.h), plan and parameters, emulated block by block on the host,
// must give the CPU path's four accumulators per scale (==) on many sizes, bit
// depths, contents and options — the smallest sizes included, where libvmaf's
// padding reads entries its buffers kept from the third scale.
// VifCudaDevice.* run the kernels (skipped without a device) and require the
// same sums and the same scores as the CPU extractor.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/device_picture.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "vif/vif.h"
#include "vif/vif_cuda.h"
#include "vif/vif_cuda_emulation.h"
#include "registry.h"
#include "vif/vif_cuda_plan.h"
#include "vif/vif_extractor.h"

using namespace vmafexact;
using vmafexact::vif::FrameSums;
using vmafexact::vif::VifParams;

namespace {

enum class Pattern { kNoise, kEdges, kExtremes, kFlat, kNoisyCopy, kAboveRange };

struct XorShift {
  std::uint32_t state;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

// One synthetic luma frame; kAboveRange uses the whole 16-bit range whatever
// bpc says (libvmaf reads such samples, and so must the twin).
std::vector<std::uint16_t> make_frame(Pattern pattern, unsigned width, unsigned height,
                                      unsigned bpc, bool distorted, std::uint32_t seed) {
  const unsigned max = pattern == Pattern::kAboveRange && bpc > 8 ? 65535u : (1u << bpc) - 1;
  XorShift rng{(distorted ? 0x9e3779b9u : 0x12345678u) ^ seed};
  std::vector<std::uint16_t> frame(static_cast<std::size_t>(width) * height);
  for (unsigned y = 0; y < height; ++y)
    for (unsigned x = 0; x < width; ++x) {
      unsigned v = 0;
      switch (pattern) {
        case Pattern::kNoise:
        case Pattern::kAboveRange:
          v = rng.next() % (max + 1);
          break;
        case Pattern::kEdges: {
          const unsigned xs = distorted ? x + 1 : x;
          v = ((xs / 4 + y / 4) % 2) ? max : 0;
          if (distorted && (x * 7 + y * 3) % 23 == 0) v = max / 2;
          break;
        }
        case Pattern::kExtremes: {
          XorShift cell{(y * width + x) * 2654435761u + 1u + seed};
          v = (cell.next() & 1) ? max : 0;
          if (distorted && rng.next() % 4 == 0) v = max - v;
          break;
        }
        case Pattern::kFlat:
          v = distorted ? max / 2 : max / 3;
          break;
        case Pattern::kNoisyCopy: {
          XorShift cell{(y * width + x) * 2246822519u + 7u + seed};
          const long base = static_cast<long>((x * 5 + y * 3) % 64) * max / 64 +
                            static_cast<long>(cell.next() % (max / 8 + 1));
          const long noise = distorted ? static_cast<long>(rng.next() % 9) - 4 : 0;
          v = static_cast<unsigned>(std::clamp(base + noise * static_cast<long>(max / 255 + 1), 0L,
                                               static_cast<long>(max)));
          break;
        }
      }
      frame[static_cast<std::size_t>(y) * width + x] = static_cast<std::uint16_t>(v);
    }
  return frame;
}

// A luma-only picture with `padding` unread samples at the end of each row.
struct TestPicture {
  TestPicture(const std::vector<std::uint16_t>& samples, unsigned w, unsigned h, unsigned bpc,
              unsigned padding = 3)
      : width(w), height(h), bpc(bpc) {
    const unsigned bytes = bpc > 8 ? 2 : 1;
    stride = static_cast<std::ptrdiff_t>((w + padding) * bytes);
    data.assign(static_cast<std::size_t>(stride) * h, 0xA5);
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) {
        const std::uint16_t v = samples[static_cast<std::size_t>(y) * w + x];
        if (bytes == 1)
          data[y * stride + x] = static_cast<std::uint8_t>(v);
        else
          std::memcpy(&data[y * stride + 2 * x], &v, 2);
      }
  }
  PictureView view() const {
    PictureView picture;
    picture.bpc = bpc;
    picture.chroma = ChromaFormat::k400;
    picture.width = width;
    picture.height = height;
    picture.planes[0] = {data.data(), stride, width, height};
    return picture;
  }
  unsigned width, height, bpc;
  std::ptrdiff_t stride = 0;
  std::vector<std::uint8_t> data;
};

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

FrameSums cpu_sums(const Case& c, const TestPicture& ref, const TestPicture& dist) {
  vif::VifCpuStage kernel(c.width, c.height, c.bpc, c.params);
  return kernel.compute(ref.view().planes[0], dist.view().planes[0]);
}

bool device_available() {
  std::string reason;
  return cuda::device_available(&reason);
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

}  // namespace

// --- Host emulation (no GPU) -----------------------------------------------

TEST(VifCudaEmulation, PlanReadsTheRowsAndColumnsTheCpuReads) {
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

TEST(VifCudaEmulation, SumsEqualTheCpuOnEverySizeDepthAndOption) {
  unsigned checked = 0;
  for (const Case& c : small_cases()) {
    const TestPicture ref(make_frame(c.pattern, c.width, c.height, c.bpc, false, c.width), c.width,
                          c.height, c.bpc);
    const TestPicture dist(make_frame(c.pattern, c.width, c.height, c.bpc, true, c.height), c.width,
                           c.height, c.bpc, 7);
    const FrameSums expected = cpu_sums(c, ref, dist);
    const auto plan = cuda::vif::make_vif_plan(c.width, c.height, c.params.skip_scale0);
    const FrameSums emulated = cuda::vif::emulate_frame(plan, c.bpc, c.params, ref.view().planes[0],
                                                        dist.view().planes[0]);
    EXPECT_EQ(emulated, expected) << label(c) << "\n cpu  " << describe(expected) << "\n twin "
                                  << describe(emulated);
    ++checked;
  }
  std::printf("[vif emulation] %u frames, sums identical unless reported above\n", checked);
}

TEST(VifCudaEmulation, SumsEqualTheCpuAt1080p) {
  for (const unsigned bpc : {8u, 10u}) {
    const Case c{1920, 1080, bpc, Pattern::kNoisyCopy, {}};
    const TestPicture ref(make_frame(c.pattern, c.width, c.height, bpc, false, 1), c.width, c.height, bpc);
    const TestPicture dist(make_frame(c.pattern, c.width, c.height, bpc, true, 2), c.width, c.height, bpc);
    const auto plan = cuda::vif::make_vif_plan(c.width, c.height, false);
    EXPECT_EQ(cuda::vif::emulate_frame(plan, bpc, c.params, ref.view().planes[0], dist.view().planes[0]),
              cpu_sums(c, ref, dist))
        << label(c);
  }
}

TEST(VifCudaEmulation, FactoryTakesTheCpuOptionsNamesAndKeys) {
  // No CUDA call before init(): these run without a device.
  EXPECT_THROW(make_feature_extractor("vif", {{"egl", "1"}}, Backend::kCuda, nullptr), Error);
  EXPECT_THROW(make_feature_extractor("vif", {{"vif_enhn_gain_limit", "0.5"}}, Backend::kCuda, nullptr), Error);
  EXPECT_THROW(make_feature_extractor("vif", {{"vif_kernelscale", "1"}}, Backend::kCuda, nullptr), Error);
  for (const FeatureOptions& options :
       {FeatureOptions{}, FeatureOptions{{"debug", "true"}},
        FeatureOptions{{"vif_enhn_gain_limit", "1.0"}, {"vif_skip_scale0", "true"}}}) {
    const auto cpu = make_feature_extractor("vif", options);
    const auto twin = make_feature_extractor("vif", options, Backend::kCuda, nullptr);
    EXPECT_EQ(twin->name(), cpu->name());
    EXPECT_EQ(twin->provided_features(), cpu->provided_features());
    EXPECT_EQ(twin->latency_frames(), cpu->latency_frames());
    EXPECT_EQ(twin->sees_every_frame(), cpu->sees_every_frame());
    for (const auto& name : cpu->provided_features()) EXPECT_EQ(twin->score_key(name), cpu->score_key(name));
  }
}

// --- On the device -----------------------------------------------------------

class VifCudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!device_available()) GTEST_SKIP() << "no usable CUDA device";
  }
};

TEST_F(VifCudaDevice, SumsEqualTheCpuOnEverySizeDepthAndOption) {
  cuda::Stream stream;
  unsigned identical = 0, compared = 0;
  std::vector<Case> cases = small_cases();
  for (const unsigned bpc : {8u, 10u, 12u, 16u}) cases.push_back({1920, 1080, bpc, Pattern::kNoisyCopy, {}});
  cases.push_back({3840, 2160, 10, Pattern::kNoise, {}});
  cases.push_back({1277, 719, 8, Pattern::kEdges, {1.0, true}});
  for (const Case& c : cases) {
    const TestPicture ref(make_frame(c.pattern, c.width, c.height, c.bpc, false, c.width), c.width,
                          c.height, c.bpc);
    const TestPicture dist(make_frame(c.pattern, c.width, c.height, c.bpc, true, c.height), c.width,
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

TEST_F(VifCudaDevice, ScoresEqualTheCpuWithEveryOption) {
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
            const TestPicture ref(make_frame(c.pattern, w, h, bpc, false, f), w, h, bpc);
            const TestPicture dist(make_frame(c.pattern, w, h, bpc, true, 3 * f + 1), w, h, bpc);
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

TEST_F(VifCudaDevice, InitRejectsWhatTheCpuRejects) {
  cuda::Stream stream;
  auto twin = make_feature_extractor("vif", {}, Backend::kCuda, stream.get());
  EXPECT_THROW(twin->init({7, 8, 8, ChromaFormat::k420}), Error);
  EXPECT_THROW(twin->init({8, 7, 8, ChromaFormat::k420}), Error);
  EXPECT_THROW(twin->init({64, 64, 9, ChromaFormat::k420}), Error);
}

TEST_F(VifCudaDevice, KernelTimePerFrame) {
  // cudaEvent time of the four scale kernels (no upload), median of 50 frames.
  cuda::Stream stream;
  for (const auto& [w, h, bpc] : {std::tuple{1920u, 1080u, 8u}, {3840u, 2160u, 10u}}) {
    const Case c{w, h, bpc, Pattern::kNoisyCopy, {}};
    const TestPicture ref(make_frame(c.pattern, w, h, bpc, false, 1), w, h, bpc);
    const TestPicture dist(make_frame(c.pattern, w, h, bpc, true, 2), w, h, bpc);
    cuda::DevicePicture ref_device, dist_device;
    ref_device.upload(ref.view(), stream.get());
    dist_device.upload(dist.view(), stream.get());
    cuda::vif::VifCudaStage kernel(w, h, bpc, c.params, stream.get());
    cudaEvent_t start, stop;
    cuda::check(cudaEventCreate(&start), "event");
    cuda::check(cudaEventCreate(&stop), "event");
    std::vector<float> times;
    std::vector<double> wall;
    for (int f = 0; f < 50; ++f) {
      const auto t0 = std::chrono::steady_clock::now();
      cuda::check(cudaEventRecord(start, stream.get()), "record");
      kernel.compute(ref_device.view().planes[0], dist_device.view().planes[0]);
      cuda::check(cudaEventRecord(stop, stream.get()), "record");
      cuda::check(cudaEventSynchronize(stop), "sync");
      wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      float ms = 0;
      cuda::check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    std::sort(wall.begin(), wall.end());
    std::printf("[vif cuda time] %ux%u %u-bit: %.3f ms per frame on the stream (median), %.3f ms wall\n",
                w, h, bpc, times[times.size() / 2], wall[wall.size() / 2]);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
}
