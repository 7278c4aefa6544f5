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

// Step 3: the means, one thread per position; blockIdx.x is the picture.
__global__ void __launch_bounds__(kChainThreads)
    means_kernel(Tables t, const float* __restrict__ results, std::size_t stride,
                 double* __restrict__ means) {
  const unsigned p = blockIdx.x, s = threadIdx.x;
  if (s < kPositions)
    means[p * kPositions + s] = static_cast<double>(position_mean(results + p * stride, t, s));
}

// Step 3: the centered values, one thread per position and element.
__global__ void __launch_bounds__(kSampleThreads)
    values_kernel(Tables t, const float* __restrict__ results, std::size_t stride,
                  const double* __restrict__ means, double* __restrict__ values) {
  const std::size_t count = std::size_t{t.region_width} * t.region_height;
  const std::size_t n = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (n >= kPositions * count) return;
  const unsigned p = blockIdx.y;
  const unsigned s = static_cast<unsigned>(n / count);
  values[p * kPositions * count + n] =
      centered_value(results + p * stride, t, means + p * kPositions, s, n % count);
}

// Step 3: the covariance, one thread per entry (both halves of the symmetric
// matrix); blockIdx.y is the picture.
__global__ void __launch_bounds__(kChainThreads)
    covariance_kernel(Tables t, const double* __restrict__ values, float* __restrict__ results,
                      std::size_t stride) {
  const unsigned entry = blockIdx.x * blockDim.x + threadIdx.x;
  if (entry >= kCovarianceEntries) return;
  const unsigned p = blockIdx.y;
  const std::size_t count = std::size_t{t.region_width} * t.region_height;
  unsigned x, y;
  covariance_pair(entry, x, y);
  const float value =
      covariance_value(covariance_sum(values + p * kPositions * count, count, x, y), t);
  float* covariance = results + p * stride + std::size_t{t.low_width} * t.low_height;
  covariance[x * kPositions + y] = value;
  covariance[y * kPositions + x] = value;
}

}  // namespace

std::size_t scratch_low_count(const Tables& t) {
  return kPictures * std::size_t{t.low_width} * t.low_height;
}

std::size_t scratch_values_count(const Tables& t) {
  return kPictures * kPositions * std::size_t{t.region_width} * t.region_height;
}

void enqueue_speed_pictures(const FramePlanes& planes, const Tables& t, const Scratch& scratch,
                            float* results, cudaStream_t stream) {
  Planes p;
  for (unsigned k = 0; k < kPictures; ++k) p.plane[k] = planes[k];
  const unsigned count = t.low_width * t.low_height;
  const dim3 grid((count + kSampleThreads - 1) / kSampleThreads, kPictures);
  const std::size_t stride = result_stride(t);
  low_pass_kernel<<<grid, kSampleThreads, 0, stream>>>(p, t, scratch.low);
  check(cudaGetLastError(), "speed low-pass kernel");
  centered_kernel<<<grid, kSampleThreads, 0, stream>>>(t, scratch.low, results, stride);
  check(cudaGetLastError(), "speed local-mean kernel");
  means_kernel<<<kPictures, kChainThreads, 0, stream>>>(t, results, stride, scratch.means);
  check(cudaGetLastError(), "speed means kernel");
  const std::size_t values = scratch_values_count(t) / kPictures;
  const dim3 values_grid(static_cast<unsigned>((values + kSampleThreads - 1) / kSampleThreads), kPictures);
  values_kernel<<<values_grid, kSampleThreads, 0, stream>>>(t, results, stride, scratch.means,
                                                            scratch.values);
  check(cudaGetLastError(), "speed centered values kernel");
  const dim3 covariance_grid((kCovarianceEntries + kChainThreads - 1) / kChainThreads, kPictures);
  covariance_kernel<<<covariance_grid, kChainThreads, 0, stream>>>(t, scratch.values, results, stride);
  check(cudaGetLastError(), "speed covariance kernel");
}

}  // namespace vmafexact::cuda::speed
