// The SIMD twins of the PSNR DSP routines, written once over a small vector
// interface `V` and compiled once per ISA (psnr_dsp_avx2.cpp,
// psnr_dsp_avx512.cpp define V and include this file inside their namespace).
//
// Exactness against psnr_dsp.h's scalar references:
//  * 8 bit: V::sq8 gives, per 32-bit lane, the sum of two squared errors
//    (pmaddwd of the 16-bit differences: below 2^18, exact); the lanes are
//    added wrapping modulo 2^32, and the scalar tail too: the same uint32 as
//    the scalar's left-to-right wrapping sum.
//  * 16 bit: each squared error is an exact signed 32 x 32 -> 64 product
//    (pmuldq) added in 64-bit lanes; a row's sum is below 2^32 * w, exact.
// The columns beyond the last whole vector go to the scalar reference.
//
// Not a normal header: an ISA translation unit includes <cstdint> and
// psnr/psnr_dsp.h first, then this file inside its own namespace.

template <class V>
std::uint32_t sse_row_8(const std::uint8_t* r, const std::uint8_t* d, unsigned w) {
  typename V::I acc = V::zero();
  unsigned x = 0;
  for (; x + V::kStep8 <= w; x += V::kStep8) acc = V::add32(acc, V::sq8(r + x, d + x));
  return V::sum32(acc) + scalar::sse_row_8(r, d, x, w);
}

template <class V>
std::uint64_t sse_row_16(const std::uint16_t* r, const std::uint16_t* d, unsigned w) {
  typename V::I acc = V::zero();
  unsigned x = 0;
  for (; x + V::kStep16 <= w; x += V::kStep16) acc = V::sq16_add64(acc, r + x, d + x);
  return V::sum64(acc) + scalar::sse_row_16(r, d, x, w);
}

template <class V>
PsnrDsp make_dsp(const char* isa) {
  return PsnrDsp{isa, sse_row_8<V>, sse_row_16<V>};
}
