// The AVX2 twins of the VIF DSP routines (vif_dsp_simd.h over 256-bit vectors).
// Built with -mavx2 only (no FMA; the project builds with -ffp-contract=off).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "vif/vif_dsp.h"
#include "vif/vif_dsp_scalar.h"

namespace vmafexact::vif {
namespace avx2 {
namespace {

struct V {
  static constexpr unsigned N = 8;
  using I = __m256i;  // 8 x 32 or 4 x 64 bits
  using M = __m256i;  // lane masks: all ones or zero per 32-bit lane
  using H = __m128i;  // 4 x 32 bits
  using D = __m256d;  // 4 doubles

  static I zero() { return _mm256_setzero_si256(); }
  static I set32(std::uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static I set64(std::uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static I load(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  static I load(const std::uint16_t* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I load(const std::uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(std::uint32_t* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  // Lanes below 2^16 to 16 bits.
  static void store16(std::uint16_t* p, I v) {
    const I packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0xD8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
  }
  static I add32(I a, I b) { return _mm256_add_epi32(a, b); }
  static I sub32(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I mullo32(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I add64(I a, I b) { return _mm256_add_epi64(a, b); }
  static I mulu(I a, I b) { return _mm256_mul_epu32(a, b); }  // low 32 x low 32 -> 64 per 64-bit lane
  static I odd(I v) { return _mm256_srli_epi64(v, 32); }
  template <int n>
  static I srli64(I v) { return _mm256_srli_epi64(v, n); }
  template <int n>
  static I srli32(I v) { return _mm256_srli_epi32(v, n); }
  static I srl32(I v, unsigned n) { return _mm256_srl_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n))); }
  static I srl64(I v, unsigned n) { return _mm256_srl_epi64(v, _mm_cvtsi32_si128(static_cast<int>(n))); }
  static I and_(I a, I b) { return _mm256_and_si256(a, b); }
  // 32-bit lanes from the low halves of 64-bit lanes: even lanes from `even`, odd from `odd`.
  static I join(I even, I odd) { return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA); }
  // Lanes 0, 2, .. of a then of b.
  static I evens(I a, I b) {
    const __m256 s = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88);
    return _mm256_permute4x64_epi64(_mm256_castps_si256(s), 0xD8);
  }
  static I max0(I v) { return _mm256_max_epi32(v, zero()); }

  static M lt32(I a, I b) { return _mm256_cmpgt_epi32(b, a); }
  static M gt0(I a) { return _mm256_cmpgt_epi32(a, zero()); }
  static M mask_and(M a, M b) { return _mm256_and_si256(a, b); }
  static M mask_andnot(M a, M b) { return _mm256_andnot_si256(a, b); }  // ~a & b
  static I select(M m, I a, I b) { return _mm256_blendv_epi8(b, a, m); }
  static I maskz(M m, I v) { return _mm256_and_si256(m, v); }
  static I maskz_not(M m, I v) { return _mm256_andnot_si256(m, v); }
  static I add_count(I acc, M m) { return _mm256_sub_epi32(acc, m); }
  static bool any(M m) { return !_mm256_testz_si256(m, m); }
  static bool all(M m) { return _mm256_movemask_epi8(m) == -1; }

  // libvmaf's log2_32 of lanes >= 2^16: floor(log2 v) from the exponent of
  // float(v >> 8) (exact: below 2^24), the top 16 bits looked up.
  static I log2_32(const std::uint16_t* table, I v) {
    const __m256 f = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 8));
    const I shift = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(f), 23), _mm256_set1_epi32(127 + 15 - 8));
    const I index = _mm256_srlv_epi32(v, shift);  // 32768 .. 65535
    return _mm256_add_epi32(lookup(table, index), _mm256_slli_epi32(shift, 11));
  }
  // table[index] for index in 32768 .. 65535: the 32 bits at entries
  // index - 1 and index (inside the table), high half.
  static I lookup(const std::uint16_t* table, I index) {
    const int* base = reinterpret_cast<const int*>(table + 32767);
    const I offset = _mm256_sub_epi32(index, _mm256_set1_epi32(32768));
    return _mm256_srli_epi32(_mm256_i32gather_epi32(base, offset, 2), 16);
  }
  static __m128i lookup(const std::uint16_t* table, __m128i index) {
    const int* base = reinterpret_cast<const int*>(table + 32767);
    const __m128i offset = _mm_sub_epi32(index, _mm_set1_epi32(32768));
    return _mm_srli_epi32(_mm_i32gather_epi32(base, offset, 2), 16);
  }

  static D lo_pd(I v) { return _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)); }
  static D hi_pd(I v) { return _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)); }
  static I combine(H lo, H hi) { return _mm256_set_m128i(hi, lo); }
  static H hsub(H a, H b) { return _mm_sub_epi32(a, b); }
  static D set1d(double x) { return _mm256_set1_pd(x); }
  static D addd(D a, D b) { return _mm256_add_pd(a, b); }
  static D subd(D a, D b) { return _mm256_sub_pd(a, b); }
  static D muld(D a, D b) { return _mm256_mul_pd(a, b); }
  static D divd(D a, D b) { return _mm256_div_pd(a, b); }
  static D mind(D a, D b) { return _mm256_min_pd(a, b); }  // a < b ? a : b
  static D truncd(D a) { return _mm256_round_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static D positive_or_zero(D a) {
    return _mm256_and_pd(a, _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_GT_OQ));
  }
  // libvmaf's log2_64 of integer-valued doubles in [2^17, 2^53): the exponent
  // gives floor(log2 x), the mantissa times 2^15 truncated gives x >> (floor - 15).
  static H log2_64(const std::uint16_t* table, D x) {
    const I bits = _mm256_castpd_si256(x);
    const D mantissa = _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFll)),
        _mm256_set1_epi64x(0x3FF0000000000000ll)));
    const __m128i index = _mm256_cvttpd_epi32(_mm256_mul_pd(mantissa, _mm256_set1_pd(32768.0)));
    const I exponent64 = _mm256_srli_epi64(bits, 52);
    const __m128i exponent = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(exponent64, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
    const __m128i shift = _mm_sub_epi32(exponent, _mm_set1_epi32(1023 + 15));
    return _mm_add_epi32(lookup(table, index), _mm_slli_epi32(shift, 11));
  }

  static std::int64_t sum32(I v) {
    const I wide = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                    _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
    return sum64(wide);
  }
  static std::int64_t sum64(I v) {
    alignas(32) std::int64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }
};

#include "vif/vif_dsp_simd.h"

}  // namespace
}  // namespace avx2

const VifDsp& vif_dsp_avx2() {
  static const VifDsp dsp = avx2::make_dsp<avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::vif
