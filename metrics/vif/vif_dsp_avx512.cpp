// The AVX-512 twins of the VIF DSP routines (vif_dsp_simd.h over 512-bit
// vectors). Built with -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl.
// GCC lets those imply FMA, but -ffp-contract=off keeps every multiply and add
// separate (meson checks the objects hold no fused multiply-add).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "vif/vif_dsp.h"
#include "vif/vif_dsp_scalar.h"

namespace vmafexact::vif {
namespace avx512 {
namespace {

struct V {
  static constexpr unsigned N = 16;
  using I = __m512i;    // 16 x 32 or 8 x 64 bits
  using M = __mmask16;  // one bit per 32-bit lane
  using H = __m256i;    // 8 x 32 bits
  using D = __m512d;    // 8 doubles

  static I zero() { return _mm512_setzero_si512(); }
  static I set32(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static I set64(std::uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static I load(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I load(const std::uint16_t* p) {
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static I load(const std::uint32_t* p) { return _mm512_loadu_si512(p); }
  static void store(std::uint32_t* p, I v) { _mm512_storeu_si512(p, v); }
  static void store16(std::uint16_t* p, I v) {  // low 16 bits of each lane
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v));
  }
  static I add32(I a, I b) { return _mm512_add_epi32(a, b); }
  static I sub32(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I mullo32(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I add64(I a, I b) { return _mm512_add_epi64(a, b); }
  static I mulu(I a, I b) { return _mm512_mul_epu32(a, b); }
  static I odd(I v) { return _mm512_srli_epi64(v, 32); }
  template <int n>
  static I srli64(I v) { return _mm512_srli_epi64(v, n); }
  template <int n>
  static I srli32(I v) { return _mm512_srli_epi32(v, n); }
  static I srl32(I v, unsigned n) { return _mm512_srl_epi32(v, _mm_cvtsi32_si128(static_cast<int>(n))); }
  static I srl64(I v, unsigned n) { return _mm512_srl_epi64(v, _mm_cvtsi32_si128(static_cast<int>(n))); }
  static I and_(I a, I b) { return _mm512_and_si512(a, b); }
  static I join(I even, I odd) {
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  }
  static I evens(I a, I b) {
    const I index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_epi32(a, index, b);
  }
  static I max0(I v) { return _mm512_max_epi32(v, zero()); }

  static M lt32(I a, I b) { return _mm512_cmplt_epi32_mask(a, b); }
  static M gt0(I a) { return _mm512_cmpgt_epi32_mask(a, zero()); }
  static M mask_and(M a, M b) { return static_cast<M>(a & b); }
  static M mask_andnot(M a, M b) { return static_cast<M>(~a & b); }
  static I select(M m, I a, I b) { return _mm512_mask_blend_epi32(m, b, a); }
  static I maskz(M m, I v) { return _mm512_maskz_mov_epi32(m, v); }
  static I maskz_not(M m, I v) { return _mm512_maskz_mov_epi32(static_cast<M>(~m), v); }
  static I add_count(I acc, M m) { return _mm512_mask_add_epi32(acc, m, acc, set32(1)); }
  static bool any(M m) { return m != 0; }
  static bool all(M m) { return m == 0xFFFF; }

  // libvmaf's log2_32 of lanes >= 2^16 (vplzcntd).
  static I log2_32(const std::uint16_t* table, I v) {
    const I shift = _mm512_sub_epi32(set32(16), _mm512_lzcnt_epi32(v));
    const I index = _mm512_srlv_epi32(v, shift);  // 32768 .. 65535
    const I offset = _mm512_sub_epi32(index, set32(32768));
    const I pair = _mm512_i32gather_epi32(offset, static_cast<const void*>(table + 32767), 2);
    return _mm512_add_epi32(_mm512_srli_epi32(pair, 16), _mm512_slli_epi32(shift, 11));
  }

  static D lo_pd(I v) { return _mm512_cvtepi32_pd(_mm512_castsi512_si256(v)); }
  static D hi_pd(I v) { return _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(v, 1)); }
  static I combine(H lo, H hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }
  static H hsub(H a, H b) { return _mm256_sub_epi32(a, b); }
  static D set1d(double x) { return _mm512_set1_pd(x); }
  static D addd(D a, D b) { return _mm512_add_pd(a, b); }
  static D subd(D a, D b) { return _mm512_sub_pd(a, b); }
  static D muld(D a, D b) { return _mm512_mul_pd(a, b); }
  static D divd(D a, D b) { return _mm512_div_pd(a, b); }
  static D mind(D a, D b) { return _mm512_min_pd(a, b); }  // a < b ? a : b
  static D truncd(D a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static D positive_or_zero(D a) {
    return _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_GT_OQ), a);
  }
  // libvmaf's log2_64 of integer-valued doubles in [2^17, 2^53) (exact
  // conversion to uint64, vplzcntq).
  static H log2_64(const std::uint16_t* table, D x) {
    const I value = _mm512_cvttpd_epu64(x);
    const I shift = _mm512_sub_epi64(set64(48), _mm512_lzcnt_epi64(value));
    const I offset = _mm512_sub_epi64(_mm512_srlv_epi64(value, shift), set64(32768));
    const H pair = _mm512_i64gather_epi32(offset, static_cast<const void*>(table + 32767), 2);
    return _mm256_add_epi32(_mm256_srli_epi32(pair, 16),
                            _mm256_slli_epi32(_mm512_cvtepi64_epi32(shift), 11));
  }

  static std::int64_t sum32(I v) {
    return _mm512_reduce_add_epi64(_mm512_add_epi64(
        _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)),
        _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1))));
  }
  static std::int64_t sum64(I v) { return _mm512_reduce_add_epi64(v); }
};

#include "vif/vif_dsp_simd.h"

}  // namespace
}  // namespace avx512

const VifDsp& vif_dsp_avx512() {
  static const VifDsp dsp = avx512::make_dsp<avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::vif
