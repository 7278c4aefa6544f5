// The AVX-512 twins of CAMBI's DSP routines: cambi_dsp_simd.h over a 512-bit
// layer of 16-bit, 8-bit, 32-bit and float lanes (F, BW, DQ); comparisons are
// turned into lanes of all ones so the templates read as for AVX2.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "cambi/cambi_dsp.h"
#include "cambi/cambi_dsp_scalar.h"

namespace vmafexact::cambi {
namespace avx512 {
namespace {

#define CAMBI_INLINE [[gnu::always_inline]] static inline

struct V {
  static constexpr unsigned L16 = 32, L8 = 64, L32 = 16;
  using W = __m512i;  // 32 x 16 bits, or 64 x 8 bits
  using I = __m512i;  // 16 x 32 bits
  using F = __m512;   // 16 floats

  // --- 16-bit lanes -------------------------------------------------------------
  CAMBI_INLINE W zero() { return _mm512_setzero_si512(); }
  CAMBI_INLINE W set16(int x) { return _mm512_set1_epi16(static_cast<short>(x)); }
  CAMBI_INLINE W iota16() {
    return _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14,
                            13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  }
  CAMBI_INLINE W load16(const std::uint16_t* p) { return _mm512_loadu_si512(p); }
  CAMBI_INLINE void store16(std::uint16_t* p, W v) { _mm512_storeu_si512(p, v); }
  CAMBI_INLINE W load_u8_16(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  CAMBI_INLINE void store_u16_as_u8(std::uint8_t* p, W v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi16_epi8(v));
  }
  CAMBI_INLINE W add16(W a, W b) { return _mm512_add_epi16(a, b); }
  CAMBI_INLINE W sub16(W a, W b) { return _mm512_sub_epi16(a, b); }
  CAMBI_INLINE W min_u16(W a, W b) { return _mm512_min_epu16(a, b); }
  CAMBI_INLINE W max_u16(W a, W b) { return _mm512_max_epu16(a, b); }
  CAMBI_INLINE W min_i16(W a, W b) { return _mm512_min_epi16(a, b); }
  CAMBI_INLINE W max_i16(W a, W b) { return _mm512_max_epi16(a, b); }
  CAMBI_INLINE W and_(W a, W b) { return _mm512_and_si512(a, b); }
  CAMBI_INLINE W or_(W a, W b) { return _mm512_or_si512(a, b); }
  CAMBI_INLINE W not_(W a) { return _mm512_xor_si512(a, _mm512_set1_epi32(-1)); }
  template <int n>
  CAMBI_INLINE W slli16(W v) {
    return _mm512_slli_epi16(v, n);
  }
  template <int n>
  CAMBI_INLINE W srli16(W v) {
    return _mm512_srli_epi16(v, n);
  }
  CAMBI_INLINE W srl16(W v, unsigned n) {
    return _mm512_srl_epi16(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  CAMBI_INLINE W eq16(W a, W b) { return _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(a, b)); }
  CAMBI_INLINE W gt_i16(W a, W b) { return _mm512_movm_epi16(_mm512_cmpgt_epi16_mask(a, b)); }
  CAMBI_INLINE W select(W m, W a, W b) {  // m ? a : b
    return _mm512_mask_blend_epi16(_mm512_movepi16_mask(m), b, a);
  }
  CAMBI_INLINE std::uint32_t bits16(W m) { return _mm512_movepi16_mask(m); }
  CAMBI_INLINE std::uint16_t hmax_u16(W v) {
    const __m256i y = _mm256_max_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i x = _mm_max_epu16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    x = _mm_xor_si128(x, _mm_set1_epi32(-1));  // max = 65535 - min(65535 - x)
    return static_cast<std::uint16_t>(0xFFFF - (_mm_cvtsi128_si32(_mm_minpos_epu16(x)) & 0xFFFF));
  }
  // src[0], src[2], ...: the even samples of 2 L16 (the low halves of 32-bit lanes).
  CAMBI_INLINE W even16(const std::uint16_t* src) {
    const __m256i a = _mm512_cvtepi32_epi16(load16(src));
    const __m256i b = _mm512_cvtepi32_epi16(load16(src + L16));
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  }

  // --- 8-bit lanes --------------------------------------------------------------
  CAMBI_INLINE W load8(const std::uint8_t* p) { return _mm512_loadu_si512(p); }
  CAMBI_INLINE void store8(std::uint8_t* p, W v) { _mm512_storeu_si512(p, v); }
  CAMBI_INLINE W set8(int x) { return _mm512_set1_epi8(static_cast<char>(x)); }
  CAMBI_INLINE W add8(W a, W b) { return _mm512_add_epi8(a, b); }
  CAMBI_INLINE W sub8(W a, W b) { return _mm512_sub_epi8(a, b); }
  CAMBI_INLINE W gt_i8(W a, W b) { return _mm512_movm_epi8(_mm512_cmpgt_epi8_mask(a, b)); }
  CAMBI_INLINE W even8(const std::uint8_t* src) {
    const __m256i a = _mm512_cvtepi16_epi8(load8(src));
    const __m256i b = _mm512_cvtepi16_epi8(load8(src + L8));
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  }

  // --- 32-bit lanes and floats ----------------------------------------------------
  CAMBI_INLINE I zero32() { return _mm512_setzero_si512(); }
  CAMBI_INLINE I set32(int x) { return _mm512_set1_epi32(x); }
  CAMBI_INLINE I iota32() {
    return _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  }
  CAMBI_INLINE I load_u16_32(const std::uint16_t* p) {
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  CAMBI_INLINE I load_u8_32(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  CAMBI_INLINE void store32(std::int32_t* p, I v) { _mm512_store_si512(p, v); }
  CAMBI_INLINE I add32(I a, I b) { return _mm512_add_epi32(a, b); }
  CAMBI_INLINE I sub32(I a, I b) { return _mm512_sub_epi32(a, b); }
  CAMBI_INLINE I mullo32(I a, I b) { return _mm512_mullo_epi32(a, b); }
  CAMBI_INLINE I min_i32(I a, I b) { return _mm512_min_epi32(a, b); }
  CAMBI_INLINE I max_i32(I a, I b) { return _mm512_max_epi32(a, b); }
  CAMBI_INLINE I and32(I a, I b) { return _mm512_and_si512(a, b); }
  CAMBI_INLINE I eq32(I a, I b) { return _mm512_movm_epi32(_mm512_cmpeq_epi32_mask(a, b)); }
  CAMBI_INLINE I gt_i32(I a, I b) { return _mm512_movm_epi32(_mm512_cmpgt_epi32_mask(a, b)); }
  CAMBI_INLINE I lanes32(std::uint32_t bits) { return _mm512_movm_epi32(static_cast<__mmask16>(bits)); }
  CAMBI_INLINE bool any32(I m) { return _mm512_test_epi32_mask(m, m) != 0; }
  CAMBI_INLINE std::uint32_t bits32(I m) { return _mm512_movepi32_mask(m); }
  CAMBI_INLINE I gather_u16(const std::uint16_t* table, I index) {
    return _mm512_and_si512(_mm512_i32gather_epi32(index, static_cast<const void*>(table), 2),
                            _mm512_set1_epi32(0xFFFF));
  }
  CAMBI_INLINE I gather_u8(const std::uint8_t* table, I index) {
    return _mm512_and_si512(_mm512_i32gather_epi32(index, static_cast<const void*>(table), 1),
                            _mm512_set1_epi32(0xFF));
  }
  CAMBI_INLINE F gather_f32(const float* table, I index) {
    return _mm512_i32gather_ps(index, static_cast<const void*>(table), 4);
  }
  CAMBI_INLINE F setf(float x) { return _mm512_set1_ps(x); }
  CAMBI_INLINE F loadf(const float* p) { return _mm512_loadu_ps(p); }
  CAMBI_INLINE std::uint32_t le_bits(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
  CAMBI_INLINE std::uint32_t ge_bits(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
  CAMBI_INLINE F reverse(F v) {
    return _mm512_permutexvar_ps(_mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
  }
  // The lanes set in `lanes` take from[0], from[1], ... in order; the others keep v's.
  CAMBI_INLINE F fill_lanes(F v, std::uint32_t lanes, F from) {
    return _mm512_mask_expand_ps(v, static_cast<__mmask16>(lanes), from);
  }
  // Zeros into the last `count` lanes at p.
  CAMBI_INLINE void store_zero_top(float* p, int count) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(0xFFFF0000u >> count), _mm512_setzero_ps());
  }
  CAMBI_INLINE F compress(F v, std::uint32_t lanes) {
    return _mm512_maskz_compress_ps(static_cast<__mmask16>(lanes), v);
  }
  CAMBI_INLINE F zerof() { return _mm512_setzero_ps(); }
  CAMBI_INLINE F cvt_f32(I v) { return _mm512_cvtepi32_ps(v); }
  CAMBI_INLINE F mulf(F a, F b) { return _mm512_mul_ps(a, b); }
  CAMBI_INLINE F maxf(F a, F b) { return _mm512_max_ps(a, b); }
  CAMBI_INLINE F andf(F a, I m) { return _mm512_and_ps(a, _mm512_castsi512_ps(m)); }
  CAMBI_INLINE void storef(float* p, F v) { _mm512_storeu_ps(p, v); }
};

#include "cambi/cambi_dsp_simd.h"

}  // namespace
}  // namespace avx512

const CambiDsp& cambi_dsp_avx512() {
  static constexpr CambiDsp dsp = avx512::make_dsp<avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::cambi
