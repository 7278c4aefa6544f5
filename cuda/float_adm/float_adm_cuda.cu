#include "common/cuda_util.h"
#include "common/launch.h"
#include "float_adm/float_adm_cuda.h"

namespace vmafexact::cuda::float_adm {

namespace {

__device__ int thread_x() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }
__device__ int thread_y() { return static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); }

__global__ void dwt_vertical_kernel(const float* source, std::ptrdiff_t stride, int w, int h,
                                    bool lo_only, float* lo, float* hi) {
  const int j = thread_x(), i = thread_y();
  if (j >= w || i >= (h + 1) / 2) return;
  const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(i) * w + j;
  float l = 0, r = 0;
  tile::dwt_vertical(source, stride, h, i, j, lo_only, l, r);
  lo[at] = l;
  if (!lo_only) hi[at] = r;
}

__global__ void dwt_horizontal_kernel(const float* lo, const float* hi, int w, int h, bool lo_only,
                                      float* arena, ArenaLayout layout, int dst_first) {
  const int j = thread_x(), i = thread_y();
  if (j >= (w + 1) / 2 || i >= (h + 1) / 2) return;
  const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(i) * w;
  float out[4];
  tile::dwt_horizontal(lo + row, hi + row, w, j, lo_only, out);
  for (int band = 0; band < (lo_only ? 1 : 4); ++band)
    arena[layout.at(dst_first + band, i, j)] = out[band];
}

__global__ void decouple_kernel(float* arena, ArenaLayout layout, pixel::Region region, double gain,
                                float cos_1deg_sq, const std::uint32_t* rcp_table) {
  const int j = region.left + thread_x(), i = region.top + thread_y();
  if (j >= region.right || i >= region.bottom) return;
  tile::decouple(arena, layout, i, j, gain, cos_1deg_sq, rcp_table);
}

__global__ void den_rows_kernel(const float* arena, ArenaLayout layout, pixel::Region region,
                                Factors factors, double p_norm, float* row_sums) {
  const int rows = region.bottom - region.top;
  const int v = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (v >= rows) return;
  float inner[3];
  tile::den_row(arena, layout, region.top + v, region.left, region.right, factors, p_norm, inner);
  for (int theta = 0; theta < 3; ++theta) row_sums[theta * rows + v] = inner[theta];
}

__global__ void csf_kernel(float* arena, ArenaLayout layout, int src_first, int dst_first,
                           int flt_first, pixel::Region region, Factors factors) {
  const int j = region.left + thread_x(), i = region.top + thread_y();
  const int theta = static_cast<int>(blockIdx.z);
  if (j >= region.right || i >= region.bottom) return;
  pixel::csf(arena[layout.at(src_first + theta, i, j)], factors.f[theta],
             arena[layout.at(dst_first + theta, i, j)], arena[layout.at(flt_first + theta, i, j)]);
}

__global__ void cm_terms_kernel(const float* arena, ArenaLayout layout, pixel::CmBands bands,
                                pixel::CmAxis rows, pixel::CmAxis columns, Factors factors,
                                bool masking, double p_norm, float* terms) {
  const int u = thread_x(), v = thread_y();
  const int row_count = rows.count(), column_count = columns.count();
  if (u >= column_count || v >= row_count) return;
  float out[3];
  tile::cm_terms_at(arena, layout, bands, rows, columns, v, u, factors, masking, p_norm, out);
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(row_count) * column_count;
  for (int theta = 0; theta < 3; ++theta)
    terms[theta * plane + static_cast<std::ptrdiff_t>(v) * column_count + u] = out[theta];
}

__global__ void cm_rows_kernel(const float* terms, int row_count, int column_count,
                               float* row_sums) {
  const int v = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (v >= row_count) return;
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(row_count) * column_count;
  for (int theta = 0; theta < 3; ++theta)
    row_sums[theta * row_count + v] = tile::serial_sum(
        terms + theta * plane + static_cast<std::ptrdiff_t>(v) * column_count, column_count);
}

}  // namespace

void enqueue_dwt(const float* source, std::ptrdiff_t stride, int w, int h, bool lo_only, float* lo,
                 float* hi, float* arena, const ArenaLayout& layout, int dst_first,
                 cudaStream_t stream) {
  const int out_rows = (h + 1) / 2;
  dwt_vertical_kernel<<<grid_2d(w, out_rows), block_2d(), 0, stream>>>(source, stride, w, h,
                                                                       lo_only, lo, hi);
  check(cudaGetLastError(), "float_adm DWT vertical kernel launch");
  dwt_horizontal_kernel<<<grid_2d((w + 1) / 2, out_rows), block_2d(), 0, stream>>>(
      lo, hi, w, h, lo_only, arena, layout, dst_first);
  check(cudaGetLastError(), "float_adm DWT horizontal kernel launch");
}

void enqueue_decouple(float* arena, const ArenaLayout& layout, const pixel::Region& region,
                      double gain, float cos_1deg_sq, const std::uint32_t* rcp_table,
                      cudaStream_t stream) {
  const int w = region.right - region.left, h = region.bottom - region.top;
  if (w <= 0 || h <= 0) return;
  decouple_kernel<<<grid_2d(w, h), block_2d(), 0, stream>>>(arena, layout, region, gain,
                                                            cos_1deg_sq, rcp_table);
  check(cudaGetLastError(), "float_adm decouple kernel launch");
}

void enqueue_den_rows(const float* arena, const ArenaLayout& layout, const pixel::Region& region,
                      const Factors& factors, double p_norm, float* row_sums, cudaStream_t stream) {
  const int rows = region.bottom - region.top;
  if (rows <= 0) return;
  den_rows_kernel<<<row_blocks(rows), kRowBlock, 0, stream>>>(arena, layout, region, factors,
                                                              p_norm, row_sums);
  check(cudaGetLastError(), "float_adm den kernel launch");
}

void enqueue_csf(float* arena, const ArenaLayout& layout, int src_first, int dst_first,
                 int flt_first, const pixel::Region& region, const Factors& factors,
                 cudaStream_t stream) {
  const int w = region.right - region.left, h = region.bottom - region.top;
  if (w <= 0 || h <= 0) return;
  csf_kernel<<<grid_2d(w, h, 3), block_2d(), 0, stream>>>(arena, layout, src_first, dst_first,
                                                          flt_first, region, factors);
  check(cudaGetLastError(), "float_adm CSF kernel launch");
}

void enqueue_cm_rows(const float* arena, const ArenaLayout& layout, const pixel::CmBands& bands,
                     const pixel::CmAxis& rows, const pixel::CmAxis& columns,
                     const Factors& factors, bool masking, double p_norm, float* terms,
                     float* row_sums, cudaStream_t stream) {
  const int row_count = rows.count(), column_count = columns.count();
  if (row_count <= 0) return;
  if (column_count > 0) {
    cm_terms_kernel<<<grid_2d(column_count, row_count), block_2d(), 0, stream>>>(
        arena, layout, bands, rows, columns, factors, masking, p_norm, terms);
    check(cudaGetLastError(), "float_adm masking terms kernel launch");
  }
  cm_rows_kernel<<<row_blocks(row_count), kRowBlock, 0, stream>>>(terms, row_count, column_count,
                                                                  row_sums);
  check(cudaGetLastError(), "float_adm masking rows kernel launch");
}

}  // namespace vmafexact::cuda::float_adm
