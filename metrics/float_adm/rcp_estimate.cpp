#include "float_adm/rcp_estimate.h"

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

float rcp_estimate(float x) { return rcp_estimate_from(kTable, x); }

float divide_as_this_processor(float n, float d) {
#if defined(__x86_64__) || defined(__i386__)
  return refined_quotient(n, d, _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(d))));
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
