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
    motion_sad_kernel(const std::uint8_t* __restrict__ prev, std::ptrdiff_t prev_stride,
                      const std::uint8_t* __restrict__ cur, std::ptrdiff_t cur_stride, int width,
                      int height, unsigned bpc, unsigned long long* sad) {
  __shared__ std::int32_t vertical[kThreads];
  __shared__ std::uint32_t warp_sums[kThreads / 32][kRows];
  const int t = static_cast<int>(threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.x) * kRows;

  std::uint32_t row_sum[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) row_sum[r] = 0;

  for (int x0 = 0; x0 < width; x0 += kChunk) {
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
  }

  // Each row's sum modulo 2^32 over the block (wrapping adds, any order), then
  // the block's rows in 64 bits into the frame's sum.
  const int lane = t % 32, warp = t / 32;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    std::uint32_t value = row_sum[r];
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    if (lane == 0) warp_sums[warp][r] = value;
  }
  __syncthreads();
  if (t == 0) {
    unsigned long long block = 0;
    for (int r = 0; r < kRows; ++r) {
      std::uint32_t row = 0;
      for (int w = 0; w < kThreads / 32; ++w) row += warp_sums[w][r];
      block += row;
    }
    if (block) atomicAdd(sad, block);
  }
}

}  // namespace

void enqueue_motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                        unsigned long long* device_sad, cudaStream_t stream) {
  if (cur.width == 0 || cur.height == 0) return;
  const unsigned blocks = block_count(cur.height);
  const int width = static_cast<int>(cur.width), height = static_cast<int>(cur.height);
  if (bpc == 8)
    motion_sad_kernel<std::uint8_t><<<blocks, kThreads, 0, stream>>>(
        prev.data, prev.stride, cur.data, cur.stride, width, height, bpc, device_sad);
  else
    motion_sad_kernel<std::uint16_t><<<blocks, kThreads, 0, stream>>>(
        prev.data, prev.stride, cur.data, cur.stride, width, height, bpc, device_sad);
  check(cudaGetLastError(), "motion kernel launch");
}

}  // namespace vmafexact::cuda::motion
