#include <cstddef>
#include <cstdint>

#include "common/cuda_util.h"
#include "common/float_pictures.h"
#include "common/float_plane_pixel.h"
#include "common/launch.h"

namespace vmafexact::cuda {

namespace {

struct PlaneArgs {
  const std::uint8_t* data;
  std::ptrdiff_t stride;
};

template <typename Sample>
__global__ void float_pictures_kernel(PlaneArgs ref, PlaneArgs dist, int w, int h, float scaler,
                                      int offset, float* ref_out, float* dist_out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const PlaneArgs plane = blockIdx.z == 0 ? ref : dist;
  const auto* row = reinterpret_cast<const Sample*>(plane.data + y * plane.stride);
  (blockIdx.z == 0 ? ref_out : dist_out)[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) +
                                         static_cast<std::size_t>(x)] =
      float_pixel::picture_sample(row[x], scaler, offset);
}

}  // namespace

void enqueue_float_pictures(const PlaneView& ref, const PlaneView& dist, unsigned bpc, int offset,
                            float* ref_out, float* dist_out, cudaStream_t stream) {
  const int w = static_cast<int>(ref.width), h = static_cast<int>(ref.height);
  if (w == 0 || h == 0) return;
  const dim3 grid = grid_2d(w, h, 2);
  const PlaneArgs r{ref.data, ref.stride}, d{dist.data, dist.stride};
  if (bpc == 8)
    float_pictures_kernel<std::uint8_t>
        <<<grid, block_2d(), 0, stream>>>(r, d, w, h, 1.0f, offset, ref_out, dist_out);
  else
    float_pictures_kernel<std::uint16_t><<<grid, block_2d(), 0, stream>>>(
        r, d, w, h, float_pixel::sample_scaler(bpc), offset, ref_out, dist_out);
  check(cudaGetLastError(), "float pictures kernel launch");
}

}  // namespace vmafexact::cuda
