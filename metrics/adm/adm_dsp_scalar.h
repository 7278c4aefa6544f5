// The scalar reference of each ADM DSP routine (adm_dsp.h), over a range of
// columns so that the SIMD twins can finish their rows with it. These are
// libvmaf's adm_dwt2_8/16, adm_dwt2_s123, adm_csf, i4_adm_csf, adm_cm,
// i4_adm_cm and adm_csf_den loops, with its types (adm_pixel.h).
#pragma once

#include <cstdint>

#include "adm/adm.h"
#include "adm/adm_dsp.h"
#include "adm/adm_pixel.h"

namespace vmafexact::adm::scalar {

template <typename Sample>
inline void dwt0_vertical(const Sample* const* rows, unsigned bpc, int begin, int end,
                          std::int16_t* lo, std::int16_t* hi) {
  const pixel::Db2Taps f = db2_taps();
  for (int j = begin; j < end; ++j) {
    const std::int32_t s[4] = {rows[0][j], rows[1][j], rows[2][j], rows[3][j]};
    std::int32_t lo_value, hi_value;  // int16 values (pixel::dwt0_vertical)
    pixel::dwt0_vertical(f, s, bpc, lo_value, hi_value);
    lo[j] = static_cast<std::int16_t>(lo_value);
    hi[j] = static_cast<std::int16_t>(hi_value);
  }
}

// Outputs [begin, end) of a row of w vertical results.
inline void dwt0_horizontal(const std::int16_t* tmp_lo, const std::int16_t* tmp_hi, int w,
                            int begin, int end, std::int16_t* a, std::int16_t* v, std::int16_t* h,
                            std::int16_t* d) {
  const pixel::Db2Taps f = db2_taps();
  for (int j = begin; j < end; ++j) {
    int cols[4];
    for (int k = 0; k < 4; ++k) cols[k] = pixel::dwt_tap_index(2 * j - 1 + k, w);
    const std::int32_t lo[4] = {tmp_lo[cols[0]], tmp_lo[cols[1]], tmp_lo[cols[2]], tmp_lo[cols[3]]};
    a[j] = pixel::dwt0_horizontal_one(f.lo, lo);
    if (!v) continue;
    const std::int32_t hi[4] = {tmp_hi[cols[0]], tmp_hi[cols[1]], tmp_hi[cols[2]], tmp_hi[cols[3]]};
    v[j] = pixel::dwt0_horizontal_one(f.hi, lo);
    h[j] = pixel::dwt0_horizontal_one(f.lo, hi);
    d[j] = pixel::dwt0_horizontal_one(f.hi, hi);
  }
}

inline void dwtn_vertical(const std::int32_t* const* rows, int scale, int begin, int end,
                          std::int32_t* lo, std::int32_t* hi) {
  const pixel::Db2Taps f = db2_taps();
  for (int j = begin; j < end; ++j) {
    const std::int32_t s[4] = {rows[0][j], rows[1][j], rows[2][j], rows[3][j]};
    pixel::dwtn_vertical(f, s, scale, lo[j], hi[j]);
  }
}

inline void dwtn_horizontal(const std::int32_t* tmp_lo, const std::int32_t* tmp_hi, int scale,
                            int w, int begin, int end, std::int32_t* a, std::int32_t* v,
                            std::int32_t* h, std::int32_t* d) {
  const pixel::Db2Taps f = db2_taps();
  for (int j = begin; j < end; ++j) {
    int cols[4];
    for (int k = 0; k < 4; ++k) cols[k] = pixel::dwt_tap_index(2 * j - 1 + k, w);
    const std::int32_t lo[4] = {tmp_lo[cols[0]], tmp_lo[cols[1]], tmp_lo[cols[2]], tmp_lo[cols[3]]};
    const std::int32_t hi[4] = {tmp_hi[cols[0]], tmp_hi[cols[1]], tmp_hi[cols[2]], tmp_hi[cols[3]]};
    a[j] = pixel::dwtn_horizontal_one(f.lo, lo, scale);
    v[j] = pixel::dwtn_horizontal_one(f.hi, lo, scale);
    h[j] = pixel::dwtn_horizontal_one(f.lo, hi, scale);
    d[j] = pixel::dwtn_horizontal_one(f.hi, hi, scale);
  }
}

template <class Arith>
inline void decouple(const DecoupleRows<typename Arith::Band>& rows, int begin, int end,
                     double egl) {
  using Band = typename Arith::Band;
  const std::int32_t* div = division_table().data();
  const float cos_sq = cos_1deg_sq();
  for (int j = begin; j < end; ++j) {
    const Band oh = rows.ref[0][j], ov = rows.ref[1][j];
    const Band th = rows.dist[0][j], tv = rows.dist[1][j];
    const bool angle = pixel::within_one_degree(oh, ov, th, tv, cos_sq);
    for (int theta = 0; theta < 3; ++theta) {
      const Band o = rows.ref[theta][j], t = rows.dist[theta][j];
      const Band rst = Arith::restore(o, t, angle, egl, div);
      rows.restored[theta][j] = rst;
      rows.additive[theta][j] = Arith::subtract(t, rst);
    }
  }
}

template <class Arith>
inline void csf(const Arith& arith, int theta, const typename Arith::Band* src, int begin, int end,
                typename Arith::Band* centre, typename Arith::Band* share) {
  using Band = typename Arith::Band;
  for (int j = begin; j < end; ++j) {
    const auto value = arith.csf(src[j], theta);
    centre[j] = static_cast<Band>(Arith::centre_share(value));  // a Band's value already
    share[j] = Arith::csf_share(value);
  }
}

// int64 sums formed modulo 2^64: real pictures stay far from the limit, but the
// SIMD harness feeds extreme bands, and signed overflow would be undefined.
inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

template <class Arith>
inline void masked_cubes(const Arith& arith, const MaskRows<typename Arith::Band>& rows, int w,
                         int begin, int end, const std::uint32_t* cube_shift,
                         std::int64_t* sums) {
  std::int64_t row_sum[3] = {0, 0, 0};
  for (int j = begin; j < end; ++j) {
    const int jl = pixel::mask_neighbour_index(j - 1, w);
    const int jr = pixel::mask_neighbour_index(j + 1, w);
    // libvmaf adds these in int32; wrapping (uint32) addition gives the same bits.
    std::uint32_t threshold = 0;
    for (int theta = 0; theta < 3; ++theta) {
      const auto* above = rows.share[theta][0];
      const auto* here = rows.share[theta][1];
      const auto* below = rows.share[theta][2];
      std::uint32_t sum = 0;
      sum += static_cast<std::uint32_t>(above[jl]) + static_cast<std::uint32_t>(above[j]) +
             static_cast<std::uint32_t>(above[jr]);
      sum += static_cast<std::uint32_t>(here[jl]) +
             static_cast<std::uint32_t>(rows.centre[theta][j]) +
             static_cast<std::uint32_t>(here[jr]);
      sum += static_cast<std::uint32_t>(below[jl]) + static_cast<std::uint32_t>(below[j]) +
             static_cast<std::uint32_t>(below[jr]);
      threshold += sum;
    }
    for (int theta = 0; theta < 3; ++theta)
      row_sum[theta] = wrapping_add(
          row_sum[theta],
          pixel::masked_cube(arith, rows.signal[theta][j], theta, threshold, cube_shift[theta]));
  }
  for (int theta = 0; theta < 3; ++theta) sums[theta] = wrapping_add(sums[theta], row_sum[theta]);
}

template <class Arith>
inline std::uint64_t reference_cubes(const Arith& arith, const typename Arith::Band* row,
                                     int begin, int end, std::uint32_t den_cube_shift) {
  std::uint64_t sum = 0;
  for (int j = begin; j < end; ++j) sum += arith.den_cube(row[j], den_cube_shift);
  return sum;
}

}  // namespace vmafexact::adm::scalar
