#include "float_adm/rcp_estimate.h"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace vmafexact::float_adm {

namespace {

// How the table was made: RCPSS of 1 + i / 4096 on an AMD EPYC. Its result for
// a normal input depends only on the input's sign, its exponent (which the
// result mirrors) and the top 12 bits of its mantissa: emulating it so,
// rcp_estimate() equalled that processor's RCPSS for all 2^32 float inputs,
// default MXCSR (tests/unit/test_float_adm.cpp repeats a sample of that check
// on processors that give the same table).
constexpr std::uint32_t kTable[4096] = {
#include "float_adm/rcp_table.inc"
};

}  // namespace

const std::uint32_t* rcp_estimate_table() { return kTable; }

float rcp_estimate(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = bits & 0x80000000u;
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  const std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0) return std::bit_cast<float>(sign | 0x7F800000u);  // zero, subnormal: inf
  if (exponent == 0xFF)  // infinity: zero; NaN: quieted
    return std::bit_cast<float>(mantissa != 0 ? bits | 0x400000u : sign);
  const std::uint32_t estimate = kTable[mantissa >> 11];  // of 1.mantissa, in [0.5, 1)
  const int result_exponent = static_cast<int>((estimate >> 23) & 0xFFu) - static_cast<int>(exponent) + 127;
  if (result_exponent <= 0) return std::bit_cast<float>(sign);  // below the normals: zero
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(result_exponent) << 23) |
                              (estimate & 0x7FFFFFu));
}

float divide_as_this_processor(float n, float d) {
#if defined(__x86_64__) || defined(__i386__)
  const float xi = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(d)));
  return n * (xi + xi * (1.0f - d * xi));
#else
  return n / d;  // libvmaf's DIVS without SSE
#endif
}

Divider divider_from_environment() {
  static const Divider divider = [] {
    const char* text = std::getenv("VMAFEXACT_FLOAT_ADM_DIVIDER");
    return text && std::string_view(text) == "this-cpu" ? Divider::kThisProcessor
                                                        : Divider::kReference;
  }();
  return divider;
}

}  // namespace vmafexact::float_adm
