// The one vector layer of the SIMD twins: every twin includes this header and
// nothing else of it. Each feature's twins are one template source,
// metrics/<feature>/*_simd.cpp, that metrics/meson.build compiles once per ISA
// (dav1d's model) with that ISA's flags and -DVMAFEXACT_ISA=<isa> (avx2,
// avx512, avx512vnni). This header then gives the source, in namespace
// vmafexact::simd::<isa>:
//  - `V`: the ISA's intrinsics behind one struct spelled alike for every ISA
//    (simd_avx2.h, simd_avx512.h: integer lanes of 8, 16 and 32 bits, 64-bit
//    lanes, doubles, floats per double lane and floats across the vector);
//  - `lanes`: the same N lanes as GCC vector-extension types, for code written
//    once as the scalar reference's expressions (float VIF, float ADM, ADM);
//  - kIsaName, the name the ISA's table reports ("avx512" for avx512vnni too);
// and VMAFEXACT_ISA_NAMED(name), name_<isa>: the getter of the ISA's table
// that <feature>_dsp.h declares.
#pragma once

#ifndef VMAFEXACT_ISA
#error "metrics/common/simd.h: build with -DVMAFEXACT_ISA=<isa> (metrics/meson.build)"
#endif

#define VMAFEXACT_SIMD_PASTE(a, b) a##_##b
#define VMAFEXACT_SIMD_EXPAND_PASTE(a, b) VMAFEXACT_SIMD_PASTE(a, b)
// name_<isa>, e.g. psnr_dsp_avx2.
#define VMAFEXACT_ISA_NAMED(name) VMAFEXACT_SIMD_EXPAND_PASTE(name, VMAFEXACT_ISA)

// The flags, not the name, pick the layer: a source built with the wrong
// flags for its name stops here rather than at run time.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && \
    defined(__AVX512VL__) && defined(__AVX512CD__)
#include "common/simd_avx512.h"
#elif defined(__AVX2__)
#include "common/simd_avx2.h"
#else
#error "metrics/common/simd.h: no SIMD flags (metrics/meson.build's isa_flags)"
#endif

#include <cstdint>

namespace vmafexact::simd::VMAFEXACT_ISA {

// GCC's vector extensions over V::N lanes. Arithmetic on them is IEEE (or
// wrapping, for integers) per lane and a comparison gives a lane mask for `?:`,
// so a twin can write a scalar reference's operations once for all lanes
// (float_vif, float_adm, adm).
namespace lanes {

constexpr int kLanes = V::N;

typedef float F __attribute__((vector_size(4 * kLanes)));
typedef std::int32_t I __attribute__((vector_size(4 * kLanes)));
typedef std::uint32_t U __attribute__((vector_size(4 * kLanes)));
typedef double D __attribute__((vector_size(8 * kLanes)));
// The same in memory at any float's alignment.
typedef float UnalignedF __attribute__((vector_size(4 * kLanes), aligned(4), may_alias));
// The same kLanes at narrower widths (ADM's widening loads and narrowing
// stores).
typedef std::uint8_t U8 __attribute__((vector_size(kLanes)));
typedef std::int16_t I16 __attribute__((vector_size(2 * kLanes)));
typedef std::uint16_t U16 __attribute__((vector_size(2 * kLanes)));

// Half vectors, kLanes / 2 lanes: steps with 64-bit lanes (int64, uint64,
// double) run on them so that they fill one hardware register (GCC splits
// wider vector types for plain arithmetic, but converts and shifts them lane
// by lane).
constexpr int kHalfLanes = kLanes / 2;
typedef std::int32_t IHalf __attribute__((vector_size(4 * kHalfLanes)));
typedef std::int64_t I64Half __attribute__((vector_size(8 * kHalfLanes)));
typedef std::uint64_t U64Half __attribute__((vector_size(8 * kHalfLanes)));
typedef float FHalf __attribute__((vector_size(4 * kHalfLanes)));
typedef double DHalf __attribute__((vector_size(8 * kHalfLanes)));

inline F load(const float* p) { return *reinterpret_cast<const UnalignedF*>(p); }
inline void store(float* p, F v) { *reinterpret_cast<UnalignedF*>(p) = v; }
inline F splat(float x) { return F{} + x; }
// |x| per lane: the sign bit cleared, as fabs.
inline F abs_lanes(F x) { return (F)((U)x & 0x7FFFFFFFu); }

}  // namespace lanes

}  // namespace vmafexact::simd::VMAFEXACT_ISA
