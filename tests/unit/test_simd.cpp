// checkasm-style tests of the SIMD twins (metrics/common/cpu.h): for every DSP
// routine and every ISA this machine supports, the scalar reference and the
// twin run on the same random inputs and must give identical outputs (==),
// including what they leave outside the columns they own. ISAs the CPU lacks
// (or that this build does not have) are reported as skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "adm/adm.h"
#include "adm/adm_dsp.h"
#include "common/cpu.h"
#include "common/picture.h"
#include "motion/motion.h"
#include "motion/motion_dsp.h"
#include "motion/motion_pixel.h"
#include "psnr/psnr.h"
#include "psnr/psnr_dsp.h"
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
          VifCpuStage scalar_kernel(size.w, size.h, bpc, params, vif_dsp_scalar());
          VifCpuStage twin_kernel(size.w, size.h, bpc, params, twin());
          const PlaneView ref_plane{ref_data.data(), stride, size.w, size.h};
          const PlaneView dis_plane{dis_data.data(), stride, size.w, size.h};
          for (int frame = 0; frame < 2; ++frame)  // the buffers carry over between frames
            ASSERT_EQ(scalar_kernel.compute(ref_plane, dis_plane), twin_kernel.compute(ref_plane, dis_plane))
                << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
                << static_cast<int>(fill) << " variant " << variant;
        }
}

// ---------------------------------------------------------------------------
// ADM (metrics/adm/adm_dsp.h)

class AdmSimdTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    const Isa isa = GetParam();
    twin_ = adm::adm_dsp_isa(isa.flag);
    if (!twin_) GTEST_SKIP() << isa.name << ": not built (x86-64 only)";
    if (!(cpu::detected_flags() & isa.flag))
      GTEST_SKIP() << isa.name << ": not supported by this CPU, skipped";
  }
  const adm::AdmDsp& ref() const { return adm::adm_dsp_scalar(); }
  const adm::AdmDsp& twin() const { return *twin_; }
  const adm::AdmDsp* twin_ = nullptr;
  std::mt19937_64 rng_{0xad3};
};

// Band widths of the DWT's horizontal pass and the masking stage (>= 5, as at
// ADM's coarsest scale): around every vector width and its double, odd, large.
const std::vector<int> kBandWidths = {5,  6,  7,  8,  9,  15,  16,  17,  18,  19,
                                      23, 24, 31, 32, 33, 34,  35,  47,  48,  49,
                                      63, 64, 65, 66, 67, 100, 127, 129, 1283};

// Values of a band: uniformly over `bits` bits (signed), zeros, the extremes of
// int16 / int32, or small values near zero.
enum class BandFill { kRandom, kZero, kExtremes, kSmall };
constexpr BandFill kBandFills[] = {BandFill::kRandom, BandFill::kZero, BandFill::kExtremes,
                                   BandFill::kSmall};

template <typename T>
std::vector<T> band_values(std::mt19937_64& rng, std::size_t n, BandFill fill,
                           int bits = 8 * sizeof(T)) {
  std::vector<T> v(n);
  const std::int64_t lo = -(std::int64_t{1} << (bits - 1)),
                     hi = (std::int64_t{1} << (bits - 1)) - 1;
  for (auto& x : v) {
    const std::uint64_t r = rng();
    std::int64_t value = 0;
    switch (fill) {
      case BandFill::kRandom:
        value = lo + static_cast<std::int64_t>(r % static_cast<std::uint64_t>(hi - lo + 1));
        break;
      case BandFill::kZero:
        value = 0;
        break;
      case BandFill::kExtremes:
        value = (r & 3) == 0 ? lo : (r & 3) == 1 ? hi : (r & 3) == 2 ? 0 : -1;
        break;
      case BandFill::kSmall:
        value = static_cast<std::int64_t>(r % 201) - 100;
        break;
    }
    x = static_cast<T>(value);
  }
  return v;
}

template <typename Sample>
void check_dwt0_vertical(const adm::AdmDsp& ref, const adm::AdmDsp& twin, std::mt19937_64& rng,
                         adm::Dwt0VerticalFn<Sample> adm::AdmDsp::*fn,
                         const std::vector<unsigned>& bpcs) {
  for (unsigned bpc : bpcs)
    for (Fill fill : kFills)
      for (unsigned w : kWidths) {
        const Window<Sample> window(rng, 4, w, bpc, fill);
        std::vector<std::int32_t> lo_ref(w + kGuard, 0x5A5A5A5A), hi_ref = lo_ref, lo_twin = lo_ref,
                                                                  hi_twin = lo_ref;
        (ref.*fn)(window.pointers.data(), bpc, static_cast<int>(w), lo_ref.data(), hi_ref.data());
        (twin.*fn)(window.pointers.data(), bpc, static_cast<int>(w), lo_twin.data(),
                   hi_twin.data());
        ASSERT_EQ(lo_ref, lo_twin) << twin.isa << " dwt0_vertical bpc " << bpc << " w " << w;
        ASSERT_EQ(hi_ref, hi_twin) << twin.isa << " dwt0_vertical bpc " << bpc << " w " << w;
      }
}

TEST_P(AdmSimdTest, AdmDwt0Vertical) {
  check_dwt0_vertical<std::uint8_t>(ref(), twin(), rng_, &adm::AdmDsp::dwt0_vertical_8, {8});
  check_dwt0_vertical<std::uint16_t>(ref(), twin(), rng_, &adm::AdmDsp::dwt0_vertical_16,
                                     {9, 10, 12, 14, 16});
}

TEST_P(AdmSimdTest, AdmDwt0Horizontal) {
  for (BandFill fill : kBandFills)
    for (int lowpass_only = 0; lowpass_only < 2; ++lowpass_only)
      for (int w : kBandWidths) {
        // The vertical pass's results are int16 values.
        std::vector<std::int32_t> lo(w), hi(w);
        for (auto* v : {&lo, &hi}) {
          const auto values = band_values<std::int16_t>(rng_, w, fill);
          std::copy(values.begin(), values.end(), v->begin());
        }
        const int out_w = (w + 1) / 2;
        std::vector<std::vector<std::int16_t>> r(4,
                                                 std::vector<std::int16_t>(out_w + kGuard, 0x5A5A)),
            t = r;
        const auto run = [&](const adm::AdmDsp& dsp, std::vector<std::vector<std::int16_t>>& out) {
          if (lowpass_only)
            dsp.dwt0_horizontal(lo.data(), hi.data(), w, out[0].data(), nullptr, nullptr, nullptr);
          else
            dsp.dwt0_horizontal(lo.data(), hi.data(), w, out[0].data(), out[1].data(),
                                out[2].data(), out[3].data());
        };
        run(ref(), r);
        run(twin(), t);
        ASSERT_EQ(r, t) << twin().isa << " dwt0_horizontal w " << w << " fill "
                        << static_cast<int>(fill);
      }
}

TEST_P(AdmSimdTest, AdmDwtnVertical) {
  for (int scale = 1; scale < 4; ++scale)
    for (BandFill fill : kBandFills)
      for (int bits : {16, 20, 32})
        for (unsigned w : kWidths) {
          std::vector<std::vector<std::int32_t>> rows;
          std::vector<const std::int32_t*> pointers;
          for (int k = 0; k < 4; ++k)
            rows.push_back(band_values<std::int32_t>(rng_, w + 64, fill, bits));
          for (auto& row : rows) pointers.push_back(row.data());
          std::vector<std::int32_t> lo_ref(w + kGuard, 0x5A5A5A5A),
              hi_ref = lo_ref, lo_twin = lo_ref, hi_twin = lo_ref;
          ref().dwtn_vertical(pointers.data(), scale, static_cast<int>(w), lo_ref.data(),
                              hi_ref.data());
          twin().dwtn_vertical(pointers.data(), scale, static_cast<int>(w), lo_twin.data(),
                               hi_twin.data());
          ASSERT_EQ(lo_ref, lo_twin)
              << twin().isa << " dwtn_vertical scale " << scale << " w " << w;
          ASSERT_EQ(hi_ref, hi_twin)
              << twin().isa << " dwtn_vertical scale " << scale << " w " << w;
        }
}

TEST_P(AdmSimdTest, AdmDwtnHorizontal) {
  for (int scale = 1; scale < 4; ++scale)
    for (BandFill fill : kBandFills)
      for (int bits : {16, 20, 32})
        for (int w : kBandWidths) {
          const auto lo = band_values<std::int32_t>(rng_, w, fill, bits);
          const auto hi = band_values<std::int32_t>(rng_, w, fill, bits);
          const int out_w = (w + 1) / 2;
          std::vector<std::vector<std::int32_t>> r(
              4, std::vector<std::int32_t>(out_w + kGuard, 0x5A5A5A5A)),
              t = r;
          ref().dwtn_horizontal(lo.data(), hi.data(), scale, w, r[0].data(), r[1].data(),
                                r[2].data(), r[3].data());
          twin().dwtn_horizontal(lo.data(), hi.data(), scale, w, t[0].data(), t[1].data(),
                                 t[2].data(), t[3].data());
          ASSERT_EQ(r, t) << twin().isa << " dwtn_horizontal scale " << scale << " w " << w
                          << " bits " << bits << " fill " << static_cast<int>(fill);
        }
}

// Runs `fn` on columns [begin, end) for begin/end near both edges and inside.
template <typename Body>
void for_column_ranges(int w, Body body) {
  const int border = static_cast<int>(w * 0.1 - 0.5);
  for (auto [begin, end] : {std::pair{0, w},
                            {border, w - border},
                            {1, w - 1},
                            {std::min(3, w), w},
                            {0, std::max(w - 2, 0)}})
    if (begin <= end) body(begin, end);
}

// The decoupling: distorted bands independent of the reference, scaled copies
// of it (the angle test passes, k within or beyond 1) and copies with a few
// values changed, with gain limits around 1 and libvmaf's 100.
TEST_P(AdmSimdTest, AdmDecouple) {
  for (BandFill fill : kBandFills)
    for (int relation = 0; relation < 5; ++relation)
      for (double egl : {100.0, 1.0, 1.5, 0.5})
        for (int w : kBandWidths)
          for_column_ranges(w, [&](int begin, int end) {
            std::vector<std::int16_t> ref_bands[3], dist_bands[3];
            for (int theta = 0; theta < 3; ++theta) {
              ref_bands[theta] = band_values<std::int16_t>(rng_, w, fill);
              dist_bands[theta] = band_values<std::int16_t>(rng_, w, fill);
              if (relation == 0) continue;
              if (relation == 4 && theta < 2) continue;  // below
              const double factor = relation == 1 ? 0.75 : relation == 2 ? 1.25 : 1.0;
              for (int j = 0; j < w; ++j) {
                const double scaled =
                    ref_bands[theta][j] * factor + static_cast<int>(rng_() % 3) - 1;
                dist_bands[theta][j] =
                    static_cast<std::int16_t>(std::clamp(scaled, -32768.0, 32767.0));
                if (relation == 3 && rng_() % 5 == 0)
                  dist_bands[theta][j] = static_cast<std::int16_t>(rng_());
              }
            }
            // (h, v) of the distorted picture turned by about 1 degree from the
            // reference's, where the float rounding of the angle test decides.
            if (relation == 4)
              for (int j = 0; j < w; ++j) {
                const double angle = std::atan2(ref_bands[1][j], ref_bands[0][j]) +
                                     (0.98 + 0.04 * static_cast<double>(rng_() % 1001) / 1000.0) *
                                         (rng_() & 1 ? 1 : -1) * 3.14159265358979323846 / 180.0;
                const double radius = std::hypot(ref_bands[0][j], ref_bands[1][j]) *
                                      (0.5 + static_cast<double>(rng_() % 100) / 100.0);
                dist_bands[0][j] = static_cast<std::int16_t>(
                    std::clamp(std::lround(radius * std::cos(angle)), -32768L, 32767L));
                dist_bands[1][j] = static_cast<std::int16_t>(
                    std::clamp(std::lround(radius * std::sin(angle)), -32768L, 32767L));
              }
            std::vector<std::vector<std::int16_t>> out_ref(
                6, std::vector<std::int16_t>(w + kGuard, 0x5A5A)),
                out_twin = out_ref;
            const auto run = [&](const adm::AdmDsp& dsp,
                                 std::vector<std::vector<std::int16_t>>& out) {
              adm::DecoupleRows<std::int16_t> rows{};
              for (int theta = 0; theta < 3; ++theta) {
                rows.ref[theta] = ref_bands[theta].data();
                rows.dist[theta] = dist_bands[theta].data();
                rows.restored[theta] = out[theta].data();
                rows.additive[theta] = out[3 + theta].data();
              }
              dsp.decouple_0(rows, begin, end, egl);
            };
            run(ref(), out_ref);
            run(twin(), out_twin);
            ASSERT_EQ(out_ref, out_twin)
                << twin().isa << " decouple_0 w " << w << " [" << begin << ", " << end << ") fill "
                << static_cast<int>(fill) << " relation " << relation << " egl " << egl;
          });
}

// Every division-table entry the decouplings read: each reference value of
// scale 0 (int16) and of scales 1..3 up to 2^17 (the 15 leading bits, rounded,
// reach 32768), with distorted values near and far from it.
template <typename Band>
void check_every_divisor(const adm::AdmDsp& ref_dsp, const adm::AdmDsp& twin_dsp,
                         std::mt19937_64& rng, std::int32_t lo, std::int32_t hi) {
  const int w = static_cast<int>(hi - lo + 1);
  std::vector<Band> ref_bands[3], dist_bands[3];
  for (int theta = 0; theta < 3; ++theta) {
    ref_bands[theta].resize(w);
    dist_bands[theta].resize(w);
    for (int j = 0; j < w; ++j) {
      // Each theta walks the values from its own offset, so all three see all.
      const std::int32_t o = lo + (j + theta * 7919) % w;
      ref_bands[theta][j] = static_cast<Band>(o);
      const std::int64_t t = rng() % 3 == 0 ? static_cast<std::int64_t>(rng() % 65536) - 32768
                                            : o * 3 / 4 + static_cast<int>(rng() % 5) - 2;
      dist_bands[theta][j] = static_cast<Band>(std::clamp<std::int64_t>(t, -32768, 32767));
    }
  }
  std::vector<std::vector<Band>> out_ref(6, std::vector<Band>(w)), out_twin = out_ref;
  const auto run = [&](const adm::AdmDsp& dsp, std::vector<std::vector<Band>>& out) {
    adm::DecoupleRows<Band> rows{};
    for (int theta = 0; theta < 3; ++theta) {
      rows.ref[theta] = ref_bands[theta].data();
      rows.dist[theta] = dist_bands[theta].data();
      rows.restored[theta] = out[theta].data();
      rows.additive[theta] = out[3 + theta].data();
    }
    if constexpr (sizeof(Band) == 2)
      dsp.decouple_0(rows, 0, w, 100.0);
    else
      dsp.decouple_n(rows, 0, w, 100.0);
  };
  run(ref_dsp, out_ref);
  run(twin_dsp, out_twin);
  ASSERT_EQ(out_ref, out_twin) << twin_dsp.isa << " decouple, band of " << sizeof(Band) << " bytes";
}

TEST_P(AdmSimdTest, AdmDecoupleEveryDivisor) {
  check_every_divisor<std::int16_t>(ref(), twin(), rng_, -32768, 32767);
  check_every_divisor<std::int32_t>(ref(), twin(), rng_, -(1 << 17), 1 << 17);
}

// The decoupling of scales 1..3 on int32 bands (20 and 32 bits), with the same
// relations as above.
TEST_P(AdmSimdTest, AdmDecoupleN) {
  for (BandFill fill : kBandFills)
    for (int bits : {20, 32})
      for (int relation = 0; relation < 5; ++relation)
        for (double egl : {100.0, 1.0, 1.5, 0.5})
          for (int w : kBandWidths)
            for_column_ranges(w, [&](int begin, int end) {
              std::vector<std::int32_t> ref_bands[3], dist_bands[3];
              const double limit = std::ldexp(1.0, bits - 1);
              const auto clamp = [&](double x) {
                return static_cast<std::int32_t>(std::clamp(x, -limit, limit - 1));
              };
              for (int theta = 0; theta < 3; ++theta) {
                ref_bands[theta] = band_values<std::int32_t>(rng_, w, fill, bits);
                dist_bands[theta] = band_values<std::int32_t>(rng_, w, fill, bits);
                if (relation == 0 || relation == 4) continue;
                const double factor = relation == 1 ? 0.75 : relation == 2 ? 1.25 : 1.0;
                for (int j = 0; j < w; ++j) {
                  dist_bands[theta][j] =
                      clamp(ref_bands[theta][j] * factor + static_cast<int>(rng_() % 3) - 1);
                  if (relation == 3 && rng_() % 5 == 0)
                    dist_bands[theta][j] = static_cast<std::int32_t>(rng_());
                }
              }
              if (relation == 4)
                for (int j = 0; j < w; ++j) {
                  const double angle = std::atan2(ref_bands[1][j], ref_bands[0][j]) +
                                       (0.98 + 0.04 * static_cast<double>(rng_() % 1001) / 1000.0) *
                                           (rng_() & 1 ? 1 : -1) * 3.14159265358979323846 / 180.0;
                  const double radius = std::hypot(ref_bands[0][j], ref_bands[1][j]) *
                                        (0.5 + static_cast<double>(rng_() % 100) / 100.0);
                  dist_bands[0][j] = clamp(std::round(radius * std::cos(angle)));
                  dist_bands[1][j] = clamp(std::round(radius * std::sin(angle)));
                }
              std::vector<std::vector<std::int32_t>> out_ref(
                  6, std::vector<std::int32_t>(w + kGuard, 0x5A5A5A5A)),
                  out_twin = out_ref;
              const auto run = [&](const adm::AdmDsp& dsp,
                                   std::vector<std::vector<std::int32_t>>& out) {
                adm::DecoupleRows<std::int32_t> rows{};
                for (int theta = 0; theta < 3; ++theta) {
                  rows.ref[theta] = ref_bands[theta].data();
                  rows.dist[theta] = dist_bands[theta].data();
                  rows.restored[theta] = out[theta].data();
                  rows.additive[theta] = out[3 + theta].data();
                }
                dsp.decouple_n(rows, begin, end, egl);
              };
              run(ref(), out_ref);
              run(twin(), out_twin);
              ASSERT_EQ(out_ref, out_twin)
                  << twin().isa << " decouple_n w " << w << " [" << begin << ", " << end
                  << ") fill " << static_cast<int>(fill) << " bits " << bits << " relation "
                  << relation << " egl " << egl;
            });
}

// The CSF weights of a few viewing conditions (libvmaf's and finer/coarser ones),
// and a made-up scale-0 weight at the top of its uint16 range.
std::vector<adm::CsfWeights> csf_weight_sets() {
  std::vector<adm::CsfWeights> sets;
  for (double nvd : {3.0, 4.5, 7.0}) {
    adm::AdmOptions options;
    options.norm_view_dist = nvd;
    sets.push_back(adm::csf_weights(options));
  }
  sets.push_back(sets.front());
  sets.back().scale0_fixed = {65535, 1, 65535};
  return sets;
}

adm::pixel::Scale0Arith arith0(const adm::CsfWeights& w) {
  return adm::pixel::Scale0Arith{{w.scale0_fixed[0], w.scale0_fixed[1], w.scale0_fixed[2]}};
}
adm::pixel::ScaleNArith arithn(const adm::CsfWeights& w, int scale) {
  return adm::pixel::ScaleNArith{{w.fixed[scale][0], w.fixed[scale][1], w.fixed[scale][2]}, scale};
}

template <class Arith>
void check_csf(const adm::AdmDsp& ref, const adm::AdmDsp& twin, std::mt19937_64& rng,
               adm::CsfFn<Arith> adm::AdmDsp::*fn, const Arith& arith, int bits) {
  using Band = typename Arith::Band;
  for (int theta = 0; theta < 3; ++theta)
    for (BandFill fill : kBandFills)
      for (int w : kBandWidths)
        for_column_ranges(w, [&](int begin, int end) {
          const auto src = band_values<Band>(rng, w, fill, bits);
          std::vector<Band> csf_ref(w + kGuard, 0x5A5A), share_ref = csf_ref, csf_twin = csf_ref,
                                                         share_twin = csf_ref;
          (ref.*fn)(arith, theta, src.data(), begin, end, csf_ref.data(), share_ref.data());
          (twin.*fn)(arith, theta, src.data(), begin, end, csf_twin.data(), share_twin.data());
          ASSERT_EQ(csf_ref, csf_twin) << twin.isa << " csf theta " << theta << " w " << w << " ["
                                       << begin << ", " << end << ")";
          ASSERT_EQ(share_ref, share_twin)
              << twin.isa << " csf share theta " << theta << " w " << w;
        });
}

TEST_P(AdmSimdTest, AdmCsf) {
  for (const auto& weights : csf_weight_sets()) {
    check_csf(ref(), twin(), rng_, &adm::AdmDsp::csf_0, arith0(weights), 16);
    for (int scale = 1; scale < 4; ++scale)
      for (int bits : {20, 32})
        check_csf(ref(), twin(), rng_, &adm::AdmDsp::csf_n, arithn(weights, scale), bits);
  }
}

// Three rows (above, here, below) of the shares, and the CSF image and signal
// of the row here, for each orientation.
template <typename Band>
struct MaskInput {
  MaskInput(std::mt19937_64& rng, int w, BandFill fill, int bits, int share_bits) {
    for (int theta = 0; theta < 3; ++theta) {
      for (int r = 0; r < 3; ++r) share[theta][r] = band_values<Band>(rng, w, fill, share_bits);
      csf[theta] = band_values<Band>(rng, w, fill, bits);
      signal[theta] = band_values<Band>(rng, w, fill, bits);
    }
  }
  adm::MaskRows<Band> rows() const {
    adm::MaskRows<Band> out{};
    for (int theta = 0; theta < 3; ++theta) {
      for (int r = 0; r < 3; ++r) out.share[theta][r] = share[theta][r].data();
      out.csf[theta] = csf[theta].data();
      out.signal[theta] = signal[theta].data();
    }
    return out;
  }
  std::vector<Band> share[3][3], csf[3], signal[3];
};

template <class Arith>
void check_masked_cubes(const adm::AdmDsp& ref, const adm::AdmDsp& twin, std::mt19937_64& rng,
                        adm::MaskedCubesFn<Arith> adm::AdmDsp::*fn, const Arith& arith, int bits,
                        int share_bits) {
  for (BandFill fill : kBandFills)
    for (int w : kBandWidths)
      for (std::uint32_t cube_shift : {0u, 1u, 4u, 7u, 11u})
        for_column_ranges(w, [&](int begin, int end) {
          const MaskInput<typename Arith::Band> input(rng, w, fill, bits, share_bits);
          const std::uint32_t shifts[3] = {cube_shift, cube_shift, cube_shift + 1};
          std::int64_t a[3] = {7, -5, 3}, b[3] = {7, -5, 3};  // sums are added to
          (ref.*fn)(arith, input.rows(), w, begin, end, shifts, a);
          (twin.*fn)(arith, input.rows(), w, begin, end, shifts, b);
          for (int theta = 0; theta < 3; ++theta)
            ASSERT_EQ(a[theta], b[theta])
                << twin.isa << " masked_cubes theta " << theta << " w " << w << " [" << begin
                << ", " << end << ") fill " << static_cast<int>(fill) << " bits " << bits;
        });
}

TEST_P(AdmSimdTest, AdmMaskedCubes) {
  for (const auto& weights : csf_weight_sets()) {
    // Shares are 1/30 of CSF values: small, and also the full range.
    for (int share_bits : {12, 16})
      check_masked_cubes(ref(), twin(), rng_, &adm::AdmDsp::masked_cubes_0, arith0(weights), 16,
                         share_bits);
    for (int scale = 1; scale < 4; ++scale)
      for (auto [bits, share_bits] : {std::pair{20, 16}, {32, 28}, {32, 32}})
        check_masked_cubes(ref(), twin(), rng_, &adm::AdmDsp::masked_cubes_n,
                           arithn(weights, scale), bits, share_bits);
  }
}

TEST_P(AdmSimdTest, AdmReferenceCubes) {
  const auto weights = csf_weight_sets().front();
  for (BandFill fill : kBandFills)
    for (int w : kBandWidths)
      for_column_ranges(w, [&](int begin, int end) {
        const auto row16 = band_values<std::int16_t>(rng_, w, fill);
        EXPECT_EQ(ref().reference_cubes_0(arith0(weights), row16.data(), begin, end, 0),
                  twin().reference_cubes_0(arith0(weights), row16.data(), begin, end, 0))
            << twin().isa << " reference_cubes_0 w " << w;
        for (int scale = 1; scale < 4; ++scale)
          for (int bits : {20, 32})
            for (std::uint32_t shift : {0u, 3u, 10u}) {
              const auto row32 = band_values<std::int32_t>(rng_, w, fill, bits);
              EXPECT_EQ(
                  ref().reference_cubes_n(arithn(weights, scale), row32.data(), begin, end, shift),
                  twin().reference_cubes_n(arithn(weights, scale), row32.data(), begin, end, shift))
                  << twin().isa << " reference_cubes_n scale " << scale << " w " << w << " bits "
                  << bits;
            }
      });
}

bool same_sums(const adm::FrameSums& a, const adm::FrameSums& b) {
  for (int s = 0; s < 4; ++s)
    if (a.scales[s].num != b.scales[s].num || a.scales[s].den != b.scales[s].den ||
        a.scales[s].aim != b.scales[s].aim)
      return false;
  return true;
}

// The whole per-pixel stage, scalar table against the twin's, on pictures.
TEST_P(AdmSimdTest, AdmComputerEndToEnd) {
  struct Size {
    unsigned w, h;
  };
  const Size sizes[] = {{33, 33}, {34, 35},  {35, 34},  {47, 39},
                        {65, 34}, {100, 36}, {129, 97}, {331, 177}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange})
        for (int variant = 0; variant < 4; ++variant) {
          const unsigned bytes = bpc > 8 ? 2 : 1;
          const std::ptrdiff_t stride = (size.w + 3) * bytes;
          std::vector<std::uint8_t> ref_data(stride * size.h), dis_data(stride * size.h);
          const std::uint32_t max =
              fill == Fill::kFullRange ? (bytes == 1 ? 255 : 65535) : (1u << bpc) - 1;
          for (unsigned y = 0; y < size.h; ++y)
            for (unsigned x = 0; x < size.w; ++x) {
              // Smooth content with edges and noise, and a distorted copy.
              std::uint32_t v =
                  ((x / 7 + y / 5) % 2 ? x * 5 + y * 3 : 200 - x) * (max / 64 + 1) % (max + 1);
              if (fill != Fill::kRandom || rng_() % 3 == 0)
                v = static_cast<std::uint32_t>(rng_() % (max + 1));
              if (fill == Fill::kExtremes) v = (rng_() & 1) ? max : 0;
              std::uint32_t d = v;
              if (rng_() % 4 == 0) d = static_cast<std::uint32_t>(rng_() % (max + 1));
              if (variant == 1 && rng_() % 8 == 0) d = max - v;
              if (bytes == 1) {
                ref_data[y * stride + x] = static_cast<std::uint8_t>(v);
                dis_data[y * stride + x] = static_cast<std::uint8_t>(d);
              } else {
                reinterpret_cast<std::uint16_t*>(ref_data.data() + y * stride)[x] =
                    static_cast<std::uint16_t>(v);
                reinterpret_cast<std::uint16_t*>(dis_data.data() + y * stride)[x] =
                    static_cast<std::uint16_t>(d);
              }
            }
          adm::AdmOptions options;
          if (variant == 1) options.enhn_gain_limit = 1.0;
          if (variant == 2) options.skip_scale0 = true;
          if (variant == 3) {
            options.norm_view_dist = 5.0;
            options.skip_aim = true;
          }
          adm::AdmCpuStage scalar_computer(size.w, size.h, options, adm::adm_dsp_scalar());
          adm::AdmCpuStage twin_computer(size.w, size.h, options, twin());
          const PlaneView ref_plane{ref_data.data(), stride, size.w, size.h};
          const PlaneView dis_plane{dis_data.data(), stride, size.w, size.h};
          for (int frame = 0; frame < 2; ++frame)  // the buffers carry over between frames
            ASSERT_TRUE(same_sums(scalar_computer.compute(ref_plane, dis_plane, bpc),
                                  twin_computer.compute(ref_plane, dis_plane, bpc)))
                << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
                << static_cast<int>(fill) << " variant " << variant;
        }
}

// ---------------------------------------------------------------------------
// Integer motion (metrics/motion/motion_dsp.h)

class MotionSimdTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    const Isa isa = GetParam();
    twin_ = motion::motion_dsp_isa(isa.flag);
    if (!twin_) GTEST_SKIP() << isa.name << ": not built (x86-64 only)";
    if (!(cpu::detected_flags() & isa.flag))
      GTEST_SKIP() << isa.name << ": not supported by this CPU, skipped";
  }
  const motion::MotionDsp& ref() const { return motion::motion_dsp_scalar(); }
  const motion::MotionDsp& twin() const { return *twin_; }
  const motion::MotionDsp* twin_ = nullptr;
  std::mt19937_64 rng_{0x5eed};
};

std::vector<unsigned> motion_widths() {
  std::vector<unsigned> widths = kWidths;
  for (unsigned w : {4u, 6u, 10u, 11u, 18u, 19u, 20u, 21u, 34u, 35u, 1920u, 1921u})
    widths.push_back(w);
  return widths;
}

// A sample drawn as `fill` says; the extremes fill also makes whole runs of
// max against 0 (the largest blurred magnitudes).
std::uint32_t motion_sample(std::mt19937_64& rng, Fill fill, unsigned bpc, unsigned bytes) {
  const std::uint32_t max =
      fill == Fill::kFullRange ? (bytes == 1 ? 255u : 65535u) : (1u << bpc) - 1;
  switch (fill) {
    case Fill::kZero:
      return 0;
    case Fill::kMax:
      return max;
    case Fill::kExtremes:
      return (rng() % 8 == 0) ? 0 : max;
    default:
      return static_cast<std::uint32_t>(rng() % (std::uint64_t{max} + 1));
  }
}

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
        std::vector<std::int32_t> out_ref(w + 8, 0x5a5a5a5a), out_twin(w + 8, 0x5a5a5a5a);
        const std::int32_t any_ref = vertical_of(ref)(prev_rows, cur_rows, bpc, w, out_ref.data());
        const std::int32_t any_twin =
            vertical_of(twin)(prev_rows, cur_rows, bpc, w, out_twin.data());
        ASSERT_EQ(any_ref, any_twin)
            << twin.isa << " vertical bpc " << bpc << " w " << w << " fill "
            << static_cast<int>(fill) << " variant " << variant;
        ASSERT_TRUE(out_ref == out_twin)
            << twin.isa << " vertical bpc " << bpc << " w " << w << " fill "
            << static_cast<int>(fill) << " variant " << variant;
      }
}

TEST_P(MotionSimdTest, MotionVertical) {
  check_motion_vertical<std::uint8_t>(ref(), twin(), rng_, 8);
  for (unsigned bpc : {10u, 12u, 16u})
    check_motion_vertical<std::uint16_t>(ref(), twin(), rng_, bpc);
}

TEST_P(MotionSimdTest, MotionHorizontal) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    // The largest magnitude the vertical pass gives for these samples (16-bit
    // containers may hold any 16-bit value whatever bpc says).
    const std::int64_t full = bpc == 8 ? 255 : 65535;
    const std::int32_t limit = motion::pixel::vertical_round(full * 65536, bpc);
    for (unsigned w : motion_widths()) {
      if (w < motion::kMinSide) continue;
      for (int fill = 0; fill < 5; ++fill) {
        std::vector<std::int32_t> blurred(w + 32);
        for (auto& v : blurred) {
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
        }
        ASSERT_EQ(ref().horizontal(blurred.data(), w), twin().horizontal(blurred.data(), w))
            << twin().isa << " horizontal bpc " << bpc << " w " << w << " fill " << fill;
      }
    }
  }
}

TEST_P(MotionSimdTest, MotionSadEndToEnd) {
  struct Size {
    unsigned w, h;
  };
  const Size sizes[] = {{3, 3},   {4, 3},    {3, 5},   {5, 5},    {7, 4},     {8, 8},    {9, 13},
                        {15, 8},  {16, 16},  {17, 17}, {19, 6},   {33, 31},   {64, 40},  {100, 8},
                        {8, 100}, {131, 67}, {257, 9}, {1283, 7}, {1920, 12}, {1921, 33}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : kFills) {
        const unsigned bytes = bpc > 8 ? 2 : 1;
        const std::ptrdiff_t stride = (size.w + 5) * bytes;
        std::vector<std::uint8_t> prev_data(stride * size.h), cur_data(stride * size.h);
        for (unsigned y = 0; y < size.h; ++y)
          for (unsigned x = 0; x < size.w; ++x) {
            const std::uint32_t p = motion_sample(rng_, fill, bpc, bytes);
            std::uint32_t c = p;
            if (rng_() % 3 != 0) c = motion_sample(rng_, fill, bpc, bytes);
            if (bytes == 1) {
              prev_data[y * stride + x] = static_cast<std::uint8_t>(p);
              cur_data[y * stride + x] = static_cast<std::uint8_t>(c);
            } else {
              reinterpret_cast<std::uint16_t*>(prev_data.data() + y * stride)[x] =
                  static_cast<std::uint16_t>(p);
              reinterpret_cast<std::uint16_t*>(cur_data.data() + y * stride)[x] =
                  static_cast<std::uint16_t>(c);
            }
          }
        const PlaneView prev{prev_data.data(), stride, size.w, size.h};
        const PlaneView cur{cur_data.data(), stride, size.w, size.h};
        std::vector<std::int32_t> scratch;
        const std::uint64_t expected = motion::motion_sad(prev, cur, bpc, scratch, ref());
        ASSERT_EQ(expected, motion::motion_sad(prev, cur, bpc, scratch, twin()))
            << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
            << static_cast<int>(fill);
        ASSERT_EQ(motion::motion_sad(cur, prev, bpc, scratch, ref()),
                  motion::motion_sad(cur, prev, bpc, scratch, twin()))
            << twin().isa << " swapped " << size.w << "x" << size.h << " bpc " << bpc;
      }
}

// Rows so wide that their uint32 sums wrap: 255 against 0 everywhere blurs to
// 65280 per sample, and 65794 * 65280 > 2^32.
TEST_P(MotionSimdTest, MotionSadWideRowsWrap) {
  const unsigned w = 65794, h = 3;
  std::vector<std::uint8_t> prev_data(std::size_t{w} * h, 255), cur_data(std::size_t{w} * h, 0);
  const PlaneView prev{prev_data.data(), w, w, h};
  const PlaneView cur{cur_data.data(), w, w, h};
  std::vector<std::int32_t> scratch;
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

// ---------------------------------------------------------------------------
// PSNR (metrics/psnr/psnr_dsp.h)

class PsnrSimdTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    const Isa isa = GetParam();
    twin_ = psnr::psnr_dsp_isa(isa.flag);
    if (!twin_) GTEST_SKIP() << isa.name << ": not built (x86-64 only)";
    if (!(cpu::detected_flags() & isa.flag))
      GTEST_SKIP() << isa.name << ": not supported by this CPU, skipped";
  }
  const psnr::PsnrDsp& ref() const { return psnr::psnr_dsp_scalar(); }
  const psnr::PsnrDsp& twin() const { return *twin_; }
  const psnr::PsnrDsp* twin_ = nullptr;
  std::mt19937_64 rng_{0x5eed};
};

TEST_P(PsnrSimdTest, PsnrRows) {
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
TEST_P(PsnrSimdTest, PsnrPlanes) {
  struct Size {
    unsigned w, h;
  };
  const Size sizes[] = {{3, 3}, {5, 4}, {17, 9}, {33, 31}, {131, 67}, {1921, 33}, {65794, 3}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : kFills) {
        const unsigned bytes = bpc > 8 ? 2 : 1;
        const std::ptrdiff_t stride = (size.w + 7) * bytes;
        std::vector<std::uint8_t> ref_data(stride * size.h), dis_data(stride * size.h);
        for (unsigned y = 0; y < size.h; ++y)
          for (unsigned x = 0; x < size.w; ++x) {
            const std::uint32_t a = motion_sample(rng_, fill, bpc, bytes);
            const std::uint32_t b = fill == Fill::kMax ? 0 : motion_sample(rng_, fill, bpc, bytes);
            if (bytes == 1) {
              ref_data[y * stride + x] = static_cast<std::uint8_t>(a);
              dis_data[y * stride + x] = static_cast<std::uint8_t>(b);
            } else {
              reinterpret_cast<std::uint16_t*>(ref_data.data() + y * stride)[x] =
                  static_cast<std::uint16_t>(a);
              reinterpret_cast<std::uint16_t*>(dis_data.data() + y * stride)[x] =
                  static_cast<std::uint16_t>(b);
            }
          }
        const PlaneView r{ref_data.data(), stride, size.w, size.h};
        const PlaneView d{dis_data.data(), stride, size.w, size.h};
        const std::uint64_t expected = psnr::plane_sse(r, d, bpc, ref());
        ASSERT_EQ(expected, psnr::plane_sse(r, d, bpc, twin()))
            << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
            << static_cast<int>(fill);
        if (bpc == 8 && fill == Fill::kMax && size.w == 65794) {
          const std::uint64_t row = static_cast<std::uint32_t>(std::uint64_t{65794} * 65025);
          ASSERT_EQ(expected, 3 * row);  // wrapped
        }
      }
}

INSTANTIATE_TEST_SUITE_P(Isa, PsnrSimdTest,
                         testing::Values(Isa{cpu::kAvx2, "avx2"}, Isa{cpu::kAvx512, "avx512"}),
                         isa_name);

INSTANTIATE_TEST_SUITE_P(Isa, MotionSimdTest,
                         testing::Values(Isa{cpu::kAvx2, "avx2"}, Isa{cpu::kAvx512, "avx512"}),
                         isa_name);

INSTANTIATE_TEST_SUITE_P(Isa, AdmSimdTest,
                         testing::Values(Isa{cpu::kAvx2, "avx2"}, Isa{cpu::kAvx512, "avx512"}),
                         isa_name);

INSTANTIATE_TEST_SUITE_P(Isa, SimdTest,
                         testing::Values(Isa{cpu::kAvx2, "avx2"}, Isa{cpu::kAvx512, "avx512"}),
                         isa_name);

TEST(CpuMask, MaskSelectsTheTable) {
  const unsigned saved = cpu::set_cpu_mask(0);
  EXPECT_EQ(cpu::flags(), 0u);
  EXPECT_STREQ(vif_dsp(cpu::flags()).isa, "scalar");
  VifCpuStage kernel(16, 16, 8, VifParams{});
  EXPECT_STREQ(kernel.dsp().isa, "scalar");
  cpu::set_cpu_mask(cpu::kAllFlags);
  EXPECT_EQ(cpu::flags(), cpu::detected_flags());
  EXPECT_STREQ(vif_dsp(cpu::flags()).isa, cpu::best_isa_name(cpu::detected_flags()));
  cpu::set_cpu_mask(cpu::kAvx2);
  EXPECT_EQ(cpu::flags() & cpu::kAvx512, 0u);
  cpu::set_cpu_mask(saved);
  EXPECT_STREQ(adm::adm_dsp(0).isa, "scalar");
  EXPECT_STREQ(adm::adm_dsp(cpu::detected_flags()).isa, cpu::best_isa_name(cpu::detected_flags()));
  EXPECT_STREQ(motion::motion_dsp(0).isa, "scalar");
  EXPECT_STREQ(psnr::psnr_dsp(0).isa, "scalar");
  EXPECT_STREQ(psnr::psnr_dsp(cpu::detected_flags()).isa,
               cpu::best_isa_name(cpu::detected_flags()));
  EXPECT_STREQ(motion::motion_dsp(cpu::detected_flags()).isa,
               cpu::best_isa_name(cpu::detected_flags()));
  std::printf(
      "[ cpu      ] detected: %s; mask 0x%x; VIF runs: %s; ADM runs: %s; motion runs: %s; "
      "psnr runs: %s\n",
      cpu::best_isa_name(cpu::detected_flags()), cpu::cpu_mask(), vif_dsp(cpu::flags()).isa,
      adm::adm_dsp(cpu::flags()).isa, motion::motion_dsp(cpu::flags()).isa,
      psnr::psnr_dsp(cpu::flags()).isa);
}

}  // namespace
