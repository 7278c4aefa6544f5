#include "common/cuda_util.h"
#include "common/repack.h"

namespace vmafexact::cuda {

namespace {

template <typename Sample>
__global__ void repack_kernel(const std::uint8_t* src, std::ptrdiff_t src_pitch,
                              unsigned pixel_stride, unsigned shift, unsigned width,
                              unsigned height, std::uint8_t* dst, std::ptrdiff_t dst_pitch) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y;
  if (x >= width || y >= height) return;
  const std::uint8_t* in = src + y * src_pitch + static_cast<std::ptrdiff_t>(x) * pixel_stride;
  Sample sample;
  if constexpr (sizeof(Sample) == 1)
    sample = in[0];
  else
    sample = static_cast<Sample>(in[0] | (in[1] << 8));  // little-endian words
  reinterpret_cast<Sample*>(dst + y * dst_pitch)[x] = static_cast<Sample>(sample >> shift);
}

}  // namespace

void enqueue_repack_component(const std::uint8_t* src, std::ptrdiff_t src_pitch,
                              unsigned pixel_stride, unsigned sample_bytes, unsigned shift,
                              unsigned width, unsigned height, std::uint8_t* dst,
                              std::ptrdiff_t dst_pitch, cudaStream_t stream) {
  if (width == 0 || height == 0) return;
  const dim3 block(256), grid((width + 255) / 256, height);
  if (sample_bytes == 1)
    repack_kernel<std::uint8_t><<<grid, block, 0, stream>>>(src, src_pitch, pixel_stride, shift,
                                                            width, height, dst, dst_pitch);
  else
    repack_kernel<std::uint16_t><<<grid, block, 0, stream>>>(src, src_pitch, pixel_stride, shift,
                                                             width, height, dst, dst_pitch);
  check(cudaGetLastError(), "repack kernel launch");
}

}  // namespace vmafexact::cuda
