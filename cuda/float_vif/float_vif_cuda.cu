#include <cstdint>

#include "common/cuda_util.h"
#include "common/launch.h"
#include "float_vif/float_vif_cuda.h"

namespace vmafexact::cuda::float_vif {

namespace {

__device__ std::size_t at(int x, int y, int w) {
  return static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
}

__global__ void prescale_kernel(const float* ref, const float* dist, int src_w,
                                tile::Prescale tables, int out_w, int out_h, float* ref_out,
                                float* dist_out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out_w || y >= out_h) return;
  const float* src = blockIdx.z == 0 ? ref : dist;
  (blockIdx.z == 0 ? ref_out : dist_out)[at(x, y, out_w)] =
      tile::prescale_output(src, src_w, tables, x, y);
}

__global__ void decimate_kernel(const float* ref, const float* dist, int w, int h,
                                const float* taps, int count, float* ref_out, float* dist_out) {
  const int out_w = w / 2, out_h = h / 2;
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int i = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (j >= out_w || i >= out_h) return;
  const float* src = blockIdx.z == 0 ? ref : dist;
  (blockIdx.z == 0 ? ref_out : dist_out)[at(j, i, out_w)] =
      tile::decimated_output(src, w, h, taps, count, i, j);
}

__global__ void vertical_kernel(const float* ref, const float* dist, int w, int h,
                                const float* taps, int count, float* maps) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  float out[tile::kMaps];
  tile::vertical_maps(ref, dist, w, h, taps, count, x, y, out);
  const std::size_t map_floats = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  for (int q = 0; q < tile::kMaps; ++q)
    maps[static_cast<std::size_t>(q) * map_floats + at(x, y, w)] = out[q];
}

__global__ void terms_kernel(const float* maps, int w, int h, const float* taps, int count,
                             tile::StatisticConstants constants, float* terms) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const std::size_t map_floats = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  float num, den;
  tile::pixel_terms(maps, map_floats, w, x, y, taps, count, constants, num, den);
  terms[at(x, y, w)] = num;
  terms[map_floats + at(x, y, w)] = den;
}

__global__ void rows_kernel(const float* terms, int w, int h, float* row_num, float* row_den) {
  const int y = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (y >= h) return;
  const std::size_t map_floats = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  row_num[y] = tile::pixel::serial_sum(terms + at(0, y, w), w);
  row_den[y] = tile::pixel::serial_sum(terms + map_floats + at(0, y, w), w);
}

}  // namespace

void enqueue_prescale(const float* ref, const float* dist, int src_w, const tile::Prescale& tables,
                      int out_w, int out_h, float* ref_out, float* dist_out, cudaStream_t stream) {
  prescale_kernel<<<grid_2d(out_w, out_h, 2), block_2d(), 0, stream>>>(
      ref, dist, src_w, tables, out_w, out_h, ref_out, dist_out);
  check(cudaGetLastError(), "float_vif prescale kernel launch");
}

void enqueue_decimate(const float* ref, const float* dist, int w, int h, const float* taps,
                      int count, float* ref_out, float* dist_out, cudaStream_t stream) {
  decimate_kernel<<<grid_2d(w / 2, h / 2, 2), block_2d(), 0, stream>>>(ref, dist, w, h, taps, count,
                                                                       ref_out, dist_out);
  check(cudaGetLastError(), "float_vif decimate kernel launch");
}

void enqueue_scale(const float* ref, const float* dist, int w, int h, const float* taps, int count,
                   const tile::StatisticConstants& constants, float* maps, float* terms,
                   float* row_num, float* row_den, cudaStream_t stream) {
  vertical_kernel<<<grid_2d(w, h), block_2d(), 0, stream>>>(ref, dist, w, h, taps, count, maps);
  check(cudaGetLastError(), "float_vif vertical kernel launch");
  terms_kernel<<<grid_2d(w, h), block_2d(), 0, stream>>>(maps, w, h, taps, count, constants, terms);
  check(cudaGetLastError(), "float_vif terms kernel launch");
  rows_kernel<<<row_blocks(h), kRowBlock, 0, stream>>>(terms, w, h, row_num, row_den);
  check(cudaGetLastError(), "float_vif rows kernel launch");
}

}  // namespace vmafexact::cuda::float_vif
