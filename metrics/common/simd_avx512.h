// The AVX-512 vector layer: the same struct `V` as simd_avx2.h (every
// operation of the same name does the same per lane), over 512-bit vectors,
// plus the few operations only AVX-512 has (vcvtqq2ps, vplzcntd).
//
// Included by common/simd.h (the layer's entry) in translation units built
// with -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl (and
// -mavx512vnni for avx512vnni: metrics/meson.build's per-ISA libraries). GCC lets those
// imply FMA; -ffp-contract=off keeps every multiply and add separate (meson's
// no-fma test checks the objects). Masks M hold one bit per 32-bit lane.
#pragma once

#include <immintrin.h>

#include <cstdint>

#ifndef VMAFEXACT_SIMD_INLINE
// Every wrapper inlined, even inside the large row loops of ADM and VIF.
#define VMAFEXACT_SIMD_INLINE [[gnu::always_inline]] static inline
#endif

#ifndef VMAFEXACT_ISA
#error "include common/simd.h, not common/simd_avx512.h"
#endif

// The namespace is the ISA's name: built with AVX-512 VNNI as well
// (VMAFEXACT_ISA=avx512vnni), V, whose add_madd16 differs, is another type,
// not a second definition of this one.
namespace vmafexact::simd::VMAFEXACT_ISA {

// The name the tables report, the VNNI build's too.
inline constexpr char kIsaName[] = "avx512";

struct V {
  static constexpr int N = 16;  // 32-bit lanes per I
  static constexpr bool kAvx512 = true;
  using I = __m512i;    // 16 x 32 or 8 x 64 bits
  using M = __mmask16;  // one bit per 32-bit lane
  using H = __m256i;    // 8 x 32 bits
  using D = __m512d;    // 8 doubles
  using F = __m256;     // 8 floats

  // --- Constants, loads and stores -------------------------------------------
  VMAFEXACT_SIMD_INLINE I zero() { return _mm512_setzero_si512(); }
  VMAFEXACT_SIMD_INLINE I set32(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  VMAFEXACT_SIMD_INLINE I set64(std::uint64_t x) {
    return _mm512_set1_epi64(static_cast<long long>(x));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::uint16_t* p) {
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::int16_t* p) {
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::uint32_t* p) { return _mm512_loadu_si512(p); }
  VMAFEXACT_SIMD_INLINE I load(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  VMAFEXACT_SIMD_INLINE I load_u8_as_u16(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE void store(std::uint32_t* p, I v) { _mm512_storeu_si512(p, v); }
  VMAFEXACT_SIMD_INLINE void store(std::int32_t* p, I v) { _mm512_storeu_si512(p, v); }
  // vpmovdw truncates, which lanes below 2^16 do not notice.
  VMAFEXACT_SIMD_INLINE void store_u16_of_small(std::uint16_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v));
  }
  VMAFEXACT_SIMD_INLINE void store_low16(std::int16_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v));
  }

  // --- 32-bit lanes -------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE I add32(I a, I b) { return _mm512_add_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I sub32(I a, I b) { return _mm512_sub_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I mullo32(I a, I b) { return _mm512_mullo_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I abs32(I a) { return _mm512_abs_epi32(a); }
  VMAFEXACT_SIMD_INLINE I max0_32(I v) { return _mm512_max_epi32(v, zero()); }
  VMAFEXACT_SIMD_INLINE I and_(I a, I b) { return _mm512_and_si512(a, b); }
  VMAFEXACT_SIMD_INLINE I or_(I a, I b) { return _mm512_or_si512(a, b); }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srli32(I v) {
    return _mm512_srli_epi32(v, n);
  }
  template <int n>
  VMAFEXACT_SIMD_INLINE I slli32(I v) {
    return _mm512_slli_epi32(v, n);
  }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srai32(I v) {
    return _mm512_srai_epi32(v, n);
  }
  VMAFEXACT_SIMD_INLINE I srl32(I v, unsigned n) {
    return _mm512_srl_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  VMAFEXACT_SIMD_INLINE I sra32(I v, unsigned n) {
    return _mm512_sra_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  // The even 32-bit lanes of a, the odd ones of b.
  VMAFEXACT_SIMD_INLINE I blend_odd(I a, I b) { return _mm512_mask_blend_epi32(0xAAAA, a, b); }
  VMAFEXACT_SIMD_INLINE I join(I even, I odd) {
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  }
  VMAFEXACT_SIMD_INLINE I evens(I a, I b) {
    const I index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_epi32(a, index, b);
  }
  VMAFEXACT_SIMD_INLINE H low_half(I v) { return _mm512_castsi512_si256(v); }
  VMAFEXACT_SIMD_INLINE H high_half(I v) { return _mm512_extracti64x4_epi64(v, 1); }
  VMAFEXACT_SIMD_INLINE I combine(H lo, H hi) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
  // Leading zeros per 32-bit lane (vplzcntd, AVX-512CD).
  VMAFEXACT_SIMD_INLINE I lzcnt32(I v) { return _mm512_lzcnt_epi32(v); }

  // --- 16-bit lanes -------------------------------------------------------------
  // The low 16 bits of each 16-bit lane's product (vpmullw).
  VMAFEXACT_SIMD_INLINE I mullo16(I a, I b) { return _mm512_mullo_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I sub16(I a, I b) { return _mm512_sub_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I madd16(I a, I b) { return _mm512_madd_epi16(a, b); }
  // acc + madd16(a, b), modulo 2^32 either way.
  VMAFEXACT_SIMD_INLINE I add_madd16(I acc, I a, I b) {
#ifdef __AVX512VNNI__
    return _mm512_dpwssd_epi32(acc, a, b);
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
#endif
  }
  VMAFEXACT_SIMD_INLINE I interleave_lo16(I a, I b) { return _mm512_unpacklo_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I interleave_hi16(I a, I b) { return _mm512_unpackhi_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I pack_i32_i16(I lo, I hi) { return _mm512_packs_epi32(lo, hi); }

  // --- 64-bit lanes -------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE I add64(I a, I b) { return _mm512_add_epi64(a, b); }
  VMAFEXACT_SIMD_INLINE I mulu32x32(I a, I b) { return _mm512_mul_epu32(a, b); }
  VMAFEXACT_SIMD_INLINE I muls32x32(I a, I b) { return _mm512_mul_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I odd(I v) { return _mm512_srli_epi64(v, 32); }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srli64(I v) {
    return _mm512_srli_epi64(v, n);
  }
  VMAFEXACT_SIMD_INLINE I srl64(I v, unsigned n) {
    return _mm512_srl_epi64(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }

  // --- Conversions ----------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE D cvt_i32_f64(H v) { return _mm512_cvtepi32_pd(v); }
  VMAFEXACT_SIMD_INLINE D cvt_f32_f64(F v) { return _mm512_cvtps_pd(v); }
  VMAFEXACT_SIMD_INLINE F cvt_f64_f32(D v) { return _mm512_cvtpd_ps(v); }
  VMAFEXACT_SIMD_INLINE H cvtt_f64_i32(D v) { return _mm512_cvttpd_epi32(v); }
  VMAFEXACT_SIMD_INLINE I cvt_i32_i64(H v) { return _mm512_cvtepi32_epi64(v); }
  VMAFEXACT_SIMD_INLINE H cvt_i64_i32(I v) { return _mm512_cvtepi64_epi32(v); }  // vpmovqd
  // int64 -> float rounded to nearest, as the scalar's conversion (vcvtqq2ps).
  VMAFEXACT_SIMD_INLINE F cvt_i64_f32(I v) { return _mm512_cvtepi64_ps(v); }

  // --- Masks ----------------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE M lt32(I a, I b) { return _mm512_cmplt_epi32_mask(a, b); }
  VMAFEXACT_SIMD_INLINE M gt0_32(I a) { return _mm512_cmpgt_epi32_mask(a, zero()); }
  VMAFEXACT_SIMD_INLINE M mask_and(M a, M b) { return static_cast<M>(a & b); }
  VMAFEXACT_SIMD_INLINE M mask_andnot(M a, M b) { return static_cast<M>(~a & b); }
  VMAFEXACT_SIMD_INLINE I select(M m, I a, I b) { return _mm512_mask_blend_epi32(m, b, a); }
  VMAFEXACT_SIMD_INLINE I maskz(M m, I v) { return _mm512_maskz_mov_epi32(m, v); }
  VMAFEXACT_SIMD_INLINE I maskz_not(M m, I v) {
    return _mm512_maskz_mov_epi32(static_cast<M>(~m), v);
  }
  VMAFEXACT_SIMD_INLINE I add_count(I acc, M m) {
    return _mm512_mask_add_epi32(acc, m, acc, set32(1));
  }
  VMAFEXACT_SIMD_INLINE bool any(M m) { return m != 0; }
  VMAFEXACT_SIMD_INLINE bool all(M m) { return m == 0xFFFF; }
  // The lanes of m moved to the front, in order, zeros after (vpcompressd in
  // a register: its store form is microcoded on AMD's cores), and their count.
  VMAFEXACT_SIMD_INLINE I compress32(M m, I v) { return _mm512_maskz_compress_epi32(m, v); }
  VMAFEXACT_SIMD_INLINE unsigned count(M m) {
    return static_cast<unsigned>(__builtin_popcount(m));
  }

  // --- Doubles -------------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE D set1d(double x) { return _mm512_set1_pd(x); }
  VMAFEXACT_SIMD_INLINE D addd(D a, D b) { return _mm512_add_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D subd(D a, D b) { return _mm512_sub_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D muld(D a, D b) { return _mm512_mul_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D divd(D a, D b) { return _mm512_div_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D mind(D a, D b) { return _mm512_min_pd(a, b); }  // a < b ? a : b
  VMAFEXACT_SIMD_INLINE D truncd(D a) {
    return _mm512_roundscale_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  // a > 0 ? a : +0 for non-NaN a (vmaxpd returns its second operand, +0, when
  // a is -0 or +0).
  VMAFEXACT_SIMD_INLINE D positive_or_zero(D a) { return _mm512_max_pd(a, _mm512_setzero_pd()); }

  // --- Float lanes, one per double lane (N/2 of each) -----------------------------
  using MF = __mmask8;
  static constexpr int NF = 8;  // lanes of F and D
  VMAFEXACT_SIMD_INLINE F zerof() { return _mm256_setzero_ps(); }
  VMAFEXACT_SIMD_INLINE F set1f(float x) { return _mm256_set1_ps(x); }
  VMAFEXACT_SIMD_INLINE F loadf(const float* p) { return _mm256_loadu_ps(p); }
  VMAFEXACT_SIMD_INLINE void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
  VMAFEXACT_SIMD_INLINE void stored(double* p, D v) { _mm512_storeu_pd(p, v); }
  VMAFEXACT_SIMD_INLINE F addf(F a, F b) { return _mm256_add_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F subf(F a, F b) { return _mm256_sub_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F mulf(F a, F b) { return _mm256_mul_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F divf(F a, F b) { return _mm256_div_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F rootf(F a) { return _mm256_sqrt_ps(a); }
  VMAFEXACT_SIMD_INLINE MF ltf(F a, F b) { return _mm256_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  VMAFEXACT_SIMD_INLINE MF lef(F a, F b) { return _mm256_cmp_ps_mask(a, b, _CMP_LE_OQ); }
  VMAFEXACT_SIMD_INLINE MF maskf_and(MF a, MF b) { return static_cast<MF>(a & b); }
  VMAFEXACT_SIMD_INLINE F selectf(MF m, F a, F b) { return _mm256_mask_blend_ps(m, b, a); }
  VMAFEXACT_SIMD_INLINE F cvtf(const std::uint8_t* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  }
  VMAFEXACT_SIMD_INLINE F cvtf(const std::uint16_t* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }

  // --- libvmaf's log2 tables (VIF) -----------------------------------------------
  // table[index] for index in 32768 .. 65535: the 32 bits at entries index - 1
  // and index (inside the table), high half.
  VMAFEXACT_SIMD_INLINE I lookup(const std::uint16_t* table, I index) {
    return lookup_offset(table, _mm512_sub_epi32(index, set32(32768)));
  }
  // The same for offset = index - 32768 (0 .. 32767).
  VMAFEXACT_SIMD_INLINE I lookup_offset(const std::uint16_t* table, I offset) {
    const I pair = _mm512_i32gather_epi32(offset, static_cast<const void*>(table + 32767), 2);
    return _mm512_srli_epi32(pair, 16);
  }
  // log2_32 of lanes >= 2^16 (vplzcntd).
  VMAFEXACT_SIMD_INLINE I log2_32(const std::uint16_t* table, I v) {
    const I shift = _mm512_sub_epi32(set32(16), _mm512_lzcnt_epi32(v));
    const I index = _mm512_srlv_epi32(v, shift);  // 32768 .. 65535
    return _mm512_add_epi32(lookup(table, index), _mm512_slli_epi32(shift, 11));
  }
  // log2_64 of integer-valued doubles in [2^17, 2^53), N/2 lanes of `lo` then
  // N/2 of `hi`, from the doubles' high words (one 16-lane gather for both):
  // x = (2^52 + f) * 2^(e - 52) with e = floor(log2 x) >= 17, so the shift is
  // e - 15 and x >> (e - 15) = 2^15 + (f >> 37), the fraction's top 15 bits
  // (bits 5..19 of the high word).
  VMAFEXACT_SIMD_INLINE I log2_64x2(const std::uint16_t* table, D lo, D hi) {
    const I odd_words =
        _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const I high =
        _mm512_permutex2var_epi32(_mm512_castpd_si512(lo), odd_words, _mm512_castpd_si512(hi));
    const I offset = _mm512_and_si512(_mm512_srli_epi32(high, 5), set32(0x7FFF));  // index - 2^15
    const I shift = _mm512_sub_epi32(_mm512_srli_epi32(high, 20), set32(1023 + 15));
    return _mm512_add_epi32(lookup_offset(table, offset), _mm512_slli_epi32(shift, 11));
  }

  // --- Reductions ----------------------------------------------------------------
  // Vector adds wrap modulo 2^32 / 2^64 (GCC's _mm512_reduce_add_epi32 adds in
  // signed int, which UBSan rightly flags when a row's sum wraps).
  VMAFEXACT_SIMD_INLINE std::uint32_t sum32(I v) {
    const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }
  VMAFEXACT_SIMD_INLINE std::int64_t sum32_signed_wide(I v) {
    return static_cast<std::int64_t>(
        sum64(_mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)),
                               _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1)))));
  }
  VMAFEXACT_SIMD_INLINE std::uint64_t sum64(I v) {
    const __m256i h = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(x)) +
           static_cast<std::uint64_t>(_mm_extract_epi64(x, 1));
  }
  VMAFEXACT_SIMD_INLINE std::int32_t or_all32(I v) { return _mm512_reduce_or_epi32(v); }

  // --- 16-bit lanes, N16 per I (CAMBI) ---------------------------------------------
  // Comparisons give lanes of all ones or zero, in an I, so the templates read
  // as for AVX2.
  static constexpr int N16 = 2 * N;
  VMAFEXACT_SIMD_INLINE I set16(int x) { return _mm512_set1_epi16(static_cast<short>(x)); }
  VMAFEXACT_SIMD_INLINE I iota16() {
    return _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14,
                            13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  }
  VMAFEXACT_SIMD_INLINE I load16(const std::uint16_t* p) { return _mm512_loadu_si512(p); }
  VMAFEXACT_SIMD_INLINE void store16(std::uint16_t* p, I v) { _mm512_storeu_si512(p, v); }
  VMAFEXACT_SIMD_INLINE void store_u16_as_u8(std::uint8_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi16_epi8(v));
  }
  VMAFEXACT_SIMD_INLINE I add16(I a, I b) { return _mm512_add_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I min_u16(I a, I b) { return _mm512_min_epu16(a, b); }
  VMAFEXACT_SIMD_INLINE I max_u16(I a, I b) { return _mm512_max_epu16(a, b); }
  VMAFEXACT_SIMD_INLINE I min_i16(I a, I b) { return _mm512_min_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I max_i16(I a, I b) { return _mm512_max_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I not_(I a) { return _mm512_xor_si512(a, _mm512_set1_epi32(-1)); }
  template <int n>
  VMAFEXACT_SIMD_INLINE I slli16(I v) {
    return _mm512_slli_epi16(v, n);
  }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srli16(I v) {
    return _mm512_srli_epi16(v, n);
  }
  VMAFEXACT_SIMD_INLINE I srl16(I v, unsigned n) {
    return _mm512_srl_epi16(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  VMAFEXACT_SIMD_INLINE I eq16(I a, I b) {
    return _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(a, b));
  }
  VMAFEXACT_SIMD_INLINE I gt_i16(I a, I b) {
    return _mm512_movm_epi16(_mm512_cmpgt_epi16_mask(a, b));
  }
  // m ? a : b per 16-bit lane of a comparison m.
  VMAFEXACT_SIMD_INLINE I select16(I m, I a, I b) {
    return _mm512_mask_blend_epi16(_mm512_movepi16_mask(m), b, a);
  }
  VMAFEXACT_SIMD_INLINE I shift_in16(I prev, I cur) {
    // lane i takes element 31 + i of prev:cur (prev's last, then cur's)
    const I index = _mm512_set_epi16(62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47,
                                     46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31);
    return _mm512_permutex2var_epi16(prev, index, cur);
  }
  VMAFEXACT_SIMD_INLINE std::uint32_t bits16(I m) { return _mm512_movepi16_mask(m); }
  VMAFEXACT_SIMD_INLINE std::uint16_t hmax_u16(I v) {
    const __m256i y = _mm256_max_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i x = _mm_max_epu16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    x = _mm_xor_si128(x, _mm_set1_epi32(-1));  // max = 65535 - min(65535 - x)
    return static_cast<std::uint16_t>(0xFFFF - (_mm_cvtsi128_si32(_mm_minpos_epu16(x)) & 0xFFFF));
  }
  // src[0], src[2], ...: the even samples of 2 N16 (the low halves of 32-bit lanes).
  VMAFEXACT_SIMD_INLINE I even16(const std::uint16_t* src) {
    const __m256i a = _mm512_cvtepi32_epi16(load16(src));
    const __m256i b = _mm512_cvtepi32_epi16(load16(src + N16));
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  }

  // --- 8-bit lanes, N8 per I (CAMBI) ------------------------------------------------
  static constexpr int N8 = 4 * N;
  VMAFEXACT_SIMD_INLINE I load8(const std::uint8_t* p) { return _mm512_loadu_si512(p); }
  VMAFEXACT_SIMD_INLINE void store8(std::uint8_t* p, I v) { _mm512_storeu_si512(p, v); }
  VMAFEXACT_SIMD_INLINE I set8(int x) { return _mm512_set1_epi8(static_cast<char>(x)); }
  VMAFEXACT_SIMD_INLINE I add8(I a, I b) { return _mm512_add_epi8(a, b); }
  VMAFEXACT_SIMD_INLINE I sub8(I a, I b) { return _mm512_sub_epi8(a, b); }
  VMAFEXACT_SIMD_INLINE I gt_i8(I a, I b) { return _mm512_movm_epi8(_mm512_cmpgt_epi8_mask(a, b)); }
  VMAFEXACT_SIMD_INLINE I even8(const std::uint8_t* src) {
    const __m256i a = _mm512_cvtepi16_epi8(load8(src));
    const __m256i b = _mm512_cvtepi16_epi8(load8(src + N8));
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  }

  // --- 32-bit lanes with comparisons as lanes (CAMBI) ---------------------------------
  // Unlike lt32/gt0_32's M, these comparisons give lanes of all ones or zero
  // in an I on every ISA.
  // An int in every lane (set32's uint32 is the same bits).
  VMAFEXACT_SIMD_INLINE I set_i32(int x) { return _mm512_set1_epi32(x); }
  VMAFEXACT_SIMD_INLINE I iota32() {
    return _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  }
  // An aligned store (p at a multiple of the vector's size).
  VMAFEXACT_SIMD_INLINE void store_aligned(std::int32_t* p, I v) { _mm512_store_si512(p, v); }
  VMAFEXACT_SIMD_INLINE I min_i32(I a, I b) { return _mm512_min_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I max_i32(I a, I b) { return _mm512_max_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I eq32(I a, I b) {
    return _mm512_movm_epi32(_mm512_cmpeq_epi32_mask(a, b));
  }
  VMAFEXACT_SIMD_INLINE I gt_i32(I a, I b) {
    return _mm512_movm_epi32(_mm512_cmpgt_epi32_mask(a, b));
  }
  VMAFEXACT_SIMD_INLINE I lanes32(std::uint32_t bits) {
    return _mm512_movm_epi32(static_cast<__mmask16>(bits));
  }
  VMAFEXACT_SIMD_INLINE bool any32(I m) { return _mm512_test_epi32_mask(m, m) != 0; }
  VMAFEXACT_SIMD_INLINE std::uint32_t bits32(I m) { return _mm512_movepi32_mask(m); }
  VMAFEXACT_SIMD_INLINE I gather_u16(const std::uint16_t* table, I index) {
    return _mm512_and_si512(_mm512_i32gather_epi32(index, static_cast<const void*>(table), 2),
                            _mm512_set1_epi32(0xFFFF));
  }
  VMAFEXACT_SIMD_INLINE I gather_u8(const std::uint8_t* table, I index) {
    return _mm512_and_si512(_mm512_i32gather_epi32(index, static_cast<const void*>(table), 1),
                            _mm512_set1_epi32(0xFF));
  }

  // --- Floats across the vector, N per FW (CAMBI, SpEED) ------------------------------
  using FW = __m512;  // 16 floats
  VMAFEXACT_SIMD_INLINE FW zerofw() { return _mm512_setzero_ps(); }
  VMAFEXACT_SIMD_INLINE FW set1fw(float x) { return _mm512_set1_ps(x); }
  VMAFEXACT_SIMD_INLINE FW loadfw(const float* p) { return _mm512_loadu_ps(p); }
  VMAFEXACT_SIMD_INLINE void storefw(float* p, FW v) { _mm512_storeu_ps(p, v); }
  // Masks of the first n lanes (1 <= n <= N): loads give 0 in the others,
  // stores leave them.
  VMAFEXACT_SIMD_INLINE M mask_first(unsigned n) { return static_cast<M>((1u << n) - 1u); }
  VMAFEXACT_SIMD_INLINE FW loadfw_masked(const float* p, M m) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  VMAFEXACT_SIMD_INLINE void storefw_masked(float* p, FW v, M m) { _mm512_mask_storeu_ps(p, m, v); }
  VMAFEXACT_SIMD_INLINE FW addfw(FW a, FW b) { return _mm512_add_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW subfw(FW a, FW b) { return _mm512_sub_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW mulfw(FW a, FW b) { return _mm512_mul_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW divfw(FW a, FW b) { return _mm512_div_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW maxfw(FW a, FW b) { return _mm512_max_ps(a, b); }
  // a where the lanes of m are all ones, +0 where zero.
  VMAFEXACT_SIMD_INLINE FW andfw(FW a, I m) { return _mm512_and_ps(a, _mm512_castsi512_ps(m)); }
  // N samples as floats (exact: below 2^24).
  VMAFEXACT_SIMD_INLINE FW cvtfw(const std::uint8_t* p) {
    return _mm512_cvtepi32_ps(
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  VMAFEXACT_SIMD_INLINE FW cvtfw(const std::uint16_t* p) {
    return _mm512_cvtepi32_ps(
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
  }
  VMAFEXACT_SIMD_INLINE FW cvt_i32_fw(I v) { return _mm512_cvtepi32_ps(v); }
  VMAFEXACT_SIMD_INLINE FW gather_fw(const float* table, I index) {
    return _mm512_i32gather_ps(index, static_cast<const void*>(table), 4);
  }
  // One bit per lane of a <= b, a >= b (ordered: no NaN here).
  VMAFEXACT_SIMD_INLINE std::uint32_t le_bits(FW a, FW b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
  }
  VMAFEXACT_SIMD_INLINE std::uint32_t ge_bits(FW a, FW b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ);
  }
  VMAFEXACT_SIMD_INLINE FW reverse_fw(FW v) {
    return _mm512_permutexvar_ps(
        _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
  }
  // The lanes set in `lanes` take from[0], from[1], ... in order; the others keep v's.
  VMAFEXACT_SIMD_INLINE FW fill_lanes(FW v, std::uint32_t lanes, FW from) {
    return _mm512_mask_expand_ps(v, static_cast<__mmask16>(lanes), from);
  }
  // Zeros into the last `count` lanes at p.
  VMAFEXACT_SIMD_INLINE void store_zero_top(float* p, int count) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(0xFFFF0000u >> count), _mm512_setzero_ps());
  }
  // The lanes set in `lanes`, in order, in the first lanes.
  VMAFEXACT_SIMD_INLINE FW compress_fw(FW v, std::uint32_t lanes) {
    return _mm512_maskz_compress_ps(static_cast<__mmask16>(lanes), v);
  }

  // --- More doubles (SpEED) -----------------------------------------------------------
  VMAFEXACT_SIMD_INLINE D zerod() { return _mm512_setzero_pd(); }
  VMAFEXACT_SIMD_INLINE D loadd(const double* p) { return _mm512_loadu_pd(p); }
};

}  // namespace vmafexact::simd::VMAFEXACT_ISA
