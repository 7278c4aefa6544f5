#include "cambi/cambi_cuda.h"

#include <algorithm>

#include "common/cuda_util.h"

namespace vmafexact::cuda::cambi {

namespace {

using namespace tile;

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

template <typename Sample>
__global__ void largest_kernel(const std::uint8_t* data, std::ptrdiff_t stride, unsigned w,
                               unsigned h, unsigned* largest) {
  unsigned best = 0;
  const std::size_t total = std::size_t{w} * h;
  for (std::size_t at = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; at < total;
       at += std::size_t{gridDim.x} * blockDim.x) {
    const auto* row = reinterpret_cast<const Sample*>(data + static_cast<std::ptrdiff_t>(at / w) * stride);
    best = max(best, static_cast<unsigned>(row[at % w]));
  }
  for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(0xffffffffu, best, offset));
  if (threadIdx.x % 32 == 0 && best) atomicMax(largest, best);
}

template <typename Sample>
__global__ void preprocess_kernel(ScaledInput<Sample> in, bool anti_dither, unsigned w, unsigned h,
                                  std::uint16_t* out) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j < w) out[std::size_t{i} * w + j] = working_sample(in, anti_dither, w, h, i, j);
}

__global__ void derivative_kernel(const std::uint16_t* image, unsigned w, unsigned h,
                                  std::uint8_t* derivative) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c < w) derivative[std::size_t{r} * w + c] = derivative_at(image, w, h, r, c);
}

__global__ void mask_kernel(const std::uint8_t* derivative, unsigned w, unsigned h, unsigned index,
                            std::uint8_t* mask) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (c < w) mask[std::size_t{i} * w + c] = mask_at(derivative, w, h, index, i, c);
}

__global__ void scale_kernel(ScaleSource src, const std::uint8_t* src_mask, unsigned w, unsigned h,
                             std::uint16_t* dst, std::uint8_t* dst_mask) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= w) return;
  dst[std::size_t{i} * w + j] = mode_filtered_at(src, w, h, i, j);
  if (src.step == 2) dst_mask[std::size_t{i} * w + j] = src_mask[std::size_t{2 * i} * src.pitch + 2 * j];
}

template <int ND>
__global__ void __launch_bounds__(kTileThreads)
    c_values_kernel(const std::uint16_t* __restrict__ image, const std::uint8_t* __restrict__ mask,
                    int w, int h, int pad, CValueTables tables, float* out) {
  extern __shared__ std::uint16_t codes[];
  const int span_x = static_cast<int>(tile_span(kTileW, pad));
  const int span = span_x * static_cast<int>(tile_span(kTileH, pad));
  const int bx = static_cast<int>(blockIdx.x), by = static_cast<int>(blockIdx.y);
  for (int at = static_cast<int>(threadIdx.x); at < span; at += kTileThreads)
    codes[at] = tile_code(image, mask, w, h, pad, tables.band_base, tables.band_size, bx, by,
                          at % span_x, at / span_x);
  __syncthreads();
  const int tx = static_cast<int>(threadIdx.x) % kTileW;
  const int sy0 = static_cast<int>(threadIdx.x) / kTileW * kStripRows;
  const int x = bx * kTileW + tx, y0 = by * kTileH + sy0;
  if (x >= w || y0 >= h) return;
  const int rows = min(kStripRows, h - y0);
  c_values_strip<ND>(codes, pad, tx, sy0, rows, tables, out + static_cast<std::size_t>(y0) * w + x, w);
}

// --- pooling -------------------------------------------------------------------------

__global__ void pool_reset_kernel(const PoolSegment* segments, std::uint32_t* digit_counts,
                                  PoolRecord* records) {
  const unsigned s = blockIdx.x;
  for (unsigned d = threadIdx.x; d < kDigits; d += blockDim.x) digit_counts[s * kDigits + d] = 0;
  if (threadIdx.x == 0) records[s] = PoolRecord{0, segments[s].k, ~0u, 0, 0, 0};
}

// Counts by digit the values under the record's prefix (blockIdx.y: the
// segment); the first pass also finds the smallest positive value.
__global__ void pool_digits_kernel(const PoolSegment* segments, int pass,
                                   std::uint32_t* digit_counts, PoolRecord* records) {
  __shared__ std::uint32_t counts[kDigits];
  const PoolSegment segment = segments[blockIdx.y];
  PoolRecord* record = records + blockIdx.y;
  for (unsigned d = threadIdx.x; d < kDigits; d += blockDim.x) counts[d] = 0;
  __syncthreads();
  const std::uint32_t mask = prefix_mask(pass), prefix = record->threshold;
  const int shift = digit_shift(pass);
  std::uint32_t smallest = ~0u;
  const auto* bits = reinterpret_cast<const std::uint32_t*>(segment.values);
  for (unsigned at = blockIdx.x * blockDim.x + threadIdx.x; at < segment.n; at += gridDim.x * blockDim.x) {
    const std::uint32_t b = bits[at];
    if ((b & mask) == prefix) atomicAdd(&counts[(b >> shift) & (kDigits - 1)], 1u);
    if (pass == 0 && b != 0) smallest = min(smallest, b);
  }
  if (pass == 0) {
    for (int offset = 16; offset > 0; offset /= 2) smallest = min(smallest, __shfl_down_sync(0xffffffffu, smallest, offset));
    if (threadIdx.x % 32 == 0 && smallest != ~0u) atomicMin(&record->min_positive, smallest);
  }
  __syncthreads();
  for (unsigned d = threadIdx.x; d < kDigits; d += blockDim.x)
    if (counts[d]) atomicAdd(&digit_counts[blockIdx.y * kDigits + d], counts[d]);
}

__global__ void pool_choose_kernel(int pass, std::uint32_t* digit_counts, PoolRecord* records) {
  std::uint32_t* counts = digit_counts + blockIdx.x * kDigits;
  if (threadIdx.x == 0) choose_digit(counts, pass, records[blockIdx.x]);
  __syncthreads();
  for (unsigned d = threadIdx.x; d < kDigits; d += blockDim.x) counts[d] = 0;
}

// The units of the values above the threshold, summed in two 64-bit halves.
__global__ void pool_sum_kernel(const PoolSegment* segments, PoolRecord* records) {
  const PoolSegment segment = segments[blockIdx.y];
  PoolRecord* record = records + blockIdx.y;
  const std::uint32_t threshold = record->threshold;
  const int e = unit_exponent(*record);
  const auto* bits = reinterpret_cast<const std::uint32_t*>(segment.values);
  unsigned long long low = 0, high = 0;
  bool fail = false;
  for (unsigned at = blockIdx.x * blockDim.x + threadIdx.x; at < segment.n; at += gridDim.x * blockDim.x) {
    const std::uint32_t b = bits[at];
    if (b <= threshold) continue;
    std::uint64_t units = 0;
    if (!units_of(b, e, units)) {
      fail = true;
      continue;
    }
    low += units & 0xFFFFFFFFu;
    high += units >> 32;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    low += __shfl_down_sync(0xffffffffu, low, offset);
    high += __shfl_down_sync(0xffffffffu, high, offset);
  }
  fail = __any_sync(0xffffffffu, fail);
  if (threadIdx.x % 32 == 0) {
    if (low) atomicAdd(&record->low, low);
    if (high) atomicAdd(&record->high, high);
    if (fail) atomicExch(&record->fail, 1u);
  }
}

}  // namespace

void enqueue_largest_sample(const PlaneView& luma, unsigned bpc, unsigned* largest,
                            cudaStream_t stream) {
  const unsigned blocks = std::min(blocks_for(std::size_t{luma.width} * luma.height), 1024u);
  if (bpc == 8)
    largest_kernel<std::uint8_t><<<blocks, kThreads, 0, stream>>>(luma.data, luma.stride, luma.width,
                                                                 luma.height, largest);
  else
    largest_kernel<std::uint16_t><<<blocks, kThreads, 0, stream>>>(luma.data, luma.stride,
                                                                  luma.width, luma.height, largest);
  check(cudaGetLastError(), "cambi largest-sample kernel launch");
}

void enqueue_preprocess(const PlaneView& luma, unsigned bpc, const unsigned* map_x,
                        const unsigned* map_y, bool anti_dither, unsigned w, unsigned h,
                        std::uint16_t* out, cudaStream_t stream) {
  const dim3 grid(blocks_for(w), h);
  if (bpc == 8)
    preprocess_kernel<<<grid, kThreads, 0, stream>>>(
        ScaledInput<std::uint8_t>{luma.data, luma.stride, map_x, map_y, bpc}, anti_dither, w, h, out);
  else
    preprocess_kernel<<<grid, kThreads, 0, stream>>>(
        ScaledInput<std::uint16_t>{luma.data, luma.stride, map_x, map_y, bpc}, anti_dither, w, h, out);
  check(cudaGetLastError(), "cambi preprocessing kernel launch");
}

void enqueue_spatial_mask(const std::uint16_t* image, unsigned w, unsigned h, unsigned index,
                          std::uint8_t* derivative, std::uint8_t* mask, cudaStream_t stream) {
  const dim3 grid(blocks_for(w), h);
  derivative_kernel<<<grid, kThreads, 0, stream>>>(image, w, h, derivative);
  mask_kernel<<<grid, kThreads, 0, stream>>>(derivative, w, h, index, mask);
  check(cudaGetLastError(), "cambi mask kernel launch");
}

void enqueue_scale(const std::uint16_t* src, const std::uint8_t* src_mask, unsigned src_w,
                   bool decimate, unsigned w, unsigned h, std::uint16_t* dst,
                   std::uint8_t* dst_mask, cudaStream_t stream) {
  const dim3 grid(blocks_for(w), h);
  scale_kernel<<<grid, kThreads, 0, stream>>>(ScaleSource{src, src_w, decimate ? 2u : 1u}, src_mask,
                                              w, h, dst, dst_mask);
  check(cudaGetLastError(), "cambi scale kernel launch");
}

void enqueue_c_values(const std::uint16_t* image, const std::uint8_t* mask, unsigned w, unsigned h,
                      unsigned window, const CValueTables& tables, float* out, cudaStream_t stream) {
  const int pad = static_cast<int>(window >> 1);
  if (pad > kMaxPad) throw Error("cambi (CUDA): window above the reciprocal table's (cannot happen)");
  const dim3 grid((w + kTileW - 1) / kTileW, (h + kTileH - 1) / kTileH);
  const std::size_t shared = std::size_t{tile_span(kTileW, pad)} * tile_span(kTileH, pad) * sizeof(std::uint16_t);
  const int iw = static_cast<int>(w), ih = static_cast<int>(h);
  switch (tables.num_diffs) {
    case 1: c_values_kernel<1><<<grid, kTileThreads, shared, stream>>>(image, mask, iw, ih, pad, tables, out); break;
    case 2: c_values_kernel<2><<<grid, kTileThreads, shared, stream>>>(image, mask, iw, ih, pad, tables, out); break;
    case 4: c_values_kernel<4><<<grid, kTileThreads, shared, stream>>>(image, mask, iw, ih, pad, tables, out); break;
    case 8: c_values_kernel<8><<<grid, kTileThreads, shared, stream>>>(image, mask, iw, ih, pad, tables, out); break;
    case 16: c_values_kernel<16><<<grid, kTileThreads, shared, stream>>>(image, mask, iw, ih, pad, tables, out); break;
    case 32: c_values_kernel<32><<<grid, kTileThreads, shared, stream>>>(image, mask, iw, ih, pad, tables, out); break;
    default: throw Error("cambi (CUDA): num_diffs not a power of two up to 32 (cannot happen)");
  }
  check(cudaGetLastError(), "cambi c-value kernel launch");
}

void enqueue_pooling(const PoolSegment* segments, unsigned count, unsigned max_n,
                     std::uint32_t* digit_counts, PoolRecord* records, cudaStream_t stream) {
  if (count == 0) return;
  const dim3 grid(std::clamp(blocks_for(max_n) / 8, 1u, 512u), count);
  pool_reset_kernel<<<count, kThreads, 0, stream>>>(segments, digit_counts, records);
  for (int pass = 0; pass < kPasses; ++pass) {
    pool_digits_kernel<<<grid, kThreads, 0, stream>>>(segments, pass, digit_counts, records);
    pool_choose_kernel<<<count, kThreads, 0, stream>>>(pass, digit_counts, records);
  }
  pool_sum_kernel<<<grid, kThreads, 0, stream>>>(segments, records);
  check(cudaGetLastError(), "cambi pooling kernel launch");
}

}  // namespace vmafexact::cuda::cambi
