// The AVX2 twins of the motion DSP routines (motion_dsp_simd.h over 256-bit
// vectors). Built with -mavx2 only.
#include <immintrin.h>

#include <cstdint>

#include "motion/motion_dsp.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {
namespace avx2 {
namespace {

struct V {
  static constexpr unsigned N = 8;
  using I = __m256i;  // 8 x int32

  static I zero() { return _mm256_setzero_si256(); }
  static I set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  static I load(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  static I load(const std::uint16_t* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I load(const std::int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(std::int32_t* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I sub(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I mullo(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I and_(I a, I b) { return _mm256_and_si256(a, b); }
  static I or_(I a, I b) { return _mm256_or_si256(a, b); }
  static I abs(I a) { return _mm256_abs_epi32(a); }
  template <int n>
  static I srai(I v) {
    return _mm256_srai_epi32(v, n);
  }
  static I sra(I v, unsigned n) {
    return _mm256_sra_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  static std::int32_t or_all(I v) {
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0xB1));
    return _mm_cvtsi128_si32(x);
  }
  // The lanes' wrapping uint32 sum.
  static std::uint32_t sum(I v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }
};

#include "motion/motion_dsp_simd.h"

}  // namespace
}  // namespace avx2

const MotionDsp& motion_dsp_avx2() {
  static const MotionDsp dsp = avx2::make_dsp<avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::motion
