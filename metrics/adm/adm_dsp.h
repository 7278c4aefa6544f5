// The DSP routines of integer ADM's per-pixel stage, one row at a time, and
// their dispatch table (dav1d's model, metrics/common/cpu.h; VIF's vif_dsp.h
// is the first client).
//
// adm_dsp_scalar.h holds the scalar reference of each routine: the ground
// truth, built on adm_pixel.h (the arithmetic the CUDA twin shares).
// adm_dsp_simd.cpp (compiled once per ISA) holds twins that must give identical
// outputs for every input (tests/unit/test_simd.cpp checks it, checkasm-style).
// Every routine here is integer arithmetic except the decoupling's angle test,
// which the twins evaluate with the same float/double operations per element.
#pragma once

#include <cstdint>

#include "adm/adm_pixel.h"

namespace vmafexact::adm {

// The rows the masking stage reads for one output row: per orientation the
// shares (1/30 of the CSF image) of the rows above, here and below (mirrored
// at the band's edges), the centre's share (1/15 of the CSF image,
// Arith::centre_share) of the row here and the signal's row here.
template <typename Band>
struct MaskRows {
  const Band* share[3][3];  // [theta][above, here, below]
  const Band* centre[3];
  const Band* signal[3];
};

// One row of the reference and distorted bands (h, v, d) and the restored and
// additive bands the decoupling writes.
template <typename Band>
struct DecoupleRows {
  const Band* ref[3];
  const Band* dist[3];
  Band* restored[3];
  Band* additive[3];
};

// Scale 0, vertical pass of one output row: rows[k] is picture row 2i-1+k
// (mirrored); columns 0 .. w-1 of lo and hi (int16 values) are written.
template <typename Sample>
using Dwt0VerticalFn = void (*)(const Sample* const* rows, unsigned bpc, int w, std::int16_t* lo,
                                std::int16_t* hi);
// Scale 0, horizontal pass of one output row: (w + 1) / 2 values of the bands
// a, v, h, d from the vertical results (v, h, d may be null: a only).
using Dwt0HorizontalFn = void (*)(const std::int16_t* lo, const std::int16_t* hi, int w,
                                  std::int16_t* a, std::int16_t* v, std::int16_t* h,
                                  std::int16_t* d);
// Scales 1..3, the same passes over int32 bands with the scale's shifts.
using DwtnVerticalFn = void (*)(const std::int32_t* const* rows, int scale, int w,
                                std::int32_t* lo, std::int32_t* hi);
using DwtnHorizontalFn = void (*)(const std::int32_t* lo, const std::int32_t* hi, int scale,
                                  int w, std::int32_t* a, std::int32_t* v, std::int32_t* h,
                                  std::int32_t* d);
// The decoupling of columns [begin, end) of one row (enhancement gain limit egl).
template <typename Band>
using DecoupleFn = void (*)(const DecoupleRows<Band>& rows, int begin, int end, double egl);
// The masking shares of the CSF-weighted values of columns [begin, end) of
// one row of orientation theta: the centre's (1/15, Arith::centre_share, as
// the Band libvmaf casts it to) and the neighbours' (1/30). The CSF values
// themselves are read by nothing else.
template <class Arith>
using CsfFn = void (*)(const Arith& arith, int theta, const typename Arith::Band* src, int begin,
                       int end, typename Arith::Band* centre, typename Arith::Band* share);
// The masked cube sums of columns [begin, end) of one row (band width w, for
// the mirrored neighbours), added to sums[theta].
template <class Arith>
using MaskedCubesFn = void (*)(const Arith& arith, const MaskRows<typename Arith::Band>& rows,
                               int w, int begin, int end, const std::uint32_t* cube_shift,
                               std::int64_t* sums);
// The reference cube sum of columns [begin, end) of one row.
template <class Arith>
using ReferenceCubesFn = std::uint64_t (*)(const Arith& arith, const typename Arith::Band* row,
                                           int begin, int end, std::uint32_t den_cube_shift);

struct AdmDsp {
  const char* isa;
  Dwt0VerticalFn<std::uint8_t> dwt0_vertical_8;
  Dwt0VerticalFn<std::uint16_t> dwt0_vertical_16;
  Dwt0HorizontalFn dwt0_horizontal;
  DwtnVerticalFn dwtn_vertical;
  DwtnHorizontalFn dwtn_horizontal;
  DecoupleFn<std::int16_t> decouple_0;
  DecoupleFn<std::int32_t> decouple_n;
  CsfFn<pixel::Scale0Arith> csf_0;
  CsfFn<pixel::ScaleNArith> csf_n;
  MaskedCubesFn<pixel::Scale0Arith> masked_cubes_0;
  MaskedCubesFn<pixel::ScaleNArith> masked_cubes_n;
  ReferenceCubesFn<pixel::Scale0Arith> reference_cubes_0;
  ReferenceCubesFn<pixel::ScaleNArith> reference_cubes_n;
};

// The scalar reference table.
const AdmDsp& adm_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const AdmDsp* adm_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags` (cpu::flags()).
const AdmDsp& adm_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const AdmDsp& adm_dsp_avx2();
const AdmDsp& adm_dsp_avx512();
const AdmDsp& adm_dsp_avx512vnni();  // needs cpu::kAvx512Vnni too
#endif

}  // namespace vmafexact::adm
