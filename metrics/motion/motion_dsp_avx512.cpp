// The AVX-512 twins of the motion DSP routines (motion_dsp_simd.h over 512-bit
// vectors). Built with -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl.
#include <immintrin.h>

#include <cstdint>

#include "motion/motion_dsp.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {
namespace avx512 {
namespace {

struct V {
  static constexpr unsigned N = 16;
  using I = __m512i;  // 16 x int32

  static I zero() { return _mm512_setzero_si512(); }
  static I set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  static I load(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I load(const std::uint16_t* p) {
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static I load(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  static void store(std::int32_t* p, I v) { _mm512_storeu_si512(p, v); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static I sub(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I mullo(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I and_(I a, I b) { return _mm512_and_si512(a, b); }
  static I or_(I a, I b) { return _mm512_or_si512(a, b); }
  static I abs(I a) { return _mm512_abs_epi32(a); }
  template <int n>
  static I srai(I v) {
    return _mm512_srai_epi32(v, n);
  }
  static I sra(I v, unsigned n) {
    return _mm512_sra_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  static std::int32_t or_all(I v) { return _mm512_reduce_or_epi32(v); }
  // The lanes' wrapping uint32 sum.
  static std::uint32_t sum(I v) {
    // Vector adds wrap modulo 2^32 (GCC's _mm512_reduce_add_epi32 adds in
    // signed int, which UBSan rightly flags when a row's sum wraps).
    const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }
};

#include "motion/motion_dsp_simd.h"

}  // namespace
}  // namespace avx512

const MotionDsp& motion_dsp_avx512() {
  static const MotionDsp dsp = avx512::make_dsp<avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::motion
