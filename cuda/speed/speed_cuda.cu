#include "speed/speed_cuda.h"

#include "common/cuda_util.h"

namespace vmafexact::cuda::speed {

namespace {

using namespace tile;

struct Planes {
  SourcePlane plane[kPictures];
};

// Step 1: one thread per decimated sample; blockIdx.y is the picture.
__global__ void __launch_bounds__(kSampleThreads)
    low_pass_kernel(Planes planes, Tables t, float* __restrict__ low) {
  const unsigned count = t.low_width * t.low_height;
  const unsigned n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count) return;
  const unsigned p = blockIdx.y;
  low[std::size_t{p} * count + n] = low_sample(planes.plane[p], t, n / t.low_width, n % t.low_width);
}

// Step 2: one thread per decimated sample, into the picture's results.
__global__ void __launch_bounds__(kSampleThreads)
    centered_kernel(Tables t, const float* __restrict__ low, float* __restrict__ results,
                    std::size_t stride) {
  const unsigned count = t.low_width * t.low_height;
  const unsigned n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count) return;
  const unsigned p = blockIdx.y;
  results[p * stride + n] =
      centered_sample(low + std::size_t{p} * count, t, n / t.low_width, n % t.low_width);
}

// Step 3: one block per picture; threads 0..24 form the means, then threads
// 0..324 one covariance entry each (both halves of the symmetric matrix).
__global__ void __launch_bounds__(kStatsThreads)
    covariance_kernel(Tables t, float* __restrict__ results, std::size_t stride) {
  __shared__ double means[kPositions];
  const unsigned p = blockIdx.x;
  const float* centered = results + p * stride;
  float* covariance = results + p * stride + std::size_t{t.low_width} * t.low_height;
  const unsigned thread = threadIdx.x;
  if (thread < kPositions) means[thread] = static_cast<double>(position_mean(centered, t, thread));
  __syncthreads();
  if (thread >= kCovarianceEntries) return;
  unsigned x, y;
  covariance_pair(thread, x, y);
  const float value = covariance_value(covariance_sum(centered, t, means, x, y), t);
  covariance[x * kPositions + y] = value;
  covariance[y * kPositions + x] = value;
}

}  // namespace

void enqueue_speed_pictures(const FramePlanes& planes, const Tables& t, float* low, float* results,
                            cudaStream_t stream) {
  Planes p;
  for (unsigned k = 0; k < kPictures; ++k) p.plane[k] = planes[k];
  const unsigned count = t.low_width * t.low_height;
  const dim3 grid((count + kSampleThreads - 1) / kSampleThreads, kPictures);
  const std::size_t stride = result_stride(t);
  low_pass_kernel<<<grid, kSampleThreads, 0, stream>>>(p, t, low);
  check(cudaGetLastError(), "speed low-pass kernel");
  centered_kernel<<<grid, kSampleThreads, 0, stream>>>(t, low, results, stride);
  check(cudaGetLastError(), "speed local-mean kernel");
  covariance_kernel<<<kPictures, kStatsThreads, 0, stream>>>(t, results, stride);
  check(cudaGetLastError(), "speed covariance kernel");
}

}  // namespace vmafexact::cuda::speed
