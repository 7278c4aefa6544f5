// The decomposition of the motion kernel (motion_cuda.cu) and the per-thread
// pieces it is built from, as __host__ __device__ functions so that a host
// emulation (tests/cuda/test_cuda_motion.cpp) runs the very same code in the
// kernel's order without a GPU. The arithmetic itself is the CPU's
// (metrics/motion/motion_pixel.h).
//
// One block of kThreads threads owns kRows consecutive rows of one chunk of
// kChunk output columns (blockIdx.x: the rows, blockIdx.y: the chunk, so that
// a 4K picture has thousands of blocks rather than a few hundred that each
// walk the whole width). Thread t holds the column x0 - 2 + t (mirrored at
// the borders), keeps the five differences prev - cur under the vertical
// filter in registers while it walks down the rows, writes the row's
// vertical value to shared memory, and threads t < kChunk then filter
// horizontally the five shared values t..t+4 (which are the mirrored columns
// x - 2 .. x + 2 of output column x = x0 + t). Each row's sum is uint32 and
// wraps, as libvmaf's: the block's share of a row is added into the row's
// uint32 total with a wrapping atomic add (any order gives the same total
// modulo 2^32), and a second kernel adds the rows' totals in 64 bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "motion/motion_pixel.h"

namespace vmafexact::cuda::motion::tile {

inline constexpr int kThreads = 512;                // threads per block
inline constexpr int kHalo = 2;                     // the filter's radius
inline constexpr int kChunk = kThreads - 2 * kHalo;  // output columns per pass
inline constexpr int kRows = 8;                     // rows per block

// Row groups (blockIdx.x) for a picture of `height` rows, chunks (blockIdx.y)
// for `width` columns.
VMAFEXACT_HD inline unsigned block_count(unsigned height) { return (height + kRows - 1) / kRows; }
VMAFEXACT_HD inline unsigned chunk_count(unsigned width) { return (width + kChunk - 1) / kChunk; }

// The (unmirrored) column of thread t in the chunk that starts at output column x0.
VMAFEXACT_HD inline int thread_column(int x0, int t) { return x0 - kHalo + t; }

// Whether some output of the chunk reads that column (then it lies in
// [-2, width + 1] and mirrors into the picture).
VMAFEXACT_HD inline bool column_needed(int column, int width) { return column < width + kHalo; }

// prev - cur at (row, column) of two planes of Sample with byte strides.
template <typename Sample>
VMAFEXACT_HD inline std::int64_t difference(const std::uint8_t* prev, std::ptrdiff_t prev_stride,
                                            const std::uint8_t* cur, std::ptrdiff_t cur_stride,
                                            int row, int column) {
  const auto p = reinterpret_cast<const Sample*>(prev + row * prev_stride)[column];
  const auto c = reinterpret_cast<const Sample*>(cur + row * cur_stride)[column];
  return static_cast<std::int32_t>(p) - static_cast<std::int32_t>(c);
}

// The difference a thread loads for picture row `row` (-2 .. height + 1,
// mirrored) at its mirrored column; 0 for a thread whose column no output reads.
template <typename Sample>
VMAFEXACT_HD inline std::int64_t window_load(const std::uint8_t* prev, std::ptrdiff_t prev_stride,
                                             const std::uint8_t* cur, std::ptrdiff_t cur_stride,
                                             int row, int height, bool needed, int mirrored_column) {
  if (!needed) return 0;
  return difference<Sample>(prev, prev_stride, cur, cur_stride,
                            vmafexact::motion::pixel::mirror(row, height), mirrored_column);
}

// The vertical value from the five differences of rows y - 2 .. y + 2.
VMAFEXACT_HD inline std::int32_t vertical_value(const std::int64_t (&d)[5], unsigned bpc) {
  return vmafexact::motion::pixel::vertical_round(
      vmafexact::motion::pixel::filter5(d[0], d[1], d[2], d[3], d[4]), bpc);
}

// |horizontal value| of the output column whose five vertical values start at v.
VMAFEXACT_HD inline std::uint32_t output_abs(const std::int32_t* v) {
  return vmafexact::motion::pixel::horizontal_abs(
      vmafexact::motion::pixel::filter5(v[0], v[1], v[2], v[3], v[4]));
}

}  // namespace vmafexact::cuda::motion::tile
