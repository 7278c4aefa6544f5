// The twins of integer VIF ("vif") against the scalar reference: the row
// routines of every SIMD table (metrics/vif/vif_dsp.h) and the whole CPU stage
// with each table. (The CUDA twin: check_vif_cuda.cpp.)
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
#include "sizes_and_frames.h"
#include "vif/vif.h"
#include "vif/vif_dsp.h"
#include "vif/vif_tables.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using namespace vmafexact::vif;

namespace {

HARNESS_DSP_FIXTURE(VifTwin, VifDsp, vif_dsp_scalar, vif_dsp_isa, 0x5eed);

struct RowSet {
  explicit RowSet(unsigned w) {
    for (auto& b : buffers) b.assign(w + 2 * kGuard, static_cast<std::int16_t>(0xBEEF));
  }
  StatRows rows() {
    auto row = [&](unsigned r) { return buffers[r].data() + kGuard; };
    return {row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)};
  }
  bool operator==(const RowSet&) const = default;
  std::vector<std::int16_t> buffers[StatRows::kCount];
};

// libvmaf's vertical roundings of the statistic: scale 0 at each depth, or above.
VerticalRounding rounding_for(unsigned scale, unsigned bpc) {
  VerticalRounding r;
  if (scale == 0) {
    r.shift_mu = bpc;
    r.round_mu = 1u << (bpc - 1);
    r.shift_sq = 2 * (bpc - 8);
    r.round_sq = r.shift_sq == 0 ? 0 : 1ull << (r.shift_sq - 1);
  } else {
    r.shift_mu = r.shift_sq = 16;
    r.round_mu = 32768;
    r.round_sq = 32768;
  }
  return r;
}

template <typename Sample>
void check_stat_vertical(const VifDsp& ref, const VifDsp& twin, std::mt19937_64& rng,
                         StatVerticalFn<Sample> VifDsp::*fn, const std::vector<unsigned>& bpcs) {
  for (unsigned bpc : bpcs)
    for (unsigned scale = 0; scale < kScaleCount; ++scale) {
      if (sizeof(Sample) == 1 && scale > 0) continue;  // scales 1-3 are 16-bit
      const Filter& filter = vif_filter(scale);
      const VerticalRounding rounding = rounding_for(scale, bpc);
      for (Fill fill : kFills)
        for (unsigned w : kWidths) {
          const Window<Sample> a(rng, filter.width, w, bpc, fill),
              b(rng, filter.width, w, bpc, fill);
          RowSet out_ref(w), out_twin(w);
          (ref.*fn)(a.pointers.data(), b.pointers.data(), filter, rounding, w, out_ref.rows());
          (twin.*fn)(a.pointers.data(), b.pointers.data(), filter, rounding, w, out_twin.rows());
          ASSERT_TRUE(out_ref == out_twin)
              << twin.isa << " stat_vertical bpc " << bpc << " scale " << scale << " w " << w
              << " fill " << static_cast<int>(fill);
        }
    }
}

TEST_P(VifTwin, StatVertical) {
  check_stat_vertical<std::uint8_t>(ref(), twin(), rng_, &VifDsp::stat_vertical_8, {8});
  check_stat_vertical<std::uint16_t>(ref(), twin(), rng_, &VifDsp::stat_vertical_16, {10, 12, 16});
}

// The 8-bit vertical pass kStatBlock rows at a time, against the reference's
// rows one by one: libvmaf's 8-bit rounding with the 17-tap filter (the twins'
// paired path), over windows of distinct rows and of mirrored ones (the top of
// a picture, where window rows repeat), and the fallbacks (the other filters,
// another rounding); each without and with the decimation's low-pass rows
// (the 9-tap filter the twins fuse, and the 5-tap one they do not).
TEST_P(VifTwin, StatVertical8Block) {
  struct Case {
    unsigned scale;
    VerticalRounding rounding;
  };
  const std::vector<Case> cases = {{0, rounding_for(0, 8)},
                                   {1, rounding_for(0, 8)},
                                   {3, rounding_for(0, 8)},
                                   {0, rounding_for(1, 16)}};
  for (const Case& c : cases)
    for (int lowpass_scale : {-1, 1, 2}) {
      const Filter& filter = vif_filter(c.scale);
      if (lowpass_scale >= 0 && vif_filter(lowpass_scale).half() > filter.half()) continue;
      const unsigned rows = filter.width + kStatBlock - 1;
      for (bool mirrored : {false, true})
        for (Fill fill : kFills)
          for (unsigned w : kWidths) {
            const Window<std::uint8_t> a(rng_, rows, w, 8, fill), b(rng_, rows, w, 8, fill);
            std::vector<const std::uint8_t*> ref_rows = a.pointers, dis_rows = b.pointers;
            if (mirrored)  // picture rows 0, 1, 2, ... with the rows above mirrored
              for (unsigned k = 0; k < rows; ++k) {
                const int row = static_cast<int>(k) - static_cast<int>(filter.half());
                ref_rows[k] = a.pointers[static_cast<unsigned>(std::abs(row))];
                dis_rows[k] = b.pointers[static_cast<unsigned>(std::abs(row))];
              }
            std::vector<RowSet> out_ref(kStatBlock, RowSet(w)), out_twin(kStatBlock, RowSet(w));
            std::vector<StatRows> ref_out, twin_out;
            for (unsigned n = 0; n < kStatBlock; ++n) {
              ref_out.push_back(out_ref[n].rows());
              twin_out.push_back(out_twin[n].rows());
            }
            // Low-pass rows 0 and 2, both pictures: [m][picture].
            using LowRow = std::vector<std::int16_t>;
            const LowRow guard(w + 2 * kGuard, static_cast<std::int16_t>(0xBEEF));
            LowRow low_ref[2][2] = {{guard, guard}, {guard, guard}};
            LowRow low_twin[2][2] = {{guard, guard}, {guard, guard}};
            const auto lowpass_of = [&](LowRow(&out)[2][2]) {
              return LowpassRows{&vif_filter(static_cast<unsigned>(std::max(lowpass_scale, 0))),
                                 128,
                                 8,
                                 {out[0][0].data() + kGuard, out[1][0].data() + kGuard},
                                 {out[0][1].data() + kGuard, out[1][1].data() + kGuard}};
            };
            const LowpassRows lowpass_ref = lowpass_of(low_ref),
                              lowpass_twin = lowpass_of(low_twin);
            const bool with_lowpass = lowpass_scale >= 0;
            ref().stat_vertical_8_block(ref_rows.data(), dis_rows.data(), filter, c.rounding, w,
                                        ref_out.data(), with_lowpass ? &lowpass_ref : nullptr);
            twin().stat_vertical_8_block(ref_rows.data(), dis_rows.data(), filter, c.rounding, w,
                                         twin_out.data(), with_lowpass ? &lowpass_twin : nullptr);
            const std::string where =
                std::string(twin().isa) + " stat_vertical_8_block scale " +
                std::to_string(c.scale) + " shift_mu " + std::to_string(c.rounding.shift_mu) +
                " lowpass scale " + std::to_string(lowpass_scale) + " w " + std::to_string(w) +
                " fill " + std::to_string(static_cast<int>(fill)) + (mirrored ? " mirrored" : "");
            for (unsigned n = 0; n < kStatBlock; ++n)
              ASSERT_TRUE(out_ref[n] == out_twin[n]) << where << ": row " << n;
            for (unsigned m = 0; m < 2; ++m)
              for (unsigned picture = 0; picture < 2; ++picture)
                ASSERT_EQ(low_ref[m][picture], low_twin[m][picture])
                    << where << ": low-pass row " << 2 * m << " picture " << picture;
            // The reference block is the one-row routines, row after row.
            for (unsigned n = 0; n < kStatBlock; ++n) {
              RowSet single(w);
              ref().stat_vertical_8(ref_rows.data() + n, dis_rows.data() + n, filter, c.rounding, w,
                                    single.rows());
              ASSERT_TRUE(single == out_ref[n]) << "scalar block row " << n << " w " << w;
            }
            if (!with_lowpass) continue;
            const unsigned offset = filter.half() - lowpass_ref.filter->half();
            for (unsigned m = 0; m < 2; ++m) {
              LowRow r = guard, d = guard;
              ref().lowpass_vertical_8(ref_rows.data() + offset + 2 * m,
                                       dis_rows.data() + offset + 2 * m, *lowpass_ref.filter, 128,
                                       8, w, r.data() + kGuard, d.data() + kGuard);
              ASSERT_TRUE(r == low_ref[m][0] && d == low_ref[m][1])
                  << "scalar block low-pass row " << 2 * m << " w " << w;
            }
          }
    }
}

// The 8-bit vertical pass with another rounding (not one libvmaf uses) takes
// the twin's fallback; it must still agree.
TEST_P(VifTwin, StatVertical8OtherRounding) {
  const Filter& filter = vif_filter(0);
  for (unsigned w : kWidths) {
    const Window<std::uint8_t> a(rng_, 17, w, 8, Fill::kRandom), b(rng_, 17, w, 8, Fill::kRandom);
    RowSet out_ref(w), out_twin(w);
    const VerticalRounding rounding = rounding_for(1, 16);
    ref().stat_vertical_8(a.pointers.data(), b.pointers.data(), filter, rounding, w,
                          out_ref.rows());
    twin().stat_vertical_8(a.pointers.data(), b.pointers.data(), filter, rounding, w,
                           out_twin.rows());
    ASSERT_TRUE(out_ref == out_twin) << "w " << w;
  }
}

// Five mirrored rows as the horizontal pass reads them.
struct HorizontalInput {
  HorizontalInput(unsigned w) : set(w) {}
  RowSet set;
};

enum class HFill { kFromPictures, kRandom32, kMaxima, kSmall };

void fill_horizontal(std::mt19937_64& rng, RowSet& set, unsigned w, unsigned scale, HFill fill,
                     unsigned bpc) {
  StatRows rows = set.rows();
  const Filter& filter = vif_filter(scale);
  const int half = static_cast<int>(filter.half());
  if (fill == HFill::kFromPictures) {
    // The vertical pass of a picture pair with a correlated distortion, as in VIF.
    const VerticalRounding rounding = rounding_for(scale, scale == 0 ? bpc : 16);
    const unsigned sample_bits = scale == 0 ? bpc : 16;
    const std::uint32_t max = (1u << sample_bits) - 1;
    std::vector<std::vector<std::uint16_t>> a(filter.width), b(filter.width);
    std::vector<const std::uint16_t*> pa, pb;
    const std::uint32_t base = static_cast<std::uint32_t>(rng() % (max + 1));
    const std::uint32_t spread = static_cast<std::uint32_t>(rng() % (max + 1)) + 1;
    for (unsigned k = 0; k < filter.width; ++k) {
      for (unsigned j = 0; j < w + 64; ++j) {
        const std::uint32_t x = static_cast<std::uint32_t>((base + rng() % spread) % (max + 1));
        const int noise = static_cast<int>(rng() % 33) - 16;
        a[k].push_back(static_cast<std::uint16_t>(x));
        b[k].push_back(static_cast<std::uint16_t>(std::clamp<long>(
            static_cast<long>(rng() % 4 == 0 ? max - x : x) + noise * (max / 255 + 1), 0, max)));
      }
      pa.push_back(a[k].data());
      pb.push_back(b[k].data());
    }
    vif_dsp_scalar().stat_vertical_16(pa.data(), pb.data(), filter, rounding, w, rows);
  } else {
    auto value = [&]() -> std::uint32_t {
      const std::uint64_t x = rng();
      switch (fill) {
        case HFill::kRandom32:
          return static_cast<std::uint32_t>(x);
        case HFill::kMaxima:
          return (x & 1) ? 0xFFFFFFFFu : static_cast<std::uint32_t>(x >> 48);
        case HFill::kSmall:
          return static_cast<std::uint32_t>(x % 70000);
        default:
          return 0;
      }
    };
    for (unsigned j = 0; j < w; ++j) {
      rows.mu1[j] = biased(value() & 0xFFFF);  // means are 16-bit
      rows.mu2[j] = biased(value() & 0xFFFF);
      store_split(rows.xx_lo, rows.xx_hi, j, value());  // as the vertical pass stores them
      store_split(rows.yy_lo, rows.yy_hi, j, value());
      store_split(rows.xy_lo, rows.xy_hi, j, value());
    }
  }
  for (std::int16_t* r : rows.all())
    for (int f = 1; f <= half; ++f) {  // as pad_mirror, for w > half
      r[-f] = r[std::min(f, static_cast<int>(w) - 1)];
      r[static_cast<int>(w) - 1 + f] = r[std::max(static_cast<int>(w) - 1 - f, 0)];
    }
}

TEST_P(VifTwin, StatHorizontal) {
  const std::uint16_t* table = log2_table().data();
  for (unsigned scale = 0; scale < kScaleCount; ++scale)
    for (HFill fill : {HFill::kFromPictures, HFill::kRandom32, HFill::kMaxima, HFill::kSmall})
      for (double egl : {100.0, 1.0, 1.5, 37.25})
        for (unsigned bpc : {8u, 10u, 16u})
          for (unsigned w : kWidths) {
            if (fill != HFill::kFromPictures && bpc != 8) continue;
            RowSet in(w);
            fill_horizontal(rng_, in, w, scale, fill, bpc);
            ScaleSums a, b;
            a.num_log = b.num_log = 7;  // sums are added to, not replaced
            ref().stat_horizontal(in.rows(), vif_filter(scale), w, table, egl, a);
            twin().stat_horizontal(in.rows(), vif_filter(scale), w, table, egl, b);
            ASSERT_EQ(a, b) << twin().isa << " stat_horizontal scale " << scale << " w " << w
                            << " egl " << egl << " fill " << static_cast<int>(fill) << " bpc "
                            << bpc << ": num_log " << a.num_log << " / " << b.num_log
                            << ", den_log " << a.den_log << " / " << b.den_log << ", num_non_log "
                            << a.num_non_log << " / " << b.num_non_log << ", den_non_log "
                            << a.den_non_log << " / " << b.den_non_log;
          }
}

template <typename Sample>
void check_lowpass_vertical(const VifDsp& ref, const VifDsp& twin, std::mt19937_64& rng,
                            LowpassVerticalFn<Sample> VifDsp::*fn,
                            const std::vector<unsigned>& bpcs) {
  for (unsigned bpc : bpcs)
    for (unsigned scale = 0; scale + 1 < kScaleCount; ++scale) {
      if (sizeof(Sample) == 1 && scale > 0) continue;
      const Filter& filter = vif_filter(scale + 1);
      const std::uint32_t round = scale == 0 ? 1u << (bpc - 1) : 32768;
      const unsigned shift = scale == 0 ? bpc : 16;
      for (Fill fill : kFills)
        for (unsigned w : kWidths) {
          const Window<Sample> a(rng, filter.width, w, bpc, fill),
              b(rng, filter.width, w, bpc, fill);
          std::vector<std::int16_t> ref_a(w + 2 * kGuard, static_cast<std::int16_t>(0xBEEF)),
              ref_b = ref_a, twin_a = ref_a, twin_b = ref_a;
          (ref.*fn)(a.pointers.data(), b.pointers.data(), filter, round, shift, w,
                    ref_a.data() + kGuard, ref_b.data() + kGuard);
          (twin.*fn)(a.pointers.data(), b.pointers.data(), filter, round, shift, w,
                     twin_a.data() + kGuard, twin_b.data() + kGuard);
          ASSERT_TRUE(ref_a == twin_a && ref_b == twin_b)
              << twin.isa << " lowpass_vertical bpc " << bpc << " scale " << scale << " w " << w;
        }
    }
}

TEST_P(VifTwin, LowpassVertical) {
  check_lowpass_vertical<std::uint8_t>(ref(), twin(), rng_, &VifDsp::lowpass_vertical_8, {8});
  check_lowpass_vertical<std::uint16_t>(ref(), twin(), rng_, &VifDsp::lowpass_vertical_16,
                                        {10, 12, 16});
}

// Biased rows of random 16-bit values, of maxima (65535: the largest sums) and
// of zeros, at every filter the decimation uses (the 9- and 5-tap ones in
// int16 pairs, the 3-tap one with its tap of 43690 in 32-bit lanes).
TEST_P(VifTwin, LowpassHorizontal) {
  for (unsigned scale = 1; scale < kScaleCount; ++scale)
    for (int fill = 0; fill < 3; ++fill)
      for (unsigned w : kWidths) {
        const Filter& filter = vif_filter(scale);
        std::vector<std::int16_t> a(w + 2 * kGuard), b(w + 2 * kGuard);
        for (auto* v : {&a, &b})
          for (auto& x : *v)
            x = biased(fill == 0   ? static_cast<std::uint32_t>(rng_() % 65536)
                       : fill == 1 ? 65535u
                                   : 0u);
        const unsigned out_w = w / 2;
        std::vector<std::uint16_t> ra(out_w + kGuard, 0xBEEF), rb = ra, ta = ra, tb = ra;
        ref().lowpass_horizontal(a.data() + kGuard, b.data() + kGuard, filter, out_w, ra.data(),
                                 rb.data());
        twin().lowpass_horizontal(a.data() + kGuard, b.data() + kGuard, filter, out_w, ta.data(),
                                  tb.data());
        ASSERT_EQ(ra, ta) << twin().isa << " lowpass_horizontal scale " << scale << " w " << w;
        ASSERT_EQ(rb, tb) << twin().isa << " lowpass_horizontal scale " << scale << " w " << w;
      }
}

// The whole per-pixel stage, scalar table against the twin's, on pictures.
TEST_P(VifTwin, StageEndToEnd) {
  const std::vector<Size> sizes = sizes_with_full({{8, 8},
                                                   {9, 13},
                                                   {15, 8},
                                                   {16, 16},
                                                   {17, 17},
                                                   {33, 31},
                                                   {64, 40},
                                                   {100, 8},
                                                   {8, 100},
                                                   {131, 67},
                                                   {257, 131}},
                                                  {{1920, 1080}, {1277, 719}});
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange})
        for (int variant = 0; variant < 3; ++variant) {
          test::TestPlane ref_pic(size.w, size.h, bpc, 3), dis_pic(size.w, size.h, bpc, 5);
          // Smooth content plus noise, and a distorted copy (noise, inversions).
          paint_noisy_copy(ref_pic, dis_pic, fill, variant == 1, rng_,
                           [](unsigned x, unsigned y, std::uint32_t max) -> std::uint32_t {
                             return (x * 5 + y * 3) * (max / 64 + 1) % (max + 1);
                           });
          VifParams params;
          if (variant == 1) params.enhn_gain_limit = 1.0;
          if (variant == 2) params.skip_scale0 = true;
          // The stages of the contract (FeatureStage), with the scalar table and the twin's.
          VifCpuStage scalar_kernel(size.w, size.h, bpc, params, vif_dsp_scalar());
          VifCpuStage twin_kernel(size.w, size.h, bpc, params, twin());
          for (unsigned frame = 0; frame < 2; ++frame) {  // the buffers carry over between frames
            const auto expected = run_guarded(ref_pic, dis_pic, 1 + frame, [&] {
              return scalar_kernel.compute(ref_pic.view(), dis_pic.view(), frame);
            });
            const auto sums = run_guarded(ref_pic, dis_pic, 0x7700 + frame, [&] {
              return twin_kernel.compute(ref_pic.view(), dis_pic.view(), frame);
            });
            ASSERT_EQ(expected, sums)
                << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
                << static_cast<int>(fill) << " variant " << variant;
          }
        }
}

INSTANTIATE_TEST_SUITE_P(vif, VifTwin, isa_values(), isa_param_name);

// --bench: the CPU stage (motion: motion_sad) of one luma plane with each table.
const BenchRegistration vif_bench(cpu_bench_twins(
    "vif", vif_dsp_scalar, vif_dsp_isa,
    [](const VifDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      auto ref = bench_plane(w, h, bpc, false), dist = bench_plane(w, h, bpc, true);
      auto stage = std::make_shared<VifCpuStage>(w, h, bpc, VifParams{}, dsp);
      return [=] { stage->compute(ref->view(), dist->view(), 0); };
    }));

}  // namespace

HARNESS_FEATURE(vif);
