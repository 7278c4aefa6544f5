// The twins of integer ADM ("adm") against the scalar reference: the row
// routines of every SIMD table (metrics/adm/adm_dsp.h) and the whole CPU stage
// with each table. (The CUDA twin: check_adm_cuda.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "adm/adm.h"
#include "adm/adm_dsp.h"
#include "common/cpu.h"
#include "common/picture.h"
#include "dsp_inputs.h"
#include "harness.h"
#include "sizes_and_frames.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

HARNESS_DSP_FIXTURE(AdmTwin, adm::AdmDsp, adm::adm_dsp_scalar, adm::adm_dsp_isa, 0xad3);

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
        std::vector<std::int16_t> lo_ref(w + kGuard, 0x5A5A), hi_ref = lo_ref, lo_twin = lo_ref,
                                                              hi_twin = lo_ref;
        (ref.*fn)(window.pointers.data(), bpc, static_cast<int>(w), lo_ref.data(), hi_ref.data());
        (twin.*fn)(window.pointers.data(), bpc, static_cast<int>(w), lo_twin.data(),
                   hi_twin.data());
        ASSERT_EQ(lo_ref, lo_twin) << twin.isa << " dwt0_vertical bpc " << bpc << " w " << w;
        ASSERT_EQ(hi_ref, hi_twin) << twin.isa << " dwt0_vertical bpc " << bpc << " w " << w;
      }
}

TEST_P(AdmTwin, Dwt0Vertical) {
  check_dwt0_vertical<std::uint8_t>(ref(), twin(), rng_, &adm::AdmDsp::dwt0_vertical_8, {8});
  check_dwt0_vertical<std::uint16_t>(ref(), twin(), rng_, &adm::AdmDsp::dwt0_vertical_16,
                                     {9, 10, 12, 14, 16});
}

TEST_P(AdmTwin, Dwt0Horizontal) {
  for (BandFill fill : kBandFills)
    for (int lowpass_only = 0; lowpass_only < 2; ++lowpass_only)
      for (int w : kBandWidths) {
        // The vertical pass's results are int16 values.
        std::vector<std::int16_t> lo(w), hi(w);
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

TEST_P(AdmTwin, DwtnVertical) {
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

TEST_P(AdmTwin, DwtnHorizontal) {
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
TEST_P(AdmTwin, Decouple) {
  // (whole limits take the twins' integer path: 100, 1 and 37)
  for (BandFill fill : kBandFills)
    for (int relation = 0; relation < 5; ++relation)
      for (double egl : {100.0, 1.0, 1.5, 0.5, 37.0})
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

TEST_P(AdmTwin, DecoupleEveryDivisor) {
  check_every_divisor<std::int16_t>(ref(), twin(), rng_, -32768, 32767);
  check_every_divisor<std::int32_t>(ref(), twin(), rng_, -(1 << 17), 1 << 17);
}

// The decoupling of scales 1..3 on int32 bands (20 and 32 bits), with the same
// relations as above.
TEST_P(AdmTwin, DecoupleN) {
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
// of the Barten modes (VMAF v1's blend, and Barten's CSF, whose wrapped fixed-
// point weights take the whole uint32 range), and a made-up scale-0 weight at
// the top of its uint16 range.
std::vector<adm::CsfWeights> csf_weight_sets() {
  std::vector<adm::CsfWeights> sets;
  for (double nvd : {3.0, 4.5, 7.0}) {
    adm::AdmOptions options;
    options.norm_view_dist = nvd;
    sets.push_back(adm::csf_weights(options));
  }
  for (int mode : {1, 2, 3}) {
    adm::AdmOptions options;
    options.csf_mode = mode;
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
          std::vector<Band> centre_ref(w + kGuard, 0x5A5A), share_ref = centre_ref,
                                                            centre_twin = centre_ref,
                                                            share_twin = centre_ref;
          (ref.*fn)(arith, theta, src.data(), begin, end, centre_ref.data(), share_ref.data());
          (twin.*fn)(arith, theta, src.data(), begin, end, centre_twin.data(), share_twin.data());
          ASSERT_EQ(centre_ref, centre_twin) << twin.isa << " csf centre theta " << theta << " w "
                                             << w << " [" << begin << ", " << end << ")";
          ASSERT_EQ(share_ref, share_twin)
              << twin.isa << " csf share theta " << theta << " w " << w;
        });
}

TEST_P(AdmTwin, Csf) {
  for (const auto& weights : csf_weight_sets()) {
    check_csf(ref(), twin(), rng_, &adm::AdmDsp::csf_0, arith0(weights), 16);
    for (int scale = 1; scale < 4; ++scale)
      for (int bits : {20, 32})
        check_csf(ref(), twin(), rng_, &adm::AdmDsp::csf_n, arithn(weights, scale), bits);
  }
}

// Three rows (above, here, below) of the shares, and the centre's shares and
// the signal of the row here, for each orientation.
template <typename Band>
struct MaskInput {
  MaskInput(std::mt19937_64& rng, int w, BandFill fill, int bits, int share_bits) {
    for (int theta = 0; theta < 3; ++theta) {
      for (int r = 0; r < 3; ++r) share[theta][r] = band_values<Band>(rng, w, fill, share_bits);
      centre[theta] = band_values<Band>(rng, w, fill, bits);
      signal[theta] = band_values<Band>(rng, w, fill, bits);
    }
  }
  adm::MaskRows<Band> rows() const {
    adm::MaskRows<Band> out{};
    for (int theta = 0; theta < 3; ++theta) {
      for (int r = 0; r < 3; ++r) out.share[theta][r] = share[theta][r].data();
      out.centre[theta] = centre[theta].data();
      out.signal[theta] = signal[theta].data();
    }
    return out;
  }
  std::vector<Band> share[3][3], centre[3], signal[3];
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

TEST_P(AdmTwin, MaskedCubes) {
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

TEST_P(AdmTwin, ReferenceCubes) {
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
TEST_P(AdmTwin, StageEndToEnd) {
  const std::vector<Size> sizes = sizes_with_full(
      {{33, 33}, {34, 35}, {35, 34}, {47, 39}, {65, 34}, {100, 36}, {129, 97}, {331, 177}},
      {{1920, 1080}, {1281, 721}});
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& size : sizes)
      for (Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange})
        for (int variant = 0; variant < 4; ++variant) {
          test::TestPlane ref_pic(size.w, size.h, bpc, 3), dis_pic(size.w, size.h, bpc, 6);
          // Smooth content with edges and noise, and a distorted copy.
          paint_noisy_copy(ref_pic, dis_pic, fill, variant == 1, rng_,
                           [](unsigned x, unsigned y, std::uint32_t max) -> std::uint32_t {
                             return ((x / 7 + y / 5) % 2 ? x * 5 + y * 3 : 200 - x) *
                                    (max / 64 + 1) % (max + 1);
                           });
          adm::AdmOptions options;
          if (variant == 1) options.enhn_gain_limit = 1.0;
          if (variant == 2) options.skip_scale0 = true;
          if (variant == 3) {
            options.norm_view_dist = 5.0;
            options.skip_aim = true;
          }
          adm::AdmCpuStage scalar_computer(size.w, size.h, options, adm::adm_dsp_scalar());
          adm::AdmCpuStage twin_computer(size.w, size.h, options, twin());
          for (unsigned frame = 0; frame < 2; ++frame) {  // the buffers carry over between frames
            const auto expected = run_guarded(ref_pic, dis_pic, 1 + frame, [&] {
              return scalar_computer.compute(ref_pic.view(), dis_pic.view(), frame);
            });
            const auto sums = run_guarded(ref_pic, dis_pic, 0x7700 + frame, [&] {
              return twin_computer.compute(ref_pic.view(), dis_pic.view(), frame);
            });
            ASSERT_TRUE(same_sums(expected, sums))
                << twin().isa << " " << size.w << "x" << size.h << " bpc " << bpc << " fill "
                << static_cast<int>(fill) << " variant " << variant;
          }
        }
}

INSTANTIATE_TEST_SUITE_P(adm, AdmTwin, isa_values(), isa_param_name);

// --bench: the CPU stage (motion: motion_sad) of one luma plane with each table.
const BenchRegistration adm_bench(cpu_bench_twins(
    "adm", adm::adm_dsp_scalar, adm::adm_dsp_isa,
    [](const adm::AdmDsp& dsp, unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
      auto ref = bench_plane(w, h, bpc, false), dist = bench_plane(w, h, bpc, true);
      auto stage = std::make_shared<adm::AdmCpuStage>(w, h, adm::AdmOptions{}, dsp);
      return [=] { stage->compute(ref->view(), dist->view(), 0); };
    }));

}  // namespace

HARNESS_FEATURE(adm);
