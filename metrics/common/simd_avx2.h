// The AVX2 vector layer: every intrinsic the features' SIMD twins use, behind
// one struct `V` that simd_avx512.h spells the same way for 512 bits (dav1d's
// model: the features' *_dsp_simd.h templates are written once over V, and
// each ISA's translation unit instantiates them with its V).
//
// Included by common/simd.h (the layer's entry) in translation units built
// with -mavx2 (metrics/meson.build's per-ISA libraries). Lanes: I holds N 32-bit lanes (read as N/2
// 64-bit lanes by the *64 operations), H half of it (N/2 x 32 bits), D N/2 doubles, F N/2 floats, M
// a mask of 32-bit lanes (all ones or zero per lane here; one bit per lane with AVX-512). Names say
// the lane width (32, 64, 16) and whether a shift or a sum is signed; every operation is the plain
// instruction, with its wrapping (modulo 2^lane bits) arithmetic.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>

#ifndef VMAFEXACT_SIMD_INLINE
// Every wrapper inlined, even inside the large row loops of ADM and VIF.
#define VMAFEXACT_SIMD_INLINE [[gnu::always_inline]] static inline
#endif

#ifndef VMAFEXACT_ISA
#error "include common/simd.h, not common/simd_avx2.h"
#endif

namespace vmafexact::simd::VMAFEXACT_ISA {

inline constexpr char kIsaName[] = "avx2";

namespace detail {
// For each 8-bit lane set: the index into the source of each set lane (its
// rank among the set lanes), -1 for the others (V::fill_lanes).
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

// For each 8-bit lane set: the set lanes' indices in order, then zeros
// (V::compress_fw).
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
}  // namespace detail

struct V {
  static constexpr int N = 8;          // 32-bit lanes per I
  static constexpr bool kAvx512 = false;
  using I = __m256i;  // 8 x 32 or 4 x 64 bits
  using M = __m256i;  // lane masks: all ones or zero per 32-bit lane
  using H = __m128i;  // 4 x 32 bits
  using D = __m256d;  // 4 doubles
  using F = __m128;   // 4 floats

  // --- Constants, loads and stores -------------------------------------------
  VMAFEXACT_SIMD_INLINE I zero() { return _mm256_setzero_si256(); }
  VMAFEXACT_SIMD_INLINE I set32(std::uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  VMAFEXACT_SIMD_INLINE I set64(std::uint64_t x) {
    return _mm256_set1_epi64x(static_cast<long long>(x));
  }
  // N samples widened to 32-bit lanes (zero- or sign-extended by type).
  VMAFEXACT_SIMD_INLINE I load(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::uint16_t* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::int16_t* p) {
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  VMAFEXACT_SIMD_INLINE I load(const std::int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  // 2N bytes widened to 16-bit lanes.
  VMAFEXACT_SIMD_INLINE I load_u8_as_u16(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  VMAFEXACT_SIMD_INLINE void store(std::uint32_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  VMAFEXACT_SIMD_INLINE void store(std::int32_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  // Lanes known to be below 2^16, stored as N uint16 (unsigned saturation,
  // which such lanes never reach).
  VMAFEXACT_SIMD_INLINE void store_u16_of_small(std::uint16_t* p, I v) {
    const I packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0xD8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
  }
  // The low 16 bits of every lane stored as N int16 (truncation). GCC's
  // generic narrowing convert: AVX2 has no vpmovdw.
  VMAFEXACT_SIMD_INLINE void store_low16(std::int16_t* p, I v) {
    typedef std::int32_t I32x8 __attribute__((vector_size(32)));
    typedef std::int16_t I16x8 __attribute__((vector_size(16)));
    const I16x8 narrow = __builtin_convertvector(reinterpret_cast<I32x8>(v), I16x8);
    __builtin_memcpy(p, &narrow, sizeof narrow);
  }

  // --- 32-bit lanes -------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE I add32(I a, I b) { return _mm256_add_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I sub32(I a, I b) { return _mm256_sub_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I mullo32(I a, I b) { return _mm256_mullo_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I abs32(I a) { return _mm256_abs_epi32(a); }
  VMAFEXACT_SIMD_INLINE I max0_32(I v) { return _mm256_max_epi32(v, zero()); }
  VMAFEXACT_SIMD_INLINE I and_(I a, I b) { return _mm256_and_si256(a, b); }
  VMAFEXACT_SIMD_INLINE I or_(I a, I b) { return _mm256_or_si256(a, b); }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srli32(I v) {
    return _mm256_srli_epi32(v, n);
  }
  template <int n>
  VMAFEXACT_SIMD_INLINE I slli32(I v) {
    return _mm256_slli_epi32(v, n);
  }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srai32(I v) {
    return _mm256_srai_epi32(v, n);
  }
  VMAFEXACT_SIMD_INLINE I srl32(I v, unsigned n) {
    return _mm256_srl_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  VMAFEXACT_SIMD_INLINE I sra32(I v, unsigned n) {
    return _mm256_sra_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  // 32-bit lanes from the low halves of 64-bit lanes: even lanes from `even`,
  // odd lanes from `odd`.
  // The even 32-bit lanes of a, the odd ones of b.
  VMAFEXACT_SIMD_INLINE I blend_odd(I a, I b) { return _mm256_blend_epi32(a, b, 0xAA); }
  VMAFEXACT_SIMD_INLINE I join(I even, I odd) {
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  }
  // Lanes 0, 2, .. of a then of b.
  VMAFEXACT_SIMD_INLINE I evens(I a, I b) {
    const __m256 s = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88);
    return _mm256_permute4x64_epi64(_mm256_castps_si256(s), 0xD8);
  }
  // The halves of I and their join.
  VMAFEXACT_SIMD_INLINE H low_half(I v) { return _mm256_castsi256_si128(v); }
  VMAFEXACT_SIMD_INLINE H high_half(I v) { return _mm256_extracti128_si256(v, 1); }
  VMAFEXACT_SIMD_INLINE I combine(H lo, H hi) { return _mm256_set_m128i(hi, lo); }

  // --- 16-bit lanes -------------------------------------------------------------
  // The low 16 bits of each 16-bit lane's product (vpmullw).
  VMAFEXACT_SIMD_INLINE I mullo16(I a, I b) { return _mm256_mullo_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I sub16(I a, I b) { return _mm256_sub_epi16(a, b); }
  // Per 32-bit lane, the sum of the products of its two int16 pairs (pmaddwd).
  VMAFEXACT_SIMD_INLINE I madd16(I a, I b) { return _mm256_madd_epi16(a, b); }
  // acc + madd16(a, b) (modulo 2^32, as AVX-512 VNNI's vpdpwssd).
  VMAFEXACT_SIMD_INLINE I add_madd16(I acc, I a, I b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  }
  // Per 128-bit block, the 16-bit lanes of its low (high) half of a and b
  // interleaved, a first (vpunpcklwd, vpunpckhwd); pack_i32_i16 of the 32-bit
  // results of interleave_lo16(a, b) and interleave_hi16(a, b) puts them back
  // in the columns of a and b.
  VMAFEXACT_SIMD_INLINE I interleave_lo16(I a, I b) { return _mm256_unpacklo_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I interleave_hi16(I a, I b) { return _mm256_unpackhi_epi16(a, b); }
  // Per 128-bit block, the int32 lanes of lo then those of hi as int16,
  // saturated (vpackssdw).
  VMAFEXACT_SIMD_INLINE I pack_i32_i16(I lo, I hi) { return _mm256_packs_epi32(lo, hi); }

  // --- 64-bit lanes -------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE I add64(I a, I b) { return _mm256_add_epi64(a, b); }
  // Low 32 x low 32 -> 64 bits per 64-bit lane: unsigned (vpmuludq) and
  // signed (vpmuldq).
  VMAFEXACT_SIMD_INLINE I mulu32x32(I a, I b) { return _mm256_mul_epu32(a, b); }
  VMAFEXACT_SIMD_INLINE I muls32x32(I a, I b) { return _mm256_mul_epi32(a, b); }
  // The odd 32-bit lanes moved to the low halves of the 64-bit lanes.
  VMAFEXACT_SIMD_INLINE I odd(I v) { return _mm256_srli_epi64(v, 32); }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srli64(I v) {
    return _mm256_srli_epi64(v, n);
  }
  VMAFEXACT_SIMD_INLINE I srl64(I v, unsigned n) {
    return _mm256_srl_epi64(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }

  // --- Conversions (each the scalar's conversion, one instruction where the
  // ISA has one) ------------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE D cvt_i32_f64(H v) { return _mm256_cvtepi32_pd(v); }  // exact
  VMAFEXACT_SIMD_INLINE D cvt_f32_f64(F v) { return _mm256_cvtps_pd(v); }     // exact
  VMAFEXACT_SIMD_INLINE F cvt_f64_f32(D v) { return _mm256_cvtpd_ps(v); }     // to nearest
  VMAFEXACT_SIMD_INLINE H cvtt_f64_i32(D v) { return _mm256_cvttpd_epi32(v); }  // truncated
  VMAFEXACT_SIMD_INLINE I cvt_i32_i64(H v) { return _mm256_cvtepi32_epi64(v); }  // sign-extended
  // The low 32 bits of each int64 lane (GCC's generic convert: no vpmovqd).
  VMAFEXACT_SIMD_INLINE H cvt_i64_i32(I v) {
    typedef std::int64_t I64x4 __attribute__((vector_size(32)));
    typedef std::int32_t I32x4 __attribute__((vector_size(16)));
    return reinterpret_cast<H>(__builtin_convertvector(reinterpret_cast<I64x4>(v), I32x4));
  }

  // --- Masks ----------------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE M lt32(I a, I b) { return _mm256_cmpgt_epi32(b, a); }
  VMAFEXACT_SIMD_INLINE M gt0_32(I a) { return _mm256_cmpgt_epi32(a, zero()); }
  VMAFEXACT_SIMD_INLINE M mask_and(M a, M b) { return _mm256_and_si256(a, b); }
  VMAFEXACT_SIMD_INLINE M mask_andnot(M a, M b) { return _mm256_andnot_si256(a, b); }  // ~a & b
  VMAFEXACT_SIMD_INLINE I select(M m, I a, I b) { return _mm256_blendv_epi8(b, a, m); }
  VMAFEXACT_SIMD_INLINE I maskz(M m, I v) { return _mm256_and_si256(m, v); }
  VMAFEXACT_SIMD_INLINE I maskz_not(M m, I v) { return _mm256_andnot_si256(m, v); }
  VMAFEXACT_SIMD_INLINE I add_count(I acc, M m) { return _mm256_sub_epi32(acc, m); }
  VMAFEXACT_SIMD_INLINE bool any(M m) { return !_mm256_testz_si256(m, m); }
  VMAFEXACT_SIMD_INLINE bool all(M m) { return _mm256_movemask_epi8(m) == -1; }

  // --- Doubles -------------------------------------------------------------------
  VMAFEXACT_SIMD_INLINE D set1d(double x) { return _mm256_set1_pd(x); }
  VMAFEXACT_SIMD_INLINE D addd(D a, D b) { return _mm256_add_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D subd(D a, D b) { return _mm256_sub_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D muld(D a, D b) { return _mm256_mul_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D divd(D a, D b) { return _mm256_div_pd(a, b); }
  VMAFEXACT_SIMD_INLINE D mind(D a, D b) { return _mm256_min_pd(a, b); }  // a < b ? a : b
  VMAFEXACT_SIMD_INLINE D truncd(D a) {
    return _mm256_round_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  // a > 0 ? a : +0 for non-NaN a (vmaxpd returns its second operand, +0, when
  // a is -0 or +0).
  VMAFEXACT_SIMD_INLINE D positive_or_zero(D a) { return _mm256_max_pd(a, _mm256_setzero_pd()); }

  // --- Float lanes, one per double lane (N/2 of each) -----------------------------
  // For float code whose sums are doubles: a float result widens lane for lane
  // into a D. MF is a mask of F lanes.
  using MF = __m128;
  static constexpr int NF = 4;  // lanes of F and D
  VMAFEXACT_SIMD_INLINE F zerof() { return _mm_setzero_ps(); }
  VMAFEXACT_SIMD_INLINE F set1f(float x) { return _mm_set1_ps(x); }
  VMAFEXACT_SIMD_INLINE F loadf(const float* p) { return _mm_loadu_ps(p); }
  VMAFEXACT_SIMD_INLINE void storef(float* p, F v) { _mm_storeu_ps(p, v); }
  VMAFEXACT_SIMD_INLINE void stored(double* p, D v) { _mm256_storeu_pd(p, v); }
  VMAFEXACT_SIMD_INLINE F addf(F a, F b) { return _mm_add_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F subf(F a, F b) { return _mm_sub_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F mulf(F a, F b) { return _mm_mul_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F divf(F a, F b) { return _mm_div_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F rootf(F a) { return _mm_sqrt_ps(a); }
  VMAFEXACT_SIMD_INLINE MF ltf(F a, F b) { return _mm_cmp_ps(a, b, _CMP_LT_OQ); }
  VMAFEXACT_SIMD_INLINE MF lef(F a, F b) { return _mm_cmp_ps(a, b, _CMP_LE_OQ); }
  VMAFEXACT_SIMD_INLINE MF maskf_and(MF a, MF b) { return _mm_and_ps(a, b); }
  VMAFEXACT_SIMD_INLINE F selectf(MF m, F a, F b) { return _mm_blendv_ps(b, a, m); }  // m ? a : b
  // NF samples as floats (exact: below 2^24).
  VMAFEXACT_SIMD_INLINE F cvtf(const std::uint8_t* p) {
    std::int32_t four;
    __builtin_memcpy(&four, p, sizeof four);
    return _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(four)));
  }
  VMAFEXACT_SIMD_INLINE F cvtf(const std::uint16_t* p) {
    return _mm_cvtepi32_ps(_mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  }

  // --- libvmaf's log2 tables (VIF) -----------------------------------------------
  // table[index] for index in 32768 .. 65535: the 32 bits at entries
  // index - 1 and index (inside the table), high half.
  VMAFEXACT_SIMD_INLINE I lookup(const std::uint16_t* table, I index) {
    return lookup_offset(table, _mm256_sub_epi32(index, _mm256_set1_epi32(32768)));
  }
  // The same for offset = index - 32768 (0 .. 32767).
  VMAFEXACT_SIMD_INLINE I lookup_offset(const std::uint16_t* table, I offset) {
    const int* base = reinterpret_cast<const int*>(table + 32767);
    return _mm256_srli_epi32(_mm256_i32gather_epi32(base, offset, 2), 16);
  }
  // libvmaf's log2_32 of lanes >= 2^16: floor(log2 v) from the exponent of
  // float(v >> 8) (exact: below 2^24), the top 16 bits looked up.
  VMAFEXACT_SIMD_INLINE I log2_32(const std::uint16_t* table, I v) {
    const __m256 f = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 8));
    const I shift = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(f), 23),
                                     _mm256_set1_epi32(127 + 15 - 8));
    const I index = _mm256_srlv_epi32(v, shift);  // 32768 .. 65535
    return _mm256_add_epi32(lookup(table, index), _mm256_slli_epi32(shift, 11));
  }
  // libvmaf's log2_64 of integer-valued doubles in [2^17, 2^53), N/2 lanes of
  // `lo` then N/2 of `hi`, from the doubles' high words (one gather for both):
  // x = (2^52 + f) * 2^(e - 52) with e = floor(log2 x) >= 17, so the shift is
  // e - 15 and x >> (e - 15) = 2^15 + (f >> 37), the fraction's top 15 bits
  // (bits 5..19 of the high word).
  VMAFEXACT_SIMD_INLINE I log2_64x2(const std::uint16_t* table, D lo, D hi) {
    // The odd 32-bit words of lo and hi, in order.
    const __m256 odd = _mm256_shuffle_ps(_mm256_castpd_ps(lo), _mm256_castpd_ps(hi), 0xDD);
    const I high = _mm256_permute4x64_epi64(_mm256_castps_si256(odd), 0xD8);
    const I offset = _mm256_and_si256(_mm256_srli_epi32(high, 5), _mm256_set1_epi32(0x7FFF));
    const I shift = _mm256_sub_epi32(_mm256_srli_epi32(high, 20), _mm256_set1_epi32(1023 + 15));
    return _mm256_add_epi32(lookup_offset(table, offset), _mm256_slli_epi32(shift, 11));
  }

  // --- Reductions ----------------------------------------------------------------
  // The 32-bit lanes' sum modulo 2^32.
  VMAFEXACT_SIMD_INLINE std::uint32_t sum32(I v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }
  // The 32-bit lanes, sign-extended, summed in 64 bits.
  VMAFEXACT_SIMD_INLINE std::int64_t sum32_signed_wide(I v) {
    const I wide = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                    _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
    return static_cast<std::int64_t>(sum64(wide));
  }
  // The 64-bit lanes' sum modulo 2^64.
  VMAFEXACT_SIMD_INLINE std::uint64_t sum64(I v) {
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(x)) +
           static_cast<std::uint64_t>(_mm_extract_epi64(x, 1));
  }
  // The OR of the 32-bit lanes.
  VMAFEXACT_SIMD_INLINE std::int32_t or_all32(I v) {
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0xB1));
    return _mm_cvtsi128_si32(x);
  }

  // --- 16-bit lanes, N16 per I (CAMBI) ---------------------------------------------
  // Comparisons give lanes of all ones or zero, in an I (AVX-512 as well).
  static constexpr int N16 = 2 * N;
  VMAFEXACT_SIMD_INLINE I set16(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  VMAFEXACT_SIMD_INLINE I iota16() {
    return _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
  VMAFEXACT_SIMD_INLINE I load16(const std::uint16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  VMAFEXACT_SIMD_INLINE void store16(std::uint16_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  // The low byte of each lane (lanes below 256).
  VMAFEXACT_SIMD_INLINE void store_u16_as_u8(std::uint8_t* p, I v) {
    const __m128i packed =
        _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packed);
  }
  VMAFEXACT_SIMD_INLINE I add16(I a, I b) { return _mm256_add_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I min_u16(I a, I b) { return _mm256_min_epu16(a, b); }
  VMAFEXACT_SIMD_INLINE I max_u16(I a, I b) { return _mm256_max_epu16(a, b); }
  VMAFEXACT_SIMD_INLINE I min_i16(I a, I b) { return _mm256_min_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I max_i16(I a, I b) { return _mm256_max_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I not_(I a) { return _mm256_xor_si256(a, _mm256_set1_epi32(-1)); }
  template <int n>
  VMAFEXACT_SIMD_INLINE I slli16(I v) {
    return _mm256_slli_epi16(v, n);
  }
  template <int n>
  VMAFEXACT_SIMD_INLINE I srli16(I v) {
    return _mm256_srli_epi16(v, n);
  }
  VMAFEXACT_SIMD_INLINE I srl16(I v, unsigned n) {
    return _mm256_srl_epi16(v, _mm_cvtsi32_si128(static_cast<int>(n)));
  }
  VMAFEXACT_SIMD_INLINE I eq16(I a, I b) { return _mm256_cmpeq_epi16(a, b); }
  VMAFEXACT_SIMD_INLINE I gt_i16(I a, I b) { return _mm256_cmpgt_epi16(a, b); }
  // m ? a : b per 16-bit lane of a comparison m.
  VMAFEXACT_SIMD_INLINE I select16(I m, I a, I b) { return _mm256_blendv_epi8(b, a, m); }
  // One bit per lane of a comparison.
  // [prev's last 16-bit lane, cur's lanes 0 .. N16 - 2]: cur moved up one
  // lane, the lane before it taken from prev.
  VMAFEXACT_SIMD_INLINE I shift_in16(I prev, I cur) {
    return _mm256_alignr_epi8(cur, _mm256_permute2x128_si256(prev, cur, 0x21), 14);
  }
  VMAFEXACT_SIMD_INLINE std::uint32_t bits16(I m) {
    const __m128i packed =
        _mm_packs_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    return static_cast<std::uint32_t>(_mm_movemask_epi8(packed));
  }
  VMAFEXACT_SIMD_INLINE std::uint16_t hmax_u16(I v) {
    __m128i x = _mm_max_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    // max = 65535 - min(65535 - x): phminposuw finds the minimum.
    x = _mm_xor_si128(x, _mm_set1_epi32(-1));
    return static_cast<std::uint16_t>(0xFFFF - (_mm_cvtsi128_si32(_mm_minpos_epu16(x)) & 0xFFFF));
  }
  // src[0], src[2], ...: the even samples of 2 N16.
  VMAFEXACT_SIMD_INLINE I even16(const std::uint16_t* src) {
    const I low = _mm256_set1_epi32(0xFFFF);
    const I a = _mm256_and_si256(load16(src), low), b = _mm256_and_si256(load16(src + N16), low);
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
  }

  // --- 8-bit lanes, N8 per I (CAMBI) ------------------------------------------------
  static constexpr int N8 = 4 * N;
  VMAFEXACT_SIMD_INLINE I load8(const std::uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  VMAFEXACT_SIMD_INLINE void store8(std::uint8_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  VMAFEXACT_SIMD_INLINE I set8(int x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  VMAFEXACT_SIMD_INLINE I add8(I a, I b) { return _mm256_add_epi8(a, b); }
  VMAFEXACT_SIMD_INLINE I sub8(I a, I b) { return _mm256_sub_epi8(a, b); }
  VMAFEXACT_SIMD_INLINE I gt_i8(I a, I b) { return _mm256_cmpgt_epi8(a, b); }
  VMAFEXACT_SIMD_INLINE I even8(const std::uint8_t* src) {
    const I low = _mm256_set1_epi16(0xFF);
    const I a = _mm256_and_si256(load8(src), low), b = _mm256_and_si256(load8(src + N8), low);
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
  }

  // --- 32-bit lanes with comparisons as lanes (CAMBI) ---------------------------------
  // Unlike lt32/gt0_32's M, these comparisons give lanes of all ones or zero
  // in an I on every ISA.
  // An int in every lane (set32's uint32 is the same bits).
  VMAFEXACT_SIMD_INLINE I set_i32(int x) { return _mm256_set1_epi32(x); }
  VMAFEXACT_SIMD_INLINE I iota32() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
  // An aligned store (p at a multiple of the vector's size).
  VMAFEXACT_SIMD_INLINE void store_aligned(std::int32_t* p, I v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
  }
  VMAFEXACT_SIMD_INLINE I min_i32(I a, I b) { return _mm256_min_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I max_i32(I a, I b) { return _mm256_max_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I eq32(I a, I b) { return _mm256_cmpeq_epi32(a, b); }
  VMAFEXACT_SIMD_INLINE I gt_i32(I a, I b) { return _mm256_cmpgt_epi32(a, b); }
  // Lanes of all ones where `bits` has a one.
  VMAFEXACT_SIMD_INLINE I lanes32(std::uint32_t bits) {
    const I bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), bit),
                              bit);
  }
  VMAFEXACT_SIMD_INLINE bool any32(I m) { return !_mm256_testz_si256(m, m); }
  VMAFEXACT_SIMD_INLINE std::uint32_t bits32(I m) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(m)));
  }
  // table[index] of uint16 / uint8 tables, read as 32 bits (the tables have
  // slack after their last entry) and cut to the entry.
  VMAFEXACT_SIMD_INLINE I gather_u16(const std::uint16_t* table, I index) {
    return _mm256_and_si256(_mm256_i32gather_epi32(reinterpret_cast<const int*>(table), index, 2),
                            _mm256_set1_epi32(0xFFFF));
  }
  VMAFEXACT_SIMD_INLINE I gather_u8(const std::uint8_t* table, I index) {
    return _mm256_and_si256(_mm256_i32gather_epi32(reinterpret_cast<const int*>(table), index, 1),
                            _mm256_set1_epi32(0xFF));
  }

  // --- Floats across the vector, N per FW (CAMBI, SpEED) ------------------------------
  using FW = __m256;  // 8 floats
  VMAFEXACT_SIMD_INLINE FW zerofw() { return _mm256_setzero_ps(); }
  VMAFEXACT_SIMD_INLINE FW set1fw(float x) { return _mm256_set1_ps(x); }
  VMAFEXACT_SIMD_INLINE FW loadfw(const float* p) { return _mm256_loadu_ps(p); }
  VMAFEXACT_SIMD_INLINE void storefw(float* p, FW v) { _mm256_storeu_ps(p, v); }
  // Masks of the first n lanes (1 <= n <= N): loads give 0 in the others,
  // stores leave them.
  VMAFEXACT_SIMD_INLINE M mask_first(unsigned n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  VMAFEXACT_SIMD_INLINE FW loadfw_masked(const float* p, M m) { return _mm256_maskload_ps(p, m); }
  VMAFEXACT_SIMD_INLINE void storefw_masked(float* p, FW v, M m) { _mm256_maskstore_ps(p, m, v); }
  VMAFEXACT_SIMD_INLINE FW addfw(FW a, FW b) { return _mm256_add_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW subfw(FW a, FW b) { return _mm256_sub_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW mulfw(FW a, FW b) { return _mm256_mul_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW divfw(FW a, FW b) { return _mm256_div_ps(a, b); }
  VMAFEXACT_SIMD_INLINE FW maxfw(FW a, FW b) { return _mm256_max_ps(a, b); }
  // a where the lanes of m are all ones, +0 where zero.
  VMAFEXACT_SIMD_INLINE FW andfw(FW a, I m) { return _mm256_and_ps(a, _mm256_castsi256_ps(m)); }
  // N samples as floats (exact: below 2^24).
  VMAFEXACT_SIMD_INLINE FW cvtfw(const std::uint8_t* p) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  }
  VMAFEXACT_SIMD_INLINE FW cvtfw(const std::uint16_t* p) {
    return _mm256_cvtepi32_ps(
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  VMAFEXACT_SIMD_INLINE FW cvt_i32_fw(I v) { return _mm256_cvtepi32_ps(v); }
  VMAFEXACT_SIMD_INLINE FW gather_fw(const float* table, I index) {
    return _mm256_i32gather_ps(table, index, 4);
  }
  // One bit per lane of a <= b, a >= b (ordered: no NaN here).
  VMAFEXACT_SIMD_INLINE std::uint32_t le_bits(FW a, FW b) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ)));
  }
  VMAFEXACT_SIMD_INLINE std::uint32_t ge_bits(FW a, FW b) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ)));
  }
  VMAFEXACT_SIMD_INLINE FW reverse_fw(FW v) {
    return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  }
  // The lanes set in `lanes` take from[0], from[1], ... in order; the others keep v's.
  VMAFEXACT_SIMD_INLINE FW fill_lanes(FW v, std::uint32_t lanes, FW from) {
    const I sources = _mm256_load_si256(
        reinterpret_cast<const __m256i*>(detail::kExpandTable.lanes[lanes].data()));
    const I set = _mm256_cmpgt_epi32(sources, _mm256_set1_epi32(-1));
    return _mm256_blendv_ps(v, _mm256_permutevar8x32_ps(from, sources), _mm256_castsi256_ps(set));
  }
  // Zeros into the last `count` lanes at p.
  VMAFEXACT_SIMD_INLINE void store_zero_top(float* p, int count) {
    const I lanes =
        _mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(7 - count));
    _mm256_maskstore_ps(p, lanes, _mm256_setzero_ps());
  }
  // The lanes set in `lanes`, in order, in the first lanes.
  VMAFEXACT_SIMD_INLINE FW compress_fw(FW v, std::uint32_t lanes) {
    return _mm256_permutevar8x32_ps(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(
                                           detail::kCompressTable.lanes[lanes].data())));
  }

  // --- More doubles (SpEED) -----------------------------------------------------------
  VMAFEXACT_SIMD_INLINE D zerod() { return _mm256_setzero_pd(); }
  VMAFEXACT_SIMD_INLINE D loadd(const double* p) { return _mm256_loadu_pd(p); }
};

}  // namespace vmafexact::simd::VMAFEXACT_ISA
