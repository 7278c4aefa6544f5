// CUDA kernels of CAMBI (cambi_cuda.cu), enqueued on a stream; the
// decomposition and per-thread code are in cambi_cuda_tile.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cambi/cambi_cuda_tile.h"
#include "common/picture.h"

namespace vmafexact::cuda::cambi {

// Atomically raises *largest to the largest sample of the luma plane.
void enqueue_largest_sample(const PlaneView& luma, unsigned bpc, unsigned* largest,
                            cudaStream_t stream);

// The w x h working picture of a pass (tile::working_sample) from the luma
// plane through the maps (w and h entries).
void enqueue_preprocess(const PlaneView& luma, unsigned bpc, const unsigned* map_x,
                        const unsigned* map_y, bool anti_dither, unsigned w, unsigned h,
                        std::uint16_t* out, cudaStream_t stream);

// The spatial mask of a w x h working picture (derivative: w x h scratch).
void enqueue_spatial_mask(const std::uint16_t* image, unsigned w, unsigned h, unsigned index,
                          std::uint8_t* derivative, std::uint8_t* mask, cudaStream_t stream);

// A scale's filtered picture (w x h) from the previous one (src_w samples
// wide): decimated first when `decimate`, then the mode filter; the mask is
// decimated alongside into dst_mask (untouched without decimation).
void enqueue_scale(const std::uint16_t* src, const std::uint8_t* src_mask, unsigned src_w,
                   bool decimate, unsigned w, unsigned h, std::uint16_t* dst,
                   std::uint8_t* dst_mask, cudaStream_t stream);

// The c-values of a w x h scale (window: the pass's odd window).
void enqueue_c_values(const std::uint16_t* image, const std::uint8_t* mask, unsigned w, unsigned h,
                      unsigned window, const tile::CValueTables& tables, float* out,
                      cudaStream_t stream);

// One pooled set of c-values: n values, the k largest summed.
struct PoolSegment {
  const float* values;
  unsigned n;
  unsigned k;
};

// The radix select and the fixed-point sum of `count` segments (device
// descriptors), into their records; digit_counts: count * tile::kDigits
// scratch. max_n: the largest n (grid size).
void enqueue_pooling(const PoolSegment* segments, unsigned count, unsigned max_n,
                     std::uint32_t* digit_counts, tile::PoolRecord* records, cudaStream_t stream);

}  // namespace vmafexact::cuda::cambi
