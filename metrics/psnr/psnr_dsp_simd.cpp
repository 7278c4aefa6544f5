// The SIMD twins of the PSNR DSP routines, written once over the vector layer
// `V` (metrics/common/simd.h) and compiled once per ISA by metrics/meson.build
// (psnr_dsp_avx2(), psnr_dsp_avx512()).
//
// Exactness against psnr_dsp.h's scalar references:
//  * 8 bit: per 32-bit lane, the sum of two squared errors (pmaddwd of the
//    16-bit differences: below 2^18, exact); the lanes are added wrapping
//    modulo 2^32, and the scalar tail too: the same uint32 as the scalar's
//    left-to-right wrapping sum.
//  * 16 bit: each squared error is an exact signed 32 x 32 -> 64 product
//    (pmuldq) added in 64-bit lanes; a row's sum is below 2^32 * w, exact.
// The columns beyond the last whole vector go to the scalar reference.

#include <cstdint>

#include "common/simd.h"
#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {
namespace VMAFEXACT_ISA {
namespace {

template <class V>
std::uint32_t sse_row_8(const std::uint8_t* r, const std::uint8_t* d, unsigned w) {
  constexpr unsigned kStep = 2 * V::N;  // 8-bit samples per vector of 16-bit lanes
  typename V::I acc = V::zero();
  unsigned x = 0;
  for (; x + kStep <= w; x += kStep) {
    const typename V::I e = V::sub16(V::load_u8_as_u16(r + x), V::load_u8_as_u16(d + x));
    acc = V::add32(acc, V::madd16(e, e));
  }
  return V::sum32(acc) + scalar::sse_row_8(r, d, x, w);
}

template <class V>
std::uint64_t sse_row_16(const std::uint16_t* r, const std::uint16_t* d, unsigned w) {
  constexpr unsigned kStep = V::N;
  typename V::I acc = V::zero();
  unsigned x = 0;
  for (; x + kStep <= w; x += kStep) {
    const typename V::I e = V::sub32(V::load(r + x), V::load(d + x));
    const typename V::I e_odd = V::odd(e);
    acc = V::add64(V::add64(acc, V::muls32x32(e, e)), V::muls32x32(e_odd, e_odd));
  }
  return V::sum64(acc) + scalar::sse_row_16(r, d, x, w);
}

template <class V>
constexpr PsnrDsp make_dsp(const char* isa) {
  return PsnrDsp{isa, sse_row_8<V>, sse_row_16<V>};
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const PsnrDsp& VMAFEXACT_ISA_NAMED(psnr_dsp)() {
  static constexpr PsnrDsp dsp =
      VMAFEXACT_ISA::make_dsp<simd::VMAFEXACT_ISA::V>(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::psnr
