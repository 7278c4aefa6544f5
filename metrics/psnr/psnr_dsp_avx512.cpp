// The AVX-512 twins of the PSNR DSP routines (psnr_dsp_simd.h over 512-bit
// vectors; AVX-512BW for the 16-bit lanes).
#include <immintrin.h>

#include <cstdint>

#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {
namespace avx512 {
namespace {

struct V {
  using I = __m512i;
  static constexpr unsigned kStep8 = 32;
  static constexpr unsigned kStep16 = 16;

  static I zero() { return _mm512_setzero_si512(); }
  static I add32(I a, I b) { return _mm512_add_epi32(a, b); }
  static I sq8(const std::uint8_t* r, const std::uint8_t* d) {
    const I a = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r)));
    const I b = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(d)));
    const I e = _mm512_sub_epi16(a, b);
    return _mm512_madd_epi16(e, e);
  }
  static I sq16_add64(I acc, const std::uint16_t* r, const std::uint16_t* d) {
    const I a = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r)));
    const I b = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(d)));
    const I e = _mm512_sub_epi32(a, b);
    const I e_odd = _mm512_srli_epi64(e, 32);
    return _mm512_add_epi64(_mm512_add_epi64(acc, _mm512_mul_epi32(e, e)),
                            _mm512_mul_epi32(e_odd, e_odd));
  }
  static std::uint32_t sum32(I v) {
    // Vector adds wrap modulo 2^32 (GCC's _mm512_reduce_add_epi32 adds in
    // signed int, which UBSan rightly flags when a row's sum wraps).
    const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }
  static std::uint64_t sum64(I v) {
    const __m256i h = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(x)) +
           static_cast<std::uint64_t>(_mm_extract_epi64(x, 1));
  }
};

#include "psnr/psnr_dsp_simd.h"

}  // namespace
}  // namespace avx512

const PsnrDsp& psnr_dsp_avx512() {
  static const PsnrDsp dsp = avx512::make_dsp<avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::psnr
