// The twins of SSIM and MS-SSIM ("float_ssim", "float_ms_ssim") against the
// scalar reference: every routine of every SIMD table (metrics/ssim/ssim_dsp.h)
// on random and edge inputs, and the CPU stages with each table over whole
// pictures (both extractors share the table, so both are checked here).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/picture.h"
#include "dsp_inputs.h"
#include "harness.h"
#include "ssim/ssim.h"
#include "ssim/ssim_dsp.h"
#include "ssim/ssim_extractor.h"

using namespace vmafexact;
using namespace vmafexact::harness;

HARNESS_FEATURE(float_ssim);
HARNESS_FEATURE(float_ms_ssim);

namespace {

HARNESS_DSP_FIXTURE(SsimTwin, ssim::SsimDsp, ssim::ssim_dsp_scalar, ssim::ssim_dsp_isa, 0x55114);
class MsSsimTwin : public SsimTwin {};  // float_ms_ssim's checks of the shared table

// Floats as the maps hold them: sample values, their squares, and the odd
// special value (signed zeros, subnormals, infinities, NaN) where `specials`.
std::vector<float> floats(std::mt19937_64& rng, std::size_t n, float scale, bool specials) {
  std::vector<float> v(n);
  std::uniform_real_distribution<float> uniform(0.0f, scale);
  const float special_values[] = {0.0f,
                                  -0.0f,
                                  std::numeric_limits<float>::denorm_min(),
                                  -std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(),
                                  scale};
  for (auto& x : v) {
    x = uniform(rng);
    if (rng() % 4 == 0) x = std::round(x);  // integer samples, as 8-bit input gives
    if (specials && rng() % 16 == 0) x = special_values[rng() % 8];
  }
  return v;
}

TEST_P(SsimTwin, ConvertRows) { expect_same_convert_rows(ref(), twin(), rng_, kWidths); }

TEST_P(SsimTwin, GaussianRowsAndColumns) {
  for (unsigned w : kWidths)
    for (bool specials : {false, true})
      for (float scale : {255.0f, 65025.0f, 1e-30f}) {
        const auto src = floats(rng_, w + ssim::kGaussianTaps + 64, scale, specials);
        std::vector<float> a(w + kGuard, 7.0f), b(w + kGuard, 7.0f);
        ref().gaussian_row(src.data(), w, a.data());
        twin().gaussian_row(src.data(), w, b.data());
        ASSERT_TRUE(same_values(a, b)) << twin().isa << " gaussian_row w " << w << " scale " << scale;
        std::vector<std::vector<float>> rows;
        std::vector<const float*> pointers;
        for (int t = 0; t < ssim::kGaussianTaps; ++t) {
          rows.push_back(floats(rng_, w + 64, scale, specials));
          pointers.push_back(rows.back().data());
        }
        std::fill(a.begin(), a.end(), 7.0f);
        std::fill(b.begin(), b.end(), 7.0f);
        ref().gaussian_column(pointers.data(), w, a.data());
        twin().gaussian_column(pointers.data(), w, b.data());
        ASSERT_TRUE(same_values(a, b)) << twin().isa << " gaussian_column w " << w;
      }
}

TEST_P(SsimTwin, ProductsAndTerms) {
  for (unsigned w : kWidths)
    for (bool specials : {false, true})
      for (int kind = 0; kind < 3; ++kind) {
        // kind 0: independent maps (variances often negative before the
        // clamp); 1: consistent maps of a picture and a noisy copy; 2: flat,
        // identical pictures (zero variances, covariance at 0 or just below).
        auto mu_r = floats(rng_, w + 64, 255.0f, specials), mu_d = mu_r;
        std::vector<float> rr(w + 64), dd(w + 64), rd(w + 64);
        for (unsigned x = 0; x < w + 64; ++x) {
          if (kind == 0) {
            mu_d[x] = floats(rng_, 1, 255.0f, specials)[0];
            rr[x] = floats(rng_, 1, 65025.0f, specials)[0];
            dd[x] = floats(rng_, 1, 65025.0f, specials)[0];
            rd[x] = floats(rng_, 1, 65025.0f, specials)[0];
          } else {
            if (kind == 1) mu_d[x] = mu_r[x] + static_cast<float>(static_cast<int>(rng_() % 9) - 4);
            rr[x] = mu_r[x] * mu_r[x] + (kind == 1 ? static_cast<float>(rng_() % 50) : 0.0f);
            dd[x] = mu_d[x] * mu_d[x] + (kind == 1 ? static_cast<float>(rng_() % 50) : 0.0f);
            rd[x] = mu_r[x] * mu_d[x] - (kind == 2 ? static_cast<float>(rng_() % 2) * 1e-3f : 0.0f);
          }
        }
        ssim::TermSums a{0.25, 1.0, -2.0, 3.0}, b = a;  // sums carry on from earlier rows
        ref().terms_row(mu_r.data(), mu_d.data(), rr.data(), dd.data(), rd.data(), w, &a);
        twin().terms_row(mu_r.data(), mu_d.data(), rr.data(), dd.data(), rd.data(), w, &b);
        ASSERT_TRUE(same(a.ssim, b.ssim) && same(a.l, b.l) && same(a.c, b.c) && same(a.s, b.s))
            << twin().isa << " terms_row w " << w << " kind " << kind << " specials " << specials
            << std::hexfloat << ": ssim " << a.ssim << " vs " << b.ssim << ", l " << a.l << " vs "
            << b.l << ", c " << a.c << " vs " << b.c << ", s " << a.s << " vs " << b.s;
        std::vector<float> p[6];
        for (auto& v : p) v.assign(w + kGuard, 7.0f);
        ref().products_row(mu_r.data(), mu_d.data(), w, p[0].data(), p[1].data(), p[2].data());
        twin().products_row(mu_r.data(), mu_d.data(), w, p[3].data(), p[4].data(), p[5].data());
        for (int i = 0; i < 3; ++i)
          ASSERT_TRUE(same_values(p[i], p[i + 3])) << twin().isa << " products_row w " << w;
      }
}

// Every output row of a w x h picture with float_ssim's box kernels and
// MS-SSIM's 9x9 low-pass filter (factor 2). Factors 2..10 are those of the
// `scale` option; scale=0 picks round(min(w, h) / 256), which passes 16 from
// 4224 on both sides (8K: 17), so the kernels go on to 24.
TEST_P(SsimTwin, DecimateRows) {
  struct Kernel {
    std::vector<float> taps;
    int size, factor;
  };
  std::vector<Kernel> kernels = {
      {std::vector<float>(ssim::kLowPass, ssim::kLowPass + 81), ssim::kLowPassTaps, 2}};
  for (int f = 2; f <= 24; ++f) kernels.push_back({ssim::box_kernel(f), f, f});
  const unsigned sizes[][2] = {{11, 11},  {22, 13},  {37, 23}, {64, 21},
                               {101, 40}, {203, 31}, {613, 29}};
  for (const auto& size : sizes)
    for (const Kernel& k : kernels) {
      const int w = static_cast<int>(size[0]), h = static_cast<int>(size[1]);
      if (k.size / 2 >= w || k.size / 2 >= h) continue;  // one reflection must reach inside
      const auto img = floats(rng_, static_cast<std::size_t>(w) * h, 255.0f, false);
      const int out_w = ssim::decimated_size(w, k.factor), out_h = ssim::decimated_size(h, k.factor);
      std::vector<float> scratch(ssim::decimate_scratch_floats(w, k.size, k.factor) + kGuard);
      for (int y = 0; y < out_h; ++y) {
        std::vector<float> a(out_w + kGuard, 7.0f), b(out_w + kGuard, 7.0f);
        ref().decimate_row(img.data(), w, h, k.taps.data(), k.size, k.factor, y,
                           static_cast<unsigned>(out_w), a.data(), scratch.data());
        twin().decimate_row(img.data(), w, h, k.taps.data(), k.size, k.factor, y,
                            static_cast<unsigned>(out_w), b.data(), scratch.data());
        ASSERT_TRUE(same_values(a, b)) << twin().isa << " decimate_row " << w << "x" << h
                                       << " kernel " << k.size << " factor " << k.factor << " row " << y;
      }
    }
}

// The stages over whole pictures: the means of every scale with each table.
struct StageCase {
  unsigned w, h;
  int scale;  // float_ssim's option
};

std::vector<StageCase> stage_cases() {
  std::vector<StageCase> cases = {{176, 176, 0}, {181, 177, 0}, {203, 190, 2}, {331, 251, 0},
                                  {331, 251, 7}, {643, 389, 0}, {64, 48, 0},   {21, 11, 0}};
  if (full()) cases.insert(cases.end(), {{1920, 1080, 0}, {1277, 719, 0}, {3840, 2160, 0}});
  return cases;
}

void draw(test::TestPlane& plane, std::mt19937_64& rng, Fill fill, unsigned noise) {
  const unsigned bytes = plane.bpc() > 8 ? 2 : 1;
  const std::uint32_t max = (1u << plane.bpc()) - 1;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      std::uint32_t v = test::sample_of(rng, fill, plane.bpc(), bytes);
      if (fill == Fill::kRandom) {  // smooth content with noise: the usual case
        v = ((x * 7 + y * 3) * (max / 255 + 1) + static_cast<std::uint32_t>(rng() % (noise + 1))) % (max + 1);
      }
      plane.set(x, y, v);
    }
}

TEST_P(SsimTwin, StagesOverPictures) {
  for (const StageCase& c : stage_cases())
    for (unsigned bpc : {8u, 10u, 12u, 16u})
      for (Fill fill : kFills) {
        test::TestPlane ref_pic(c.w, c.h, bpc, 5), dis_pic(c.w, c.h, bpc, 2);
        draw(ref_pic, rng_, fill, 4);
        draw(dis_pic, rng_, fill, 24);
        const int scale = ssim::ssim_scale(c.scale, c.w, c.h);
        if (ssim::decimated_size(static_cast<int>(c.w), scale) >= ssim::kWindow &&
            ssim::decimated_size(static_cast<int>(c.h), scale) >= ssim::kWindow) {
          ssim::SsimCpuStage scalar_stage(scale, ref()), twin_stage(scale, twin());
          const auto expected = scalar_stage.compute(ref_pic.view(), dis_pic.view(), 0);
          const auto got = run_guarded(ref_pic, dis_pic, 0x3C,
                                       [&] { return twin_stage.compute(ref_pic.view(), dis_pic.view(), 0); });
          ASSERT_TRUE(same(expected.ssim, got.ssim) && same(expected.l, got.l) &&
                      same(expected.c, got.c) && same(expected.s, got.s))
              << twin().isa << " float_ssim " << c.w << "x" << c.h << " scale " << scale << " bpc "
              << bpc << ": " << expected.ssim << " vs " << got.ssim;
        }
      }
}

TEST_P(MsSsimTwin, StageOverPictures) {
  for (const StageCase& c : stage_cases())
    for (unsigned bpc : {8u, 10u, 12u, 16u})
      for (Fill fill : kFills) {
        if (c.w < 176 || c.h < 176) continue;  // refused: MS-SSIM's minimum
        test::TestPlane ref_pic(c.w, c.h, bpc, 5), dis_pic(c.w, c.h, bpc, 2);
        draw(ref_pic, rng_, fill, 4);
        draw(dis_pic, rng_, fill, 24);
        ssim::MsSsimCpuStage scalar_stage(ref()), twin_stage(twin());
        const auto expected = scalar_stage.compute(ref_pic.view(), dis_pic.view(), 0);
        const auto got = run_guarded(ref_pic, dis_pic, 0xC3,
                                     [&] { return twin_stage.compute(ref_pic.view(), dis_pic.view(), 0); });
        for (std::size_t i = 0; i < ssim::kScales; ++i)
          ASSERT_TRUE(same(expected[i].ssim, got[i].ssim) && same(expected[i].l, got[i].l) &&
                      same(expected[i].c, got[i].c) && same(expected[i].s, got[i].s))
              << twin().isa << " float_ms_ssim " << c.w << "x" << c.h << " bpc " << bpc
              << " scale " << i;
      }
}

INSTANTIATE_TEST_SUITE_P(float_ms_ssim, MsSsimTwin, isa_values(), isa_param_name);
INSTANTIATE_TEST_SUITE_P(float_ssim, SsimTwin, isa_values(), isa_param_name);

const BenchRegistration ssim_bench(cpu_bench_twins(
    "float_ssim", ssim::ssim_dsp_scalar, ssim::ssim_dsp_isa,
    [](const ssim::SsimDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      auto ref = bench_plane(w, h, bpc, false), dis = bench_plane(w, h, bpc, true);
      auto stage = std::make_shared<ssim::SsimCpuStage>(ssim::ssim_scale(0, w, h), dsp);
      return [=] { stage->compute(ref->view(), dis->view(), 0); };
    }));

const BenchRegistration ms_ssim_bench(cpu_bench_twins(
    "float_ms_ssim", ssim::ssim_dsp_scalar, ssim::ssim_dsp_isa,
    [](const ssim::SsimDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      if (w < 176 || h < 176) return nullptr;
      auto ref = bench_plane(w, h, bpc, false), dis = bench_plane(w, h, bpc, true);
      auto stage = std::make_shared<ssim::MsSsimCpuStage>(dsp);
      return [=] { stage->compute(ref->view(), dis->view(), 0); };
    }));

}  // namespace
