#include <cstdint>

#include "common/cuda_util.h"
#include "common/launch.h"
#include "ssim/ssim_cuda.h"
#include "ssim/ssim_cuda_tile.h"

namespace vmafexact::cuda::ssim {

namespace {

namespace pixel = vmafexact::ssim::pixel;

__global__ void decimate_kernel(const float* ref, const float* dist, int w, int h,
                                const float* kernel, int taps, int factor, int out_w, int out_h,
                                float* ref_out, float* dist_out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out_w || y >= out_h) return;
  const float* in = blockIdx.z == 0 ? ref : dist;
  float* out = blockIdx.z == 0 ? ref_out : dist_out;
  out[static_cast<std::size_t>(y) * static_cast<std::size_t>(out_w) + static_cast<std::size_t>(x)] =
      pixel::filter_pixel(in, w, h, kernel, taps, x * factor, y * factor);
}

__global__ void horizontal_kernel(const float* ref, const float* dist, int w, int h,
                                  const float* taps, float* maps) {
  const int out_w = w - (tile::kTaps - 1);
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out_w || y >= h) return;
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
  float out[tile::kMaps];
  tile::horizontal(ref + row, dist + row, x, taps, out);
  const std::size_t map_floats = static_cast<std::size_t>(out_w) * static_cast<std::size_t>(h);
  const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(out_w) +
                        static_cast<std::size_t>(x);
  for (int m = 0; m < tile::kMaps; ++m) maps[static_cast<std::size_t>(m) * map_floats + i] = out[m];
}

__global__ void vertical_terms_kernel(const float* maps, int w, int h, const float* taps,
                                      double* terms) {
  const int out_w = w - (tile::kTaps - 1), out_h = h - (tile::kTaps - 1);
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out_w || y >= out_h) return;
  const std::size_t map_floats = static_cast<std::size_t>(out_w) * static_cast<std::size_t>(h);
  const std::size_t count = static_cast<std::size_t>(out_w) * static_cast<std::size_t>(out_h);
  const pixel::Terms t = tile::vertical_terms(maps, map_floats, out_w, x, y, taps);
  tile::store_terms(t, terms, count,
                    static_cast<std::size_t>(y) * static_cast<std::size_t>(out_w) +
                        static_cast<std::size_t>(x));
}

}  // namespace

void enqueue_decimate(const float* ref, const float* dist, int w, int h, const float* kernel,
                      int taps, int factor, float* ref_out, float* dist_out, cudaStream_t stream) {
  const int out_w = w / factor + (w & 1), out_h = h / factor + (h & 1);
  decimate_kernel<<<grid_2d(out_w, out_h, 2), block_2d(), 0, stream>>>(
      ref, dist, w, h, kernel, taps, factor, out_w, out_h, ref_out, dist_out);
  check(cudaGetLastError(), "ssim decimate kernel launch");
}

void enqueue_terms(const float* ref, const float* dist, int w, int h, const float* gaussian,
                   float* maps, double* terms, cudaStream_t stream) {
  const int out_w = w - (tile::kTaps - 1), out_h = h - (tile::kTaps - 1);
  horizontal_kernel<<<grid_2d(out_w, h), block_2d(), 0, stream>>>(ref, dist, w, h, gaussian, maps);
  check(cudaGetLastError(), "ssim horizontal kernel launch");
  vertical_terms_kernel<<<grid_2d(out_w, out_h), block_2d(), 0, stream>>>(maps, w, h, gaussian,
                                                                          terms);
  check(cudaGetLastError(), "ssim vertical kernel launch");
}

}  // namespace vmafexact::cuda::ssim
