// The AVX2 twins of the PSNR DSP routines (psnr_dsp_simd.h over 256-bit vectors).
#include <immintrin.h>

#include <cstdint>

#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {
namespace avx2 {
namespace {

struct V {
  using I = __m256i;
  static constexpr unsigned kStep8 = 16;  // samples per sq8
  static constexpr unsigned kStep16 = 8;  // samples per sq16_add64

  static I zero() { return _mm256_setzero_si256(); }
  static I add32(I a, I b) { return _mm256_add_epi32(a, b); }
  static I sq8(const std::uint8_t* r, const std::uint8_t* d) {
    const I a = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r)));
    const I b = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d)));
    const I e = _mm256_sub_epi16(a, b);
    return _mm256_madd_epi16(e, e);
  }
  static I sq16_add64(I acc, const std::uint16_t* r, const std::uint16_t* d) {
    const I a = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r)));
    const I b = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d)));
    const I e = _mm256_sub_epi32(a, b);
    const I e_odd = _mm256_srli_epi64(e, 32);
    return _mm256_add_epi64(_mm256_add_epi64(acc, _mm256_mul_epi32(e, e)),
                            _mm256_mul_epi32(e_odd, e_odd));
  }
  static std::uint32_t sum32(I v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }
  static std::uint64_t sum64(I v) {
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(x)) +
           static_cast<std::uint64_t>(_mm_extract_epi64(x, 1));
  }
};

#include "psnr/psnr_dsp_simd.h"

}  // namespace
}  // namespace avx2

const PsnrDsp& psnr_dsp_avx2() {
  static const PsnrDsp dsp = avx2::make_dsp<avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::psnr
