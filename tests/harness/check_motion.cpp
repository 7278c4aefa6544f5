// The twins of integer motion ("motion") against the scalar reference: the
// row routines of every SIMD table (metrics/motion/motion_dsp.h) and
// motion_sad() / the CPU stage with each table. (The CUDA twin:
// check_motion_cuda.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/picture.h"
#include "dsp_inputs.h"
#include "harness.h"
#include "motion/motion.h"
#include "motion/motion_dsp.h"
#include "motion/motion_extractor.h"
#include "motion/motion_pixel.h"
#include "sizes_and_frames.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

HARNESS_DSP_FIXTURE(MotionTwin, motion::MotionDsp, motion::motion_dsp_scalar, motion::motion_dsp_isa, 0x5eed);

template <typename Sample>
void check_motion_vertical(const motion::MotionDsp& ref, const motion::MotionDsp& twin,
                           std::mt19937_64& rng, unsigned bpc) {
  const auto vertical_of = [](const motion::MotionDsp& dsp) {
    if constexpr (sizeof(Sample) == 1)
      return dsp.vertical_8;
    else
      return dsp.vertical_16;
  };
  for (unsigned w : motion_widths())
    for (Fill fill : kFills)
      for (int variant = 0; variant < 3; ++variant) {
        std::vector<std::vector<Sample>> prev(5, std::vector<Sample>(w + 32)),
            cur(5, std::vector<Sample>(w + 32));
        for (int k = 0; k < 5; ++k)
          for (unsigned x = 0; x < w + 32; ++x) {
            std::uint32_t p = motion_sample(rng, fill, bpc, sizeof(Sample));
            std::uint32_t c = motion_sample(rng, fill, bpc, sizeof(Sample));
            if (variant == 1) c = fill == Fill::kZero ? c : 0;                   // prev >= cur
            if (variant == 2) std::swap(p, c), p = fill == Fill::kZero ? p : 0;  // prev <= cur
            prev[k][x] = static_cast<Sample>(p);
            cur[k][x] = static_cast<Sample>(c);
          }
        const Sample* prev_rows[5];
        const Sample* cur_rows[5];
        for (int k = 0; k < 5; ++k) prev_rows[k] = prev[k].data(), cur_rows[k] = cur[k].data();
        // The split rows (motion_dsp.h), with guard values past w.
        std::vector<std::int16_t> hi_ref(w + 8, 0x5a5a), lo_ref(w + 8, 0x5a5a);
        std::vector<std::int16_t> hi_twin(w + 8, 0x5a5a), lo_twin(w + 8, 0x5a5a);
        const std::int32_t any_ref =
            vertical_of(ref)(prev_rows, cur_rows, bpc, w, hi_ref.data(), lo_ref.data());
        const std::int32_t any_twin =
            vertical_of(twin)(prev_rows, cur_rows, bpc, w, hi_twin.data(), lo_twin.data());
        ASSERT_EQ(any_ref, any_twin)
            << twin.isa << " vertical bpc " << bpc << " w " << w << " fill "
            << static_cast<int>(fill) << " variant " << variant;
        ASSERT_TRUE(hi_ref == hi_twin && lo_ref == lo_twin)
            << twin.isa << " vertical bpc " << bpc << " w " << w << " fill "
            << static_cast<int>(fill) << " variant " << variant;
      }
}

TEST_P(MotionTwin, Vertical) {
  check_motion_vertical<std::uint8_t>(ref(), twin(), rng_, 8);
  for (unsigned bpc : {10u, 12u, 16u})
    check_motion_vertical<std::uint16_t>(ref(), twin(), rng_, bpc);
}

TEST_P(MotionTwin, Horizontal) {
  for (unsigned bpc : {8u, 10u, 12u, 16u, 0u}) {
    // The largest magnitude the vertical pass gives for these samples (16-bit
    // containers may hold any 16-bit value whatever bpc says); bpc 0: the
    // largest the split rows hold (motion_dsp.h: |v| < 2^23).
    const std::int64_t full = bpc == 8 ? 255 : 65535;
    const std::int32_t limit =
        bpc == 0 ? (1 << 23) - 1 : motion::pixel::vertical_round(full * 65536, bpc);
    for (unsigned w : motion_widths()) {
      if (w < motion::kMinSide) continue;
      for (int fill = 0; fill < 5; ++fill) {
        std::vector<std::int16_t> hi(w + 32), lo(w + 32);
        for (unsigned x = 0; x < w + 32; ++x) {
          std::int32_t v = 0;
          const auto r = static_cast<std::int32_t>(rng_() % (2 * std::uint64_t(limit) + 1)) - limit;
          switch (fill) {
            case 0:
              v = r;
              break;
            case 1:
              v = limit;
              break;
            case 2:
              v = -limit;
              break;
            case 3:
              v = (rng_() & 1) ? limit : -limit;
              break;
            default:
              v = static_cast<std::int32_t>(r % 300);
              break;  // small values: rounding
          }
          hi[x] = motion::split_hi(v);
          lo[x] = motion::split_lo(v);
        }
        ASSERT_EQ(ref().horizontal(hi.data(), lo.data(), w),
                  twin().horizontal(hi.data(), lo.data(), w))
            << twin().isa << " horizontal bpc " << bpc << " w " << w << " fill " << fill;
      }
    }
  }
}

TEST_P(MotionTwin, SadEndToEnd) {
  const std::vector<Size> sizes =
      sizes_with_full({{3, 3},   {4, 3},    {3, 5},   {5, 5},    {7, 4},     {8, 8},    {9, 13},
                       {15, 8},  {16, 16},  {17, 17}, {19, 6},   {33, 31},   {64, 40},  {100, 8},
                       {8, 100}, {131, 67}, {257, 9}, {1283, 7}, {1920, 12}, {1921, 33}},
                      {{1920, 1080}, {1281, 721}});
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : kFills) {
        const unsigned bytes = bpc > 8 ? 2 : 1;
        test::TestPlane prev_pic(size.w, size.h, bpc, 5), cur_pic(size.w, size.h, bpc, 2);
        paint_pair(prev_pic, cur_pic, [&](unsigned, unsigned) {
          const std::uint32_t p = motion_sample(rng_, fill, bpc, bytes);
          std::uint32_t c = p;
          if (rng_() % 3 != 0) c = motion_sample(rng_, fill, bpc, bytes);
          return std::pair{p, c};
        });
        const PlaneView prev = prev_pic.plane(), cur = cur_pic.plane();
        std::vector<std::int16_t> scratch;
        const auto sad = [&](const PlaneView& a, const PlaneView& b, const motion::MotionDsp& dsp,
                             std::uint32_t pattern) {
          return run_guarded(prev_pic, cur_pic, pattern,
                             [&] { return motion::motion_sad(a, b, bpc, scratch, dsp); });
        };
        const std::uint64_t expected = sad(prev, cur, ref(), 1);
        ASSERT_EQ(expected, sad(prev, cur, twin(), 2))
            << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
            << static_cast<int>(fill);
        ASSERT_EQ(sad(cur, prev, ref(), 3), sad(cur, prev, twin(), 4))
            << twin().isa << " swapped " << size.w << "x" << size.h << " bpc " << bpc;
      }
}

// The CPU stage of the contract (MotionCpuStage, which keeps the last `depth`
// reference planes) with the scalar table and the twin's, over a short clip.
TEST_P(MotionTwin, StageOverFrames) {
  const std::vector<Size> sizes = sizes_with_full(
      {{3, 3}, {5, 4}, {17, 9}, {33, 31}, {131, 67}, {1921, 19}}, {{1920, 1080}, {3840, 2160}});
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (unsigned depth : {2u, 3u}) {
        const PictureFormat format{size.w, size.h, bpc, ChromaFormat::k400};
        motion::MotionCpuStage scalar_stage(format, depth, ref());
        motion::MotionCpuStage twin_stage(format, depth, twin());
        const unsigned bytes = bpc > 8 ? 2 : 1;
        for (unsigned frame = 0; frame < 5; ++frame) {
          const Fill fill = kFills[(frame + depth) % 5];
          test::TestPlane ref_pic(size.w, size.h, bpc, 4), dis_pic(size.w, size.h, bpc, 1);
          paint_pair(ref_pic, dis_pic, [&](unsigned, unsigned) {
            const std::uint32_t r = motion_sample(rng_, fill, bpc, bytes);
            return std::pair{r, motion_sample(rng_, fill, bpc, bytes)};
          });
          const auto expected = run_guarded(ref_pic, dis_pic, 1 + frame, [&] {
            return scalar_stage.compute(ref_pic.view(), dis_pic.view(), frame);
          });
          const auto sums = run_guarded(ref_pic, dis_pic, 0x7700 + frame, [&] {
            return twin_stage.compute(ref_pic.view(), dis_pic.view(), frame);
          });
          ASSERT_EQ(expected, sums) << twin().isa << " " << size.w << "x" << size.h << " bpc "
                                    << bpc << " depth " << depth << " frame " << frame;
        }
      }
}

// Rows so wide that their uint32 sums wrap: 255 against 0 everywhere blurs to
// 65280 per sample, and 65794 * 65280 > 2^32.
TEST_P(MotionTwin, SadWideRowsWrap) {
  const unsigned w = 65794, h = 3;
  std::vector<std::uint8_t> prev_data(std::size_t{w} * h, 255), cur_data(std::size_t{w} * h, 0);
  const PlaneView prev{prev_data.data(), w, w, h};
  const PlaneView cur{cur_data.data(), w, w, h};
  std::vector<std::int16_t> scratch;
  const std::uint64_t row = static_cast<std::uint32_t>(std::uint64_t{w} * 65280);
  EXPECT_EQ(motion::motion_sad(prev, cur, 8, scratch, ref()), 3 * row);
  EXPECT_EQ(motion::motion_sad(prev, cur, 8, scratch, twin()), 3 * row) << twin().isa;
  EXPECT_EQ(motion::motion_sad(cur, prev, 8, scratch, twin()), 3 * row) << twin().isa;
  // Random content at the same width, and 16-bit extremes.
  for (auto& v : prev_data) v = static_cast<std::uint8_t>(rng_() % 4 == 0 ? 0 : 255);
  for (auto& v : cur_data) v = static_cast<std::uint8_t>(rng_() % 4 == 0 ? 255 : 0);
  EXPECT_EQ(motion::motion_sad(prev, cur, 8, scratch, ref()),
            motion::motion_sad(prev, cur, 8, scratch, twin()))
      << twin().isa;
  std::vector<std::uint16_t> prev16(std::size_t{w} * h, 65535), cur16(std::size_t{w} * h, 0);
  const PlaneView p16{reinterpret_cast<std::uint8_t*>(prev16.data()), 2 * std::ptrdiff_t{w}, w, h};
  const PlaneView c16{reinterpret_cast<std::uint8_t*>(cur16.data()), 2 * std::ptrdiff_t{w}, w, h};
  for (unsigned bpc : {10u, 12u, 16u}) {
    EXPECT_EQ(motion::motion_sad(p16, c16, bpc, scratch, ref()),
              motion::motion_sad(p16, c16, bpc, scratch, twin()))
        << twin().isa << " bpc " << bpc;
    EXPECT_EQ(motion::motion_sad(c16, p16, bpc, scratch, ref()),
              motion::motion_sad(c16, p16, bpc, scratch, twin()))
        << twin().isa << " bpc " << bpc;
  }
}

INSTANTIATE_TEST_SUITE_P(motion, MotionTwin, isa_values(), isa_param_name);

// --bench: the CPU stage (motion: motion_sad) of one luma plane with each table.
const BenchRegistration motion_bench(cpu_bench_twins(
    "motion", motion::motion_dsp_scalar, motion::motion_dsp_isa,
    [](const motion::MotionDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      auto a = bench_plane(w, h, bpc, false), b = bench_plane(w, h, bpc, true);
      auto scratch = std::make_shared<std::vector<std::int16_t>>();
      const motion::MotionDsp* table = &dsp;
      return [=] { motion::motion_sad(a->plane(), b->plane(), bpc, *scratch, *table); };
    }));

}  // namespace

HARNESS_FEATURE(motion);
