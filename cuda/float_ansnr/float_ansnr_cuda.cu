#include "common/cuda_util.h"
#include "common/launch.h"
#include "float_ansnr/float_ansnr_cuda.h"

namespace vmafexact::cuda::float_ansnr {

namespace {

// Depth 0: the reference with the 3x3 kernel; depth 1: the distorted plane
// with the 5x5 one.
__global__ void filter_kernel(const float* ref, const float* dist, int w, int h,
                              tile::pixel::Kernel ref_kernel, tile::pixel::Kernel dist_kernel,
                              float* ref_out, float* dist_out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const bool is_ref = blockIdx.z == 0;
  float* out = is_ref ? ref_out : dist_out;
  out[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] =
      tile::filter_output(is_ref ? ref : dist, w, h, is_ref ? ref_kernel : dist_kernel, x, y);
}

__global__ void row_sums_kernel(const float* ref, const float* dist, int w, int h, float* row_sig,
                                float* row_noise) {
  const int y = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (y >= h) return;
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
  const tile::pixel::RowSums sums = tile::pixel::row_sums(ref + row, dist + row, w);
  row_sig[y] = sums.sig;
  row_noise[y] = sums.noise;
}

}  // namespace

void enqueue_filter(const float* ref, const float* dist, int w, int h, float* ref_filtered,
                    float* dist_filtered, cudaStream_t stream) {
  if (w == 0 || h == 0) return;
  filter_kernel<<<grid_2d(w, h, 2), block_2d(), 0, stream>>>(
      ref, dist, w, h, tile::pixel::kRefKernel, tile::pixel::kDistKernel, ref_filtered,
      dist_filtered);
  check(cudaGetLastError(), "float_ansnr filter kernel launch");
}

void enqueue_row_sums(const float* ref_filtered, const float* dist_filtered, int w, int h,
                      float* row_sig, float* row_noise, cudaStream_t stream) {
  if (h == 0) return;
  row_sums_kernel<<<row_blocks(h), kRowBlock, 0, stream>>>(ref_filtered, dist_filtered, w, h,
                                                           row_sig, row_noise);
  check(cudaGetLastError(), "float_ansnr row sums kernel launch");
}

}  // namespace vmafexact::cuda::float_ansnr
