// The CUDA twins of SSIM and MS-SSIM ("float_ssim", "float_ms_ssim",
// cuda/ssim/) against the CPU stages with the scalar table.
//  - *_cuda_emulation: no device needed (runs in CI). It walks the kernels'
//    decomposition (cuda/ssim/ssim_cuda_tile.h: one thread per converted
//    sample, per decimated sample, per row-pass output of the five maps, per
//    column-pass output with its terms) on the host with the kernels' own
//    __host__ __device__ functions, then the stage's host sums
//    (cuda::ssim::sum_terms, on one band and on four threads), and requires the pictures of every level and
//    the means of every scored level to equal the CPU stage's (==).
//  - *_cuda_device: the device stages and the twin extractors with every
//    option against the CPU (skipped without a device), and the per-frame
//    figures of the stage's parts at 1920x1080.
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/feature_collector.h"
#include "common/thread_pool.h"
#include "cuda_backend.h"
#include "device_stage.h"
#include "dsp_inputs.h"
#include "harness.h"
#include "registry.h"
#include "ssim/ssim.h"
#include "ssim/ssim_cuda_stage.h"
#include "ssim/ssim_cuda_tile.h"
#include "ssim/ssim_dsp.h"
#include "ssim/ssim_extractor.h"

using namespace vmafexact;
using namespace vmafexact::harness;
namespace tile = vmafexact::cuda::ssim::tile;
namespace pixel = vmafexact::ssim::pixel;

namespace {

// A picture pair: smooth content with noise (the usual case), or one of the
// harness's fills (flat, extremes, the full container range).
void draw(test::TestPlane& plane, std::mt19937_64& rng, Fill fill, unsigned noise) {
  const unsigned bytes = plane.bpc() > 8 ? 2 : 1;
  const std::uint32_t max = (1u << plane.bpc()) - 1;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      std::uint32_t v = test::sample_of(rng, fill, plane.bpc(), bytes);
      if (fill == Fill::kRandom)
        v = ((x * 7 + y * 3) * (max / 255 + 1) + static_cast<std::uint32_t>(rng() % (noise + 1))) % (max + 1);
      plane.set(x, y, v);
    }
}

HostFrame make_pair(unsigned w, unsigned h, unsigned bpc, Fill fill, std::mt19937_64& rng) {
  HostFrame frame{test::TestPlane(w, h, bpc, 5), test::TestPlane(w, h, bpc, 2)};
  draw(frame.ref, rng, fill, 4);
  draw(frame.dist, rng, fill, 24);
  return frame;
}

std::string label(unsigned w, unsigned h, unsigned bpc) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + std::to_string(bpc) + "-bit";
}

// ---- The emulation: the kernels' threads, one after another. ----

using Image = ssim::FloatImage;

void emulate_convert(const PlaneView& plane, unsigned bpc, Image& out) {
  out.resize(static_cast<int>(plane.width), static_cast<int>(plane.height));
  const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
  for (unsigned y = 0; y < plane.height; ++y)
    for (unsigned x = 0; x < plane.width; ++x)
      out.row(static_cast<int>(y))[x] =
          bpc == 8 ? float_pixel::picture_sample(plane.row<std::uint8_t>(y)[x], scaler,
                                                 pixel::kSampleOffset)
                   : float_pixel::picture_sample(plane.row<std::uint16_t>(y)[x], scaler,
                                                 pixel::kSampleOffset);
}

void emulate_decimate(const Image& in, const std::vector<float>& kernel, int taps, int factor, Image& out) {
  out.resize(ssim::decimated_size(in.w, factor), ssim::decimated_size(in.h, factor));
  for (int y = 0; y < out.h; ++y)
    for (int x = 0; x < out.w; ++x)
      out.row(y)[x] = pixel::filter_pixel(in.data.data(), in.w, in.h, kernel.data(), taps, x * factor, y * factor);
}

// The two Gaussian passes over one level: its terms (l, c, s arrays).
std::vector<double> emulate_terms(const Image& ref, const Image& dist, const std::vector<float>& gaussian) {
  const int w = ref.w, h = ref.h, out_w = w - (tile::kTaps - 1), out_h = h - (tile::kTaps - 1);
  const std::size_t map_floats = static_cast<std::size_t>(out_w) * static_cast<std::size_t>(h);
  std::vector<float> maps(tile::kMaps * map_floats);
  for (int y = 0; y < h; ++y)  // horizontal_kernel's threads
    for (int x = 0; x < out_w; ++x) {
      float out[tile::kMaps];
      tile::horizontal(ref.row(y), dist.row(y), x, gaussian.data(), out);
      for (int m = 0; m < tile::kMaps; ++m)
        maps[static_cast<std::size_t>(m) * map_floats + static_cast<std::size_t>(y) * out_w + x] = out[m];
    }
  const std::size_t count = static_cast<std::size_t>(out_w) * static_cast<std::size_t>(out_h);
  std::vector<double> terms(tile::kStored * count);
  for (int y = 0; y < out_h; ++y)  // vertical_terms_kernel's threads
    for (int x = 0; x < out_w; ++x)
      tile::store_terms(tile::vertical_terms(maps.data(), map_floats, out_w, x, y, gaussian.data()),
                        terms.data(), count, static_cast<std::size_t>(y) * out_w + x);
  return terms;
}

// The host's sums of the stage, on one band (the CPU's loop) and on four
// threads (each chain whole on one band).
ThreadPool& sum_pool() {
  static ThreadPool pool(3);
  return pool;
}

// The stage's plan on the host: its levels' pictures and the scored means,
// summed on one band ([0]) and on four threads ([1]).
std::array<std::vector<ssim::SsimMeans>, 2> emulate(const HostFrame& frame, const cuda::ssim::SsimPlan& plan,
                                                    std::vector<std::array<Image, 2>>* levels_out = nullptr) {
  const std::vector<float> gaussian(ssim::kGaussian, ssim::kGaussian + ssim::kGaussianTaps);
  std::vector<std::array<Image, 2>> levels(static_cast<std::size_t>(plan.levels));
  emulate_convert(frame.ref.plane(), frame.ref.bpc(), levels[0][0]);
  emulate_convert(frame.dist.plane(), frame.dist.bpc(), levels[0][1]);
  for (std::size_t i = 1; i < levels.size(); ++i)
    for (int p = 0; p < 2; ++p)
      emulate_decimate(levels[i - 1][p], plan.kernel, plan.taps, plan.factor, levels[i][p]);
  std::vector<std::vector<double>> terms;
  std::vector<cuda::ssim::LevelTerms> scored;
  for (int i = plan.levels - plan.scored; i < plan.levels; ++i) {
    terms.push_back(emulate_terms(levels[i][0], levels[i][1], gaussian));
    scored.push_back({terms.back().data(), levels[i][0].w - (tile::kTaps - 1), levels[i][0].h - (tile::kTaps - 1)});
  }
  PoolBandRunner pool_runner(sum_pool(), 4);
  // The float means hide most differences of the double sums: the chains on
  // four threads must give the CPU loop's doubles themselves.
  const auto serial_sums = cuda::ssim::term_sums(scored, serial_band_runner());
  const auto threaded_sums = cuda::ssim::term_sums(scored, pool_runner);
  for (std::size_t i = 0; i < scored.size(); ++i)
    EXPECT_TRUE(same(serial_sums[i].ssim, threaded_sums[i].ssim) && same(serial_sums[i].l, threaded_sums[i].l) &&
                same(serial_sums[i].c, threaded_sums[i].c) && same(serial_sums[i].s, threaded_sums[i].s))
        << "level " << i << std::hexfloat << ": ssim " << serial_sums[i].ssim << " vs "
        << threaded_sums[i].ssim << ", l " << serial_sums[i].l << " vs " << threaded_sums[i].l;
  if (levels_out) *levels_out = std::move(levels);
  return {cuda::ssim::sum_terms(scored, serial_band_runner()), cuda::ssim::sum_terms(scored, pool_runner)};
}

bool same_means(const ssim::SsimMeans& a, const ssim::SsimMeans& b) {
  return same(a.ssim, b.ssim) && same(a.l, b.l) && same(a.c, b.c) && same(a.s, b.s);
}

// float_ssim from the smallest picture its window allows after scaling.
const std::vector<Size> kSsimSizes = {{11, 11}, {17, 17}, {33, 21}, {64, 48}, {203, 190}, {257, 263}};
const std::vector<Size> kMsSsimSizes = {{176, 176}, {177, 181}, {333, 241}};

void expect_ssim_emulation(const HostFrame& frame, int scale, const std::string& what) {
  const auto& scalar = ssim::ssim_dsp_scalar();
  const cuda::ssim::SsimPlan plan = cuda::ssim::ssim_plan(scale);
  std::vector<std::array<Image, 2>> levels;
  const auto [means, threaded] = emulate(frame, plan, &levels);
  // The pictures of every level, as the CPU makes them.
  Image cpu, cpu_scaled;
  std::vector<float> scratch;
  ssim::luma_to_float(frame.ref.plane(), frame.ref.bpc(), scalar, cpu);
  ASSERT_TRUE(same_values(cpu.data, levels[0][0].data)) << what << " converted";
  if (scale > 1) {
    ssim::decimate(cpu, plan.kernel.data(), scale, scale, scalar, cpu_scaled, scratch);
    ASSERT_TRUE(same_values(cpu_scaled.data, levels[1][0].data)) << what << " decimated";
  }
  ssim::SsimCpuStage stage(scale, scalar);
  const auto expected = stage.compute(frame.ref.view(), frame.dist.view(), 0);
  EXPECT_TRUE(same_means(expected, means[0]))
      << what << std::hexfloat << ": ssim " << expected.ssim << " vs " << means[0].ssim;
  EXPECT_TRUE(same_means(expected, threaded[0])) << what << " (sums on four threads)";
}

void expect_ms_ssim_emulation(const HostFrame& frame, const std::string& what) {
  ssim::MsSsimCpuStage stage(ssim::ssim_dsp_scalar());
  const auto expected = stage.compute(frame.ref.view(), frame.dist.view(), 0);
  const auto emulated = emulate(frame, cuda::ssim::ms_ssim_plan());
  for (const bool threads : {false, true})
    for (std::size_t i = 0; i < ssim::kScales; ++i)
      EXPECT_TRUE(same_means(expected[i], emulated[threads][i]))
          << what << " scale " << i << (threads ? " (sums on four threads)" : "");
}

}  // namespace

TEST(float_ssim_cuda_emulation, MeansEqualTheCpuAtEveryScale) {
  std::mt19937_64 rng(seed() ^ 0x55C0DA);
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kSsimSizes)
      for (int scale = 0; scale <= 4; ++scale) {
        const int factor = ssim::ssim_scale(scale, w, h);
        if (ssim::decimated_size(static_cast<int>(w), factor) < ssim::kWindow ||
            ssim::decimated_size(static_cast<int>(h), factor) < ssim::kWindow)
          continue;  // refused by the extractor
        for (Fill fill : kFills)
          expect_ssim_emulation(make_pair(w, h, bpc, fill, rng), factor,
                                label(w, h, bpc) + " scale " + std::to_string(factor));
      }
}

TEST(float_ssim_cuda_emulation, FullHdEqualsTheCpu) {
  std::mt19937_64 rng(seed() ^ 0x55C0DB);
  for (const unsigned bpc : {8u, 10u})
    for (const int scale : {0, 1})
      expect_ssim_emulation(make_pair(1920, 1080, bpc, Fill::kRandom, rng),
                            ssim::ssim_scale(scale, 1920, 1080), label(1920, 1080, bpc));
}

TEST(float_ms_ssim_cuda_emulation, MeansEqualTheCpuAtEveryScale) {
  std::mt19937_64 rng(seed() ^ 0x355C0DA);
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kMsSsimSizes)
      for (Fill fill : kFills) expect_ms_ssim_emulation(make_pair(w, h, bpc, fill, rng), label(w, h, bpc));
}

TEST(float_ms_ssim_cuda_emulation, FullHdEqualsTheCpu) {
  std::mt19937_64 rng(seed() ^ 0x355C0DB);
  expect_ms_ssim_emulation(make_pair(1920, 1080, 10, Fill::kRandom, rng), label(1920, 1080, 10));
}

namespace {

HARNESS_DEVICE_FIXTURE(float_ssim);
HARNESS_DEVICE_FIXTURE(float_ms_ssim);

}  // namespace

TEST_F(float_ssim_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0x55C0DC);
  std::vector<Size> sizes = kSsimSizes;
  // 4224x4224: the automatic factor 17 (as at 8K), a 17 x 17 box.
  sizes.insert(sizes.end(), {{1920, 1080}, {3840, 2160}, {4224, 4224}});
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes)
      for (int scale = 0; scale <= 4; ++scale) {
        if (w > 3840 && (scale > 0 || bpc == 10 || bpc == 12)) continue;  // auto at 8 and 16 bits
        const int factor = ssim::ssim_scale(scale, w, h);
        if (ssim::decimated_size(static_cast<int>(w), factor) < ssim::kWindow ||
            ssim::decimated_size(static_cast<int>(h), factor) < ssim::kWindow)
          continue;
        if (w >= 1920 && scale > 0 && bpc > 10) continue;  // the large sizes: auto at 12 and 16 bits
        std::vector<HostFrame> frames;
        for (unsigned f = 0; f < 3; ++f)
          frames.push_back(make_pair(w, h, bpc, f == 1 ? Fill::kExtremes : Fill::kRandom, rng));
        ssim::SsimCpuStage cpu(factor, ssim::ssim_dsp_scalar());
        cuda::ssim::SsimCudaStage twin(w, h, factor, stream.get());
        expect_device_stage_equals_cpu<ssim::SsimMeans>(
            frames, cpu, twin, stream.get(), label(w, h, bpc) + " scale " + std::to_string(factor));
      }
}

TEST_F(float_ms_ssim_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0x355C0DC);
  std::vector<Size> sizes = kMsSsimSizes;
  sizes.insert(sizes.end(), {{1920, 1080}, {3840, 2160}});
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes) {
      if (w == 3840 && bpc > 10) continue;
      std::vector<HostFrame> frames;
      for (unsigned f = 0; f < 3; ++f)
        frames.push_back(make_pair(w, h, bpc, f == 1 ? Fill::kFullRange : Fill::kRandom, rng));
      ssim::MsSsimCpuStage cpu(ssim::ssim_dsp_scalar());
      cuda::ssim::MsSsimCudaStage twin(w, h, stream.get());
      expect_device_stage_equals_cpu<ssim::MsSsimMeans>(frames, cpu, twin, stream.get(), label(w, h, bpc));
    }
}

TEST_F(float_ssim_cuda_device, TwinEqualsTheCpuWithEveryOption) {
  cuda::CudaBackend backend;
  std::mt19937_64 rng(seed() ^ 0x55C0DD);
  unsigned compared = 0;
  const std::vector<FeatureOptions> option_sets = {
      {}, {{"enable_lcs", "true"}}, {{"enable_db", "true"}},
      {{"enable_db", "true"}, {"clip_db", "true"}},
      {{"enable_lcs", "true"}, {"enable_db", "true"}, {"clip_db", "true"}, {"scale", "1"}},
      {{"scale", "2"}, {"enable_lcs", "true"}}, {{"scale", "3"}}, {{"scale", "4"}, {"enable_db", "true"}}};
  for (const auto& [w, h, bpc] : {std::array{33u, 21u, 8u}, std::array{257u, 263u, 10u},
                                  std::array{64u, 48u, 12u}, std::array{177u, 181u, 16u}}) {
    std::vector<HostFrame> frames;
    for (unsigned f = 0; f < 3; ++f)
      frames.push_back(make_pair(w, h, bpc, f == 2 ? Fill::kZero : Fill::kRandom, rng));
    // Identical pictures: the largest scores (enable_db's infinity and clip).
    frames.push_back({test::TestPlane(w, h, bpc), test::TestPlane(w, h, bpc)});
    draw(frames.back().ref, rng, Fill::kRandom, 4);
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) frames.back().dist.set(x, y, frames.back().ref.get(x, y));
    for (const auto& options : option_sets) {
      int scale = 0;
      for (const auto& [name, value] : options)
        if (name == "scale") scale = std::stoi(value);
      const int factor = ssim::ssim_scale(scale, w, h);
      if (ssim::decimated_size(static_cast<int>(w), factor) < ssim::kWindow ||
          ssim::decimated_size(static_cast<int>(h), factor) < ssim::kWindow)
        continue;
      std::string what = label(w, h, bpc);
      for (const auto& [name, value] : options) what += " " + name + "=" + value;
      expect_twin_extractor_equals_cpu(frames, "float_ssim", options, backend, what, &compared);
      if (w >= 176 && h >= 176 && scale == 0)
        expect_twin_extractor_equals_cpu(frames, "float_ms_ssim", options, backend, "ms " + what,
                                         &compared);
    }
  }
  std::printf("[cuda parity] float_ssim/float_ms_ssim options: %u values compared\n", compared);
  EXPECT_GT(compared, 0u);
}

// The stage's parts per frame at 1920x1080: the passes to the terms and the
// terms' read-back (device time, by events), then the host's sums.
TEST_F(float_ms_ssim_cuda_device, PartsPerFrameFigures) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0x355C0DE);
  const HostFrame frame = make_pair(1920, 1080, 8, Fill::kRandom, rng);
  cuda::DevicePicture ref, dist;
  ref.upload(frame.ref.view(), stream.get());
  dist.upload(frame.dist.view(), stream.get());
  cudaEvent_t marks[3];
  for (auto& e : marks) cuda::check(cudaEventCreate(&e), "cudaEventCreate");
  const auto elapsed = [&](int a, int b) {
    float ms = 0;
    cuda::check(cudaEventElapsedTime(&ms, marks[a], marks[b]), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  };
  for (const bool ms_ssim : {false, true}) {
    const int scale = ssim::ssim_scale(0, 1920, 1080);
    cuda::ssim::SsimCudaPipeline pipeline(
        1920, 1080, ms_ssim ? cuda::ssim::ms_ssim_plan() : cuda::ssim::ssim_plan(scale), stream.get());
    double terms_ms = 1e9, readback_ms = 1e9, host_ms = 1e9;
    std::vector<ssim::SsimMeans> means;
    for (unsigned run = 0; run < 5; ++run) {
      cuda::check(cudaEventRecord(marks[0], stream.get()), "record");
      pipeline.enqueue_terms(ref.view(), dist.view());
      cuda::check(cudaEventRecord(marks[1], stream.get()), "record");
      pipeline.enqueue_readback(run);
      cuda::check(cudaEventRecord(marks[2], stream.get()), "record");
      stream.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      means = pipeline.collect(run);
      host_ms = std::min(host_ms, std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - t0).count());
      terms_ms = std::min(terms_ms, elapsed(0, 1));
      readback_ms = std::min(readback_ms, elapsed(1, 2));
    }
    if (ms_ssim) {
      ssim::MsSsimCpuStage cpu(ssim::ssim_dsp_scalar());
      const auto expected = cpu.compute(frame.ref.view(), frame.dist.view(), 0);
      for (std::size_t i = 0; i < ssim::kScales; ++i) EXPECT_TRUE(same_means(expected[i], means[i]));
    } else {
      ssim::SsimCpuStage cpu(scale, ssim::ssim_dsp_scalar());
      EXPECT_TRUE(same_means(cpu.compute(frame.ref.view(), frame.dist.view(), 0), means[0]));
    }
    std::printf("[ssim parts] %s 1920x1080 8-bit: passes to the terms %.3f ms, read-back %.3f ms "
                "(%.1f MB), host sums %.3f ms\n",
                ms_ssim ? "float_ms_ssim" : "float_ssim", terms_ms, readback_ms,
                static_cast<double>(pipeline.readback_doubles()) * 8 / 1e6, host_ms);
  }
  for (auto& e : marks) cudaEventDestroy(e);
}

namespace {

// --bench: the device stages per frame (pictures already on the device).
template <class Stage, class Make>
std::function<void()> device_bench(unsigned w, unsigned h, unsigned bpc, Make make) {
  if (!cuda_skip_reason().empty()) return nullptr;
  struct State {
    cuda::Stream stream;
    cuda::DevicePicture ref, dist;
    std::unique_ptr<Stage> stage;
    unsigned frame = 0;
  };
  auto state = std::make_shared<State>();
  std::mt19937_64 rng(1);
  const HostFrame frame = make_pair(w, h, bpc, Fill::kRandom, rng);
  state->ref.upload(frame.ref.view(), state->stream.get());
  state->dist.upload(frame.dist.view(), state->stream.get());
  state->stage = make(state->stream.get());
  state->stream.synchronize();
  return [state] { state->stage->compute(state->ref.view(), state->dist.view(), state->frame++); };
}

const BenchRegistration ssim_cuda_bench(
    {{"float_ssim", "cuda_device", [](unsigned w, unsigned h, unsigned bpc) {
        return device_bench<cuda::ssim::SsimCudaStage>(w, h, bpc, [&](cudaStream_t stream) {
          return std::make_unique<cuda::ssim::SsimCudaStage>(w, h, ssim::ssim_scale(0, w, h), stream);
        });
      }},
     {"float_ms_ssim", "cuda_device", [](unsigned w, unsigned h, unsigned bpc) {
        return device_bench<cuda::ssim::MsSsimCudaStage>(w, h, bpc, [&](cudaStream_t stream) {
          return std::make_unique<cuda::ssim::MsSsimCudaStage>(w, h, stream);
        });
      }}});

}  // namespace
