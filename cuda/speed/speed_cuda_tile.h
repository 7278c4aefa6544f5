// The decomposition of speed_chroma's kernels (speed_cuda.cu) and the
// per-thread pieces they are built from, as __host__ __device__ functions, so
// that the host emulation (tests/harness/check_speed_cuda.cpp) runs the very
// same code without a GPU. The arithmetic is the CPU's (metrics/speed/speed.cpp,
// speed_pixel.h), each float and double sum in the CPU's order:
//  1. low_sample(): one thread per decimated sample (i, j) of a picture: the
//     antialiasing filter at scaled sample (16 i, 16 j). For each horizontal
//     tap it forms that column's vertical sum (0, then the taps in order, as
//     the CPU's accumulate_row does per column), then adds the horizontal taps
//     in order. Scaled samples are formed where they are read, from the
//     source plane through the prescale tables (pixel::prescaled_sample).
//  2. centered_sample(): one thread per decimated sample: the local mean (the
//     vertical sums of its columns, then the horizontal sum, as the CPU) and
//     the sample less it.
//  3. position_mean() and covariance_sum(): one thread per position (25) and
//     one per covariance entry (325, y <= x): each is one serial chain over the
//     region in row-major order, as the CPU's compute_mean / compute_covariance
//     (the samples of a batch are loaded before its additions, which keeps the
//     chain latency-bound on the additions, not on the loads).
// The covariance, eigenvalues, solve and the entropies (log2) are finished on
// the host with the CPU's own code (SpeedKernel::block_stats).
#pragma once

#include <cstddef>
#include <cstdint>

#include "speed/speed_pixel.h"

namespace vmafexact::cuda::speed::tile {

using vmafexact::speed::ScaleMethod;
namespace pixel = vmafexact::speed::pixel;

inline constexpr unsigned kBlockSide = 5;
inline constexpr unsigned kPositions = kBlockSide * kBlockSide;
inline constexpr unsigned kCovarianceEntries = kPositions * (kPositions + 1) / 2;  // 325
inline constexpr unsigned kSampleThreads = 128;  // threads per block of steps 1 and 2
inline constexpr unsigned kStatsThreads = 352;   // 11 warps: the 325 entries (and 25 means)

// A plane of samples (8 bits, or 16-bit containers) with its byte stride.
struct SourcePlane {
  const std::uint8_t* data = nullptr;
  std::ptrdiff_t stride = 0;
  unsigned bpc = 8;
};

// The tables of one picture size and set of options (SpeedKernel's own,
// uploaded as they are): pointers to device memory in the kernels, to host
// memory in the emulation.
struct Tables {
  unsigned low_width = 0, low_height = 0;
  unsigned region_width = 0, region_height = 0;
  const float* antialias = nullptr;
  unsigned antialias_taps = 0;
  const int* antialias_rows = nullptr;     // low_height * taps: scaled rows
  const int* antialias_columns = nullptr;  // low_width * taps: scaled columns
  ScaleMethod method = ScaleMethod::kNearest;
  // The prescale tables are the identity (no prescale, or one that keeps the
  // size): scaled samples are the source's, read without the tables.
  bool direct = false;
  unsigned scale_taps = 1;
  const int* source_rows = nullptr;  // scaled_height * scale_taps
  const float* row_weights = nullptr;
  const int* source_columns = nullptr;  // scaled_width * scale_taps
  const float* column_weights = nullptr;
  const float* local_mean = nullptr;
  unsigned local_mean_taps = 0;
  const int* local_mean_rows = nullptr;     // low_height * taps
  const int* local_mean_columns = nullptr;  // low_width * taps
};

// picture_copy's float of the sample at (y, x).
VMAFEXACT_HD inline float source_sample(const SourcePlane& plane, int y, int x) {
  const std::uint8_t* row = plane.data + static_cast<std::ptrdiff_t>(y) * plane.stride;
  if (plane.bpc == 8) return float_pixel::sample_to_float(row[x], pixel::kSampleOffset);
  return float_pixel::sample_to_float(reinterpret_cast<const std::uint16_t*>(row)[x],
                                      float_pixel::sample_scaler(plane.bpc), pixel::kSampleOffset);
}

// Whether prescale tables are the identity (tables.direct).
template <class PrescaleTables>
inline bool identity_tables(const PrescaleTables& tables) {
  if (tables.method != ScaleMethod::kNearest) return false;
  for (std::size_t i = 0; i < tables.rows.size(); ++i)
    if (tables.rows[i] != static_cast<int>(i)) return false;
  for (std::size_t i = 0; i < tables.columns.size(); ++i)
    if (tables.columns[i] != static_cast<int>(i)) return false;
  return true;
}

// The source rows of one output row of the prescaler.
struct SourceTaps {
  const SourcePlane* plane;
  const int* rows;
  VMAFEXACT_HD float operator()(unsigned j, int column) const {
    return source_sample(*plane, rows[j], column);
  }
};

// The scaled picture's sample at (y, x).
VMAFEXACT_HD inline float scaled_sample(const SourcePlane& plane, const Tables& t, int y, int x) {
  if (t.direct) return source_sample(plane, y, x);
  const std::size_t row = static_cast<std::size_t>(y) * t.scale_taps;
  const std::size_t column = static_cast<std::size_t>(x) * t.scale_taps;
  const SourceTaps taps{&plane, t.source_rows + row};
  return pixel::prescaled_sample(t.method, taps, t.source_columns + column,
                                 t.column_weights + column, t.row_weights + row);
}

// Step 1: the antialiased, decimated sample (i, j).
VMAFEXACT_HD inline float low_sample(const SourcePlane& plane, const Tables& t, unsigned i,
                                     unsigned j) {
  const int* rows = t.antialias_rows + std::size_t{i} * t.antialias_taps;
  const int* columns = t.antialias_columns + std::size_t{j} * t.antialias_taps;
  float sum = 0;
  for (unsigned kx = 0; kx < t.antialias_taps; ++kx) {
    float vertical = 0;
    for (unsigned ky = 0; ky < t.antialias_taps; ++ky)
      vertical += t.antialias[ky] * scaled_sample(plane, t, rows[ky], columns[kx]);
    sum += t.antialias[kx] * vertical;
  }
  return sum;
}

// Step 2: the decimated sample (i, j) less its local mean.
VMAFEXACT_HD inline float centered_sample(const float* low, const Tables& t, unsigned i,
                                          unsigned j) {
  const int* rows = t.local_mean_rows + std::size_t{i} * t.local_mean_taps;
  const int* columns = t.local_mean_columns + std::size_t{j} * t.local_mean_taps;
  float mean = 0;
  for (unsigned kx = 0; kx < t.local_mean_taps; ++kx) {
    float vertical = 0;
    for (unsigned ky = 0; ky < t.local_mean_taps; ++ky)
      vertical += t.local_mean[ky] *
                  low[static_cast<std::size_t>(rows[ky]) * t.low_width + static_cast<std::size_t>(columns[kx])];
    mean += t.local_mean[kx] * vertical;
  }
  return low[std::size_t{i} * t.low_width + j] - mean;
}

// Samples loaded ahead of a serial chain: the loads of a batch do not wait for
// the additions, which stay one chain in the CPU's order.
inline constexpr unsigned kBatch = 8;

// Step 3: the mean of position s (row-major in the 5x5 block) over the region.
VMAFEXACT_HD inline float position_mean(const float* centered, const Tables& t, unsigned s) {
  const float* origin = centered + std::size_t{s / kBlockSide} * t.low_width + s % kBlockSide;
  float sum = 0;
  for (unsigned i = 0; i < t.region_height; ++i) {
    const float* row = origin + std::size_t{i} * t.low_width;
    unsigned j = 0;
    for (; j + kBatch <= t.region_width; j += kBatch) {
      float batch[kBatch];
      for (unsigned k = 0; k < kBatch; ++k) batch[k] = row[j + k];
      for (unsigned k = 0; k < kBatch; ++k) sum += batch[k];
    }
    for (; j < t.region_width; ++j) sum += row[j];
  }
  return sum / static_cast<float>(std::size_t{t.region_width} * t.region_height);
}

// The covariance entry of every pair y <= x, indexed 0 .. 324 row by row.
VMAFEXACT_HD inline void covariance_pair(unsigned entry, unsigned& x, unsigned& y) {
  x = 0;
  while ((x + 1) * (x + 2) / 2 <= entry) ++x;
  y = entry - x * (x + 1) / 2;
}

// Step 3: the double sum of the centered products of positions x and y.
VMAFEXACT_HD inline double covariance_sum(const float* centered, const Tables& t,
                                          const double* means, unsigned x, unsigned y) {
  const float* a = centered + std::size_t{x / kBlockSide} * t.low_width + x % kBlockSide;
  const float* b = centered + std::size_t{y / kBlockSide} * t.low_width + y % kBlockSide;
  const double mean_a = means[x], mean_b = means[y];
  double sum = 0;
  for (unsigned i = 0; i < t.region_height; ++i) {
    const float* row_a = a + std::size_t{i} * t.low_width;
    const float* row_b = b + std::size_t{i} * t.low_width;
    unsigned j = 0;
    for (; j + kBatch <= t.region_width; j += kBatch) {
      double products[kBatch];
      for (unsigned k = 0; k < kBatch; ++k)
        products[k] = (static_cast<double>(row_a[j + k]) - mean_a) *
                      (static_cast<double>(row_b[j + k]) - mean_b);
      for (unsigned k = 0; k < kBatch; ++k) sum += products[k];
    }
    for (; j < t.region_width; ++j)
      sum += (static_cast<double>(row_a[j]) - mean_a) * (static_cast<double>(row_b[j]) - mean_b);
  }
  return sum;
}

// The covariance as the CPU rounds it: the sum over the count, to float.
VMAFEXACT_HD inline float covariance_value(double sum, const Tables& t) {
  return static_cast<float>(sum / static_cast<double>(std::size_t{t.region_width} * t.region_height));
}

}  // namespace vmafexact::cuda::speed::tile
