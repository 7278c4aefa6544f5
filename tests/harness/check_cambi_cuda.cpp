// The CUDA twin of CAMBI ("cambi", cuda/cambi/) against the CPU stage with
// the scalar table.
//  - cambi_cuda_emulation: no device needed (runs in CI). It walks the
//    kernels' decomposition (cuda/cambi/cambi_cuda_tile.h) on the host with
//    their own __host__ __device__ functions: the working picture and mask
//    (== CambiPicture's), the c-values of tiles of shared codes (== the CPU's
//    compute_c_values), the scales, and the pooling's radix select and
//    fixed-point sum (== spatial_pooling(), or the fallback to it), so the
//    five scale scores of every pass == CambiCpuStage's. The pooling is also
//    checked on adversarial values (tiny and huge mixed, ties, subnormals).
//  - cambi_cuda_device: CambiCudaStage against CambiCpuStage on a device
//    (skipped without one), frame by frame and one frame ahead, with every
//    option of the issue; it prints how often the pooling fell back and the
//    device time per frame at 1920x1080 and 3840x2160.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cambi/cambi.h"
#include "cambi/cambi_cuda_stage.h"
#include "cambi/cambi_cuda_tile.h"
#include "cambi/cambi_dsp.h"
#include "cambi/cambi_extractor.h"
#include "common/cuda_util.h"
#include "device_stage.h"
#include "harness.h"

using namespace vmafexact;
using namespace vmafexact::harness;
namespace tile = vmafexact::cuda::cambi::tile;

namespace {

// Banding-prone pictures: gradients in few steps, small steps, noise, flat areas.
void paint(test::TestPlane& plane, std::mt19937_64& rng, unsigned bpc, int style) {
  const std::uint32_t max = (1u << bpc) - 1;
  const unsigned w = plane.width(), h = plane.height();
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      std::int64_t v;
      switch (style) {
        case 0: v = std::int64_t{(x * 3 + y * 2) / 23 + 40} << (bpc - 8); break;  // bands
        case 1: v = std::int64_t{((x / 9) + (y / 7)) % 3 + 60} << (bpc - 8); break;  // small steps
        case 2: v = static_cast<std::int64_t>(rng() % (max + 1)); break;                // noise
        default:  // slow gradient with flat blocks and specks
          v = (x / 64 + y / 48) % 3 == 0 ? std::int64_t{120} << (bpc - 8)
                                          : std::int64_t((x * 200) / std::max(1u, w) + 20) << (bpc - 8);
      }
      if (style != 2 && rng() % 37 == 0) v += static_cast<std::int64_t>(rng() % 3);
      plane.set(x, y, static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, max)));
    }
}

// --- host emulation of the kernels ---------------------------------------------

template <typename Sample>
std::vector<std::uint16_t> emulate_preprocess(const PlaneView& luma, unsigned bpc,
                                              const cambi::PassSetup& pass, bool anti_dither) {
  auto map = [](unsigned in, unsigned out) {
    if (in == out) {
      std::vector<unsigned> identity(out);
      for (unsigned i = 0; i < out; ++i) identity[i] = i;
      return identity;
    }
    return cambi::nearest_map(in, out);
  };
  const auto map_x = map(luma.width, pass.width), map_y = map(luma.height, pass.height);
  const tile::ScaledInput<Sample> in{luma.data, luma.stride, map_x.data(), map_y.data(), bpc};
  std::vector<std::uint16_t> out(std::size_t{pass.width} * pass.height);
  for (unsigned i = 0; i < pass.height; ++i)
    for (unsigned j = 0; j < pass.width; ++j)
      out[std::size_t{i} * pass.width + j] =
          tile::working_sample(in, anti_dither, pass.width, pass.height, i, j);
  return out;
}

std::vector<std::uint8_t> emulate_mask(const std::vector<std::uint16_t>& image, unsigned w, unsigned h) {
  std::vector<std::uint8_t> derivative(image.size()), mask(image.size());
  for (unsigned r = 0; r < h; ++r)
    for (unsigned c = 0; c < w; ++c) derivative[std::size_t{r} * w + c] = tile::derivative_at(image.data(), w, h, r, c);
  const unsigned index = cambi::mask_index(w, h);
  for (unsigned i = 0; i < h; ++i)
    for (unsigned c = 0; c < w; ++c) mask[std::size_t{i} * w + c] = tile::mask_at(derivative.data(), w, h, index, i, c);
  return mask;
}

// The c-value kernel: blocks over a shared tile of codes, a strip of rows per thread.
template <int ND>
std::vector<float> emulate_c_values_nd(const std::uint16_t* image, const std::uint8_t* mask, unsigned w,
                                       unsigned h, unsigned window, const tile::CValueTables& t) {
  const int pad = static_cast<int>(window >> 1), iw = static_cast<int>(w), ih = static_cast<int>(h);
  const int span_x = static_cast<int>(tile::tile_span(tile::kTileW, pad));
  const int span = span_x * static_cast<int>(tile::tile_span(tile::kTileH, pad));
  std::vector<float> out(std::size_t{w} * h, -1.0f);
  std::vector<std::uint16_t> codes(static_cast<std::size_t>(span));
  for (int by = 0; by * tile::kTileH < ih; ++by)
    for (int bx = 0; bx * tile::kTileW < iw; ++bx) {
      for (int at = 0; at < span; ++at)
        codes[at] = tile::tile_code(image, mask, iw, ih, pad, t.band_base, t.band_size, bx, by,
                                    at % span_x, at / span_x);
      for (int thread = 0; thread < tile::kTileThreads; ++thread) {
        const int tx = thread % tile::kTileW, sy0 = thread / tile::kTileW * tile::kStripRows;
        const int x = bx * tile::kTileW + tx, y0 = by * tile::kTileH + sy0;
        if (x >= iw || y0 >= ih) continue;
        const int rows = std::min(tile::kStripRows, ih - y0);
        tile::c_values_strip<ND>(codes.data(), pad, tx, sy0, rows, t,
                                 out.data() + static_cast<std::size_t>(y0) * w + x, w);
      }
      // The sliding window: one strip of the tile's whole height per column
      // (the same codes) gives the same c-values.
      for (int tx = 0; tx < tile::kTileW && bx * tile::kTileW + tx < iw; ++tx) {
        const int y0 = by * tile::kTileH, rows = std::min(tile::kTileH, ih - y0);
        std::vector<float> strip(static_cast<std::size_t>(rows));
        tile::c_values_strip<ND>(codes.data(), pad, tx, 0, rows, t, strip.data(), 1);
        for (int r = 0; r < rows; ++r)
          if (strip[r] != out[static_cast<std::size_t>(y0 + r) * w + bx * tile::kTileW + tx]) {
            ADD_FAILURE() << "sliding strip differs at row " << y0 + r << " column " << bx * tile::kTileW + tx;
            return out;
          }
      }
    }
  return out;
}

std::vector<float> emulate_c_values(const std::uint16_t* image, const std::uint8_t* mask, unsigned w,
                                    unsigned h, unsigned window, const tile::CValueTables& t) {
  switch (t.num_diffs) {
    case 1: return emulate_c_values_nd<1>(image, mask, w, h, window, t);
    case 2: return emulate_c_values_nd<2>(image, mask, w, h, window, t);
    case 4: return emulate_c_values_nd<4>(image, mask, w, h, window, t);
    case 8: return emulate_c_values_nd<8>(image, mask, w, h, window, t);
    case 16: return emulate_c_values_nd<16>(image, mask, w, h, window, t);
    default: return emulate_c_values_nd<32>(image, mask, w, h, window, t);
  }
}

tile::CValueTables tables_of(const cambi::ContrastTables& t) {
  return {t.first_diff.data(), t.weights.data(), cambi::kReciprocal.data(), t.num_diffs, t.band_base,
          t.band_size};
}

// The pooling kernels: the radix select, then the sum of the units above the threshold.
tile::PoolRecord emulate_pool_record(const std::vector<float>& values, unsigned k) {
  tile::PoolRecord record{0, k, ~0u, 0, 0, 0};
  std::vector<std::uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  for (int pass = 0; pass < tile::kPasses; ++pass) {
    std::array<std::uint32_t, tile::kDigits> counts{};
    const std::uint32_t mask = tile::prefix_mask(pass), prefix = record.threshold;
    for (const std::uint32_t b : bits) {
      if ((b & mask) == prefix) ++counts[(b >> tile::digit_shift(pass)) & (tile::kDigits - 1)];
      if (pass == 0 && b != 0) record.min_positive = std::min(record.min_positive, b);
    }
    tile::choose_digit(counts.data(), pass, record);
  }
  const int e = tile::unit_exponent(record);
  for (const std::uint32_t b : bits) {
    if (b <= record.threshold) continue;
    std::uint64_t units = 0;
    if (!tile::units_of(b, e, units)) {
      record.fail = 1;
      continue;
    }
    record.low += units & 0xFFFFFFFFu;
    record.high += units >> 32;
  }
  return record;
}

struct PoolTally {
  unsigned exact = 0, fallback = 0;
};

// The stage's pooling of one scale: the device's exact sum, or spatial_pooling().
double emulate_pooling(const std::vector<float>& values, double topk, PoolTally& tally) {
  const int n = static_cast<int>(values.size());
  const int k = std::clamp(static_cast<int>(topk * n), 1, n);
  const tile::PoolRecord record = emulate_pool_record(values, static_cast<unsigned>(k));
  if (const auto sum = tile::exact_topk_sum(record)) {
    ++tally.exact;
    return *sum / k;
  }
  ++tally.fallback;
  std::vector<float> copy(values.size() + 2 * cambi::kReadAhead, 0.0f);
  std::copy(values.begin(), values.end(), copy.begin() + cambi::kReadAhead);
  return cambi::spatial_pooling(copy.data() + cambi::kReadAhead, values.size(), topk,
                                cambi::cambi_dsp_scalar());
}

double cpu_pooling(const std::vector<float>& values, double topk) {
  std::vector<float> copy(values.size() + 2 * cambi::kReadAhead, 0.0f);
  std::copy(values.begin(), values.end(), copy.begin() + cambi::kReadAhead);
  return cambi::spatial_pooling(copy.data() + cambi::kReadAhead, values.size(), topk,
                                cambi::cambi_dsp_scalar());
}

// One pass of the stage on the host; checks the working picture, the mask and
// the first scale's c-values (when it is not decimated) against CambiPicture.
cambi::ScaleScores emulate_pass(const cambi::CambiSetup& setup, const PlaneView& luma,
                                const cambi::PassSetup& pass, PoolTally& tally,
                                const std::string& label) {
  const unsigned bpc = setup.format.bpc;
  const bool anti_dither = setup.enc_bitdepth < 10;
  const std::vector<std::uint16_t> image =
      bpc == 8 ? emulate_preprocess<std::uint8_t>(luma, bpc, pass, anti_dither)
               : emulate_preprocess<std::uint16_t>(luma, bpc, pass, anti_dither);
  const std::vector<std::uint8_t> mask = emulate_mask(image, pass.width, pass.height);
  const tile::CValueTables tables = tables_of(setup.contrast);
  {
    cambi::CambiPicture cpu(setup, cambi::cambi_dsp_scalar());
    cpu.preprocess(luma, pass);
    cpu.spatial_mask(pass.width, pass.height);
    const std::size_t n = image.size();
    // CambiPicture's rows are as wide as the widest pass.
    const unsigned stride = setup.full_ref ? std::max(setup.enc.width, setup.src.width) : setup.enc.width;
    for (unsigned i = 0; i < pass.height; ++i) {
      const std::size_t row = std::size_t{i} * pass.width, cpu_row = std::size_t{i} * stride;
      const bool same_image =
          std::equal(image.begin() + row, image.begin() + row + pass.width, cpu.image().begin() + cpu_row);
      const bool same_mask =
          std::equal(mask.begin() + row, mask.begin() + row + pass.width, cpu.mask().begin() + cpu_row);
      if (!same_image || !same_mask) {
        ADD_FAILURE() << label << (same_image ? " mask" : " working picture") << " row " << i;
        break;
      }
    }
    // The c-value decomposition on the unfiltered picture, against the CPU's.
    cpu.compute_c_values(pass.width, pass.height, pass.window);
    const std::vector<float> c = emulate_c_values(image.data(), mask.data(), pass.width, pass.height,
                                                  pass.window, tables);
    EXPECT_EQ(0, std::memcmp(c.data(), cpu.c_values(), n * sizeof(float))) << label << " c-values";
  }
  cambi::ScaleScores scores{};
  std::vector<std::uint16_t> src = image, filtered;
  std::vector<std::uint8_t> src_mask = mask, scale_mask;
  unsigned src_w = pass.width, w = pass.width, h = pass.height;
  for (int s = 0; s < cambi::kNumScales; ++s) {
    const bool decimate = s > 0 || setup.high_res_speedup;
    if (decimate) w = (w + 1) >> 1, h = (h + 1) >> 1;
    const tile::ScaleSource source{src.data(), src_w, decimate ? 2u : 1u};
    filtered.assign(std::size_t{w} * h, 0);
    scale_mask = decimate ? std::vector<std::uint8_t>(std::size_t{w} * h) : src_mask;
    for (unsigned i = 0; i < h; ++i)
      for (unsigned j = 0; j < w; ++j) {
        filtered[std::size_t{i} * w + j] = tile::mode_filtered_at(source, w, h, i, j);
        if (decimate) scale_mask[std::size_t{i} * w + j] = src_mask[std::size_t{2 * i} * src_w + 2 * j];
      }
    const std::vector<float> c =
        emulate_c_values(filtered.data(), scale_mask.data(), w, h, pass.window, tables);
    scores[s] = emulate_pooling(c, setup.topk, tally);
    src = filtered, src_mask = scale_mask, src_w = w;
  }
  return scores;
}

struct Case {
  unsigned w, h;
  cambi::CambiParams params;
  std::string name;
};

cambi::CambiParams v1_params(int speedup = 1080) {
  cambi::CambiParams p;
  p.high_res_speedup = speedup;
  p.vis_lum_threshold = 0.06;
  p.max_val = 17;
  return p;
}

std::vector<Case> option_cases(bool large) {
  cambi::CambiParams full_ref;
  full_ref.full_ref = true;
  cambi::CambiParams scaled;
  scaled.enc_width = 240, scaled.enc_height = 180;
  scaled.full_ref = true, scaled.src_width = 320, scaled.src_height = 200;
  cambi::CambiParams wide;
  wide.window_size = 127, wide.max_log_contrast = 4, wide.topk = 0.9;
  cambi::CambiParams dithered;
  dithered.enc_bitdepth = 8, dithered.eotf = "pq";
  cambi::CambiParams small_topk;
  small_topk.cambi_topk = 0.01, small_topk.window_size = 33, small_topk.max_log_contrast = 3;
  cambi::CambiParams contrast0;
  contrast0.max_log_contrast = 0, contrast0.tvi_threshold = 0.1;
  cambi::CambiParams contrast5;
  contrast5.max_log_contrast = 5, contrast5.window_size = 15;
  std::vector<Case> cases = {
      {217, 241, {}, "default"},        {333, 219, v1_params(), "v1"},
      {217, 300, full_ref, "full_ref"}, {300, 217, scaled, "scaled full_ref"},
      {333, 250, wide, "window 127"},   {401, 216, dithered, "enc_bitdepth 8 pq"},
      {216, 1, {}, "one row"},          {257, 240, small_topk, "topk 0.01"},
      {241, 217, contrast0, "max_log_contrast 0"}, {219, 333, contrast5, "max_log_contrast 5"}};
  if (large) {
    cambi::CambiParams v1_full = v1_params();
    v1_full.full_ref = true;
    cases.insert(cases.end(), {{1920, 1080, v1_params(), "v1"},
                               {1920, 1080, {}, "default"},
                               {2560, 1440, v1_params(1440), "speedup 1440"},
                               {3840, 2160, v1_params(2160), "speedup 2160"},
                               {3840, 2160, v1_params(), "v1"},
                               {1281, 721, v1_full, "v1 full_ref"}});
  }
  return cases;
}

}  // namespace

TEST(cambi_cuda_emulation, PipelineEqualsTheCpuStage) {
  std::mt19937_64 rng(seed() ^ 0xcab1cu);
  PoolTally tally;
  for (const Case& c : option_cases(full()))
    for (const unsigned bpc : {8u, 10u, 12u, 16u})
      for (int style = 0; style < 4; ++style) {
        if (c.w * c.h > 400 * 400 && style != 0 && bpc != 10) continue;  // keep CI short
        const PictureFormat format{c.w, c.h, bpc, ChromaFormat::k400};
        const cambi::CambiSetup setup = cambi::resolve_setup(c.params, format);
        test::TestPlane ref(c.w, c.h, bpc, 5), dist(c.w, c.h, bpc, 2);
        paint(ref, rng, bpc, style);
        paint(dist, rng, bpc, (style + 1) % 4);
        cambi::CambiCpuStage cpu(setup, cambi::cambi_dsp_scalar());
        const cambi::CambiSums expected = cpu.compute(ref.view(), dist.view(), 0);
        const std::string label = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + c.name +
                                  " " + std::to_string(bpc) + "-bit style " + std::to_string(style);
        const cambi::ScaleScores dist_scores =
            emulate_pass(setup, dist.view().planes[0], setup.enc, tally, label);
        EXPECT_EQ(0, std::memcmp(dist_scores.data(), expected.dist.data(), sizeof dist_scores)) << label;
        if (setup.full_ref) {
          const cambi::ScaleScores src_scores =
              emulate_pass(setup, ref.view().planes[0], setup.src, tally, label + " source");
          EXPECT_EQ(0, std::memcmp(src_scores.data(), expected.src.data(), sizeof src_scores)) << label;
        }
      }
  std::printf("[cambi emulation] scales pooled: %u exactly in fixed point, %u by the fallback\n",
              tally.exact, tally.fallback);
}

// The pooling's claim: whenever the fixed-point sum is taken, it is the CPU's
// double sum (in quick select's order) exactly; otherwise it falls back.
TEST(cambi_cuda_emulation, PoolingOnAdversarialValues) {
  std::mt19937_64 rng(seed() ^ 0x9001u);
  PoolTally tally;
  unsigned cases = 0;
  auto check = [&](const std::vector<float>& values, double topk, const std::string& what) {
    ++cases;
    const double expected = cpu_pooling(values, topk);
    const double pooled = emulate_pooling(values, topk, tally);
    EXPECT_EQ(pooled, expected) << what << " topk " << topk << std::hexfloat << " cpu " << expected
                                << " emulated " << pooled;
    // The selected set: the threshold is the k-th largest, `copies` of it.
    std::vector<float> sorted = values;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    const int n = static_cast<int>(values.size());
    const int k = std::clamp(static_cast<int>(topk * n), 1, n);
    const tile::PoolRecord record = emulate_pool_record(values, static_cast<unsigned>(k));
    float threshold;
    std::memcpy(&threshold, &record.threshold, sizeof threshold);
    EXPECT_EQ(threshold, sorted[k - 1]) << what;
    const auto above = std::count_if(values.begin(), values.end(), [&](float v) { return v > threshold; });
    EXPECT_EQ(static_cast<long>(record.copies), k - above) << what;
  };
  const double topks[] = {0.6, 1.0, 0.0001, 0.01, 0.5, 0.999};
  for (const unsigned n : {1u, 2u, 3u, 7u, 100u, 1000u, 20000u})
    for (const double topk : topks) {
      std::vector<float> v(n);
      // c-value-like: products of small ints times reciprocals.
      for (auto& x : v)
        x = rng() % 3 == 0 ? 0.0f
                           : static_cast<float>(static_cast<int>(rng() % 9 + 1) * static_cast<int>(rng() % 500) *
                                                static_cast<int>(rng() % 500)) *
                                 cambi::kReciprocal[rng() % 999 + 2];
      check(v, topk, "c-value-like n " + std::to_string(n));
      // Tiny and huge mixed: sums that round differently by order.
      for (auto& x : v) x = rng() % 2 ? std::ldexp(1.0f + (rng() % 8388608) / 8388608.0f, -40) : std::ldexp(1.0f + (rng() % 1000) / 1000.0f, 20);
      check(v, topk, "tiny and huge n " + std::to_string(n));
      // Values of one binade and huge totals near 2^53 units.
      for (auto& x : v) x = std::ldexp(static_cast<float>(rng() % 16777216), 60);
      check(v, topk, "large n " + std::to_string(n));
      // Ties at the threshold, zeros, subnormals.
      for (auto& x : v) x = rng() % 4 == 0 ? 0.0f : (rng() % 2 ? 3.0f : std::ldexp(1.0f, -140));
      check(v, topk, "ties and subnormals n " + std::to_string(n));
      for (auto& x : v) x = 0.0f;
      check(v, topk, "zeros n " + std::to_string(n));
      for (auto& x : v) x = 0.1f;
      check(v, topk, "equal n " + std::to_string(n));
      // Grid values whose total crosses 2^53 units only with many of them.
      for (auto& x : v) x = std::ldexp(static_cast<float>(rng() % 16777216 | 1), -24) + 1.0f;
      check(v, topk, "fine grid n " + std::to_string(n));
    }
  // Sums just below and just above the bound: 2^29 units each (shift 29 / 30).
  {
    std::vector<float> v = {std::ldexp(1.0f, -23), std::ldexp(1.0f, 29)};
    check(v, 1.0, "shift 29");
    v = {std::ldexp(1.0f, -23), std::ldexp(1.0f, 30)};
    check(v, 1.0, "shift 30");
    v = {std::ldexp(1.0f, -23), std::ldexp(16777215.0f, 6), std::ldexp(16777215.0f, 6)};
    check(v, 1.0, "near 2^53 units");
  }
  EXPECT_GT(tally.exact, 0u);
  EXPECT_GT(tally.fallback, 0u);
  std::printf("[cambi emulation] adversarial pooling: %u cases, %u exact, %u fallback\n", cases,
              tally.exact, tally.fallback);
}

// --- on a device ----------------------------------------------------------------

namespace {

HARNESS_DEVICE_FIXTURE(cambi);

}  // namespace

TEST_F(cambi_cuda_device, StageEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0xdecau);
  const auto before = cuda::cambi::CambiCudaStage::pooling_counts();
  unsigned compared = 0;
  for (const Case& c : option_cases(true))
    for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
      if (c.w * c.h >= 1280 * 720 && bpc != 10) continue;  // the CPU's time
      const PictureFormat format{c.w, c.h, bpc, ChromaFormat::k400};
      const cambi::CambiSetup setup = cambi::resolve_setup(c.params, format);
      std::vector<HostFrame> frames;
      const int count = c.w * c.h >= 1280 * 720 ? 2 : 4;
      for (int f = 0; f < count; ++f) {
        HostFrame frame{test::TestPlane(c.w, c.h, bpc, 5), test::TestPlane(c.w, c.h, bpc, 2)};
        paint(frame.ref, rng, bpc, f % 4);
        paint(frame.dist, rng, bpc, (f + 1) % 4);
        frames.push_back(std::move(frame));
      }
      cambi::CambiCpuStage cpu(setup);
      cuda::cambi::CambiCudaStage twin(setup, stream.get());
      expect_device_stage_equals_cpu<cambi::CambiSums>(
          frames, cpu, twin, stream.get(),
          std::to_string(c.w) + "x" + std::to_string(c.h) + " " + c.name + " " + std::to_string(bpc) + "-bit");
      compared += static_cast<unsigned>(frames.size());
    }
  const auto after = cuda::cambi::CambiCudaStage::pooling_counts();
  std::printf("[cambi cuda] %u frames compared; scales pooled on the device: %llu, by the fallback: %llu\n",
              compared, after.exact - before.exact, after.fallback - before.fallback);
}

// Device time per frame of the v1 options (frames resident on the device).
TEST_F(cambi_cuda_device, TimePerFrame) {
  cuda::Stream stream;
  std::mt19937_64 rng(7);
  for (const auto& [w, h] : {std::pair{1920u, 1080u}, std::pair{3840u, 2160u}})
    for (const int speedup : {1080, 0}) {
      cambi::CambiParams params = v1_params(speedup);
      const PictureFormat format{w, h, 10, ChromaFormat::k400};
      const cambi::CambiSetup setup = cambi::resolve_setup(params, format);
      std::vector<test::TestPlane> planes;
      std::vector<cuda::DevicePicture> device(2);
      for (int f = 0; f < 2; ++f) {
        planes.emplace_back(w, h, 10, 2);
        paint(planes.back(), rng, 10, f == 0 ? 0 : 3);
        device[f].upload(planes.back().view(), stream.get());
      }
      stream.synchronize();
      cuda::cambi::CambiCudaStage twin(setup, stream.get());
      const int warm = 3, timed = 30;
      for (int f = 0; f < warm; ++f) twin.compute(device[f % 2].view(), device[f % 2].view(), f);
      const auto before = cuda::cambi::CambiCudaStage::pooling_counts();
      const auto start = std::chrono::steady_clock::now();
      // One frame ahead, as the Scorer runs it.
      twin.submit(device[warm % 2].view(), device[warm % 2].view(), warm);
      for (int f = warm; f < warm + timed; ++f) {
        if (f + 1 < warm + timed) twin.submit(device[(f + 1) % 2].view(), device[(f + 1) % 2].view(), f + 1);
        twin.compute(device[f % 2].view(), device[f % 2].view(), f);
      }
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / timed;
      const auto after = cuda::cambi::CambiCudaStage::pooling_counts();
      std::printf("[cambi cuda] %ux%u 10-bit, v1 options, high_res_speedup %d (window %u): %.3f ms/frame "
                  "(%.0f fps); fallbacks %llu of %llu scales\n",
                  w, h, speedup, setup.enc.window, ms, 1000.0 / ms, after.fallback - before.fallback,
                  (after.fallback - before.fallback) + (after.exact - before.exact));
    }
}

namespace {

// --bench: the device stage per frame (VMAF v1's options), pictures on the device.
const BenchRegistration cambi_cuda_bench({{"cambi", "cuda_device", [](unsigned w, unsigned h,
                                                                        unsigned bpc)
                                               -> std::function<void()> {
  if (!cuda_skip_reason().empty()) return nullptr;
  struct State {
    cuda::Stream stream;
    cuda::DevicePicture frame;
    std::unique_ptr<test::TestPlane> plane;
    std::unique_ptr<cuda::cambi::CambiCudaStage> stage;
    unsigned index = 0;
  };
  auto state = std::make_shared<State>();
  std::mt19937_64 rng(3);
  state->plane = std::make_unique<test::TestPlane>(w, h, bpc, 2);
  paint(*state->plane, rng, bpc, 0);
  state->frame.upload(state->plane->view(), state->stream.get());
  const cambi::CambiSetup setup =
      cambi::resolve_setup(v1_params(), PictureFormat{w, h, bpc, ChromaFormat::k400});
  state->stage = std::make_unique<cuda::cambi::CambiCudaStage>(setup, state->stream.get());
  return [state] {
    const auto view = state->frame.view();
    state->stage->compute(view, view, state->index++);
  };
}}});

}  // namespace
