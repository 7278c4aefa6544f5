// The CUDA twin of integer ADM ("adm", cuda/adm/) against the CPU stage with
// the scalar table.
//  - adm_cuda_emulation: no device needed (runs in CI). The kernels' block
//    decomposition (adm_cuda_tiles.h: the same __host__ __device__ functions
//    the kernels call, block by block, phase by phase, warp by warp) replayed
//    on the host must give the CPU stage's sums ==, on many sizes, bit depths,
//    contents and options. Shared memory is poisoned before every block, so a
//    read of a value the block did not write shows up.
//  - adm_cuda_device: the kernels on the device (skipped without one): sums
//    and scores == the CPU's, and every intermediate buffer == the emulation's.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "adm/adm.h"
#include "adm/adm_cuda.h"
#include "adm/adm_cuda_tiles.h"
#include "adm/adm_dsp.h"
#include "adm/adm_extractor.h"
#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "device_stage.h"
#include "harness.h"
#include "adm_option_sets.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::harness;
namespace cadm = vmafexact::cuda::adm;
using adm::AdmOptions;
using adm::FrameSums;

namespace {

// ---------------------------------------------------------------------------
// Pictures

enum class Content { kNatural, kNoise, kExtremes, kFlat, kMoving1, kMoving2, kMoving3 };

struct LumaPair {
  unsigned width, height, bpc;
  std::vector<std::uint8_t> ref, dist;  // packed rows, 1 or 2 bytes per sample
  PlaneView plane(const std::vector<std::uint8_t>& bytes) const {
    const unsigned sample = bpc > 8 ? 2 : 1;
    return {bytes.data(), static_cast<std::ptrdiff_t>(width * sample), width, height};
  }
  PictureView view(const std::vector<std::uint8_t>& bytes) const {
    PictureView v;
    v.bpc = bpc;
    v.chroma = ChromaFormat::k400;
    v.width = width;
    v.height = height;
    v.planes[0] = plane(bytes);
    return v;
  }
};

LumaPair make_pair(unsigned width, unsigned height, unsigned bpc, Content content, std::uint32_t seed) {
  LumaPair p{width, height, bpc, {}, {}};
  const unsigned sample = bpc > 8 ? 2 : 1;
  p.ref.resize(std::size_t{width} * height * sample);
  p.dist.resize(p.ref.size());
  std::mt19937 random(seed);
  const int max_value = (1 << bpc) - 1;
  std::normal_distribution<double> noise(0.0, max_value / 40.0);
  std::uniform_int_distribution<int> uniform(0, max_value);
  for (unsigned y = 0; y < height; ++y)
    for (unsigned x = 0; x < width; ++x) {
      int r = 0, d = 0;
      switch (content) {
        case Content::kMoving1:  // frames 1..3 of test_cuda_parity.cpp's clips
        case Content::kMoving2:
        case Content::kMoving3: {
          const unsigned f = static_cast<unsigned>(content) - static_cast<unsigned>(Content::kMoving1) + 1;
          double value = (std::sin((x + 3.0 * f) * 0.07) * 0.4 + std::cos(y * 0.05) * 0.3 + 0.5) * max_value;
          if (((x + 2 * f) / 8 + y / 8) % 2 && x > width / 2) value = (y % 16 < 8) ? max_value : 0;
          r = std::clamp(static_cast<int>(value + noise(random) * 0.3), 0, max_value);
          d = std::clamp(static_cast<int>(r + noise(random)), 0, max_value);
          break;
        }
        case Content::kNatural: {
          double value = (std::sin(x * 0.07) * 0.4 + std::cos(y * 0.05) * 0.3 + 0.5) * max_value;
          if ((x / 8 + y / 8) % 2 && x > width / 2) value = (y % 16 < 8) ? max_value : 0;
          r = std::clamp(static_cast<int>(value + noise(random) * 0.3), 0, max_value);
          d = std::clamp(static_cast<int>(r + noise(random)), 0, max_value);
          if (x < width / 4) d = std::clamp(static_cast<int>(r * 1.2 - max_value * 0.1), 0, max_value);
          break;
        }
        case Content::kNoise:
          r = uniform(random);
          d = (x + y) % 3 ? uniform(random) : r;
          break;
        case Content::kExtremes:  // full-range edges, inverted and sharpened copies
          r = ((x / 2 + y / 3) % 2) ? max_value : 0;
          if ((x * 7 + y * 3) % 11 == 0) r = max_value - r;
          d = (y % 4 < 2) ? max_value - r : ((x % 3) ? r : max_value);
          break;
        case Content::kFlat:
          r = max_value / 3;
          d = (x == width / 2 && y == height / 2) ? max_value : r;
          break;
      }
      const std::size_t i = std::size_t{y} * width + x;
      if (sample == 1) {
        p.ref[i] = static_cast<std::uint8_t>(r);
        p.dist[i] = static_cast<std::uint8_t>(d);
      } else {
        const auto r16 = static_cast<std::uint16_t>(r), d16 = static_cast<std::uint16_t>(d);
        std::memcpy(&p.ref[i * 2], &r16, 2);
        std::memcpy(&p.dist[i * 2], &d16, 2);
      }
    }
  return p;
}

std::string describe(const LumaPair& p, const std::string& options) {
  return std::to_string(p.width) + "x" + std::to_string(p.height) + " " + std::to_string(p.bpc) +
         "-bit " + options;
}

// ---------------------------------------------------------------------------
// Host emulation of the kernels, block by block.

template <typename T>
void poison(T& object) {
  std::memset(static_cast<void*>(&object), 0xA5, sizeof(T));
}

template <typename Sample, typename Band>
void emulate_dwt(const cadm::DwtArgs<Sample, Band>& a, const adm::pixel::Db2Taps& taps, int scale,
                 unsigned bpc) {
  auto sm = std::make_unique<cadm::DwtSmem>();
  for (int tile_i = 0; tile_i < a.out_h; tile_i += cadm::kDwtTileH)
    for (int tile_j = 0; tile_j < a.out_w; tile_j += cadm::kDwtTileW) {
      poison(*sm);
      for (int idx = 0; idx < cadm::kDwtTileH * cadm::kDwtCols; ++idx)
        cadm::dwt_phase1(a, taps, scale, bpc, tile_i, tile_j, idx / cadm::kDwtCols,
                         idx % cadm::kDwtCols, *sm);
      for (int r = 0; r < cadm::kDwtTileH; ++r)
        for (int q = 0; q < cadm::kDwtTileW; ++q)
          cadm::dwt_phase2(a, taps, scale, tile_i, tile_j, r, q, *sm);
    }
}

template <class Arith>
void emulate_score(const cadm::ScoreArgs<Arith>& a) {
  auto sm = std::make_unique<cadm::ScoreSmem>();
  for (int tile_top = a.g.top; tile_top < a.g.bottom; tile_top += cadm::kScoreTileH)
    for (int tile_left = a.g.left; tile_left < a.g.right; tile_left += cadm::kScoreTileW) {
      poison(*sm);
      for (int idx = 0; idx < cadm::kHalo; ++idx)
        cadm::score_phase1(a, tile_top, tile_left, idx / cadm::kHaloW, idx % cadm::kHaloW, *sm);
      for (int warp = 0; warp < cadm::kScoreWarps; ++warp)
        for (int k = 0; k < cadm::kScoreRowsPerWarp; ++k) {
          const int y = warp + k * cadm::kScoreWarps;
          const int i = tile_top + y;
          if (i >= a.g.bottom) break;
          unsigned long long lanes[cadm::kQuantities][3] = {};
          for (int lane = 0; lane < cadm::kScoreTileW; ++lane) {
            const cadm::PixelTerms t = cadm::score_phase2(a, tile_top, tile_left, y, lane, *sm);
            for (int q = 0; q < cadm::kQuantities; ++q)
              for (int theta = 0; theta < 3; ++theta) lanes[q][theta] += t.v[q][theta];
          }
          for (int q = 0; q < cadm::kQuantities; ++q) {
            if (q == 2 && a.skip_aim) break;
            for (int theta = 0; theta < 3; ++theta)
              a.acc[(q * 3 + theta) * a.acc_rows + i] += lanes[q][theta];
          }
        }
    }
}

struct EmulationState {
  std::vector<std::int16_t> bands0;
  std::array<std::vector<std::int32_t>, 4> bands;
  std::vector<unsigned long long> rows;
};

// AdmCudaStage::enqueue() with the kernels replaced by their emulation.
FrameSums emulate(const LumaPair& pair, const AdmOptions& options, EmulationState* state = nullptr) {
  const auto geometry = adm::scale_geometry(pair.width, pair.height);
  const auto weights = adm::csf_weights(options);
  const auto taps = adm::db2_taps();
  const float cos_sq = adm::cos_1deg_sq();
  const std::int32_t* div = adm::division_table().data();
  std::size_t size[4];
  for (int s = 0; s < 4; ++s) size[s] = static_cast<std::size_t>(geometry[s].width) * geometry[s].height;
  const int acc_rows = geometry[0].height;
  std::vector<unsigned long long> acc(36 * static_cast<std::size_t>(acc_rows), 0);
  std::vector<std::int16_t> bands0(8 * size[0]);
  std::vector<std::int32_t> bands[4];
  for (int s = 1; s < 4; ++s) bands[s].resize(8 * size[s]);

  const auto dwt0 = [&]<typename Sample>(const std::vector<std::uint8_t>& bytes, int p) {
    cadm::DwtArgs<Sample, std::int16_t> a{};
    a.src = bytes.data();
    a.pitch = static_cast<std::ptrdiff_t>(pair.width * sizeof(Sample));
    a.w = static_cast<int>(pair.width);
    a.h = static_cast<int>(pair.height);
    a.out_w = geometry[0].width;
    a.out_h = geometry[0].height;
    for (int b = 0; b < 4; ++b) a.band[b] = bands0.data() + (4 * p + b) * size[0];
    a.lowpass_only = options.skip_scale0;
    emulate_dwt(a, taps, 0, pair.bpc);
  };
  for (int p = 0; p < 2; ++p) {
    const auto& bytes = p ? pair.dist : pair.ref;
    if (pair.bpc == 8)
      dwt0.template operator()<std::uint8_t>(bytes, p);
    else
      dwt0.template operator()<std::uint16_t>(bytes, p);
  }
  if (!options.skip_scale0) {
    cadm::ScoreArgs<adm::pixel::Scale0Arith> a{};
    for (int theta = 0; theta < 3; ++theta) {
      a.ref[theta] = bands0.data() + (1 + theta) * size[0];
      a.dist[theta] = bands0.data() + (5 + theta) * size[0];
      a.arith.rfactor[theta] = weights.scale0_fixed[theta];
    }
    a.g = cadm::tile_geometry(geometry[0]);
    a.egl = options.enhn_gain_limit;
    a.cos_sq = cos_sq;
    a.div = div;
    a.skip_aim = options.skip_aim;
    a.acc = acc.data();
    a.acc_rows = acc_rows;
    emulate_score(a);
  }
  for (int s = 1; s < 4; ++s) {
    const int in_w = geometry[s - 1].width, in_h = geometry[s - 1].height;
    const auto dwt = [&]<typename Sample>(const Sample* src, int p) {
      cadm::DwtArgs<Sample, std::int32_t> a{};
      a.src = reinterpret_cast<const std::uint8_t*>(src);
      a.pitch = static_cast<std::ptrdiff_t>(in_w) * static_cast<std::ptrdiff_t>(sizeof(Sample));
      a.w = in_w;
      a.h = in_h;
      a.out_w = geometry[s].width;
      a.out_h = geometry[s].height;
      for (int b = 0; b < 4; ++b) a.band[b] = bands[s].data() + (4 * p + b) * size[s];
      emulate_dwt(a, taps, s, pair.bpc);
    };
    for (int p = 0; p < 2; ++p) {
      if (s == 1)
        dwt(bands0.data() + 4 * p * size[0], p);
      else
        dwt(bands[s - 1].data() + 4 * p * size[s - 1], p);
    }
    cadm::ScoreArgs<adm::pixel::ScaleNArith> a{};
    for (int theta = 0; theta < 3; ++theta) {
      a.ref[theta] = bands[s].data() + (1 + theta) * size[s];
      a.dist[theta] = bands[s].data() + (5 + theta) * size[s];
      a.arith.rfactor[theta] = weights.fixed[s][theta];
    }
    a.arith.scale = s;
    a.g = cadm::tile_geometry(geometry[s]);
    a.egl = options.enhn_gain_limit;
    a.cos_sq = cos_sq;
    a.div = div;
    a.skip_aim = options.skip_aim;
    a.acc = acc.data() + static_cast<std::size_t>(s) * 9 * acc_rows;
    a.acc_rows = acc_rows;
    emulate_score(a);
  }
  if (state) {
    state->bands0 = bands0;
    for (int s = 1; s < 4; ++s) state->bands[s] = bands[s];
    state->rows = acc;
  }
  // rows_kernel: per (scale, quantity, theta) the rows' rounded shifts, added.
  FrameSums sums;
  for (int b = 0; b < 36; ++b) {
    const int s = b / 9, q = (b / 3) % 3, theta = b % 3;
    const auto g = cadm::tile_geometry(geometry[s]);
    unsigned long long total = 0;
    for (int i = g.top; i < g.bottom; ++i)
      total += cadm::row_term(q, acc[static_cast<std::size_t>(b) * acc_rows + i], g);
    if (q == 0) sums.scales[s].den[theta] = total;
    if (q == 1) sums.scales[s].num[theta] = static_cast<std::int64_t>(total);
    if (q == 2) sums.scales[s].aim[theta] = static_cast<std::int64_t>(total);
  }
  return sums;
}

// The CPU stage with the scalar table: the reference of every twin.
FrameSums cpu_sums(const LumaPair& pair, const AdmOptions& options) {
  adm::AdmCpuStage computer(pair.width, pair.height, options, adm::adm_dsp_scalar());
  return computer.compute(pair.plane(pair.ref), pair.plane(pair.dist), pair.bpc);
}

// == on every sum; on a difference, names the first.
::testing::AssertionResult same_sums(const FrameSums& cpu, const FrameSums& twin) {
  for (int s = 0; s < 4; ++s)
    for (int theta = 0; theta < 3; ++theta) {
      const auto& c = cpu.scales[s];
      const auto& t = twin.scales[s];
      if (c.den[theta] != t.den[theta] || c.num[theta] != t.num[theta] || c.aim[theta] != t.aim[theta])
        return ::testing::AssertionFailure()
               << "scale " << s << " theta " << theta << ": cpu den/num/aim " << c.den[theta] << "/"
               << c.num[theta] << "/" << c.aim[theta] << ", twin " << t.den[theta] << "/"
               << t.num[theta] << "/" << t.aim[theta];
    }
  return ::testing::AssertionSuccess();
}

using test::NamedAdmOptions;
using test::option_sets;

AdmOptions options_of(const FeatureOptions& options) { return adm::adm_options_of(adm::descriptor().parse(options)); }

// test_cuda_parity.cpp's clips, luma only, with its random sequence (chroma
// draws included), so that the emulation sees the parity test's exact frames.
std::vector<LumaPair> parity_clip(unsigned width, unsigned height, unsigned bpc, ChromaFormat chroma,
                                  unsigned frames, std::uint32_t seed) {
  std::vector<LumaPair> out;
  std::mt19937 random(seed);
  const int max_value = (1 << bpc) - 1;
  std::normal_distribution<double> noise(0.0, max_value / 40.0);
  for (unsigned f = 0; f < frames; ++f) {
    for (unsigned p = 0; p < 3; ++p) {
      const unsigned w = p ? chroma_plane_width(width, chroma) : width;
      const unsigned h = p ? chroma_plane_height(height, chroma) : height;
      const unsigned sample = bpc > 8 ? 2 : 1;
      LumaPair pair{w, h, bpc, std::vector<std::uint8_t>(std::size_t{w} * h * sample), {}};
      pair.dist.resize(pair.ref.size());
      for (unsigned y = 0; y < h; ++y)
        for (unsigned x = 0; x < w; ++x) {
          double value = (std::sin((x + 3.0 * f) * 0.07) * 0.4 + std::cos(y * 0.05) * 0.3 + 0.5) * max_value;
          if (((x + 2 * f) / 8 + y / 8) % 2 && x > w / 2) value = (y % 16 < 8) ? max_value : 0;
          const int r = std::clamp(static_cast<int>(value + noise(random) * 0.3), 0, max_value);
          const int d = std::clamp(static_cast<int>(r + noise(random)), 0, max_value);
          const std::size_t i = std::size_t{y} * w + x;
          if (sample == 1) {
            pair.ref[i] = static_cast<std::uint8_t>(r);
            pair.dist[i] = static_cast<std::uint8_t>(d);
          } else {
            const auto r16 = static_cast<std::uint16_t>(r), d16 = static_cast<std::uint16_t>(d);
            std::memcpy(&pair.ref[i * 2], &r16, 2);
            std::memcpy(&pair.dist[i * 2], &d16, 2);
          }
        }
      if (p == 0) out.push_back(std::move(pair));
    }
  }
  return out;
}

TEST(adm_cuda_emulation, SumsEqualTheCpuOnTheParityClips) {
  const std::vector<PictureFormat> formats = {
      {33, 33, 8, ChromaFormat::k420},   {37, 41, 10, ChromaFormat::k422},
      {65, 34, 12, ChromaFormat::k444},  {100, 36, 16, ChromaFormat::k420},
      {129, 97, 8, ChromaFormat::k400},  {331, 177, 10, ChromaFormat::k420}};
  for (const auto& format : formats) {
    const auto clip = parity_clip(format.width, format.height, format.bpc, format.chroma, 4,
                                  format.width + format.bpc);
    for (std::size_t f = 0; f < clip.size(); ++f)
      EXPECT_TRUE(same_sums(cpu_sums(clip[f], {}), emulate(clip[f], {})))
          << describe(clip[f], "parity clip frame " + std::to_string(f));
  }
}

TEST(adm_cuda_emulation, SumsEqualTheCpuOnAwkwardSizesAndEveryBitDepth) {
  const std::vector<std::pair<unsigned, unsigned>> sizes = {
      {33, 33}, {34, 35}, {35, 34}, {37, 41}, {65, 34}, {100, 36}, {129, 97}, {66, 130}, {331, 177}};
  unsigned checked = 0;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes)
      for (const Content content : {Content::kNatural, Content::kNoise, Content::kExtremes,
                                    Content::kMoving1, Content::kMoving2, Content::kMoving3}) {
        const LumaPair pair = make_pair(w, h, bpc, content, w * 131 + h * 7 + bpc);
        const AdmOptions options;
        EXPECT_TRUE(same_sums(cpu_sums(pair, options), emulate(pair, options)))
            << describe(pair, "content " + std::to_string(static_cast<int>(content)));
        ++checked;
      }
  EXPECT_EQ(checked, 4u * 9u * 6u);
}

TEST(adm_cuda_emulation, SumsEqualTheCpuWithEveryOption) {
  for (const auto& set : option_sets())
    for (const unsigned bpc : {8u, 16u})
      for (const auto& [w, h] : {std::pair{47u, 39u}, {203u, 117u}})
        for (const Content content : {Content::kNatural, Content::kExtremes}) {
          const LumaPair pair = make_pair(w, h, bpc, content, w + h + bpc);
          const AdmOptions options = options_of(set.options);
          EXPECT_TRUE(same_sums(cpu_sums(pair, options), emulate(pair, options)))
              << describe(pair, set.label);
        }
}

TEST(adm_cuda_emulation, SumsEqualTheCpuOnFlatAndLargePictures) {
  for (const unsigned bpc : {8u, 10u}) {
    const LumaPair flat = make_pair(97, 61, bpc, Content::kFlat, 1);
    EXPECT_TRUE(same_sums(cpu_sums(flat, {}), emulate(flat, {}))) << describe(flat, "flat");
  }
  const LumaPair hd = make_pair(1920, 1080, 8, Content::kNatural, 5);
  EXPECT_TRUE(same_sums(cpu_sums(hd, {}), emulate(hd, {}))) << describe(hd, "natural");
  const LumaPair odd = make_pair(1281, 721, 12, Content::kNoise, 6);
  EXPECT_TRUE(same_sums(cpu_sums(odd, {}), emulate(odd, {}))) << describe(odd, "noise");
}

HARNESS_DEVICE_FIXTURE(adm);

FrameSums device_sums(const LumaPair& pair, const AdmOptions& options, cuda::Stream& stream) {
  cuda::DevicePicture ref, dist;
  ref.upload(pair.view(pair.ref), stream.get());
  dist.upload(pair.view(pair.dist), stream.get());
  cadm::AdmCudaStage pipeline(pair.width, pair.height, options);
  pipeline.enqueue(ref.view().planes[0], dist.view().planes[0], pair.bpc, stream.get());
  stream.synchronize();
  return pipeline.sums();
}

TEST_F(adm_cuda_device, SumsEqualTheCpu) {
  cuda::Stream stream;
  unsigned identical = 0, compared = 0;
  const std::vector<std::pair<unsigned, unsigned>> sizes = {
      {33, 33}, {34, 35}, {37, 41}, {65, 34}, {100, 36}, {129, 97}, {331, 177}, {1920, 1080}, {1281, 721}};
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes)
      for (const Content content : {Content::kNatural, Content::kNoise, Content::kExtremes, Content::kFlat}) {
        const LumaPair pair = make_pair(w, h, bpc, content, w * 131 + h * 7 + bpc);
        const auto ok = same_sums(cpu_sums(pair, {}), device_sums(pair, {}, stream));
        EXPECT_TRUE(ok) << describe(pair, "content " + std::to_string(static_cast<int>(content)));
        ++compared;
        identical += ok ? 1 : 0;
      }
  for (const auto& set : option_sets())
    for (const unsigned bpc : {8u, 12u, 16u})
      for (const Content content : {Content::kNatural, Content::kExtremes}) {
        const LumaPair pair = make_pair(211, 119, bpc, content, bpc + 3);
        const AdmOptions options = options_of(set.options);
        const auto ok = same_sums(cpu_sums(pair, options), device_sums(pair, options, stream));
        EXPECT_TRUE(ok) << describe(pair, set.label);
        ++compared;
        identical += ok ? 1 : 0;
      }
  std::printf("[cuda parity] adm sums: %u of %u frames identical (36 sums each)\n", identical, compared);
}

// Where the device and the emulation part, if they do: every intermediate
// buffer compared, the first differences printed.
TEST_F(adm_cuda_device, IntermediatesEqualTheEmulation) {
  cuda::Stream stream;
  const std::vector<PictureFormat> formats = {{33, 33, 8, ChromaFormat::k420},
                                              {37, 41, 10, ChromaFormat::k422},
                                              {331, 177, 10, ChromaFormat::k420}};
  for (const auto& format : formats) {
    const auto clip = parity_clip(format.width, format.height, format.bpc, format.chroma, 2,
                                  format.width + format.bpc);
    for (std::size_t f = 0; f < clip.size(); ++f) {
      const LumaPair& pair = clip[f];
      EmulationState emulated, device;
      const FrameSums emulated_sums = emulate(pair, {}, &emulated);
      cuda::DevicePicture ref, dist;
      ref.upload(pair.view(pair.ref), stream.get());
      dist.upload(pair.view(pair.dist), stream.get());
      cadm::AdmCudaStage pipeline(pair.width, pair.height, {});
      pipeline.enqueue(ref.view().planes[0], dist.view().planes[0], pair.bpc, stream.get());
      stream.synchronize();
      pipeline.debug_download(device.bands0, device.bands, device.rows);
      const auto geometry = adm::scale_geometry(pair.width, pair.height);
      const std::string label = describe(pair, "frame " + std::to_string(f));
      EXPECT_TRUE(same_sums(emulated_sums, pipeline.sums())) << label;
      const auto report = [&](const char* what, const auto& a, const auto& b, std::size_t band_size,
                              int band_w) {
        unsigned shown = 0;
        std::size_t count = 0;
        for (std::size_t k = 0; k < a.size(); ++k)
          if (a[k] != b[k]) {
            ++count;
            if (shown++ < 4) {
              const std::size_t band = k / band_size, at = k % band_size;
              std::printf("[adm diag] %s %s: band %zu (picture %zu, a/h/v/d %zu) y %zu x %zu: emulated %lld device %lld\n",
                          label.c_str(), what, band, band / 4, band % 4, at / band_w, at % band_w,
                          static_cast<long long>(a[k]), static_cast<long long>(b[k]));
            }
          }
        if (count) std::printf("[adm diag] %s %s: %zu of %zu values differ\n", label.c_str(), what, count, a.size());
        EXPECT_EQ(count, 0u) << label << " " << what;
      };
      report("scale-0 bands", emulated.bands0, device.bands0,
             static_cast<std::size_t>(geometry[0].width) * geometry[0].height, geometry[0].width);
      for (int s = 1; s < 4; ++s)
        report(("scale-" + std::to_string(s) + " bands").c_str(), emulated.bands[s], device.bands[s],
               static_cast<std::size_t>(geometry[s].width) * geometry[s].height, geometry[s].width);
      // rows: [scale][quantity][theta][row]; "band" = scale*9 + quantity*3 + theta, y = row
      report("rows", emulated.rows, device.rows, static_cast<std::size_t>(geometry[0].height), 1);
    }
  }
}

TEST_F(adm_cuda_device, ScoresEqualTheCpuWithEveryOption) {
  cuda::Stream stream;
  unsigned identical = 0, compared = 0;
  for (const auto& set : option_sets())
    for (const auto& [w, h, bpc] : {std::tuple{176u, 144u, 8u}, {641u, 359u, 10u}, {1920u, 1080u, 16u}}) {
      auto cpu = make_feature_extractor("adm", set.options);
      auto twin = make_feature_extractor("adm", set.options, Backend::kCuda, stream.get());
      const PictureFormat format{w, h, bpc, ChromaFormat::k400};
      cpu->init(format);
      twin->init(format);
      FeatureCollector cpu_scores, twin_scores;
      cuda::DevicePicture ref, dist;
      for (unsigned f = 0; f < 3; ++f) {
        const LumaPair pair = make_pair(w, h, bpc, f == 1 ? Content::kExtremes : Content::kNatural, f + w);
        cpu->extract(pair.view(pair.ref), pair.view(pair.dist), f, cpu_scores);
        ref.upload(pair.view(pair.ref), stream.get());
        dist.upload(pair.view(pair.dist), stream.get());
        twin->extract(ref.view(), dist.view(), f, twin_scores);
      }
      ASSERT_EQ(cpu_scores.names(), twin_scores.names()) << set.label;
      for (const auto& name : cpu_scores.names())
        for (unsigned f = 0; f < 3; ++f) {
          const auto a = cpu_scores.score(name, f), b = twin_scores.score(name, f);
          ASSERT_TRUE(a && b);
          ++compared;
          if (*a == *b)
            ++identical;
          else
            ADD_FAILURE() << set.label << " " << w << "x" << h << " " << name << " frame " << f
                          << ": cpu " << std::hexfloat << *a << " cuda " << *b << std::defaultfloat;
        }
    }
  std::printf("[cuda parity] adm scores with every option: %u of %u values identical\n", identical,
              compared);
}


// The stage contract (AdmCudaStage as a FeatureStage, frames submitted one
// ahead) against AdmCpuStage with the scalar table.
TEST_F(adm_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  const auto plane_of = [](const LumaPair& pair, const std::vector<std::uint8_t>& bytes) {
    test::TestPlane plane(pair.width, pair.height, pair.bpc, 5);
    const unsigned sample = pair.bpc > 8 ? 2 : 1;
    for (unsigned y = 0; y < pair.height; ++y)
      for (unsigned x = 0; x < pair.width; ++x) {
        const std::size_t i = (std::size_t{y} * pair.width + x) * sample;
        plane.set(x, y, sample == 1 ? bytes[i] : bytes[i] | (bytes[i + 1] << 8));
      }
    return plane;
  };
  for (const auto& [w, h] : {std::pair{33u, 33u}, {37u, 41u}, {331u, 177u}, {1920u, 1080u}})
    for (const unsigned bpc : {8u, 10u, 12u, 16u})
      for (const auto& set : option_sets()) {
        if (w > 331 && set.label != "defaults") continue;
        std::vector<HostFrame> frames;
        for (unsigned f = 0; f < 3; ++f) {
          const LumaPair pair = make_pair(w, h, bpc, f == 1 ? Content::kExtremes : Content::kNatural, w + f);
          frames.push_back({plane_of(pair, pair.ref), plane_of(pair, pair.dist)});
        }
        const AdmOptions options = options_of(set.options);
        adm::AdmCpuStage cpu(w, h, options, adm::adm_dsp_scalar());
        cadm::AdmCudaStage twin(w, h, options, stream.get());
        expect_device_stage_equals_cpu<FrameSums>(
            frames, cpu, twin, stream.get(), std::to_string(w) + "x" + std::to_string(h) + " " + std::to_string(bpc) + "-bit " + set.label);
      }
}

// --bench: the device stage per frame (kernels and the read-back of the sums,
// pictures already on the device), on the host clock.
const BenchRegistration adm_cuda_bench({{"adm", "cuda_device", [](unsigned w, unsigned h, unsigned bpc)
                                             -> std::function<void()> {
  if (!cuda_skip_reason().empty()) return nullptr;
  struct State {
    cuda::Stream stream;
    cuda::DevicePicture ref, dist;
    std::unique_ptr<cadm::AdmCudaStage> stage;
    unsigned frame = 0;
  };
  auto state = std::make_shared<State>();
  const LumaPair pair = make_pair(w, h, bpc, Content::kNatural, 11);
  state->ref.upload(pair.view(pair.ref), state->stream.get());
  state->dist.upload(pair.view(pair.dist), state->stream.get());
  state->stage = std::make_unique<cadm::AdmCudaStage>(w, h, AdmOptions{}, state->stream.get());
  return [state] { state->stage->compute(state->ref.view(), state->dist.view(), state->frame++); };
}}});

}  // namespace
