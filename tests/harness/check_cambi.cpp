// The twins of CAMBI ("cambi") against the scalar reference: every routine of
// every SIMD table (metrics/cambi/cambi_dsp.h) on random and edge inputs, at
// every width remainder, and the CPU stage with each table on whole pictures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cambi/cambi.h"
#include "cambi/cambi_dsp.h"
#include "cambi/cambi_extractor.h"
#include "common/picture.h"
#include "dsp_inputs.h"
#include "harness.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using cambi::CambiDsp;
using cambi::kReadAhead;

namespace {

HARNESS_DSP_FIXTURE(CambiTwin, CambiDsp, cambi::cambi_dsp_scalar, cambi::cambi_dsp_isa, 0xca3b1);

// Values drawn for the routines that compare samples: few distinct values
// (so that equalities and runs are common), any 10-bit value, or 0 / 1024.
enum class Values { kFew, kAny, kEnds };
constexpr Values kValueKinds[] = {Values::kFew, Values::kAny, Values::kEnds};

std::uint16_t working_sample(std::mt19937_64& rng, Values kind) {
  switch (kind) {
    case Values::kFew: return static_cast<std::uint16_t>(500 + rng() % 3);
    case Values::kAny: return static_cast<std::uint16_t>(rng() % (cambi::kMaxWorkingSample + 1));
    case Values::kEnds: return rng() & 1 ? cambi::kMaxWorkingSample : 0;
  }
  return 0;
}

// A row of w values and the slack routines may read, filled by `draw`.
template <typename T, class Draw>
std::vector<T> row_of(unsigned w, Draw draw) {
  std::vector<T> row(w + kReadAhead);
  for (auto& v : row) v = static_cast<T>(draw());
  return row;
}

// Output rows: w values then sentinels that must stay.
template <typename T>
std::vector<T> sentinel_row(unsigned w, T sentinel) {
  return std::vector<T>(w + kReadAhead, sentinel);
}

std::vector<unsigned> cambi_widths() {
  std::vector<unsigned> widths = motion_widths();
  for (unsigned w : {33u, 34u, 63u, 65u, 66u, 95u, 96u, 97u, 130u, 961u}) widths.push_back(w);
  return widths;
}

TEST_P(CambiTwin, Preprocess) {
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (unsigned w : cambi_widths())
      for (Fill fill : kFills)
        for (int variant = 0; variant < 4; ++variant) {
          const bool anti_dither = variant & 1, last_row = variant & 2;
          const unsigned bytes = bpc > 8 ? 2 : 1;
          auto draw = [&] { return motion_sample(rng_, fill, bpc, bytes); };
          std::vector<std::uint16_t> out_ref = sentinel_row<std::uint16_t>(w, 0x5a5a);
          std::vector<std::uint16_t> out_twin = out_ref;
          std::uint16_t largest_ref, largest_twin;
          if (bpc == 8) {
            const auto row = row_of<std::uint8_t>(w, draw), below = row_of<std::uint8_t>(w, draw);
            const std::uint8_t* under = last_row ? nullptr : below.data();
            largest_ref = ref().preprocess_8(row.data(), under, w, anti_dither, out_ref.data());
            largest_twin = twin().preprocess_8(row.data(), under, w, anti_dither, out_twin.data());
          } else {
            const auto row = row_of<std::uint16_t>(w, draw), below = row_of<std::uint16_t>(w, draw);
            const std::uint16_t* under = last_row ? nullptr : below.data();
            const unsigned shift = bpc - 10;
            largest_ref = ref().preprocess_16(row.data(), under, w, shift, anti_dither, out_ref.data());
            largest_twin =
                twin().preprocess_16(row.data(), under, w, shift, anti_dither, out_twin.data());
          }
          ASSERT_EQ(largest_ref, largest_twin) << twin().isa << " bpc " << bpc << " w " << w;
          ASSERT_TRUE(out_ref == out_twin)
              << twin().isa << " preprocess bpc " << bpc << " w " << w << " fill "
              << static_cast<int>(fill) << " variant " << variant;
        }
}

TEST_P(CambiTwin, AntiDither) {
  for (unsigned w : cambi_widths())
    for (Values kind : kValueKinds)
      for (bool last_row : {false, true}) {
        auto draw = [&] { return working_sample(rng_, kind); };
        const auto row = row_of<std::uint16_t>(w, draw), below = row_of<std::uint16_t>(w, draw);
        auto out_ref = sentinel_row<std::uint16_t>(w, 0xa5a5), out_twin = out_ref;
        ref().anti_dither(row.data(), last_row ? nullptr : below.data(), w, out_ref.data());
        twin().anti_dither(row.data(), last_row ? nullptr : below.data(), w, out_twin.data());
        ASSERT_TRUE(out_ref == out_twin) << twin().isa << " anti_dither w " << w;
      }
}

TEST_P(CambiTwin, MaskRoutines) {
  for (unsigned w : cambi_widths())
    for (Values kind : kValueKinds) {
      // Derivatives, with and without a lower row.
      auto draw = [&] { return working_sample(rng_, kind); };
      const auto row = row_of<std::uint16_t>(w, draw), below = row_of<std::uint16_t>(w, draw);
      for (bool last_row : {false, true}) {
        auto out_ref = sentinel_row<std::uint8_t>(w, 0x77), out_twin = out_ref;
        ref().derivative(row.data(), last_row ? nullptr : below.data(), w, out_ref.data());
        twin().derivative(row.data(), last_row ? nullptr : below.data(), w, out_twin.data());
        ASSERT_TRUE(out_ref == out_twin) << twin().isa << " derivative w " << w;
      }
      // Column counts (modulo 256, whatever the bytes) with either row absent.
      for (int variant = 0; variant < 4; ++variant) {
        const auto entering = row_of<std::uint8_t>(w, [&] { return rng_() % 2; });
        const auto leaving = row_of<std::uint8_t>(w, [&] { return rng_() % 2; });
        auto counts_ref = row_of<std::uint8_t>(w, [&] { return rng_() % 8; });
        auto counts_twin = counts_ref;
        const std::uint8_t* in = variant & 1 ? entering.data() : nullptr;
        const std::uint8_t* out = variant & 2 ? leaving.data() : nullptr;
        ref().update_counts(counts_ref.data(), in, out, w);
        twin().update_counts(counts_twin.data(), in, out, w);
        ASSERT_TRUE(counts_ref == counts_twin) << twin().isa << " update_counts w " << w;
      }
      // The mask: counts 0 .. 7 (all 7 at times) with 3 zeros before and after.
      std::vector<std::uint8_t> counts(w + 6 + kReadAhead, 0);
      for (unsigned c = 0; c < w; ++c) counts[c + 3] = kind == Values::kEnds ? 7 : rng_() % 8;
      for (unsigned index : {0u, 7u, 13u, 21u, 24u, 48u, 55u}) {
        auto mask_ref = sentinel_row<std::uint8_t>(w, 0x33), mask_twin = mask_ref;
        ref().mask_row(counts.data() + 3, w, index, mask_ref.data());
        twin().mask_row(counts.data() + 3, w, index, mask_twin.data());
        ASSERT_TRUE(mask_ref == mask_twin) << twin().isa << " mask_row w " << w << " index " << index;
      }
    }
}

TEST_P(CambiTwin, ScaleRoutines) {
  for (unsigned w : cambi_widths())
    for (Values kind : kValueKinds) {
      auto draw = [&] { return working_sample(rng_, kind); };
      // Decimation, into another row and in place.
      const auto src16 = row_of<std::uint16_t>(2 * w, draw);
      const auto src8 = row_of<std::uint8_t>(2 * w, [&] { return rng_() & 1; });
      auto dst_ref = sentinel_row<std::uint16_t>(w, 0x1234), dst_twin = dst_ref;
      ref().decimate_16(src16.data(), w, dst_ref.data());
      twin().decimate_16(src16.data(), w, dst_twin.data());
      ASSERT_TRUE(dst_ref == dst_twin) << twin().isa << " decimate_16 w " << w;
      auto in_place_ref = src16, in_place_twin = src16;
      ref().decimate_16(in_place_ref.data(), w, in_place_ref.data());
      twin().decimate_16(in_place_twin.data(), w, in_place_twin.data());
      ASSERT_TRUE(in_place_ref == in_place_twin) << twin().isa << " decimate_16 in place w " << w;
      auto dst8_ref = sentinel_row<std::uint8_t>(w, 0x12), dst8_twin = dst8_ref;
      ref().decimate_8(src8.data(), w, dst8_ref.data());
      twin().decimate_8(src8.data(), w, dst8_twin.data());
      ASSERT_TRUE(dst8_ref == dst8_twin) << twin().isa << " decimate_8 w " << w;
      auto in8_ref = src8, in8_twin = src8;
      ref().decimate_8(in8_ref.data(), w, in8_ref.data());
      twin().decimate_8(in8_twin.data(), w, in8_twin.data());
      ASSERT_TRUE(in8_ref == in8_twin) << twin().isa << " decimate_8 in place w " << w;
      // The mode filter.
      const auto a = row_of<std::uint16_t>(w, draw), b = row_of<std::uint16_t>(w, draw),
                 c = row_of<std::uint16_t>(w, draw);
      auto h_ref = sentinel_row<std::uint16_t>(w, 0x4321), h_twin = h_ref;
      ref().mode_horizontal(a.data(), w, h_ref.data());
      twin().mode_horizontal(a.data(), w, h_twin.data());
      ASSERT_TRUE(h_ref == h_twin) << twin().isa << " mode_horizontal w " << w;
      auto v_ref = sentinel_row<std::uint16_t>(w, 0x4321), v_twin = v_ref;
      ref().mode_vertical(a.data(), b.data(), c.data(), w, v_ref.data());
      twin().mode_vertical(a.data(), b.data(), c.data(), w, v_twin.data());
      ASSERT_TRUE(v_ref == v_twin) << twin().isa << " mode_vertical w " << w;
    }
}

// A histogram buffer as CambiPicture lays it out: num_diffs zero rows, the
// band, num_diffs zero rows, slack.
struct Histogram {
  Histogram(unsigned w, int band_size, int num_diffs)
      : counts(std::size_t(band_size + 2 * num_diffs) * w + 2 * kReadAhead, 0),
        view{counts.data() + std::size_t(num_diffs) * w, static_cast<std::ptrdiff_t>(w), band_size} {}
  std::vector<std::uint16_t> counts;
  cambi::HistogramView view;
};

TEST_P(CambiTwin, Slide) {
  for (unsigned w : cambi_widths()) {
    if (w > 1283) continue;
    for (unsigned pad : {0u, 1u, 4u, 8u, 16u, 31u, 32u}) {
      for (Values kind : kValueKinds) {
        // A band around the values drawn, cut so some samples fall outside it.
        const int band_base = kind == Values::kFew ? 501 : 100;
        const int band_size = kind == Values::kFew ? 2 : 800;
        Histogram h_ref(w, band_size, 4), h_twin(w, band_size, 4);
        auto draw = [&] { return working_sample(rng_, kind); };
        for (int step = 0; step < 6; ++step) {
          const auto leaving = row_of<std::uint16_t>(w, draw), entering = row_of<std::uint16_t>(w, draw);
          auto same = entering;  // rows partly equal to the leaving one
          for (unsigned x = 0; x < w; ++x)
            if (rng_() % 3) same[x] = leaving[x];
          const int mask_kind = step % 3;  // all masked, none, random
          auto masks = [&] {
            return row_of<std::uint8_t>(w, [&] { return mask_kind == 0 ? 1 : mask_kind == 1 ? 0 : rng_() & 1; });
          };
          const auto leaving_mask = masks(), entering_mask = masks();
          const bool with_leaving = step != 0, with_entering = step != 5;
          const std::uint16_t* in = with_entering ? (step % 2 ? same.data() : entering.data()) : nullptr;
          const std::uint16_t* out = with_leaving ? leaving.data() : nullptr;
          ref().slide(h_ref.view, w, pad, band_base, out, leaving_mask.data(), in, entering_mask.data());
          twin().slide(h_twin.view, w, pad, band_base, out, leaving_mask.data(), in,
                       entering_mask.data());
          ASSERT_TRUE(h_ref.counts == h_twin.counts)
              << twin().isa << " slide w " << w << " pad " << pad << " step " << step;
        }
      }
    }
  }
}

// Histograms of real windows: a picture's window counts built with the
// scalar slide, then the c-values of every row with each table.
TEST_P(CambiTwin, CValues) {
  struct Tables {
    int max_log_contrast;
    double tvi, vlt;
    cambi::Eotf eotf;
  };
  const Tables tables[] = {{2, 0.019, 0.0, cambi::Eotf::kBt1886}, {2, 0.019, 0.06, cambi::Eotf::kBt1886},
                           {0, 0.019, 0.0, cambi::Eotf::kBt1886}, {5, 0.1, 10.0, cambi::Eotf::kBt1886},
                           {3, 0.019, 0.0, cambi::Eotf::kPq},     {2, 0.0001, 1.0, cambi::Eotf::kBt1886}};
  for (const Tables& spec : tables) {
    const cambi::ContrastTables t =
        cambi::make_contrast_tables(spec.max_log_contrast, spec.tvi, spec.vlt, spec.eotf);
    const cambi::ContrastRowTables row_tables = t.row_tables();
    for (unsigned w : {1u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 33u, 64u, 100u, 257u}) {
      for (unsigned pad : {0u, 2u, 8u, 32u}) {
        for (int pattern = 0; pattern < 4; ++pattern) {
          const Values kind = pattern == 3 ? Values::kFew : kValueKinds[pattern];
          const unsigned h = 2 * pad + 6;
          // Gentle steps around the band's values, flat runs, and noise.
          std::vector<std::uint16_t> image((h + 1) * w + kReadAhead);
          std::vector<std::uint8_t> mask(image.size());
          const int centre = std::clamp(t.band_base + 40, 0, 1000);
          for (unsigned y = 0; y < h; ++y)
            for (unsigned x = 0; x < w; ++x) {
              // pattern 3: flat runs longer than a vector (the twins' plain loads).
              int v = pattern == 3 ? centre + static_cast<int>((x / 37 + y / 4) % 3)
                      : kind == Values::kFew ? centre + static_cast<int>((x / 5 + y / 3) % 4)
                      : kind == Values::kAny ? centre + static_cast<int>(rng_() % 9) - 4
                                             : working_sample(rng_, Values::kEnds);
              if (kind == Values::kAny && rng_() % 11 == 0) v = working_sample(rng_, Values::kAny);
              image[y * w + x] = static_cast<std::uint16_t>(std::clamp(v, 0, 1024));
              mask[y * w + x] = static_cast<std::uint8_t>(pattern == 3 ? rng_() % 23 != 0 : rng_() % 5 != 0);
            }
          if (t.band_size <= 0) continue;
          Histogram histogram(w, t.band_size, t.num_diffs);
          int lo = 0, hi = -1;
          const int height = static_cast<int>(h), p = static_cast<int>(pad);
          for (int i = 0; i < height; ++i) {
            const int lo_target = std::max(0, i - p), hi_target = std::min(height - 1, i + p);
            while (lo < lo_target || hi < hi_target) {
              const bool leave = lo < lo_target, enter = hi < hi_target;
              ref().slide(histogram.view, w, pad, t.band_base, leave ? &image[lo * w] : nullptr,
                          leave ? &mask[lo * w] : nullptr, enter ? &image[(hi + 1) * w] : nullptr,
                          enter ? &mask[(hi + 1) * w] : nullptr);
              lo += leave;
              hi += enter;
            }
            auto out_ref = sentinel_row<float>(w, -1.0f), out_twin = out_ref;
            ref().c_values_row(histogram.view, row_tables, &image[i * w], &mask[i * w], w, out_ref.data());
            twin().c_values_row(histogram.view, row_tables, &image[i * w], &mask[i * w], w,
                                out_twin.data());
            ASSERT_EQ(0, std::memcmp(out_ref.data(), out_twin.data(), out_ref.size() * sizeof(float)))
                << twin().isa << " c_values_row w " << w << " pad " << pad << " row " << i
                << " mlc " << spec.max_log_contrast;
          }
        }
      }
    }
  }
}

// Quick select and the ordered sum: arrays of mostly zeros (as c-values
// are), all equal, all distinct, few values, with garbage in the slack.
TEST_P(CambiTwin, Pooling) {
  for (int n : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 47, 48, 49, 63, 64, 65, 100, 257, 1000, 4099, 65536}) {
    for (int kind = 0; kind < 6; ++kind) {
      std::vector<float> values(n + 2 * kReadAhead);
      for (auto& v : values) v = static_cast<float>(static_cast<int>(rng_() % 2001) - 1000);  // slack
      for (int i = 0; i < n; ++i) {
        float& v = values[kReadAhead + i];
        switch (kind) {
          case 0: v = rng_() % 5 ? 0.0f : static_cast<float>(rng_() % 100000) / 97.0f; break;
          case 1: v = 3.5f; break;
          case 2: v = static_cast<float>(i) * 0.25f; break;
          case 3: v = static_cast<float>(rng_() % 4); break;
          case 4: v = 0.0f; break;
          default: v = std::ldexp(static_cast<float>(rng_() % 1000), static_cast<int>(rng_() % 40) - 20);
        }
      }
      for (double topk : {0.0001, 0.1, 0.5, 0.6, 0.99, 1.0}) {
        const int k = std::clamp(static_cast<int>(topk * n), 1, n);
        auto ref_values = values, twin_values = values;
        ref().quick_select(ref_values.data() + kReadAhead, n, k);
        twin().quick_select(twin_values.data() + kReadAhead, n, k);
        ASSERT_EQ(0, std::memcmp(ref_values.data(), twin_values.data(), values.size() * sizeof(float)))
            << twin().isa << " quick_select n " << n << " k " << k << " kind " << kind;
        const double sum_ref = ref().ordered_sum(ref_values.data() + kReadAhead, k);
        const double sum_twin = twin().ordered_sum(ref_values.data() + kReadAhead, k);
        ASSERT_EQ(0, std::memcmp(&sum_ref, &sum_twin, sizeof sum_ref))
            << twin().isa << " ordered_sum n " << n << " k " << k << " kind " << kind;
      }
    }
  }
}

// Pictures with banding: steps of one level along a slope, flat areas, noise.
void paint(test::TestPlane& plane, std::mt19937_64& rng, unsigned bpc, int style) {
  const std::uint32_t max = (1u << bpc) - 1;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      std::int64_t v;
      switch (style) {
        case 0: v = ((x * 3 + y * 2) / 23) << (bpc - 8); break;                      // bands
        case 1: v = (((x / 9) + (y / 7)) % 3 + 60) << (bpc - 8); break;              // small steps
        case 2: v = static_cast<std::int64_t>(rng() % (max + 1)); break;             // noise
        default: v = (x + y) % 2 ? max : (rng() % 7 == 0 ? 0 : max);                 // extremes
      }
      if (style < 2 && rng() % 31 == 0) v += static_cast<std::int64_t>(rng() % 3);
      plane.set(x, y, static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, max)));
    }
}

TEST_P(CambiTwin, StageOnPictures) {
  struct Case {
    unsigned w, h;
    cambi::CambiParams params;
  };
  cambi::CambiParams v1;
  v1.high_res_speedup = 1080;
  v1.vis_lum_threshold = 0.06;
  v1.max_val = 17;
  cambi::CambiParams full_ref;
  full_ref.full_ref = true;
  cambi::CambiParams scaled;
  scaled.enc_width = 240, scaled.enc_height = 180;
  scaled.full_ref = true, scaled.src_width = 320, scaled.src_height = 200;
  cambi::CambiParams wide;
  wide.window_size = 127, wide.max_log_contrast = 4, wide.topk = 0.9;
  cambi::CambiParams dithered;
  dithered.enc_bitdepth = 8, dithered.eotf = "pq";
  std::vector<Case> cases = {{216, 48, {}},      {217, 300, full_ref}, {300, 217, scaled},
                             {333, 250, wide},   {401, 216, dithered}, {216, 1, {}},
                             {257, 257, v1},     {640, 360, {}}};
  if (full()) cases.insert(cases.end(), {{1920, 1080, v1}, {1920, 1080, {}}, {1281, 721, full_ref}});
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Case& c : cases)
      for (int style = 0; style < 4; ++style) {
        const PictureFormat format{c.w, c.h, bpc, ChromaFormat::k400};
        const cambi::CambiSetup setup = cambi::resolve_setup(c.params, format);
        cambi::CambiCpuStage scalar_stage(setup, ref()), twin_stage(setup, twin());
        test::TestPlane ref_pic(c.w, c.h, bpc, 5), dis_pic(c.w, c.h, bpc, 2);
        paint(ref_pic, rng_, bpc, style);
        paint(dis_pic, rng_, bpc, (style + 1) % 4);
        const auto expected = run_guarded(ref_pic, dis_pic, 1, [&] {
          return scalar_stage.compute(ref_pic.view(), dis_pic.view(), 0);
        });
        const auto sums = run_guarded(ref_pic, dis_pic, 0x9911, [&] {
          return twin_stage.compute(ref_pic.view(), dis_pic.view(), 0);
        });
        ASSERT_EQ(0, std::memcmp(&expected.dist, &sums.dist, sizeof sums.dist))
            << twin().isa << " " << c.w << "x" << c.h << " bpc " << bpc << " style " << style;
        ASSERT_EQ(0, std::memcmp(&expected.src, &sums.src, sizeof sums.src))
            << twin().isa << " source " << c.w << "x" << c.h << " bpc " << bpc;
      }
}

INSTANTIATE_TEST_SUITE_P(cambi, CambiTwin, isa_values(), isa_param_name);

// --bench: the CPU stage (VMAF v1's options) of one picture with each table.
const BenchRegistration cambi_bench(cpu_bench_twins(
    "cambi", cambi::cambi_dsp_scalar, cambi::cambi_dsp_isa,
    [](const CambiDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      cambi::CambiParams params;
      params.high_res_speedup = 1080;
      params.vis_lum_threshold = 0.06;
      params.max_val = 17;
      const auto setup = std::make_shared<cambi::CambiSetup>(
          cambi::resolve_setup(params, PictureFormat{w, h, bpc, ChromaFormat::k400}));
      auto stage = std::make_shared<cambi::CambiCpuStage>(*setup, dsp);
      auto a = bench_plane(w, h, bpc, false), b = bench_plane(w, h, bpc, true);
      return [=] { stage->compute(a->view(), b->view(), 0); };
    }));

}  // namespace

HARNESS_FEATURE(cambi);
