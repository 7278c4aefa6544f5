#include "common/cuda_util.h"
#include "common/float_row_totals.h"
#include "common/float_sums_pixel.h"

namespace vmafexact::cuda {

namespace {

namespace sums = vmafexact::float_sums;

// The block's threads' values added (integers: the order does not matter);
// the total is valid in thread 0.
template <int kValues>
__device__ void block_totals(std::uint64_t (&values)[kValues]) {
  __shared__ std::uint64_t partial[kValues][kRowTotalThreads];
  for (int k = 0; k < kValues; ++k) partial[k][threadIdx.x] = values[k];
  __syncthreads();
  for (int step = kRowTotalThreads / 2; step > 0; step /= 2) {
    if (static_cast<int>(threadIdx.x) < step)
      for (int k = 0; k < kValues; ++k) partial[k][threadIdx.x] += partial[k][threadIdx.x + step];
    __syncthreads();
  }
  for (int k = 0; k < kValues; ++k) values[k] = partial[k][0];
}

template <typename Sample>
__device__ const Sample* row_of(const std::uint8_t* plane, std::ptrdiff_t stride, unsigned y) {
  return reinterpret_cast<const Sample*>(plane + static_cast<std::ptrdiff_t>(y) * stride);
}

template <typename Sample>
__global__ void difference_square_kernel(const std::uint8_t* ref, std::ptrdiff_t ref_stride,
                                         const std::uint8_t* dist, std::ptrdiff_t dist_stride,
                                         unsigned width, std::uint64_t* totals) {
  const unsigned y = blockIdx.x;
  std::uint64_t value[1] = {sums::row_square_total(row_of<Sample>(ref, ref_stride, y),
                                                   row_of<Sample>(dist, dist_stride, y), width,
                                                   threadIdx.x, kRowTotalThreads)};
  block_totals(value);
  if (threadIdx.x == 0) totals[y] = value[0];
}

template <typename Sample>
__global__ void moment_kernel(const std::uint8_t* ref, std::ptrdiff_t ref_stride,
                              const std::uint8_t* dist, std::ptrdiff_t dist_stride, unsigned width,
                              unsigned height, std::uint64_t* totals) {
  const unsigned y = blockIdx.x;
  const Sample* r = row_of<Sample>(ref, ref_stride, y);
  const Sample* d = row_of<Sample>(dist, dist_stride, y);
  const Sample* none = nullptr;
  std::uint64_t values[4] = {sums::row_sample_total(r, width, threadIdx.x, kRowTotalThreads),
                             sums::row_sample_total(d, width, threadIdx.x, kRowTotalThreads),
                             sums::row_square_total(r, none, width, threadIdx.x, kRowTotalThreads),
                             sums::row_square_total(d, none, width, threadIdx.x, kRowTotalThreads)};
  block_totals(values);
  if (threadIdx.x == 0)
    for (unsigned k = 0; k < 4; ++k) totals[k * height + y] = values[k];
}

}  // namespace

void enqueue_difference_square_totals(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                                      std::uint64_t* totals, cudaStream_t stream) {
  if (ref.width == 0 || ref.height == 0) return;
  if (bpc == 8)
    difference_square_kernel<std::uint8_t><<<ref.height, kRowTotalThreads, 0, stream>>>(
        ref.data, ref.stride, dist.data, dist.stride, ref.width, totals);
  else
    difference_square_kernel<std::uint16_t><<<ref.height, kRowTotalThreads, 0, stream>>>(
        ref.data, ref.stride, dist.data, dist.stride, ref.width, totals);
  check(cudaGetLastError(), "float_psnr row totals kernel launch");
}

void enqueue_moment_totals(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                           std::uint64_t* totals, cudaStream_t stream) {
  if (ref.width == 0 || ref.height == 0) return;
  if (bpc == 8)
    moment_kernel<std::uint8_t><<<ref.height, kRowTotalThreads, 0, stream>>>(
        ref.data, ref.stride, dist.data, dist.stride, ref.width, ref.height, totals);
  else
    moment_kernel<std::uint16_t><<<ref.height, kRowTotalThreads, 0, stream>>>(
        ref.data, ref.stride, dist.data, dist.stride, ref.width, ref.height, totals);
  check(cudaGetLastError(), "float_moment row totals kernel launch");
}

PlaneView host_copy_of_plane(const PlaneView& plane, unsigned bpc,
                             std::vector<std::uint8_t>& storage, cudaStream_t stream) {
  const std::size_t row_bytes = std::size_t{plane.width} * (bpc == 8 ? 1 : 2);
  storage.resize(row_bytes * plane.height);
  check(cudaMemcpy2DAsync(storage.data(), row_bytes, plane.data,
                          static_cast<std::size_t>(plane.stride), row_bytes, plane.height,
                          cudaMemcpyDefault, stream),
        "cudaMemcpy2DAsync (plane to the host)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (plane to the host)");
  PlaneView copy = plane;
  copy.data = storage.data();
  copy.stride = static_cast<std::ptrdiff_t>(row_bytes);
  return copy;
}

}  // namespace vmafexact::cuda
