// The AVX2 twins of the SpEED DSP routines: speed_dsp_simd.h over a 256-bit
// float/double layer (8 floats, 4 doubles).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "speed/speed_dsp.h"
#include "speed/speed_dsp_scalar.h"

namespace vmafexact::speed {
namespace avx2 {
namespace {

#define VMAFEXACT_SPEED_INLINE [[gnu::always_inline]] static inline

struct V {
  static constexpr unsigned kFloats = 8;
  static constexpr unsigned kDoubles = 4;
  using F = __m256;
  using D = __m256d;

  VMAFEXACT_SPEED_INLINE F zerof() { return _mm256_setzero_ps(); }
  VMAFEXACT_SPEED_INLINE F set1f(float x) { return _mm256_set1_ps(x); }
  VMAFEXACT_SPEED_INLINE F loadf(const float* p) { return _mm256_loadu_ps(p); }
  VMAFEXACT_SPEED_INLINE void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
  // Masks of the first n lanes (1 <= n <= 8): loads give 0 in the others,
  // stores leave them.
  using Mask = __m256i;
  VMAFEXACT_SPEED_INLINE Mask mask_first(unsigned n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  VMAFEXACT_SPEED_INLINE F loadf_masked(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  VMAFEXACT_SPEED_INLINE void storef_masked(float* p, F v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  VMAFEXACT_SPEED_INLINE F addf(F a, F b) { return _mm256_add_ps(a, b); }
  VMAFEXACT_SPEED_INLINE F subf(F a, F b) { return _mm256_sub_ps(a, b); }
  VMAFEXACT_SPEED_INLINE F mulf(F a, F b) { return _mm256_mul_ps(a, b); }
  VMAFEXACT_SPEED_INLINE F divf(F a, F b) { return _mm256_div_ps(a, b); }
  // 8 samples as floats (exact: below 2^24).
  VMAFEXACT_SPEED_INLINE F cvt_u8(const std::uint8_t* p) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  }
  VMAFEXACT_SPEED_INLINE F cvt_u16(const std::uint16_t* p) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }

  VMAFEXACT_SPEED_INLINE D zerod() { return _mm256_setzero_pd(); }
  VMAFEXACT_SPEED_INLINE D set1d(double x) { return _mm256_set1_pd(x); }
  VMAFEXACT_SPEED_INLINE D loadd(const double* p) { return _mm256_loadu_pd(p); }
  VMAFEXACT_SPEED_INLINE void stored(double* p, D v) { _mm256_storeu_pd(p, v); }
  VMAFEXACT_SPEED_INLINE D addd(D a, D b) { return _mm256_add_pd(a, b); }
  VMAFEXACT_SPEED_INLINE D muld(D a, D b) { return _mm256_mul_pd(a, b); }
};

#undef VMAFEXACT_SPEED_INLINE

#include "speed/speed_dsp_simd.h"

}  // namespace
}  // namespace avx2

const SpeedDsp& speed_dsp_avx2() {
  static constexpr SpeedDsp dsp = avx2::make_dsp<avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::speed
