#include "psnr/psnr_cuda.h"

#include "common/cuda_util.h"

namespace vmafexact::cuda::psnr {

namespace {

constexpr int kThreads = 256;

// One block per row: the row's squares are summed in RowSum (uint32 wraps
// like libvmaf's 8-bit row accumulator; uint64 above 8 bits), then the row
// joins the 64-bit frame total with one atomic add.
template <typename Sample, typename RowSum>
__global__ void plane_sse_kernel(const std::uint8_t* ref, std::ptrdiff_t ref_stride,
                                 const std::uint8_t* dist, std::ptrdiff_t dist_stride,
                                 unsigned width, unsigned long long* sse) {
  const unsigned y = blockIdx.x;
  const auto* r = reinterpret_cast<const Sample*>(ref + y * ref_stride);
  const auto* d = reinterpret_cast<const Sample*>(dist + y * dist_stride);
  RowSum sum = 0;
  for (unsigned x = threadIdx.x; x < width; x += kThreads) {
    const int e = static_cast<int>(r[x]) - static_cast<int>(d[x]);
    const auto magnitude = static_cast<std::uint32_t>(e < 0 ? -e : e);
    sum += static_cast<RowSum>(magnitude * magnitude);
  }
  __shared__ RowSum partial[kThreads];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int step = kThreads / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sse, static_cast<unsigned long long>(partial[0]));
}

}  // namespace

void enqueue_plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                       unsigned long long* device_sse, cudaStream_t stream) {
  if (ref.width == 0 || ref.height == 0) return;
  if (bpc == 8)
    plane_sse_kernel<std::uint8_t, std::uint32_t><<<ref.height, kThreads, 0, stream>>>(
        ref.data, ref.stride, dist.data, dist.stride, ref.width, device_sse);
  else
    plane_sse_kernel<std::uint16_t, unsigned long long><<<ref.height, kThreads, 0, stream>>>(
        ref.data, ref.stride, dist.data, dist.stride, ref.width, device_sse);
  check(cudaGetLastError(), "psnr kernel launch");
}

}  // namespace vmafexact::cuda::psnr
