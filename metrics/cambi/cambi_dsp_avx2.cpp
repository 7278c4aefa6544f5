// The AVX2 twins of CAMBI's DSP routines: cambi_dsp_simd.h over a 256-bit
// layer of 16-bit, 8-bit, 32-bit and float lanes.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "cambi/cambi_dsp.h"
#include "cambi/cambi_dsp_scalar.h"

namespace vmafexact::cambi {
namespace avx2 {
namespace {

// For each 8-bit lane set: the index into the source of each set lane (its
// rank among the set lanes), -1 for the others.
struct ExpandTable {
  alignas(32) std::array<std::int32_t, 8> lanes[256];
  constexpr ExpandTable() : lanes{} {
    for (int m = 0; m < 256; ++m) {
      int rank = 0;
      for (int l = 0; l < 8; ++l) lanes[m][l] = (m >> l & 1) ? rank++ : -1;
    }
  }
};
constexpr ExpandTable kExpandTable;
constexpr const std::array<std::int32_t, 8>* kExpand = kExpandTable.lanes;

// For each 8-bit lane set: the set lanes' indices in order, then zeros.
struct CompressTable {
  alignas(32) std::array<std::int32_t, 8> lanes[256];
  constexpr CompressTable() : lanes{} {
    for (int m = 0; m < 256; ++m) {
      int next = 0;
      for (int l = 0; l < 8; ++l)
        if (m >> l & 1) lanes[m][next++] = l;
    }
  }
};
constexpr CompressTable kCompressTable;

#define CAMBI_INLINE [[gnu::always_inline]] static inline

struct V {
  static constexpr unsigned L16 = 16, L8 = 32, L32 = 8;
  using W = __m256i;  // 16 x 16 bits, or 32 x 8 bits
  using I = __m256i;  // 8 x 32 bits
  using F = __m256;   // 8 floats

  // --- 16-bit lanes -------------------------------------------------------------
  CAMBI_INLINE W zero() { return _mm256_setzero_si256(); }
  CAMBI_INLINE W set16(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  CAMBI_INLINE W iota16() {
    return _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
  CAMBI_INLINE W load16(const std::uint16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  CAMBI_INLINE void store16(std::uint16_t* p, W v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  CAMBI_INLINE W load_u8_16(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  // The low byte of each lane (lanes below 256).
  CAMBI_INLINE void store_u16_as_u8(std::uint8_t* p, W v) {
    const __m128i packed = _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packed);
  }
  CAMBI_INLINE W add16(W a, W b) { return _mm256_add_epi16(a, b); }
  CAMBI_INLINE W sub16(W a, W b) { return _mm256_sub_epi16(a, b); }
  CAMBI_INLINE W min_u16(W a, W b) { return _mm256_min_epu16(a, b); }
  CAMBI_INLINE W max_u16(W a, W b) { return _mm256_max_epu16(a, b); }
  CAMBI_INLINE W min_i16(W a, W b) { return _mm256_min_epi16(a, b); }
  CAMBI_INLINE W max_i16(W a, W b) { return _mm256_max_epi16(a, b); }
  CAMBI_INLINE W and_(W a, W b) { return _mm256_and_si256(a, b); }
  CAMBI_INLINE W or_(W a, W b) { return _mm256_or_si256(a, b); }
  CAMBI_INLINE W not_(W a) { return _mm256_xor_si256(a, _mm256_set1_epi32(-1)); }
  template <int n>
  CAMBI_INLINE W slli16(W v) {
    return _mm256_slli_epi16(v, n);
  }
  template <int n>
  CAMBI_INLINE W srli16(W v) {
    return _mm256_srli_epi16(v, n);
  }
  CAMBI_INLINE W srl16(W v, unsigned n) {
    return _mm256_srl_epi16(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  CAMBI_INLINE W eq16(W a, W b) { return _mm256_cmpeq_epi16(a, b); }
  CAMBI_INLINE W gt_i16(W a, W b) { return _mm256_cmpgt_epi16(a, b); }
  CAMBI_INLINE W select(W m, W a, W b) { return _mm256_blendv_epi8(b, a, m); }  // m ? a : b
  // One bit per lane of a comparison.
  CAMBI_INLINE std::uint32_t bits16(W m) {
    const __m128i packed = _mm_packs_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    return static_cast<std::uint32_t>(_mm_movemask_epi8(packed));
  }
  CAMBI_INLINE std::uint16_t hmax_u16(W v) {
    __m128i x = _mm_max_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    // max = 65535 - min(65535 - x): phminposuw finds the minimum.
    x = _mm_xor_si128(x, _mm_set1_epi32(-1));
    return static_cast<std::uint16_t>(0xFFFF - (_mm_cvtsi128_si32(_mm_minpos_epu16(x)) & 0xFFFF));
  }
  // src[0], src[2], ...: the even samples of 2 L16.
  CAMBI_INLINE W even16(const std::uint16_t* src) {
    const W low = _mm256_set1_epi32(0xFFFF);
    const W a = _mm256_and_si256(load16(src), low), b = _mm256_and_si256(load16(src + L16), low);
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
  }

  // --- 8-bit lanes --------------------------------------------------------------
  CAMBI_INLINE W load8(const std::uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  CAMBI_INLINE void store8(std::uint8_t* p, W v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  CAMBI_INLINE W set8(int x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  CAMBI_INLINE W add8(W a, W b) { return _mm256_add_epi8(a, b); }
  CAMBI_INLINE W sub8(W a, W b) { return _mm256_sub_epi8(a, b); }
  CAMBI_INLINE W gt_i8(W a, W b) { return _mm256_cmpgt_epi8(a, b); }
  CAMBI_INLINE W even8(const std::uint8_t* src) {
    const W low = _mm256_set1_epi16(0xFF);
    const W a = _mm256_and_si256(load8(src), low), b = _mm256_and_si256(load8(src + L8), low);
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
  }

  // --- 32-bit lanes and floats ----------------------------------------------------
  CAMBI_INLINE I zero32() { return _mm256_setzero_si256(); }
  CAMBI_INLINE I set32(int x) { return _mm256_set1_epi32(x); }
  CAMBI_INLINE I iota32() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
  CAMBI_INLINE I load_u16_32(const std::uint16_t* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  CAMBI_INLINE I load_u8_32(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  CAMBI_INLINE void store32(std::int32_t* p, I v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
  }
  CAMBI_INLINE I add32(I a, I b) { return _mm256_add_epi32(a, b); }
  CAMBI_INLINE I sub32(I a, I b) { return _mm256_sub_epi32(a, b); }
  CAMBI_INLINE I mullo32(I a, I b) { return _mm256_mullo_epi32(a, b); }
  CAMBI_INLINE I min_i32(I a, I b) { return _mm256_min_epi32(a, b); }
  CAMBI_INLINE I max_i32(I a, I b) { return _mm256_max_epi32(a, b); }
  CAMBI_INLINE I and32(I a, I b) { return _mm256_and_si256(a, b); }
  CAMBI_INLINE I eq32(I a, I b) { return _mm256_cmpeq_epi32(a, b); }
  CAMBI_INLINE I gt_i32(I a, I b) { return _mm256_cmpgt_epi32(a, b); }
  // Lanes of all ones where `bits` has a one.
  CAMBI_INLINE I lanes32(std::uint32_t bits) {
    const I bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), bit), bit);
  }
  CAMBI_INLINE bool any32(I m) { return !_mm256_testz_si256(m, m); }
  CAMBI_INLINE std::uint32_t bits32(I m) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(m)));
  }
  // table[index] of uint16 / uint8 tables, read as 32 bits (the tables have
  // slack after their last entry) and cut to the entry.
  CAMBI_INLINE I gather_u16(const std::uint16_t* table, I index) {
    return _mm256_and_si256(_mm256_i32gather_epi32(reinterpret_cast<const int*>(table), index, 2),
                            _mm256_set1_epi32(0xFFFF));
  }
  CAMBI_INLINE I gather_u8(const std::uint8_t* table, I index) {
    return _mm256_and_si256(_mm256_i32gather_epi32(reinterpret_cast<const int*>(table), index, 1),
                            _mm256_set1_epi32(0xFF));
  }
  CAMBI_INLINE F gather_f32(const float* table, I index) {
    return _mm256_i32gather_ps(table, index, 4);
  }
  CAMBI_INLINE F setf(float x) { return _mm256_set1_ps(x); }
  CAMBI_INLINE F loadf(const float* p) { return _mm256_loadu_ps(p); }
  // One bit per lane of a <= b, a >= b (ordered: no NaN here).
  CAMBI_INLINE std::uint32_t le_bits(F a, F b) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ)));
  }
  CAMBI_INLINE std::uint32_t ge_bits(F a, F b) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ)));
  }
  CAMBI_INLINE F reverse(F v) { return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)); }
  // The lanes set in `lanes` take from[0], from[1], ... in order; the others keep v's.
  CAMBI_INLINE F fill_lanes(F v, std::uint32_t lanes, F from) {
    const I sources = _mm256_load_si256(reinterpret_cast<const __m256i*>(kExpand[lanes].data()));
    const I set = _mm256_cmpgt_epi32(sources, _mm256_set1_epi32(-1));
    return _mm256_blendv_ps(v, _mm256_permutevar8x32_ps(from, sources), _mm256_castsi256_ps(set));
  }
  // Zeros into the last `count` lanes at p.
  CAMBI_INLINE void store_zero_top(float* p, int count) {
    const I lanes = _mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(7 - count));
    _mm256_maskstore_ps(p, lanes, _mm256_setzero_ps());
  }
  // The lanes set in `lanes`, in order, in the first lanes.
  CAMBI_INLINE F compress(F v, std::uint32_t lanes) {
    return _mm256_permutevar8x32_ps(
        v, _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompressTable.lanes[lanes].data())));
  }
  CAMBI_INLINE F zerof() { return _mm256_setzero_ps(); }
  CAMBI_INLINE F cvt_f32(I v) { return _mm256_cvtepi32_ps(v); }
  CAMBI_INLINE F mulf(F a, F b) { return _mm256_mul_ps(a, b); }
  CAMBI_INLINE F maxf(F a, F b) { return _mm256_max_ps(a, b); }
  CAMBI_INLINE F andf(F a, I m) { return _mm256_and_ps(a, _mm256_castsi256_ps(m)); }
  CAMBI_INLINE void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
};

#include "cambi/cambi_dsp_simd.h"

}  // namespace
}  // namespace avx2

const CambiDsp& cambi_dsp_avx2() {
  static constexpr CambiDsp dsp = avx2::make_dsp<avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::cambi
