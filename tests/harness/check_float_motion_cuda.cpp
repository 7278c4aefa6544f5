// The CUDA twin of float_motion (cuda/float_motion/) against the CPU path.
//  - float_motion_cuda_emulation: no device needed (runs in CI). Every
//    kernel's output computed on the host with the kernels' own __host__
//    __device__ functions (float_motion_cuda_tile.h), one output at a time:
//    the blurred plane, the halved plane and the score finished from the
//    rows' sums must equal the CPU's (blur_plane(), scale_plane(),
//    image_sad()) bit for bit.
//  - float_motion_cuda_device: the stage and the extractor on a device
//    (skipped without one), == the CPU, with every option.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/feature_collector.h"
#include "cuda_backend.h"
#include "device_stage.h"
#include "float_emulation.h"
#include "float_motion/float_motion.h"
#include "float_motion/float_motion_cuda_stage.h"
#include "float_motion/float_motion_cuda_tile.h"
#include "harness.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using test::Fill;
namespace tile = vmafexact::cuda::float_motion::tile;

namespace {

// Frame `frame` of a clip: a moving hard-edged pattern over a gradient, noise,
// and (`fill`) runs of extreme samples.
void paint(test::TestPlane& plane, unsigned frame, Fill fill, std::mt19937_64& rng) {
  const unsigned max = (1u << plane.bpc()) - 1;
  const unsigned container = plane.bpc() == 8 ? 255u : 65535u;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      unsigned value = (x * 37u + y * 11u + frame * 101u) % (max + 1);
      if ((x + 3 * frame) % 13 < 4) value = ((x + 3 * frame) / 13 + y / 3) % 2 ? max : 0;
      if (x % 7 == 3) value = static_cast<unsigned>(rng() % (max + 1));
      if (fill == Fill::kExtremes && (x + y) % 5 == 0) value = rng() % 2 ? max : 0;
      if (fill == Fill::kFullRange && (x * y) % 11 == 1)
        value = static_cast<unsigned>(rng() % (container + 1));
      plane.set(x, y, value);
    }
}

bool same_bits(const FloatPlane& a, const std::vector<float>& b) {
  return a.data.size() == b.size() &&
         std::memcmp(a.data.data(), b.data(), b.size() * sizeof(float)) == 0;
}

// The kernels' outputs on the host: the column pass from the samples, then
// the row pass, one output at a time.
std::vector<float> emulate_blur(const test::TestPlane& plane, const tile::Filter& filter) {
  const int w = static_cast<int>(plane.width()), h = static_cast<int>(plane.height());
  const PlaneView view = plane.plane();
  std::vector<float> vertical(static_cast<std::size_t>(w) * h), blurred(vertical.size());
  const float scaler = float_pixel::sample_scaler(plane.bpc());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      vertical[static_cast<std::size_t>(y) * w + x] =
          plane.bpc() == 8
              ? tile::vertical_output<std::uint8_t>(view.data, view.stride, x, y, h, filter, scaler)
              : tile::vertical_output<std::uint16_t>(view.data, view.stride, x, y, h, filter,
                                                     scaler);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      blurred[static_cast<std::size_t>(y) * w + x] =
          tile::horizontal_output(vertical.data() + static_cast<std::size_t>(y) * w, x, w, filter);
  return blurred;
}

std::vector<float> emulate_half(const std::vector<float>& plane, int w, int h) {
  const int out_w = tile::pixel::half_side(w), out_h = tile::pixel::half_side(h);
  std::vector<float> out(static_cast<std::size_t>(out_w) * out_h);
  for (int y = 0; y < out_h; ++y)
    for (int x = 0; x < out_w; ++x)
      out[static_cast<std::size_t>(y) * out_w + x] =
          tile::half_output(plane.data(), w, h, out_w, out_h, x, y);
  return out;
}

// The rows' sums as the row kernel forms them, finished as the stage does.
float emulate_sad(const std::vector<float>& a, const std::vector<float>& b, int w, int h) {
  std::vector<float> rows(static_cast<std::size_t>(h));
  for (int y = 0; y < h; ++y)
    rows[y] = tile::pixel::row_abs_difference(a.data() + static_cast<std::size_t>(y) * w,
                                              b.data() + static_cast<std::size_t>(y) * w, w);
  return float_motion::mean_abs_difference(rows, w, h);
}

tile::Filter filter_of(int filter_size) {
  const auto taps = float_motion::motion_filter(filter_size);
  tile::Filter filter;
  filter.count = static_cast<int>(taps.size());
  for (int k = 0; k < filter.count; ++k) filter.taps[k] = taps[k];
  return filter;
}

FloatPlane cpu_blur(const test::TestPlane& plane, int filter_size) {
  FloatPlane copy, tmp, blurred;
  copy_plane_to_float(plane.plane(), plane.bpc(), -128, copy);
  float_motion::blur_plane(float_motion::motion_filter(filter_size), copy, tmp, blurred);
  return blurred;
}

const std::vector<Size> kSizes = {{3, 3},  {4, 3},   {3, 7},   {5, 5},
                                  {17, 9}, {33, 31}, {64, 48}, {131, 67}};

}  // namespace

TEST(float_motion_cuda_emulation, BlurHalvingAndScoreEqualTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xF10A7);
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kSizes)
      for (const int filter_size : {1, 3, 5})
        for (const Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange}) {
          const std::string what = case_label(w, h, bpc) + " filter " + std::to_string(filter_size);
          test::TestPlane previous(w, h, bpc), current(w, h, bpc);
          paint(previous, 0, fill, rng);
          paint(current, 1, fill, rng);
          const auto filter = filter_of(filter_size);
          const FloatPlane cpu_previous = cpu_blur(previous, filter_size);
          const FloatPlane cpu_current = cpu_blur(current, filter_size);
          const auto previous_blurred = emulate_blur(previous, filter);
          const auto current_blurred = emulate_blur(current, filter);
          ASSERT_TRUE(same_bits(cpu_previous, previous_blurred)) << what;
          ASSERT_TRUE(same_bits(cpu_current, current_blurred)) << what;
          const int iw = static_cast<int>(w), ih = static_cast<int>(h);
          const float scale0 = emulate_sad(previous_blurred, current_blurred, iw, ih);
          EXPECT_EQ(scale0, float_motion::image_sad(cpu_previous, cpu_current, false)) << what;
          // motion_add_scale1: both planes halved, their score added.
          FloatPlane cpu_half(static_cast<unsigned>(tile::pixel::half_side(iw)),
                              static_cast<unsigned>(tile::pixel::half_side(ih)));
          scale_plane(ScaleMethod::kBilinear, cpu_current, cpu_half);
          const auto previous_half = emulate_half(previous_blurred, iw, ih);
          const auto current_half = emulate_half(current_blurred, iw, ih);
          ASSERT_TRUE(same_bits(cpu_half, current_half)) << what << " halved";
          const float scale1 =
              emulate_sad(previous_half, current_half, static_cast<int>(cpu_half.width),
                          static_cast<int>(cpu_half.height));
          EXPECT_EQ(scale0 + scale1, float_motion::image_sad(cpu_previous, cpu_current, true))
              << what;
        }
}

HARNESS_DEVICE_FIXTURE(float_motion);

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// every frame's sums == the CPU stage's.
TEST_F(float_motion_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0xF10A70);
  std::vector<Size> sizes = kSizes;
  sizes.insert(sizes.end(), {{1920, 1080}, {1277, 719}});
  for (const unsigned bpc : {8u, 10u, 16u})
    for (const auto& [w, h] : sizes) {
      const std::vector<HostFrame> frames =
          painted_clip(w, h, bpc, 4, 7, {2, Fill::kExtremes, false}, paint, rng);
      const PictureFormat format{w, h, bpc, ChromaFormat::k400};
      for (const bool scale1 : {false, true}) {
        float_motion::FloatMotionParams params;
        params.add_scale1 = scale1;
        float_motion::FloatMotionCpuStage cpu(format, params);
        cuda::float_motion::FloatMotionCudaStage twin(format, params, stream.get());
        expect_device_stage_equals_cpu<float_motion::FloatMotionSums>(
            frames, cpu, twin, stream.get(), case_label(w, h, bpc) + (scale1 ? " add_scale1" : ""));
      }
    }
}

// The extractor on both backends with every option that changes what is
// read or computed, on pictures with chroma (motion_add_uv reads it): the
// same collector after every frame and after flush.
TEST_F(float_motion_cuda_device, TwinEqualsTheCpuWithEveryOption) {
  cuda::CudaBackend backend;
  std::mt19937_64 rng(seed() ^ 0xF10A71);
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"motion_filter_size", "3"}},
      {{"motion_filter_size", "1"}},
      {{"motion_add_scale1", "true"}},
      {{"motion_add_uv", "true"}},
      {{"motion_add_uv", "true"}, {"motion_filter_size", "3"}, {"motion_fps_weight", "2.5"}},
      {{"motion_force_zero", "true"}},
      {{"debug", "false"}, {"motion_blend_factor", "0.5"}, {"motion_max_val", "3"}}};
  const std::vector<PictureFormat> formats = {{17, 9, 8, ChromaFormat::k420},
                                              {33, 31, 10, ChromaFormat::k422},
                                              {64, 48, 12, ChromaFormat::k444},
                                              {331, 177, 16, ChromaFormat::k420},
                                              {1920, 1080, 8, ChromaFormat::k420}};
  unsigned compared = 0;
  for (const auto& format : formats)
    for (const auto& options : option_sets) {
      std::string what = case_label(format.width, format.height, format.bpc);
      for (const auto& [name, value] : options) what += " " + name + "=" + value;
      const unsigned cw = chroma_plane_width(format.width, format.chroma);
      const unsigned ch = chroma_plane_height(format.height, format.chroma);
      constexpr unsigned kFrames = 4;
      std::vector<std::vector<test::TestPlane>> planes;  // per frame: ref Y, U, V, dist Y, U, V
      for (unsigned f = 0; f < kFrames; ++f) {
        std::vector<test::TestPlane> frame;
        for (unsigned p = 0; p < 6; ++p) {
          frame.emplace_back(p % 3 ? cw : format.width, p % 3 ? ch : format.height, format.bpc);
          paint(frame.back(), f * 3 + p, f == 1 ? Fill::kExtremes : Fill::kRandom, rng);
        }
        planes.push_back(std::move(frame));
      }
      const auto picture = [&](unsigned f, unsigned first) {
        PictureView view;
        view.bpc = format.bpc;
        view.chroma = format.chroma;
        view.width = format.width;
        view.height = format.height;
        for (unsigned p = 0; p < 3; ++p) view.planes[p] = planes[f][first + p].plane();
        return view;
      };
      auto cpu = make_feature_extractor("float_motion", options);
      auto twin = backend.make_extractor("float_motion", options);
      cpu->init(format);
      twin->init(format);
      FeatureCollector cpu_scores, twin_scores;
      cuda::DevicePicture ref, dist;
      for (unsigned f = 0; f < kFrames; ++f) {
        cpu->extract(picture(f, 0), picture(f, 3), f, cpu_scores);
        ref.upload(picture(f, 0), backend.stream());
        dist.upload(picture(f, 3), backend.stream());
        twin->extract(ref.view(), dist.view(), f, twin_scores);
      }
      cpu->flush(cpu_scores);
      twin->flush(twin_scores);
      ASSERT_EQ(cpu_scores.names(), twin_scores.names()) << what;
      for (const auto& name : cpu_scores.names())
        for (unsigned f = 0; f < kFrames; ++f) {
          const auto a = cpu_scores.score(name, f), b = twin_scores.score(name, f);
          ASSERT_EQ(a.has_value(), b.has_value()) << what << " " << name << " frame " << f;
          if (!a) continue;
          EXPECT_EQ(*a, *b) << what << " " << name << " frame " << f;
          ++compared;
        }
    }
  std::printf("[float_motion cuda] %u values compared\n", compared);
  EXPECT_GT(compared, 0u);
}
