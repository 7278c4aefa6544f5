#include "vif/vif_cuda.h"

#include "common/cuda_util.h"

namespace vmafexact::cuda::vif {

namespace {

// One block per tile: the phases of vif_cuda_tile.h between barriers, then the
// block's four integer sums (exact in any order) added to the scale's totals.
// At most 64 registers (4 blocks per SM): the phases' register windows would
// take 78 and leave 3 blocks, which measured slower.
template <typename Sample, int Half, int DecHalf>
__global__ void __launch_bounds__(kThreads, 4) vif_scale_kernel(const ScaleParams p) {
  using Phases = TilePhases<Sample, Half, DecHalf>;
  __shared__ typename Phases::Shared shared;
  const int thread = static_cast<int>(threadIdx.x);
  const int tile_x = static_cast<int>(blockIdx.x), tile_y = static_cast<int>(blockIdx.y);
  Phases::load(p, shared, tile_x, tile_y, thread);
  __syncthreads();
  Phases::vertical(p, shared, tile_x, tile_y, thread);
  __syncthreads();
  PixelSums sums;
  Phases::horizontal(p, shared, tile_x, tile_y, thread, sums);
  if (!p.statistic) return;  // uniform over the grid

  long long values[4] = {sums.num_log, sums.den_log, sums.num_non_log, sums.den_non_log};
#pragma unroll
  for (int v = 0; v < 4; ++v)
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      values[v] += __shfl_down_sync(0xffffffffu, values[v], offset);
  __shared__ long long warp_sums[kThreads / 32][4];
  const int warp = thread / 32, lane = thread % 32;
  if (lane == 0)
    for (int v = 0; v < 4; ++v) warp_sums[warp][v] = values[v];
  __syncthreads();
  if (thread < 4) {
    long long total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w][thread];
    if (total != 0) atomicAdd(p.sums + thread, static_cast<unsigned long long>(total));
  }
}

template <typename Sample, int Half, int DecHalf>
void launch(const ScaleParams& params, const ScalePlan& scale, cudaStream_t stream) {
  const dim3 grid(tiles_across(scale), tiles_down(scale));
  vif_scale_kernel<Sample, Half, DecHalf><<<grid, kThreads, 0, stream>>>(params);
}

}  // namespace

void enqueue_scale(const ScaleParams& params, const ScalePlan& scale, unsigned s, unsigned bpc,
                   cudaStream_t stream) {
  switch (s) {
    case 0:
      if (bpc == 8)
        launch<std::uint8_t, 8, 4>(params, scale, stream);
      else
        launch<std::uint16_t, 8, 4>(params, scale, stream);
      break;
    case 1: launch<std::uint16_t, 4, 2>(params, scale, stream); break;
    case 2: launch<std::uint16_t, 2, 1>(params, scale, stream); break;
    default: launch<std::uint16_t, 1, 0>(params, scale, stream); break;
  }
  check(cudaGetLastError(), "vif kernel launch");
}

}  // namespace vmafexact::cuda::vif
