// The exact integer row totals of float_sums_pixel.h on the device, for the
// CUDA twins of float_psnr and float_moment: one block per row, its threads
// each summing every kRowTotalThreads-th column with the CPU's per-sample
// terms, then added in the block. Integer sums: any order gives the CPU's
// total, which the host finishes with the CPU's float_sums.h functions.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/picture.h"

namespace vmafexact::cuda {

inline constexpr int kRowTotalThreads = 256;

// Per row y of the luma planes: totals[y] = row_square_total(ref, dist)
// (float_psnr's squared differences).
void enqueue_difference_square_totals(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                                      std::uint64_t* totals, cudaStream_t stream);

// Per row y, in four arrays of `height` totals one after the other (float
// moment's order): the reference's samples, the distorted picture's samples,
// the reference's squares, the distorted picture's squares.
void enqueue_moment_totals(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                           std::uint64_t* totals, cudaStream_t stream);

// A copy of a device plane in host memory (rows of exactly its width, in
// `storage`), made synchronously on `stream`: for the sums that float_sums.h
// forms in libvmaf's order on the host (past 2^53 units, 16-bit only).
PlaneView host_copy_of_plane(const PlaneView& plane, unsigned bpc,
                             std::vector<std::uint8_t>& storage, cudaStream_t stream);

}  // namespace vmafexact::cuda
