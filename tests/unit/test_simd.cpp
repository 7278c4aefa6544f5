// checkasm-style tests of the SIMD twins (metrics/common/cpu.h): for every DSP
// routine and every ISA this machine supports, the scalar reference and the
// twin run on the same random inputs and must give identical outputs (==),
// including what they leave outside the columns they own. ISAs the CPU lacks
// (or that this build does not have) are reported as skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/picture.h"
#include "vif/vif.h"
#include "vif/vif_dsp.h"
#include "vif/vif_tables.h"

using namespace vmafexact;
using namespace vmafexact::vif;

namespace {

struct Isa {
  unsigned flag;
  const char* name;
};

std::string isa_name(const testing::TestParamInfo<Isa>& info) { return info.param.name; }
void PrintTo(const Isa& isa, std::ostream* os) { *os << isa.name; }

class SimdTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    const Isa isa = GetParam();
    twin_ = vif_dsp_isa(isa.flag);
    if (!twin_) GTEST_SKIP() << isa.name << ": not built (x86-64 only)";
    if (!(cpu::detected_flags() & isa.flag))
      GTEST_SKIP() << isa.name << ": not supported by this CPU, skipped";
  }
  const VifDsp& ref() const { return vif_dsp_scalar(); }
  const VifDsp& twin() const { return *twin_; }
  const VifDsp* twin_ = nullptr;
  std::mt19937_64 rng_{0x5eed};
};

// Widths: tiny, around every vector width (8, 16 lanes; 2x for the decimation),
// odd, and a large one.
const std::vector<unsigned> kWidths = {1,  2,  3,  5,  7,  8,  9,  15, 16, 17, 23, 24,
                                       31, 32, 33, 47, 48, 63, 64, 65, 100, 127, 129, 1283};

// How the samples are drawn: within bpc, zeros, the maximum, 0/max at random,
// the full container range (samples above 2^bpc - 1 are legal input).
enum class Fill { kRandom, kZero, kMax, kExtremes, kFullRange };
constexpr Fill kFills[] = {Fill::kRandom, Fill::kZero, Fill::kMax, Fill::kExtremes, Fill::kFullRange};

template <typename Sample>
std::vector<Sample> samples(std::mt19937_64& rng, std::size_t n, unsigned bpc, Fill fill) {
  const std::uint32_t max = (1u << bpc) - 1;
  const std::uint32_t container = sizeof(Sample) == 1 ? 255 : 65535;
  std::vector<Sample> v(n);
  for (auto& s : v) {
    const std::uint64_t r = rng();
    switch (fill) {
      case Fill::kRandom: s = static_cast<Sample>(r % (max + 1)); break;
      case Fill::kZero: s = 0; break;
      case Fill::kMax: s = static_cast<Sample>(max); break;
      case Fill::kExtremes: s = static_cast<Sample>((r & 1) ? max : 0); break;
      case Fill::kFullRange: s = static_cast<Sample>(r % (container + 1)); break;
    }
  }
  return v;
}

// fwidth rows of `w` samples plus a guard, as row pointers.
template <typename Sample>
struct Window {
  Window(std::mt19937_64& rng, unsigned fwidth, unsigned w, unsigned bpc, Fill fill) {
    for (unsigned k = 0; k < fwidth; ++k) rows.push_back(samples<Sample>(rng, w + 64, bpc, fill));
    for (auto& r : rows) pointers.push_back(r.data());
  }
  std::vector<std::vector<Sample>> rows;
  std::vector<const Sample*> pointers;
};

// Row buffers with kGuard sentinel entries on each side.
constexpr unsigned kGuard = 24;
struct RowSet {
  explicit RowSet(unsigned w) {
    for (auto& b : buffers) b.assign(w + 2 * kGuard, 0xDEADBEEFu);
  }
  StatRows rows() {
    return {buffers[0].data() + kGuard, buffers[1].data() + kGuard, buffers[2].data() + kGuard,
            buffers[3].data() + kGuard, buffers[4].data() + kGuard};
  }
  bool operator==(const RowSet&) const = default;
  std::vector<std::uint32_t> buffers[5];
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
          const Window<Sample> a(rng, filter.width, w, bpc, fill), b(rng, filter.width, w, bpc, fill);
          RowSet out_ref(w), out_twin(w);
          (ref.*fn)(a.pointers.data(), b.pointers.data(), filter, rounding, w, out_ref.rows());
          (twin.*fn)(a.pointers.data(), b.pointers.data(), filter, rounding, w, out_twin.rows());
          ASSERT_TRUE(out_ref == out_twin)
              << twin.isa << " stat_vertical bpc " << bpc << " scale " << scale << " w " << w
              << " fill " << static_cast<int>(fill);
        }
    }
}

TEST_P(SimdTest, VifStatVertical) {
  check_stat_vertical<std::uint8_t>(ref(), twin(), rng_, &VifDsp::stat_vertical_8, {8});
  check_stat_vertical<std::uint16_t>(ref(), twin(), rng_, &VifDsp::stat_vertical_16, {10, 12, 16});
}

// The 8-bit vertical pass with another rounding (not one libvmaf uses) takes
// the twin's fallback; it must still agree.
TEST_P(SimdTest, VifStatVertical8OtherRounding) {
  const Filter& filter = vif_filter(0);
  for (unsigned w : kWidths) {
    const Window<std::uint8_t> a(rng_, 17, w, 8, Fill::kRandom), b(rng_, 17, w, 8, Fill::kRandom);
    RowSet out_ref(w), out_twin(w);
    const VerticalRounding rounding = rounding_for(1, 16);
    ref().stat_vertical_8(a.pointers.data(), b.pointers.data(), filter, rounding, w, out_ref.rows());
    twin().stat_vertical_8(a.pointers.data(), b.pointers.data(), filter, rounding, w, out_twin.rows());
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
        b[k].push_back(static_cast<std::uint16_t>(
            std::clamp<long>(static_cast<long>(rng() % 4 == 0 ? max - x : x) + noise * (max / 255 + 1), 0, max)));
      }
      pa.push_back(a[k].data());
      pb.push_back(b[k].data());
    }
    vif_dsp_scalar().stat_vertical_16(pa.data(), pb.data(), filter, rounding, w, rows);
  } else {
    for (std::uint32_t* r : {rows.mu1, rows.mu2, rows.xx, rows.yy, rows.xy})
      for (unsigned j = 0; j < w; ++j) {
        const std::uint64_t x = rng();
        switch (fill) {
          case HFill::kRandom32: r[j] = static_cast<std::uint32_t>(x); break;
          case HFill::kMaxima: r[j] = (x & 1) ? 0xFFFFFFFFu : static_cast<std::uint32_t>(x >> 48); break;
          case HFill::kSmall: r[j] = static_cast<std::uint32_t>(x % 70000); break;
          default: break;
        }
      }
  }
  for (std::uint32_t* r : {rows.mu1, rows.mu2, rows.xx, rows.yy, rows.xy})
    for (int f = 1; f <= half; ++f) {  // as pad_mirror, for w > half
      r[-f] = r[std::min(f, static_cast<int>(w) - 1)];
      r[static_cast<int>(w) - 1 + f] = r[std::max(static_cast<int>(w) - 1 - f, 0)];
    }
}

TEST_P(SimdTest, VifStatHorizontal) {
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
                            << " egl " << egl << " fill " << static_cast<int>(fill) << " bpc " << bpc
                            << ": num_log " << a.num_log << " / " << b.num_log << ", den_log "
                            << a.den_log << " / " << b.den_log << ", num_non_log " << a.num_non_log
                            << " / " << b.num_non_log << ", den_non_log " << a.den_non_log << " / "
                            << b.den_non_log;
          }
}

template <typename Sample>
void check_lowpass_vertical(const VifDsp& ref, const VifDsp& twin, std::mt19937_64& rng,
                            LowpassVerticalFn<Sample> VifDsp::*fn, const std::vector<unsigned>& bpcs) {
  for (unsigned bpc : bpcs)
    for (unsigned scale = 0; scale + 1 < kScaleCount; ++scale) {
      if (sizeof(Sample) == 1 && scale > 0) continue;
      const Filter& filter = vif_filter(scale + 1);
      const std::uint32_t round = scale == 0 ? 1u << (bpc - 1) : 32768;
      const unsigned shift = scale == 0 ? bpc : 16;
      for (Fill fill : kFills)
        for (unsigned w : kWidths) {
          const Window<Sample> a(rng, filter.width, w, bpc, fill), b(rng, filter.width, w, bpc, fill);
          RowSet out_ref(w), out_twin(w);
          (ref.*fn)(a.pointers.data(), b.pointers.data(), filter, round, shift, w,
                    out_ref.rows().mu1, out_ref.rows().mu2);
          (twin.*fn)(a.pointers.data(), b.pointers.data(), filter, round, shift, w,
                     out_twin.rows().mu1, out_twin.rows().mu2);
          ASSERT_TRUE(out_ref == out_twin) << twin.isa << " lowpass_vertical bpc " << bpc
                                           << " scale " << scale << " w " << w;
        }
    }
}

TEST_P(SimdTest, VifLowpassVertical) {
  check_lowpass_vertical<std::uint8_t>(ref(), twin(), rng_, &VifDsp::lowpass_vertical_8, {8});
  check_lowpass_vertical<std::uint16_t>(ref(), twin(), rng_, &VifDsp::lowpass_vertical_16, {10, 12, 16});
}

TEST_P(SimdTest, VifLowpassHorizontal) {
  for (unsigned scale = 1; scale < kScaleCount; ++scale)
    for (int full_range = 0; full_range < 2; ++full_range)
      for (unsigned w : kWidths) {
        const Filter& filter = vif_filter(scale);
        std::vector<std::uint32_t> a(w + 2 * kGuard), b(w + 2 * kGuard);
        for (auto* v : {&a, &b})
          for (auto& x : *v) x = full_range ? static_cast<std::uint32_t>(rng_()) : rng_() % 65536;
        const unsigned out_w = w / 2;
        std::vector<std::uint16_t> ra(out_w + kGuard, 0xBEEF), rb = ra, ta = ra, tb = ra;
        ref().lowpass_horizontal(a.data() + kGuard, b.data() + kGuard, filter, out_w, ra.data(), rb.data());
        twin().lowpass_horizontal(a.data() + kGuard, b.data() + kGuard, filter, out_w, ta.data(), tb.data());
        ASSERT_EQ(ra, ta) << twin().isa << " lowpass_horizontal scale " << scale << " w " << w;
        ASSERT_EQ(rb, tb) << twin().isa << " lowpass_horizontal scale " << scale << " w " << w;
      }
}

// The whole per-pixel stage, scalar table against the twin's, on pictures.
TEST_P(SimdTest, VifKernelEndToEnd) {
  struct Size {
    unsigned w, h;
  };
  const Size sizes[] = {{8, 8},   {9, 13},  {15, 8},  {16, 16}, {17, 17}, {33, 31},
                        {64, 40}, {100, 8}, {8, 100}, {131, 67}, {257, 131}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange})
        for (int variant = 0; variant < 3; ++variant) {
          const unsigned bytes = bpc > 8 ? 2 : 1;
          const std::ptrdiff_t stride = (size.w + 3) * bytes;
          std::vector<std::uint8_t> ref_data(stride * size.h), dis_data(stride * size.h);
          const std::uint32_t max = fill == Fill::kFullRange ? (bytes == 1 ? 255 : 65535) : (1u << bpc) - 1;
          for (unsigned y = 0; y < size.h; ++y)
            for (unsigned x = 0; x < size.w; ++x) {
              // Smooth content plus noise, and a distorted copy (noise, inversions).
              std::uint32_t v = (x * 5 + y * 3) * (max / 64 + 1) % (max + 1);
              if (fill != Fill::kRandom || rng_() % 3 == 0) v = static_cast<std::uint32_t>(rng_() % (max + 1));
              if (fill == Fill::kExtremes) v = (rng_() & 1) ? max : 0;
              std::uint32_t d = v;
              if (rng_() % 4 == 0) d = static_cast<std::uint32_t>(rng_() % (max + 1));
              if (variant == 1 && rng_() % 8 == 0) d = max - v;
              if (bytes == 1) {
                ref_data[y * stride + x] = static_cast<std::uint8_t>(v);
                dis_data[y * stride + x] = static_cast<std::uint8_t>(d);
              } else {
                reinterpret_cast<std::uint16_t*>(ref_data.data() + y * stride)[x] = static_cast<std::uint16_t>(v);
                reinterpret_cast<std::uint16_t*>(dis_data.data() + y * stride)[x] = static_cast<std::uint16_t>(d);
              }
            }
          VifParams params;
          if (variant == 1) params.enhn_gain_limit = 1.0;
          if (variant == 2) params.skip_scale0 = true;
          VifKernel scalar_kernel(size.w, size.h, bpc, params, vif_dsp_scalar());
          VifKernel twin_kernel(size.w, size.h, bpc, params, twin());
          const PlaneView ref_plane{ref_data.data(), stride, size.w, size.h};
          const PlaneView dis_plane{dis_data.data(), stride, size.w, size.h};
          for (int frame = 0; frame < 2; ++frame)  // the buffers carry over between frames
            ASSERT_EQ(scalar_kernel.compute(ref_plane, dis_plane), twin_kernel.compute(ref_plane, dis_plane))
                << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
                << static_cast<int>(fill) << " variant " << variant;
        }
}

INSTANTIATE_TEST_SUITE_P(Isa, SimdTest,
                         testing::Values(Isa{cpu::kAvx2, "avx2"}, Isa{cpu::kAvx512, "avx512"}),
                         isa_name);

TEST(CpuMask, MaskSelectsTheTable) {
  const unsigned saved = cpu::set_cpu_mask(0);
  EXPECT_EQ(cpu::flags(), 0u);
  EXPECT_STREQ(vif_dsp(cpu::flags()).isa, "scalar");
  VifKernel kernel(16, 16, 8, VifParams{});
  EXPECT_STREQ(kernel.dsp().isa, "scalar");
  cpu::set_cpu_mask(cpu::kAllFlags);
  EXPECT_EQ(cpu::flags(), cpu::detected_flags());
  EXPECT_STREQ(vif_dsp(cpu::flags()).isa, cpu::best_isa_name(cpu::detected_flags()));
  cpu::set_cpu_mask(cpu::kAvx2);
  EXPECT_EQ(cpu::flags() & cpu::kAvx512, 0u);
  cpu::set_cpu_mask(saved);
  std::printf("[ cpu      ] detected: %s; mask 0x%x; VIF runs: %s\n",
              cpu::best_isa_name(cpu::detected_flags()), cpu::cpu_mask(), vif_dsp(cpu::flags()).isa);
}

}  // namespace
