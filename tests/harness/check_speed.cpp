// The twins of SpEED ("speed_chroma", "speed_temporal") against the scalar
// reference: every routine of every SIMD table (metrics/speed/speed_dsp.h) on
// random and edge inputs, and both CPU stages with each table over short clips
// of several sizes, depths and options.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/picture.h"
#include "dsp_inputs.h"
#include "harness.h"
#include "speed/speed.h"
#include "speed/speed_dsp.h"
#include "speed/speed_extractor.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

// The DSP routines (shared by both extractors) and speed_chroma's stage run as
// speed_chroma's checks; speed_temporal's stage as its own.
HARNESS_DSP_FIXTURE(SpeedTwin, speed::SpeedDsp, speed::speed_dsp_scalar, speed::speed_dsp_isa,
                    0x5beed);
HARNESS_DSP_FIXTURE(SpeedTemporalTwin, speed::SpeedDsp, speed::speed_dsp_scalar,
                    speed::speed_dsp_isa, 0x7e3b0);

// Floats of every kind: ordinary values of many magnitudes and signs, and
// (with `specials`) zeros of both signs, subnormals, the largest values,
// infinities and NaN.
float draw_float(std::mt19937_64& rng, bool specials) {
  const unsigned kind = static_cast<unsigned>(rng() % (specials ? 12 : 6));
  const auto uniform = [&](double lo, double hi) {
    return static_cast<float>(lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1p-53));
  };
  switch (kind) {
    case 0: return uniform(-128, 128);
    case 1: return uniform(-1, 1);
    case 2: return uniform(-1e-3, 1e-3);
    case 3: return uniform(-1e6, 1e6);
    case 4: return std::ldexp(uniform(-1, 1), static_cast<int>(rng() % 60) - 30);
    case 5: return static_cast<float>(static_cast<int>(rng() % 511) - 255);
    case 6: return (rng() & 1) ? 0.0f : -0.0f;
    case 7: return std::numeric_limits<float>::denorm_min() * static_cast<float>(rng() % 1000);
    case 8: return (rng() & 1 ? 1 : -1) * std::numeric_limits<float>::max();
    case 9: return (rng() & 1 ? 1 : -1) * std::numeric_limits<float>::infinity();
    case 10: return std::numeric_limits<float>::quiet_NaN();
    default: return uniform(-1e30, 1e30);
  }
}

std::vector<float> floats(std::mt19937_64& rng, std::size_t n, bool specials) {
  std::vector<float> v(n);
  for (auto& x : v) x = draw_float(rng, specials);
  return v;
}

// Widths of the row routines: every vector width and 1080p rows.
std::vector<unsigned> row_widths() {
  std::vector<unsigned> widths = motion_widths();
  widths.push_back(0);
  widths.push_back(960);
  return widths;
}

TEST_P(SpeedTwin, ConvertRows) { expect_same_convert_rows(ref(), twin(), rng_, row_widths()); }

TEST_P(SpeedTwin, SubtractAndAccumulateRows) {
  for (unsigned w : row_widths())
    for (bool specials : {false, true})
      for (int round = 0; round < 3; ++round) {
        const auto acc = floats(rng_, w + kGuard, specials);
        const auto row = floats(rng_, w + kGuard, specials);
        auto a = acc, b = acc;
        ref().subtract_row(a.data(), row.data(), w);
        twin().subtract_row(b.data(), row.data(), w);
        ASSERT_TRUE(same_values(a, b)) << twin().isa << " subtract_row w " << w;
        const float coeff = round == 0 ? 0.1122f : draw_float(rng_, specials);
        a = acc, b = acc;
        ref().accumulate_row(a.data(), row.data(), coeff, w);
        twin().accumulate_row(b.data(), row.data(), coeff, w);
        ASSERT_TRUE(same_values(a, b)) << twin().isa << " accumulate_row w " << w << " coeff "
                                       << coeff;
      }
}

// The lower triangle of the 25 x kCovLanes sums (the entries a caller reads).
std::vector<double> lower_triangle(const std::vector<double>& sums) {
  std::vector<double> lower;
  for (unsigned x = 0; x < speed::kBlockElements; ++x)
    for (unsigned y = 0; y <= x; ++y) lower.push_back(sums[x * speed::kCovLanes + y]);
  return lower;
}

TEST_P(SpeedTwin, Covariance) {
  for (unsigned count : {0u, 1u, 2u, 3u, 7u, 8u, 9u, 31u, 128u, 300u})
    for (int variant = 0; variant < 4; ++variant) {
      // Centered values as est_params makes them (float samples less a float
      // mean, in double), and doubles of every kind; lanes 25.. hold 0, or
      // anything (they are not read).
      std::vector<double> centered(std::size_t{count} * speed::kCovLanes);
      for (unsigned e = 0; e < count; ++e)
        for (unsigned s = 0; s < speed::kCovLanes; ++s) {
          double v = static_cast<double>(draw_float(rng_, variant == 3)) -
                     static_cast<double>(draw_float(rng_, false));
          if (variant == 1) v = std::ldexp(v, static_cast<int>(rng_() % 400) - 200);
          if (s >= speed::kBlockElements && variant != 2) v = 0.0;
          centered[std::size_t{e} * speed::kCovLanes + s] = v;
        }
      // The sums start from earlier tiles' values.
      std::vector<double> start(std::size_t{speed::kBlockElements} * speed::kCovLanes);
      for (auto& v : start) v = variant == 0 ? 0.0 : static_cast<double>(draw_float(rng_, false)) * 1e3;
      auto a = start, b = start;
      ref().covariance(centered.data(), count, a.data());
      twin().covariance(centered.data(), count, b.data());
      ASSERT_TRUE(same_values(lower_triangle(a), lower_triangle(b)))
          << twin().isa << " covariance count " << count << " variant " << variant;
    }
}

TEST_P(SpeedTwin, MatMul) {
  struct Shape {
    unsigned rows, inner, cols;
  };
  std::vector<Shape> shapes = {{25, 25, 25}, {1, 1, 1}, {3, 2, 5}, {25, 25, 1}, {25, 25, 7},
                               {25, 25, 8},  {25, 25, 9}, {25, 25, 16}, {25, 25, 17}, {25, 25, 31},
                               {25, 25, 32}, {25, 25, 33}, {25, 25, 63}, {25, 25, 64},
                               {25, 25, 65}, {25, 25, 72}, {25, 25, 312}, {9, 9, 9}, {25, 25, 0}};
  for (const Shape& shape : shapes)
    for (bool specials : {false, true}) {
      const auto x = floats(rng_, std::size_t{shape.rows} * shape.inner, specials);
      const auto y = floats(rng_, std::size_t{shape.inner} * shape.cols, specials);
      // Guards after the output: a twin must not write past it.
      std::vector<float> a(std::size_t{shape.rows} * shape.cols + kGuard, 3.0f), b = a;
      ref().matmul(x.data(), y.data(), shape.rows, shape.inner, shape.cols, a.data());
      twin().matmul(x.data(), y.data(), shape.rows, shape.inner, shape.cols, b.data());
      ASSERT_TRUE(same_values(a, b)) << twin().isa << " matmul " << shape.rows << "x" << shape.inner
                                     << "x" << shape.cols << (specials ? " specials" : "");
    }
}

// ---- The CPU stages -----------------------------------------------------------

// A picture of three planes (or luma only) as libvmaf lays it out.
struct Picture {
  Picture(unsigned w, unsigned h, unsigned bpc, ChromaFormat chroma, std::uint32_t seed)
      : luma(w, h, bpc, 3, 1, seed),
        u(chroma == ChromaFormat::k400 ? 0 : chroma_plane_width(w, chroma),
          chroma == ChromaFormat::k400 ? 0 : chroma_plane_height(h, chroma), bpc, 5, 1, seed + 1),
        v(u.width(), u.height(), bpc, 1, 1, seed + 2),
        chroma_(chroma) {}

  PictureView view() const {
    PictureView picture = luma.view();
    picture.chroma = chroma_;
    if (chroma_ != ChromaFormat::k400) {
      picture.planes[1] = u.plane();
      picture.planes[2] = v.plane();
    }
    return picture;
  }
  // Smooth content with edges, noise and flat patches, shifted by `frame`,
  // or (for fills other than kRandom) the fill's samples.
  void draw(std::mt19937_64& rng, unsigned frame, Fill fill, unsigned noise) {
    for (test::TestPlane* plane : {&luma, &u, &v}) {
      const unsigned bpc = plane->bpc(), bytes = bpc > 8 ? 2 : 1;
      const std::int64_t max = (std::int64_t{1} << bpc) - 1;
      for (unsigned y = 0; y < plane->height(); ++y)
        for (unsigned x = 0; x < plane->width(); ++x) {
          if (fill != Fill::kRandom) {
            plane->set(x, y, motion_sample(rng, fill, bpc, bytes));
            continue;
          }
          std::int64_t value = (std::int64_t{x} * 5 + y * 3 + frame * 7) * (max / 255 + 1) % (max + 1);
          if (((x + frame) / 24 + y / 20) % 4 == 0) value = max / 3;  // flat patches
          value += static_cast<std::int64_t>(rng() % (2 * noise + 1)) - noise;
          plane->set(x, y, static_cast<std::uint32_t>(std::clamp<std::int64_t>(value, 0, max)));
        }
    }
  }

  test::TestPlane luma, u, v;
  ChromaFormat chroma_;
};

struct StageCase {
  unsigned w, h;
  ChromaFormat chroma;
  speed::SpeedParams params;
};

std::vector<StageCase> stage_cases() {
  using speed::ScaleMethod;
  const auto params = [](double prescale, ScaleMethod method, double kernelscale, int mode) {
    speed::SpeedParams p;
    p.prescale = prescale;
    p.prescale_method = method;
    p.kernelscale = kernelscale;
    p.weight_var_mode = mode;
    p.sigma_nn = 0.19;
    p.nn_floor = 0.1;
    return p;
  };
  std::vector<StageCase> cases = {
      {160, 160, ChromaFormat::k420, params(1.0, ScaleMethod::kNearest, 1.0, 5)},
      {177, 163, ChromaFormat::k420, params(1.0, ScaleMethod::kNearest, 1.0, 0)},
      {331, 247, ChromaFormat::k422, params(0.6, ScaleMethod::kBilinear, 1.0, 5)},
      {97, 83, ChromaFormat::k444, params(1.5, ScaleMethod::kNearest, 0.5, 3)},
      {250, 170, ChromaFormat::k444, params(0.7, ScaleMethod::kBicubic, 2.0, 6)},
      {200, 190, ChromaFormat::k420, params(1.3, ScaleMethod::kLanczos4, 1.5, 4)},
      {643, 361, ChromaFormat::k420, params(0.5, ScaleMethod::kBilinear, 1.0, 5)},
  };
  if (full()) {
    cases.push_back({1920, 1080, ChromaFormat::k420, params(1.0, ScaleMethod::kNearest, 1.0, 5)});
    cases.push_back({1920, 1080, ChromaFormat::k420, params(0.6, ScaleMethod::kBilinear, 1.0, 5)});
    cases.push_back({3840, 2160, ChromaFormat::k420, params(0.5, ScaleMethod::kBilinear, 1.0, 5)});
  }
  return cases;
}

bool same_score(const speed::SpeedScore& a, const speed::SpeedScore& b) {
  return same(a.score, b.score) && a.singular == b.singular;
}

TEST_P(SpeedTwin, StageOverFrames) {
  for (const StageCase& c : stage_cases())
    for (unsigned bpc : {8u, 10u, 12u, 16u}) {
      const speed::SpeedGeometry chroma = speed::SpeedGeometry::of(
          chroma_plane_width(c.w, c.chroma), chroma_plane_height(c.h, c.chroma), c.params.prescale);
      ASSERT_TRUE(chroma.has_blocks()) << c.w << "x" << c.h;
      speed::SpeedChromaCpuStage scalar_stage(chroma, c.params, ref());
      speed::SpeedChromaCpuStage twin_stage(chroma, c.params, twin());
      for (unsigned frame = 0; frame < 4; ++frame) {
        // Frame 3: flat pictures (singular covariances).
        const Fill fill = frame == 3 ? Fill::kZero : frame == 2 ? Fill::kFullRange : Fill::kRandom;
        Picture ref_pic(c.w, c.h, bpc, c.chroma, 11), dis_pic(c.w, c.h, bpc, c.chroma, 22);
        ref_pic.draw(rng_, frame, fill, 4);
        dis_pic.draw(rng_, frame, fill == Fill::kZero ? Fill::kZero : fill, 20);
        const auto expected = scalar_stage.compute(ref_pic.view(), dis_pic.view(), frame);
        const auto sums = twin_stage.compute(ref_pic.view(), dis_pic.view(), frame);
        ASSERT_TRUE(same_score(expected.u, sums.u) && same_score(expected.v, sums.v))
            << twin().isa << " " << c.w << "x" << c.h << " bpc " << bpc << " frame " << frame
            << ": u " << expected.u.score << " vs " << sums.u.score << ", v " << expected.v.score
            << " vs " << sums.v.score;
        for (const test::TestPlane* plane : {&ref_pic.luma, &ref_pic.u, &ref_pic.v})
          EXPECT_TRUE(guards_intact(*plane, "reference"));
      }
    }
}

TEST_P(SpeedTemporalTwin, StageOverFrames) {
  for (const StageCase& c : stage_cases()) {
    if (c.params.prescale > 1.0) continue;  // refused: libvmaf writes beyond its buffers
    for (unsigned bpc : {8u, 10u, 12u, 16u})
      for (bool use_ref_diff : {false, true}) {
        const PictureFormat format{c.w, c.h, bpc, ChromaFormat::k400};
        const speed::SpeedGeometry luma = speed::SpeedGeometry::of(c.w, c.h, c.params.prescale);
        speed::SpeedTemporalCpuStage scalar_stage(format, luma, c.params, use_ref_diff, ref());
        speed::SpeedTemporalCpuStage twin_stage(format, luma, c.params, use_ref_diff, twin());
        for (unsigned frame = 0; frame < 4; ++frame) {
          const Fill fill = frame == 3 ? Fill::kExtremes : Fill::kRandom;
          Picture ref_pic(c.w, c.h, bpc, ChromaFormat::k400, 33), dis_pic(c.w, c.h, bpc, ChromaFormat::k400, 44);
          ref_pic.draw(rng_, frame, fill, 4);
          dis_pic.draw(rng_, frame, fill, 20);
          const auto expected = scalar_stage.compute(ref_pic.view(), dis_pic.view(), frame);
          const auto score = twin_stage.compute(ref_pic.view(), dis_pic.view(), frame);
          ASSERT_EQ(expected.has_value(), score.has_value());
          if (expected) {
            ASSERT_TRUE(same(*expected, *score))
                << twin().isa << " " << c.w << "x" << c.h << " bpc " << bpc << " frame " << frame
                << ": " << *expected << " vs " << *score;
          }
          EXPECT_TRUE(guards_intact(ref_pic.luma, "reference"));
          EXPECT_TRUE(guards_intact(dis_pic.luma, "distorted"));
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(speed_chroma, SpeedTwin, isa_values(), isa_param_name);
INSTANTIATE_TEST_SUITE_P(speed_temporal, SpeedTemporalTwin, isa_values(), isa_param_name);

// --bench: speed_chroma's CPU stage as VMAF v1 runs it (both chroma planes of a
// 4:2:0 pair) with each table.
const BenchRegistration speed_bench(cpu_bench_twins(
    "speed_chroma", speed::speed_dsp_scalar, speed::speed_dsp_isa,
    [](const speed::SpeedDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      const unsigned cw = w / 2, ch = h / 2;
      speed::SpeedParams params;
      params.sigma_nn = 0.19;
      params.nn_floor = 0.1;
      params.weight_var_mode = 5;
      const speed::SpeedGeometry chroma = speed::SpeedGeometry::of(cw, ch, params.prescale);
      if (!chroma.has_blocks()) return nullptr;
      auto ref_u = bench_plane(cw, ch, bpc, false), dis_u = bench_plane(cw, ch, bpc, true);
      auto luma = bench_plane(w, h, bpc, false);
      auto stage = std::make_shared<speed::SpeedChromaCpuStage>(chroma, params, dsp);
      return [=] {
        PictureView ref = luma->view(), dis = luma->view();
        ref.chroma = dis.chroma = ChromaFormat::k420;
        ref.planes[1] = ref.planes[2] = ref_u->plane();
        dis.planes[1] = dis.planes[2] = dis_u->plane();
        stage->compute(ref, dis, 0);
      };
    }));

}  // namespace

HARNESS_FEATURE(speed_chroma);
HARNESS_FEATURE(speed_temporal);
