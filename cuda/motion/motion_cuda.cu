#include "motion/motion_cuda.h"

#include "common/cuda_util.h"
#include "motion/motion_cuda_tile.h"

namespace vmafexact::cuda::motion {

namespace {

using namespace tile;

// The decomposition is described in motion_cuda_tile.h; the host emulation in
// tests/cuda/test_cuda_motion.cpp walks the same loops with the same functions.
template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    motion_rows_kernel(const std::uint8_t* __restrict__ prev, std::ptrdiff_t prev_stride,
                       const std::uint8_t* __restrict__ cur, std::ptrdiff_t cur_stride, int width,
                       int height, unsigned bpc, std::uint32_t* __restrict__ row_totals) {
  __shared__ std::int32_t vertical[kThreads];
  __shared__ std::uint32_t warp_sums[kThreads / 32][kRows];
  const int t = static_cast<int>(threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.x) * kRows;

  std::uint32_t row_sum[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) row_sum[r] = 0;

  const int x0 = static_cast<int>(blockIdx.y) * kChunk;
  const int column = thread_column(x0, t);
  const bool needed = column_needed(column, width);
  const int mirrored = needed ? vmafexact::motion::pixel::mirror(column, width) : 0;
  // The window starts with rows y0 - 2 .. y0 + 1 in d[1..4]; each row shifts
  // it down by one and loads row y + 2 (loaded one step ahead, so that the
  // load overlaps the horizontal pass of the row before).
  std::int64_t d[5];
  d[0] = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    d[k + 1] = window_load<Sample>(prev, prev_stride, cur, cur_stride, y0 - kHalo + k, height,
                                   needed, mirrored);
  std::int64_t next = window_load<Sample>(prev, prev_stride, cur, cur_stride, y0 + kHalo, height,
                                          needed, mirrored);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int y = y0 + r;
    if (y < height) {  // the same for every thread of the block
#pragma unroll
      for (int k = 0; k < 4; ++k) d[k] = d[k + 1];
      d[4] = next;
      vertical[t] = vertical_value(d, bpc);
      if (r + 1 < kRows && y + 1 < height)
        next = window_load<Sample>(prev, prev_stride, cur, cur_stride, y + 1 + kHalo, height,
                                   needed, mirrored);
      __syncthreads();
      if (t < kChunk && x0 + t < width) row_sum[r] += output_abs(vertical + t);
      __syncthreads();
    }
  }

  // The block's share of each row modulo 2^32 (wrapping adds, any order),
  // added into the row's total with a wrapping atomic add.
  const int lane = t % 32, warp = t / 32;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    std::uint32_t value = row_sum[r];
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    if (lane == 0) warp_sums[warp][r] = value;
  }
  __syncthreads();
  if (t < kRows && y0 + t < height) {
    std::uint32_t share = 0;
    for (int w = 0; w < kThreads / 32; ++w) share += warp_sums[w][t];
    if (share) atomicAdd(row_totals + y0 + t, share);
  }
}

// The rows' uint32 totals added in 64 bits (an integer sum: exact in any
// order) by one block.
constexpr int kTotalThreads = 1024;

__global__ void __launch_bounds__(kTotalThreads)
    motion_total_kernel(const std::uint32_t* __restrict__ row_totals, int height,
                        unsigned long long* __restrict__ sad) {
  __shared__ unsigned long long warp_totals[kTotalThreads / 32];
  const int t = static_cast<int>(threadIdx.x);
  unsigned long long total = 0;
  for (int y = t; y < height; y += kTotalThreads) total += row_totals[y];
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (t % 32 == 0) warp_totals[t / 32] = total;
  __syncthreads();
  if (t == 0) {
    unsigned long long frame = 0;
    for (int w = 0; w < kTotalThreads / 32; ++w) frame += warp_totals[w];
    *sad = frame;
  }
}

}  // namespace

void enqueue_motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                        std::uint32_t* row_totals, unsigned long long* device_sad,
                        cudaStream_t stream) {
  if (cur.width == 0 || cur.height == 0) {
    check(cudaMemsetAsync(device_sad, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync (motion sum)");
    return;
  }
  check(cudaMemsetAsync(row_totals, 0, sizeof(std::uint32_t) * cur.height, stream),
        "cudaMemsetAsync (motion rows)");
  const dim3 blocks(block_count(cur.height), chunk_count(cur.width));
  const int width = static_cast<int>(cur.width), height = static_cast<int>(cur.height);
  if (bpc == 8)
    motion_rows_kernel<std::uint8_t><<<blocks, kThreads, 0, stream>>>(
        prev.data, prev.stride, cur.data, cur.stride, width, height, bpc, row_totals);
  else
    motion_rows_kernel<std::uint16_t><<<blocks, kThreads, 0, stream>>>(
        prev.data, prev.stride, cur.data, cur.stride, width, height, bpc, row_totals);
  check(cudaGetLastError(), "motion kernel launch");
  motion_total_kernel<<<1, kTotalThreads, 0, stream>>>(row_totals, height, device_sad);
  check(cudaGetLastError(), "motion total kernel launch");
}

}  // namespace vmafexact::cuda::motion
