// The AVX-512 twins of the SpEED DSP routines: speed_dsp_simd.h over a
// 512-bit float/double layer (16 floats, 8 doubles).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "speed/speed_dsp.h"
#include "speed/speed_dsp_scalar.h"

namespace vmafexact::speed {
namespace avx512 {
namespace {

#define VMAFEXACT_SPEED_INLINE [[gnu::always_inline]] static inline

struct V {
  static constexpr unsigned kFloats = 16;
  static constexpr unsigned kDoubles = 8;
  using F = __m512;
  using D = __m512d;

  VMAFEXACT_SPEED_INLINE F zerof() { return _mm512_setzero_ps(); }
  VMAFEXACT_SPEED_INLINE F set1f(float x) { return _mm512_set1_ps(x); }
  VMAFEXACT_SPEED_INLINE F loadf(const float* p) { return _mm512_loadu_ps(p); }
  VMAFEXACT_SPEED_INLINE void storef(float* p, F v) { _mm512_storeu_ps(p, v); }
  // Masks of the first n lanes (1 <= n <= 16): loads give 0 in the others,
  // stores leave them.
  using Mask = __mmask16;
  VMAFEXACT_SPEED_INLINE Mask mask_first(unsigned n) {
    return static_cast<__mmask16>((1u << n) - 1u);
  }
  VMAFEXACT_SPEED_INLINE F loadf_masked(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  VMAFEXACT_SPEED_INLINE void storef_masked(float* p, F v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  VMAFEXACT_SPEED_INLINE F addf(F a, F b) { return _mm512_add_ps(a, b); }
  VMAFEXACT_SPEED_INLINE F subf(F a, F b) { return _mm512_sub_ps(a, b); }
  VMAFEXACT_SPEED_INLINE F mulf(F a, F b) { return _mm512_mul_ps(a, b); }
  VMAFEXACT_SPEED_INLINE F divf(F a, F b) { return _mm512_div_ps(a, b); }
  // 16 samples as floats (exact: below 2^24).
  VMAFEXACT_SPEED_INLINE F cvt_u8(const std::uint8_t* p) {
    return _mm512_cvtepi32_ps(
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  VMAFEXACT_SPEED_INLINE F cvt_u16(const std::uint16_t* p) {
    return _mm512_cvtepi32_ps(
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
  }

  VMAFEXACT_SPEED_INLINE D zerod() { return _mm512_setzero_pd(); }
  VMAFEXACT_SPEED_INLINE D set1d(double x) { return _mm512_set1_pd(x); }
  VMAFEXACT_SPEED_INLINE D loadd(const double* p) { return _mm512_loadu_pd(p); }
  VMAFEXACT_SPEED_INLINE void stored(double* p, D v) { _mm512_storeu_pd(p, v); }
  VMAFEXACT_SPEED_INLINE D addd(D a, D b) { return _mm512_add_pd(a, b); }
  VMAFEXACT_SPEED_INLINE D muld(D a, D b) { return _mm512_mul_pd(a, b); }
};

#undef VMAFEXACT_SPEED_INLINE

#include "speed/speed_dsp_simd.h"

}  // namespace
}  // namespace avx512

const SpeedDsp& speed_dsp_avx512() {
  static constexpr SpeedDsp dsp = avx512::make_dsp<avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::speed
