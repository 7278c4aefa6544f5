#include <cstdint>

#include "common/cuda_util.h"
#include "common/launch.h"
#include "float_motion/float_motion_cuda.h"

namespace vmafexact::cuda::float_motion {

namespace {

template <typename Sample>
__global__ void vertical_kernel(const std::uint8_t* plane, std::ptrdiff_t stride, int w, int h,
                                tile::Filter filter, float scaler, float* out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  out[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] =
      tile::vertical_output<Sample>(plane, stride, x, y, h, filter, scaler);
}

__global__ void horizontal_kernel(const float* in, int w, int h, tile::Filter filter, float* out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
  out[row + static_cast<std::size_t>(x)] = tile::horizontal_output(in + row, x, w, filter);
}

__global__ void half_kernel(const float* in, int w, int h, float* out, int out_w, int out_h) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out_w || y >= out_h) return;
  out[static_cast<std::size_t>(y) * static_cast<std::size_t>(out_w) + static_cast<std::size_t>(x)] =
      tile::half_output(in, w, h, out_w, out_h, x, y);
}

__global__ void row_sums_kernel(const float* a, const float* b, int w, int h, float* row_sums) {
  const int y = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (y >= h) return;
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
  row_sums[y] = tile::pixel::row_abs_difference(a + row, b + row, w);
}

}  // namespace

void enqueue_blur(const PlaneView& plane, unsigned bpc, const tile::Filter& filter, float* vertical,
                  float* blurred, cudaStream_t stream) {
  const int w = static_cast<int>(plane.width), h = static_cast<int>(plane.height);
  if (w == 0 || h == 0) return;
  if (bpc == 8)
    vertical_kernel<std::uint8_t><<<grid_2d(w, h), block_2d(), 0, stream>>>(
        plane.data, plane.stride, w, h, filter, 1.0f, vertical);
  else
    vertical_kernel<std::uint16_t><<<grid_2d(w, h), block_2d(), 0, stream>>>(
        plane.data, plane.stride, w, h, filter, float_pixel::sample_scaler(bpc), vertical);
  check(cudaGetLastError(), "float_motion vertical kernel launch");
  horizontal_kernel<<<grid_2d(w, h), block_2d(), 0, stream>>>(vertical, w, h, filter, blurred);
  check(cudaGetLastError(), "float_motion horizontal kernel launch");
}

void enqueue_half(const float* plane, int w, int h, float* out, int out_w, int out_h,
                  cudaStream_t stream) {
  half_kernel<<<grid_2d(out_w, out_h), block_2d(), 0, stream>>>(plane, w, h, out, out_w, out_h);
  check(cudaGetLastError(), "float_motion half kernel launch");
}

void enqueue_row_sums(const float* a, const float* b, int w, int h, float* row_sums,
                      cudaStream_t stream) {
  row_sums_kernel<<<row_blocks(h), kRowBlock, 0, stream>>>(a, b, w, h, row_sums);
  check(cudaGetLastError(), "float_motion row sums kernel launch");
}

}  // namespace vmafexact::cuda::float_motion
