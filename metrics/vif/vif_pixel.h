// The per-pixel arithmetic of libvmaf's integer VIF that follows the filters:
// the log2 lookups and the terms one filtered pixel adds to its scale's four
// accumulators, including libvmaf's per-pixel double gain g. Shared by the CPU
// path (vif.cpp) and the CUDA twin (cuda/vif/), so both run the same
// operations on the same types: plain C++ with no library calls, usable from
// device code (VMAFEXACT_HD is __host__ __device__ under nvcc).
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

#include "common/host_device.h"

namespace vmafexact::vif {

// sigma_nsq of libvmaf's integer VIF: the noise variance 2 in units of 1/65536.
inline constexpr std::int32_t kSigmaNsq = 65536 << 1;

// Mirrors a row buffer about its first and last entries the way libvmaf's
// padding does it: for f = 1 .. half, first entry -f := entry f, then entry
// n-1+f := entry n-1-f. With n >= 2 this is the reflection without repeating the
// edge; with n == 1 it copies whatever entry 1 held before (libvmaf reads what
// its buffer kept from earlier rows or scales, and so does this).
template <typename T>
VMAFEXACT_HD inline void pad_mirror(T* origin, unsigned n, unsigned half) {
  const int last = static_cast<int>(n) - 1;
  for (int f = 1; f <= static_cast<int>(half); ++f) {
    origin[-f] = origin[f];
    origin[last + f] = origin[last - f];
  }
}

VMAFEXACT_HD inline int count_leading_zeros32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return std::countl_zero(x);
#endif
}

VMAFEXACT_HD inline int count_leading_zeros64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return std::countl_zero(x);
#endif
}

// log2 of a 32-bit value >= 2^16 in units of 1/2048 (libvmaf's log2_32): its
// top 16 bits looked up in `table` (65536 entries of 2048 * log2(i), see
// Log2Table), plus 2048 per bit dropped.
VMAFEXACT_HD inline std::int32_t vif_log2_32(const std::uint16_t* table, std::uint32_t x) {
  const int shift = 16 - count_leading_zeros32(x);
  return table[x >> shift] + 2048 * shift;
}

// The same for a 64-bit value >= 2^17 (libvmaf's log2_64).
VMAFEXACT_HD inline std::int32_t vif_log2_64(const std::uint16_t* table, std::uint64_t x) {
  const int shift = 48 - count_leading_zeros64(x);
  return table[x >> shift] + 2048 * shift;
}

// The integer terms one filtered pixel adds to its scale's accumulators: the
// body of libvmaf's horizontal pass after the filter sums, with its types.
// `Sums` has int64 members num_log, den_log, num_non_log, den_non_log.
template <typename Sums>
VMAFEXACT_HD inline void accumulate_pixel(Sums& sums, std::uint32_t mu1, std::uint32_t mu2,
                                          std::uint64_t xx, std::uint64_t yy, std::uint64_t xy,
                                          const std::uint16_t* log2_table, double enhn_gain_limit) {
  const std::uint32_t mu1_sq = static_cast<std::uint32_t>(
      (static_cast<std::uint64_t>(mu1) * mu1 + 0x80000000u) >> 32);
  const std::uint32_t mu2_sq = static_cast<std::uint32_t>(
      (static_cast<std::uint64_t>(mu2) * mu2 + 0x80000000u) >> 32);
  const std::uint32_t mu1_mu2 = static_cast<std::uint32_t>(
      (static_cast<std::uint64_t>(mu1) * mu2 + 0x80000000u) >> 32);
  const std::uint32_t xx_filt = static_cast<std::uint32_t>((xx + 32768) >> 16);
  const std::uint32_t yy_filt = static_cast<std::uint32_t>((yy + 32768) >> 16);
  const std::uint32_t xy_filt = static_cast<std::uint32_t>((xy + 32768) >> 16);

  // Differences of unsigned 32-bit values, read as signed (modular conversion).
  const std::int32_t sigma1_sq = static_cast<std::int32_t>(xx_filt - mu1_sq);
  const std::int32_t sigma2_raw = static_cast<std::int32_t>(yy_filt - mu2_sq);
  const std::int32_t sigma2_sq = sigma2_raw > 0 ? sigma2_raw : 0;
  const std::int32_t sigma12 = static_cast<std::int32_t>(xy_filt - mu1_mu2);

  if (sigma1_sq < kSigmaNsq) {
    sums.num_non_log += sigma2_sq;
    sums.den_non_log += 1;
    return;
  }
  // 2048 * log2(1 + sigma1_sq / sigma_nsq) as 2048 * (log2(sigma_nsq + sigma1_sq) - 17).
  // The sum fits in 32 unsigned bits (libvmaf adds two int32 and passes uint32).
  sums.den_log += vif_log2_32(log2_table, static_cast<std::uint32_t>(kSigmaNsq) +
                                              static_cast<std::uint32_t>(sigma1_sq)) -
                  2048 * 17;
  if (sigma12 <= 0 || sigma2_sq <= 0) return;

  // libvmaf's gain in double: g = sigma12 / (sigma1_sq + eps), the residual
  // variance sv_sq = sigma2_sq - g * sigma12 truncated to int32 and clipped at 0,
  // then g clipped to the gain limit. Separate multiplies and adds (no FMA: the
  // CPU build has -ffp-contract=off, nvcc --fmad=false), IEEE division.
  const double eps = 65536 * 1.0e-10;
  double g = sigma12 / (sigma1_sq + eps);
  // sv is at most sigma2_sq (g * sigma12 >= 0), so only negative values can be
  // out of int32's range, and every negative value ends as 0 after the clip.
  const double sv = sigma2_sq - g * sigma12;
  const std::int32_t sv_sq = sv > 0.0 ? static_cast<std::int32_t>(sv) : 0;
  g = g < enhn_gain_limit ? g : enhn_gain_limit;

  const std::uint32_t numer1 =
      static_cast<std::uint32_t>(sv_sq) + static_cast<std::uint32_t>(kSigmaNsq);
  const std::int64_t numer1_tmp = static_cast<std::int64_t>(g * g * sigma1_sq) + numer1;
  sums.num_log += vif_log2_64(log2_table, static_cast<std::uint64_t>(numer1_tmp)) -
                  vif_log2_64(log2_table, numer1);
}

}  // namespace vmafexact::vif
