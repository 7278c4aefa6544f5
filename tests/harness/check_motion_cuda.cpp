// The CUDA twin of integer motion ("motion", cuda/motion/) against the CPU
// path with the scalar table.
//  - motion_cuda_emulation: no device needed (runs in CI). It walks the
//    kernel's decomposition (cuda/motion/motion_cuda_tile.h: blocks of kRows
//    rows by kChunk columns, a sliding window of five differences per thread,
//    the horizontal pass over shared values, the per-row wrapping reduction
//    and the blocks' wrapping adds into each row's total) on the host with
//    the kernel's own __host__ __device__
//    functions, and requires every row's uint32 sum and the frame's uint64 to
//    equal the CPU path's (motion_row_sad, motion_sad).
//  - motion_cuda_device: the kernel and the twin extractor on a device
//    (skipped without one), == the CPU.
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "cuda_backend.h"
#include "device_stage.h"
#include "harness.h"
#include "motion/motion.h"
#include "motion/motion_cuda.h"
#include "motion/motion_cuda_stage.h"
#include "motion/motion_cuda_tile.h"
#include "motion/motion_dsp.h"
#include "motion/motion_extractor.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::harness;
namespace tile = vmafexact::cuda::motion::tile;

namespace {

// A luma plane owned by the test, rows padded so that stride != width.
struct Plane {
  Plane(unsigned w, unsigned h, unsigned bpc_, unsigned padding = 5)
      : width(w), height(h), bpc(bpc_), stride_samples(w + padding),
        bytes(std::size_t{stride_samples} * h * (bpc_ == 8 ? 1 : 2), 0x5A) {}
  void set(unsigned x, unsigned y, unsigned value) {
    const std::size_t i = std::size_t{y} * stride_samples + x;
    if (bpc == 8) {
      bytes[i] = static_cast<std::uint8_t>(value);
    } else {
      const auto v = static_cast<std::uint16_t>(value);
      std::memcpy(&bytes[i * 2], &v, 2);
    }
  }
  PlaneView view() const {
    return {bytes.data(), static_cast<std::ptrdiff_t>(stride_samples * (bpc == 8 ? 1 : 2)), width,
            height};
  }
  PictureView picture() const {
    PictureView p;
    p.bpc = bpc;
    p.chroma = ChromaFormat::k400;
    p.width = width;
    p.height = height;
    p.planes[0] = view();
    return p;
  }
  unsigned width, height, bpc, stride_samples;
  std::vector<std::uint8_t> bytes;
};

// Frame `frame` of a clip: a moving hard-edged pattern, a gradient and noise,
// with runs of extreme values (so that the blurred differences reach their
// largest magnitudes) and unchanged areas (rows of zeros).
Plane make_frame(unsigned w, unsigned h, unsigned bpc, unsigned frame, std::uint32_t seed) {
  Plane plane(w, h, bpc);
  std::mt19937 random(seed * 7919u + frame);
  const unsigned max_value = (1u << bpc) - 1;
  std::uniform_int_distribution<unsigned> any(0, max_value);
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      unsigned value;
      if (y % 23 == 5)
        value = max_value / 3;  // the same in every frame
      else if ((x + 3 * frame) % 19 < 6)
        value = ((x + 3 * frame) / 19 + y / 4) % 2 ? max_value : 0;
      else if (x % 5 == 0)
        value = any(random);
      else
        value = (x * 37u + y * 11u + frame * 101u) % (max_value + 1);
      plane.set(x, y, value);
    }
  return plane;
}

// The kernel's decomposition on the host: every row's uint32 sum and the total.
struct Emulated {
  std::vector<std::uint32_t> rows;
  std::uint64_t sad = 0;
};

template <typename Sample>
Emulated emulate_kernel(const PlaneView& prev, const PlaneView& cur, unsigned bpc) {
  const int width = static_cast<int>(cur.width), height = static_cast<int>(cur.height);
  Emulated out;
  out.rows.assign(cur.height, 0);
  for (unsigned block = 0; block < tile::block_count(cur.height); ++block)
    for (unsigned chunk = 0; chunk < tile::chunk_count(cur.width); ++chunk) {
      const int y0 = static_cast<int>(block) * tile::kRows;
      std::vector<std::array<std::uint32_t, tile::kRows>> row_sum(tile::kThreads);
      for (auto& sums : row_sum) sums.fill(0);
      std::vector<std::int32_t> vertical(tile::kThreads);
      const int x0 = static_cast<int>(chunk) * tile::kChunk;
      // Per-thread registers.
      std::vector<std::array<std::int64_t, 5>> d(tile::kThreads);
      std::vector<std::int64_t> next(tile::kThreads);
      std::vector<bool> needed(tile::kThreads);
      std::vector<int> mirrored(tile::kThreads);
      for (int t = 0; t < tile::kThreads; ++t) {
        const int column = tile::thread_column(x0, t);
        needed[t] = tile::column_needed(column, width);
        mirrored[t] = needed[t] ? motion::pixel::mirror(column, width) : 0;
        d[t][0] = 0;
        for (int k = 0; k < 4; ++k)
          d[t][k + 1] = tile::window_load<Sample>(prev.data, prev.stride, cur.data, cur.stride,
                                                  y0 - tile::kHalo + k, height, needed[t], mirrored[t]);
        next[t] = tile::window_load<Sample>(prev.data, prev.stride, cur.data, cur.stride,
                                            y0 + tile::kHalo, height, needed[t], mirrored[t]);
      }
      for (int r = 0; r < tile::kRows; ++r) {
        const int y = y0 + r;
        if (y >= height) continue;
        for (int t = 0; t < tile::kThreads; ++t) {  // up to the first __syncthreads
          for (int k = 0; k < 4; ++k) d[t][k] = d[t][k + 1];
          d[t][4] = next[t];
          std::int64_t window[5];
          for (int k = 0; k < 5; ++k) window[k] = d[t][k];
          vertical[t] = tile::vertical_value(window, bpc);
          if (r + 1 < tile::kRows && y + 1 < height)
            next[t] = tile::window_load<Sample>(prev.data, prev.stride, cur.data, cur.stride,
                                                y + 1 + tile::kHalo, height, needed[t], mirrored[t]);
        }
        for (int t = 0; t < tile::kThreads; ++t)  // up to the second
          if (t < tile::kChunk && x0 + t < width) row_sum[t][r] += tile::output_abs(vertical.data() + t);
      }
      // The reduction: shuffle-down within each warp, the warps in order, then
      // the block's share wrapping-added into the row's total.
      for (int r = 0; r < tile::kRows; ++r) {
        std::uint32_t share = 0;
        for (int warp = 0; warp < tile::kThreads / 32; ++warp) {
          std::array<std::uint32_t, 32> lanes{};
          for (int lane = 0; lane < 32; ++lane) lanes[lane] = row_sum[warp * 32 + lane][r];
          for (int offset = 16; offset > 0; offset /= 2) {
            const auto before = lanes;
            for (int lane = 0; lane + offset < 32; ++lane) lanes[lane] = before[lane] + before[lane + offset];
          }
          share += lanes[0];
        }
        if (y0 + r < height) out.rows[y0 + r] += share;
      }
    }
  for (const std::uint32_t row : out.rows) out.sad += row;  // the total kernel, in 64 bits
  return out;
}

Emulated emulate(const PlaneView& prev, const PlaneView& cur, unsigned bpc) {
  return bpc == 8 ? emulate_kernel<std::uint8_t>(prev, cur, bpc)
                  : emulate_kernel<std::uint16_t>(prev, cur, bpc);
}

void expect_emulation_equals_cpu(const Plane& prev, const Plane& cur, const std::string& label) {
  const Emulated e = emulate(prev.view(), cur.view(), cur.bpc);
  std::vector<std::int16_t> scratch(2 * std::size_t{cur.width});
  for (unsigned y = 0; y < cur.height; ++y)
    ASSERT_EQ(e.rows[y], motion::motion_row_sad(prev.view(), cur.view(), cur.bpc, y, scratch.data(),
                                           motion::motion_dsp_scalar()))
        << label << " row " << y;
  EXPECT_EQ(e.sad, motion::motion_sad(prev.view(), cur.view(), cur.bpc, scratch, motion::motion_dsp_scalar())) << label;
}

// Around the kernel's block (kRows) and chunk (kChunk) boundaries, and odd sizes.
const std::vector<Size> kSizes = {
    {3, 3},    {4, 3},     {3, 4},    {5, 7},    {17, 17},  {33, 9},    {3, 41},
    {507, 8},  {508, 9},   {509, 17}, {510, 15}, {511, 16}, {512, 7},   {513, 24},
    {1016, 3}, {1017, 10}, {1018, 5}, {1527, 25}, {1921, 33}};

std::string label(unsigned w, unsigned h, unsigned bpc) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + std::to_string(bpc) + "-bit";
}

}  // namespace

TEST(motion_cuda_emulation, RowAndFrameSumsEqualTheCpu) {
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kSizes) {
      const Plane prev = make_frame(w, h, bpc, 0, w + h), cur = make_frame(w, h, bpc, 1, w + h);
      expect_emulation_equals_cpu(prev, cur, label(w, h, bpc));
      expect_emulation_equals_cpu(cur, prev, label(w, h, bpc) + " swapped");
    }
}

TEST(motion_cuda_emulation, FullHdEqualsTheCpu) {
  for (const unsigned bpc : {8u, 10u}) {
    const Plane prev = make_frame(1920, 1080, bpc, 3, 1), cur = make_frame(1920, 1080, bpc, 4, 1);
    expect_emulation_equals_cpu(prev, cur, label(1920, 1080, bpc));
  }
}

TEST(motion_cuda_emulation, ExtremeDifferencesEqualTheCpu) {
  // Flat maximal differences of both signs, and single impulses: the largest
  // vertical and horizontal sums, and the rounding of exact halves.
  for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
    const unsigned max_value = (1u << bpc) - 1;
    for (const auto& [w, h] : {Size{3, 3}, Size{9, 11}, Size{600, 10}}) {
      Plane low(w, h, bpc), high(w, h, bpc), impulse(w, h, bpc);
      for (unsigned y = 0; y < h; ++y)
        for (unsigned x = 0; x < w; ++x) {
          low.set(x, y, 0);
          high.set(x, y, max_value);
          impulse.set(x, y, (x == w / 2 && y == h / 2) || (x == 0 && y == h - 1) ? max_value : 0);
        }
      expect_emulation_equals_cpu(low, high, label(w, h, bpc) + " flat");
      expect_emulation_equals_cpu(high, low, label(w, h, bpc) + " flat swapped");
      expect_emulation_equals_cpu(low, impulse, label(w, h, bpc) + " impulse");
      expect_emulation_equals_cpu(impulse, low, label(w, h, bpc) + " impulse swapped");
    }
  }
}

TEST(motion_cuda_emulation, WideRowsWrapLikeTheCpu) {
  // 65794 maximal 8-bit differences (and 65538 16-bit ones) per row pass 2^32:
  // each row's sum wraps, the rows are then added in 64 bits.
  for (const auto& [w, bpc] : {std::pair{65794u, 8u}, std::pair{65538u, 16u}}) {
    Plane prev(w, 3, bpc), cur(w, 3, bpc);
    for (unsigned y = 0; y < 3; ++y)
      for (unsigned x = 0; x < w; ++x) {
        prev.set(x, y, (1u << bpc) - 1);
        cur.set(x, y, 0);
      }
    const Emulated e = emulate(prev.view(), cur.view(), bpc);
    if (bpc == 8) {
      EXPECT_EQ(e.rows[1], 65024u);
      EXPECT_EQ(e.sad, 3u * 65024u);
    }
    expect_emulation_equals_cpu(prev, cur, label(w, 3, bpc));
  }
}

namespace {

HARNESS_DEVICE_FIXTURE(motion);

std::uint64_t device_sad(const Plane& prev, const Plane& cur, cuda::Stream& stream) {
  cuda::DevicePicture prev_device, cur_device;
  prev_device.upload(prev.picture(), stream.get());
  cur_device.upload(cur.picture(), stream.get());
  cuda::DeviceBuffer<unsigned long long> sum(1);
  cuda::DeviceBuffer<std::uint32_t> rows(cur.height);
  cuda::check(cudaMemsetAsync(sum.data(), 0xff, sizeof(unsigned long long), stream.get()), "memset");
  cuda::motion::enqueue_motion_sad(prev_device.view().planes[0], cur_device.view().planes[0],
                                   cur.bpc, rows.data(), sum.data(), stream.get());
  unsigned long long result = 0;
  cuda::check(cudaMemcpyAsync(&result, sum.data(), sizeof result, cudaMemcpyDeviceToHost,
                              stream.get()),
              "copy");
  stream.synchronize();
  return result;
}

// Runs the CPU extractor and the twin side by side over `frames` and requires
// the same collector (names in first-written order, every value ==) after
// every frame and after flush: the same keys, values and latency.
void expect_twin_equals_cpu(const std::vector<Plane>& frames, const FeatureOptions& options,
                            cuda::CudaBackend& backend, const std::string& what,
                            unsigned* compared) {
  auto cpu = make_feature_extractor("motion", options);
  auto twin = backend.make_extractor("motion", options);
  const PictureFormat format{frames[0].width, frames[0].height, frames[0].bpc, ChromaFormat::k400};
  cpu->init(format);
  twin->init(format);
  FeatureCollector cpu_scores, twin_scores;
  auto same = [&](const std::string& when) {
    ASSERT_EQ(cpu_scores.names(), twin_scores.names()) << what << " " << when;
    ASSERT_EQ(cpu_scores.frame_count(), twin_scores.frame_count()) << what << " " << when;
    for (const auto& name : cpu_scores.names())
      for (unsigned f = 0; f < cpu_scores.frame_count(); ++f) {
        const auto a = cpu_scores.score(name, f), b = twin_scores.score(name, f);
        ASSERT_EQ(a.has_value(), b.has_value()) << what << " " << when << " " << name << " " << f;
        if (a) {
          EXPECT_EQ(*a, *b) << what << " " << when << " " << name << " frame " << f;
          ++*compared;
        }
      }
  };
  cuda::DevicePicture device;
  for (unsigned i = 0; i < frames.size(); ++i) {
    const PictureView host = frames[i].picture();
    cpu->extract(host, host, i, cpu_scores);
    device.upload(host, backend.stream());
    twin->extract(device.view(), device.view(), i, twin_scores);
    same("after frame " + std::to_string(i));
  }
  cpu->flush(cpu_scores);
  twin->flush(twin_scores);
  same("after flush");
}

}  // namespace

TEST_F(motion_cuda_device, KernelSumsEqualTheCpu) {
  cuda::Stream stream;
  for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
    for (const auto& [w, h] : kSizes) {
      const Plane prev = make_frame(w, h, bpc, 0, w + h), cur = make_frame(w, h, bpc, 1, w + h);
      std::vector<std::int16_t> scratch;
      EXPECT_EQ(device_sad(prev, cur, stream), motion::motion_sad(prev.view(), cur.view(), bpc, scratch, motion::motion_dsp_scalar()))
          << label(w, h, bpc);
    }
    for (const auto& [w, h] : {Size{1920, 1080}, Size{3840, 2160}}) {
      const Plane prev = make_frame(w, h, bpc, 5, 2), cur = make_frame(w, h, bpc, 6, 2);
      std::vector<std::int16_t> scratch;
      EXPECT_EQ(device_sad(prev, cur, stream), motion::motion_sad(prev.view(), cur.view(), bpc, scratch, motion::motion_dsp_scalar()))
          << label(w, h, bpc);
    }
  }
}

TEST_F(motion_cuda_device, KernelWideRowsWrapLikeTheCpu) {
  cuda::Stream stream;
  for (const auto& [w, bpc] : {std::pair{65794u, 8u}, std::pair{65538u, 16u}}) {
    Plane prev(w, 3, bpc), cur(w, 3, bpc);
    for (unsigned y = 0; y < 3; ++y)
      for (unsigned x = 0; x < w; ++x) {
        prev.set(x, y, (1u << bpc) - 1);
        cur.set(x, y, 0);
      }
    std::vector<std::int16_t> scratch;
    const std::uint64_t cpu = motion::motion_sad(prev.view(), cur.view(), bpc, scratch, motion::motion_dsp_scalar());
    EXPECT_EQ(device_sad(prev, cur, stream), cpu) << label(w, 3, bpc);
    if (bpc == 8) {
      EXPECT_EQ(cpu, 3u * 65024u);
    }
  }
}

TEST_F(motion_cuda_device, TwinEqualsTheCpuWithEveryOption) {
  cuda::CudaBackend backend;
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"debug", "true"}},
      {{"motion_force_zero", "true"}},
      {{"motion_force_zero", "true"}, {"debug", "true"}, {"motion_five_frame_window", "true"}},
      {{"motion_five_frame_window", "true"}},
      {{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}, {"debug", "true"}},
      {{"motion_moving_average", "true"}},
      {{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "3"}},
      {{"motion_fps_weight", "2.5"}, {"motion_max_val", "4"}},
      {{"motion_blend_factor", "0.25"}, {"motion_blend_offset", "0"}, {"motion_fps_weight", "0.5"},
       {"motion_max_val", "10"}, {"motion_five_frame_window", "true"},
       {"motion_moving_average", "true"}, {"debug", "true"}}};
  unsigned compared = 0;
  for (const auto& [w, h, bpc] : {std::array{37u, 23u, 10u}, std::array{64u, 48u, 8u},
                                  std::array{515u, 19u, 16u}, std::array{3u, 3u, 12u}}) {
    std::vector<Plane> clip;
    for (unsigned f = 0; f < 7; ++f) clip.push_back(make_frame(w, h, bpc, f, w * h));
    for (const auto& options : option_sets)
      for (unsigned length = 1; length <= clip.size(); ++length) {
        const std::vector<Plane> frames(clip.begin(), clip.begin() + length);
        std::string what = label(w, h, bpc) + " " + std::to_string(length) + " frames,";
        for (const auto& [name, value] : options) what += " " + name + "=" + value;
        expect_twin_equals_cpu(frames, options, backend, what, &compared);
      }
  }
  // With motion_force_zero every size is accepted and nothing is read.
  std::vector<Plane> tiny;
  for (unsigned f = 0; f < 3; ++f) tiny.push_back(make_frame(1, 2, 8, f, 1));
  expect_twin_equals_cpu(tiny, {{"motion_force_zero", "true"}}, backend, "1x2 force_zero", &compared);
  std::printf("[cuda parity] motion options: %u values compared\n", compared);
}


// The stage contract (MotionCudaStage as a FeatureStage, frames submitted one
// ahead) against MotionCpuStage with the scalar table, keeping 2 and 3 planes.
TEST_F(motion_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  const auto plane_of = [](const Plane& p) {
    test::TestPlane plane(p.width, p.height, p.bpc, 2);
    const unsigned sample = p.bpc == 8 ? 1 : 2;
    for (unsigned y = 0; y < p.height; ++y)
      for (unsigned x = 0; x < p.width; ++x) {
        const std::size_t i = (std::size_t{y} * p.stride_samples + x) * sample;
        plane.set(x, y, sample == 1 ? p.bytes[i] : p.bytes[i] | (p.bytes[i + 1] << 8));
      }
    return plane;
  };
  for (const auto& [w, h] : {Size{3, 3}, Size{37, 23}, Size{509, 17}, Size{1920, 1080}})
    for (const unsigned bpc : {8u, 10u, 12u, 16u})
      for (const unsigned depth : {2u, 3u}) {
        std::vector<HostFrame> frames;
        for (unsigned f = 0; f < 6; ++f) {
          const Plane p = make_frame(w, h, bpc, f, w * h);
          frames.push_back({plane_of(p), plane_of(p)});
        }
        const PictureFormat format{w, h, bpc, ChromaFormat::k400};
        motion::MotionCpuStage cpu(format, depth, motion::motion_dsp_scalar());
        cuda::motion::MotionCudaStage twin(format, depth, stream.get());
        expect_device_stage_equals_cpu<motion::MotionSums>(
            frames, cpu, twin, stream.get(), label(w, h, bpc) + " depth " + std::to_string(depth));
      }
}

namespace {

// --bench: the device stage per frame (MotionCudaStage: the plane copy, the
// kernel and the read-back, pictures already on the device), on the host clock.
const BenchRegistration motion_cuda_bench({{"motion", "cuda_device", [](unsigned w, unsigned h,
                                                                          unsigned bpc)
                                                -> std::function<void()> {
  if (!cuda_skip_reason().empty()) return nullptr;
  struct State {
    cuda::Stream stream;
    cuda::DevicePicture frames[2];
    std::unique_ptr<cuda::motion::MotionCudaStage> stage;
    unsigned frame = 0;
  };
  auto state = std::make_shared<State>();
  for (unsigned f = 0; f < 2; ++f)
    state->frames[f].upload(make_frame(w, h, bpc, f, 9).picture(), state->stream.get());
  state->stage = std::make_unique<cuda::motion::MotionCudaStage>(
      PictureFormat{w, h, bpc, ChromaFormat::k400}, 2, state->stream.get());
  return [state] {
    const auto view = state->frames[state->frame % 2].view();
    state->stage->compute(view, view, state->frame++);
  };
}}});

}  // namespace
