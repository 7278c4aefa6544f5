// The twins of PSNR ("psnr") against the scalar reference: the row routines
// of every SIMD table (metrics/psnr/psnr_dsp.h) and plane_sse() / the CPU
// stage with each table. (The CUDA twin: check_psnr_cuda.cpp.)
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
#include "psnr/psnr.h"
#include "psnr/psnr_dsp.h"
#include "psnr/psnr_extractor.h"
#include "sizes_and_frames.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

HARNESS_DSP_FIXTURE(PsnrTwin, psnr::PsnrDsp, psnr::psnr_dsp_scalar, psnr::psnr_dsp_isa, 0x5eed);

TEST_P(PsnrTwin, Rows) {
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (unsigned w : motion_widths())
      for (Fill fill : kFills) {
        const unsigned bytes = bpc > 8 ? 2 : 1;
        std::vector<std::uint8_t> r8(w + 64), d8(w + 64);
        std::vector<std::uint16_t> r16(w + 64), d16(w + 64);
        for (unsigned x = 0; x < w + 64; ++x) {
          const std::uint32_t a = motion_sample(rng_, fill, bpc, bytes);
          std::uint32_t b = motion_sample(rng_, fill, bpc, bytes);
          if (fill == Fill::kExtremes || fill == Fill::kMax) b = (rng_() & 1) ? 0 : b;
          r8[x] = static_cast<std::uint8_t>(a), d8[x] = static_cast<std::uint8_t>(b);
          r16[x] = static_cast<std::uint16_t>(a), d16[x] = static_cast<std::uint16_t>(b);
        }
        if (bytes == 1) {
          ASSERT_EQ(ref().sse_row_8(r8.data(), d8.data(), w),
                    twin().sse_row_8(r8.data(), d8.data(), w))
              << twin().isa << " sse_row_8 w " << w << " fill " << static_cast<int>(fill);
          ASSERT_EQ(ref().sse_row_8(d8.data(), r8.data(), w),
                    twin().sse_row_8(d8.data(), r8.data(), w))
              << twin().isa << " sse_row_8 swapped w " << w;
        } else {
          ASSERT_EQ(ref().sse_row_16(r16.data(), d16.data(), w),
                    twin().sse_row_16(r16.data(), d16.data(), w))
              << twin().isa << " sse_row_16 bpc " << bpc << " w " << w << " fill "
              << static_cast<int>(fill);
          ASSERT_EQ(ref().sse_row_16(d16.data(), r16.data(), w),
                    twin().sse_row_16(d16.data(), r16.data(), w))
              << twin().isa << " sse_row_16 swapped bpc " << bpc << " w " << w;
        }
      }
}

// Whole planes 3x3 .. 1921x33, and rows so wide that the 8-bit uint32 row sum
// wraps: 65794 errors of 255 (65794 * 65025 > 2^32).
TEST_P(PsnrTwin, Planes) {
  const std::vector<Size> sizes =
      sizes_with_full({{3, 3}, {5, 4}, {17, 9}, {33, 31}, {131, 67}, {1921, 33}, {65794, 3}},
                      {{1920, 1080}, {3840, 2160}});
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : kFills) {
        const unsigned bytes = bpc > 8 ? 2 : 1;
        test::TestPlane ref_pic(size.w, size.h, bpc, 7), dis_pic(size.w, size.h, bpc, 2);
        paint_pair(ref_pic, dis_pic, [&](unsigned, unsigned) {
          const std::uint32_t a = motion_sample(rng_, fill, bpc, bytes);
          const std::uint32_t b = fill == Fill::kMax ? 0 : motion_sample(rng_, fill, bpc, bytes);
          return std::pair{a, b};
        });
        const PlaneView r = ref_pic.plane(), d = dis_pic.plane();
        const std::uint64_t expected =
            run_guarded(ref_pic, dis_pic, 1, [&] { return psnr::plane_sse(r, d, bpc, ref()); });
        ASSERT_EQ(expected,
                  run_guarded(ref_pic, dis_pic, 2, [&] { return psnr::plane_sse(r, d, bpc, twin()); }))
            << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
            << static_cast<int>(fill);
        // The CPU stage of the contract (PsnrCpuStage) with each table.
        psnr::PsnrCpuStage scalar_stage(ref()), twin_stage(twin());
        const auto stage_sums = [&](psnr::PsnrCpuStage& stage, std::uint32_t pattern) {
          return run_guarded(ref_pic, dis_pic, pattern,
                             [&] { return stage.compute(ref_pic.view(), dis_pic.view(), 0); });
        };
        const psnr::PsnrSums stage_expected = stage_sums(scalar_stage, 3);
        ASSERT_EQ(stage_expected.sse[0], expected);
        ASSERT_TRUE(stage_sums(twin_stage, 4) == stage_expected)
            << twin().isa << " stage " << size.w << "x" << size.h << " bpc " << bpc;
        if (bpc == 8 && fill == Fill::kMax && size.w == 65794) {
          const std::uint64_t row = static_cast<std::uint32_t>(std::uint64_t{65794} * 65025);
          ASSERT_EQ(expected, 3 * row);  // wrapped
        }
      }
}

INSTANTIATE_TEST_SUITE_P(psnr, PsnrTwin, isa_values(), isa_param_name);

// --bench: the CPU stage (motion: motion_sad) of one luma plane with each table.
const BenchRegistration psnr_bench(cpu_bench_twins(
    "psnr", psnr::psnr_dsp_scalar, psnr::psnr_dsp_isa,
    [](const psnr::PsnrDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      auto ref = bench_plane(w, h, bpc, false), dist = bench_plane(w, h, bpc, true);
      auto stage = std::make_shared<psnr::PsnrCpuStage>(dsp);
      return [=] { stage->compute(ref->view(), dist->view(), 0); };
    }));

}  // namespace

HARNESS_FEATURE(psnr);
