// The per-thread pieces of the float_adm kernels (float_adm_cuda.cu), as
// __host__ __device__ functions, so that the host emulation
// (tests/harness/check_float_adm_cuda.cpp) runs the kernels' own code without
// a GPU. The arithmetic is the CPU's (metrics/float_adm/float_adm_pixel.h).
//
// The device holds libvmaf's data_buf as the CPU stage does (ArenaLayout: 20
// band buffers laid out for the first level), and every pass writes what the
// CPU's writes, in the CPU's order: so that at the small sizes where
// libvmaf's reads reach outside a level's bands, they find the same values
// (float_adm.h). Per level, one thread per output of each pass:
//  - DWT, vertical: output row i's low- and high-pass of column j (the four
//    source rows 2i-1..2i+2 mirrored), into two scratch planes; then
//    horizontal: band a, h, v, d of output (i, j) from those rows. Two passes
//    where the CPU interleaves them row by row: each output row reads source
//    rows from its own index on, so reading every row before writing any
//    gives the CPU's values. The reference's DWT runs before the distorted's.
//  - decouple: the restored and additive h, v, d of (i, j);
//  - CSF: dst and |dst| / 30 of (theta, i, j);
//  - masking terms: the three terms of each (row, column) adm_cm_s() visits;
//  - sums: one thread per row, the row's den terms, or its masking terms,
//    added in column order.
// The rows' sums come home; the host adds them in row order and finishes
// each level with the CPU's finish_p_norms().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "float_adm/float_adm.h"
#include "float_adm/float_adm_pixel.h"

namespace vmafexact::cuda::float_adm::tile {

namespace pixel = vmafexact::float_adm::pixel;
using vmafexact::float_adm::ArenaLayout;

inline constexpr int kSampleOffset = -128;  // picture_copy()'s offset for float_adm

// A level's CSF weights (h, v, d), by value into kernels.
struct Factors {
  float f[3];
};

// The vertical DWT pass at output row i, column j of an h-row source whose
// rows are `stride` floats apart (the picture, or a band buffer of the
// arena): the low-pass, and unless lo_only the high-pass.
VMAFEXACT_HD inline void dwt_vertical(const float* source, std::ptrdiff_t stride, int h, int i,
                                      int j, bool lo_only, float& lo, float& hi) {
  float s[4];
  for (int k = 0; k < 4; ++k)
    s[k] = source[static_cast<std::ptrdiff_t>(pixel::dwt_source_index(i, k, h)) * stride + j];
  lo = pixel::taps4(false, s[0], s[1], s[2], s[3]);
  if (!lo_only) hi = pixel::taps4(true, s[0], s[1], s[2], s[3]);
}

// The horizontal DWT pass at output column j of a w-column row pair: bands
// a, h, v, d (out[0..3]; a alone with lo_only).
VMAFEXACT_HD inline void dwt_horizontal(const float* lo, const float* hi, int w, int j,
                                        bool lo_only, float (&out)[4]) {
  int c[4];
  for (int k = 0; k < 4; ++k) c[k] = pixel::dwt_source_index(j, k, w);
  out[0] = pixel::taps4(false, lo[c[0]], lo[c[1]], lo[c[2]], lo[c[3]]);  // a
  if (lo_only) return;
  out[2] = pixel::taps4(true, lo[c[0]], lo[c[1]], lo[c[2]], lo[c[3]]);   // v
  out[1] = pixel::taps4(false, hi[c[0]], hi[c[1]], hi[c[2]], hi[c[3]]);  // h
  out[3] = pixel::taps4(true, hi[c[0]], hi[c[1]], hi[c[2]], hi[c[3]]);   // d
}

// The decoupling of sample (i, j) in the arena, DIVS with the reference's
// reciprocal estimate from its table.
VMAFEXACT_HD inline void decouple(float* arena, const ArenaLayout& layout, int i, int j,
                                  double gain, float cos_1deg_sq, const std::uint32_t* rcp_table) {
  namespace fa = vmafexact::float_adm;
  float o[3], t[3], rst[3], add[3];
  for (int theta = 0; theta < 3; ++theta) {
    o[theta] = arena[layout.at(fa::kRefH + theta, i, j)];
    t[theta] = arena[layout.at(fa::kDisH + theta, i, j)];
  }
  pixel::decouple(
      o, t, gain, cos_1deg_sq,
      [rcp_table](float n, float d) {
        return fa::refined_quotient(n, d, fa::rcp_estimate_from(rcp_table, d));
      },
      rst, add);
  for (int theta = 0; theta < 3; ++theta) {
    arena[layout.at(fa::kDecouplR + theta, i, j)] = rst[theta];
    arena[layout.at(fa::kDecouplA + theta, i, j)] = add[theta];
  }
}

// adm_csf_den_scale_s()'s sums of row i over columns left..right-1 of the
// reference's h, v, d bands.
VMAFEXACT_HD inline void den_row(const float* arena, const ArenaLayout& layout, int i, int left,
                                 int right, const Factors& factors, double p_norm,
                                 float (&inner)[3]) {
  namespace fa = vmafexact::float_adm;
  for (int theta = 0; theta < 3; ++theta) inner[theta] = 0;
  for (int j = left; j < right; ++j) {
    const float value[3] = {arena[layout.at(fa::kRefH, i, j)],
                            arena[layout.at(fa::kRefH + 1, i, j)],
                            arena[layout.at(fa::kRefH + 2, i, j)]};
    pixel::den_terms(value, factors.f, p_norm, inner);
  }
}

// The masking terms of the v-th visited row's u-th visited column.
VMAFEXACT_HD inline void cm_terms_at(const float* arena, const ArenaLayout& layout,
                                     const pixel::CmBands& bands, const pixel::CmAxis& rows,
                                     const pixel::CmAxis& columns, int v, int u,
                                     const Factors& factors, bool masking, double p_norm,
                                     float (&terms)[3]) {
  int i, j;
  pixel::Edge row_edge, column_edge;
  rows.at(v, i, row_edge);
  columns.at(u, j, column_edge);
  pixel::cm_sample_terms([arena](std::ptrdiff_t index) { return arena[index]; }, layout, bands,
                         columns.n, rows.n, i, row_edge, j, column_edge, factors.f, masking, p_norm,
                         terms);
}

// A row of n terms added from 0 in order.
VMAFEXACT_HD inline float serial_sum(const float* terms, int n) {
  float sum = 0;
  for (int k = 0; k < n; ++k) sum += terms[k];
  return sum;
}

// On the host: one level's geometry, its CSF weights and where its rows' sums
// lie in a frame's read-back.
struct Level {
  int width = 0, height = 0;  // of its bands
  bool scored = true;         // false: scale 0 with adm_skip_scale0
  Factors factors{};
  pixel::Region inner{}, taps{};
  pixel::CmAxis rows{}, columns{};
  std::size_t den = 0, num = 0, aim = 0;  // offsets of the rows' sums (3 x rows each)
  int den_rows() const { return inner.bottom > inner.top ? inner.bottom - inner.top : 0; }
};

// The levels of width x height pictures; `row_sums` and `terms` get the floats
// a frame's rows' sums take and the most the masking terms of a level take.
inline std::array<Level, vmafexact::float_adm::kScales> plan_levels(
    unsigned width, unsigned height, const vmafexact::float_adm::FloatAdmParams& params,
    std::size_t& row_sums, std::size_t& terms) {
  namespace fa = vmafexact::float_adm;
  std::array<Level, fa::kScales> levels{};
  row_sums = terms = 0;
  int w = static_cast<int>(width), h = static_cast<int>(height);
  for (int s = 0; s < fa::kScales; ++s) {
    Level& level = levels[static_cast<std::size_t>(s)];
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    level.width = w;
    level.height = h;
    level.scored = !(s == 0 && params.skip_scale0);
    if (!level.scored) continue;
    const auto factors = fa::csf_factors(params, s);
    level.factors = {{factors[0], factors[1], factors[2]}};
    level.inner = pixel::inner_region(w, h);
    level.taps = pixel::tap_region(w, h);
    level.rows = pixel::cm_axis(level.inner.top, level.inner.bottom, h);
    level.columns = pixel::cm_axis(level.inner.left, level.inner.right, w);
    const auto visited = static_cast<std::size_t>(level.rows.count());
    level.den = row_sums;
    row_sums += 3 * static_cast<std::size_t>(level.den_rows());
    level.num = row_sums;
    row_sums += 3 * visited;
    level.aim = row_sums;
    row_sums += 3 * visited;
    const std::size_t level_terms = 3 * visited * static_cast<std::size_t>(level.columns.count());
    if (level_terms > terms) terms = level_terms;
  }
  return levels;
}

// On the host: the sums of `count` rows of h, v and d (one after the other)
// added in row order, finished as the CPU stage finishes a level.
inline float finish_rows(const float* row_sums, int count, const pixel::Region& region,
                         double noise_weight, double p_norm) {
  float accum[3] = {0, 0, 0};
  for (int v = 0; v < count; ++v)
    for (int theta = 0; theta < 3; ++theta) accum[theta] += row_sums[theta * count + v];
  return vmafexact::float_adm::finish_p_norms(accum, region.right - region.left,
                                              region.bottom - region.top, noise_weight, p_norm);
}

// On the host: a frame's sums from its read-back, as the CPU stage returns them.
inline vmafexact::float_adm::FloatAdmSums finish_levels(
    const std::array<Level, vmafexact::float_adm::kScales>& levels, const float* rows,
    const vmafexact::float_adm::FloatAdmParams& params) {
  namespace fa = vmafexact::float_adm;
  fa::FloatAdmSums sums;
  for (std::size_t s = 0; s < levels.size(); ++s) {
    const Level& level = levels[s];
    if (!level.scored) {
      sums.den[s] = fa::kSkippedScaleDen;
      continue;
    }
    sums.den[s] = finish_rows(rows + level.den, level.den_rows(), level.inner, params.noise_weight,
                              params.p_norm);
    sums.num[s] = finish_rows(rows + level.num, level.rows.count(), level.inner,
                              params.noise_weight, params.p_norm);
    sums.aim_num[s] =
        finish_rows(rows + level.aim, level.rows.count(), level.inner, 0.0, params.p_norm);
  }
  return sums;
}

}  // namespace vmafexact::cuda::float_adm::tile
