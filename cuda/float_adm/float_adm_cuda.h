// CUDA twin of metrics/float_adm's per-pixel stage: the passes of
// float_adm_cuda_tile.h as kernel launches on a stream. `arena` is libvmaf's
// data_buf in device memory (ArenaLayout); pictures and scratch planes are
// rows of exactly their width; row sums are h, v, d one after the other.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "float_adm/float_adm_cuda_tile.h"

namespace vmafexact::cuda::float_adm {

using tile::ArenaLayout;
using tile::Factors;
namespace pixel = tile::pixel;

// One picture's DWT of a w x h level from `source` (rows `stride` floats
// apart) into bands dst_first..dst_first+3 of the arena; lo and hi are scratch
// planes of (h + 1) / 2 rows of w floats.
void enqueue_dwt(const float* source, std::ptrdiff_t stride, int w, int h, bool lo_only, float* lo,
                 float* hi, float* arena, const ArenaLayout& layout, int dst_first,
                 cudaStream_t stream);

// The decoupling over `region` (a level's tap region).
void enqueue_decouple(float* arena, const ArenaLayout& layout, const pixel::Region& region,
                      double gain, float cos_1deg_sq, const std::uint32_t* rcp_table,
                      cudaStream_t stream);

// The den terms' sums of each row of `region` (a level's inner region):
// 3 x its rows floats into row_sums.
void enqueue_den_rows(const float* arena, const ArenaLayout& layout, const pixel::Region& region,
                      const Factors& factors, double p_norm, float* row_sums, cudaStream_t stream);

// adm_csf_s() over `region` (a level's tap region) of bands src_first.. into
// dst_first.. and flt_first...
void enqueue_csf(float* arena, const ArenaLayout& layout, int src_first, int dst_first,
                 int flt_first, const pixel::Region& region, const Factors& factors,
                 cudaStream_t stream);

// adm_cm_s()'s terms' sums of each visited row: the terms into `terms`
// (scratch, 3 x rows.count() x columns.count() floats), then 3 x rows.count()
// sums into row_sums.
void enqueue_cm_rows(const float* arena, const ArenaLayout& layout, const pixel::CmBands& bands,
                     const pixel::CmAxis& rows, const pixel::CmAxis& columns,
                     const Factors& factors, bool masking, double p_norm, float* terms,
                     float* row_sums, cudaStream_t stream);

}  // namespace vmafexact::cuda::float_adm
