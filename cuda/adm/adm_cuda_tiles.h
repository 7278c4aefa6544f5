// The CUDA twin's decomposition of integer ADM into blocks, written as
// __host__ __device__ functions so that the kernels (adm_cuda.cu) and a host
// emulation (tests/cuda/test_cuda_adm.cpp, run without a GPU) execute the same
// code per block phase. Every value is computed by the CPU path's own
// per-pixel functions (metrics/adm/adm_pixel.h).
//
// Per DWT level, one kernel (both pictures, blockIdx.z): a block owns a tile
// of kDwtTileW x kDwtTileH outputs; phase 1 computes the vertical pass of the
// tile's 2*kDwtTileW+2 input columns per output row into shared memory, phase
// 2 the horizontal pass per output (the four bands).
//
// Per scale, one fused scoring kernel: a block owns a kScoreTileW x
// kScoreTileH tile of the scored region; phase 1 decouples the tile and a
// one-sample halo (mirrored as the CPU's masking stage mirrors) into shared
// memory, with, per sample, the uint32 sum over the three orientations of the
// 1/30 masking shares of the CSF image of the additive (DLM) and of the
// restored (AIM) part; phase 2 computes, per scored sample, the reference cube
// term and the DLM and AIM masked cube terms. Each warp owns one tile row, adds
// its 32 samples' terms and adds them to that row's exact 64-bit accumulator
// (integer adds: exact in any order). A last kernel applies the CPU's per-row
// rounded shift to every row's sum and adds the rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "adm/adm_pixel.h"

namespace vmafexact::cuda::adm {

namespace px = vmafexact::adm::pixel;

// ---------------------------------------------------------------------------
// DWT

constexpr int kDwtTileW = 32;  // outputs per block row (= blockDim.x)
constexpr int kDwtTileH = 8;   // output rows per block (= blockDim.y)
constexpr int kDwtThreads = kDwtTileW * kDwtTileH;
constexpr int kDwtCols = 2 * kDwtTileW + 2;  // vertical results per output row

struct DwtSmem {
  std::int32_t lo[kDwtTileH][kDwtCols];
  std::int32_t hi[kDwtTileH][kDwtCols];
};

// Where one DWT reads and writes. Source samples: Sample (uint8/uint16 picture
// samples at scale 0, int16/int32 approximation band above), `pitch` bytes per
// row. Outputs: 4 bands a, h, v, d of out_w x out_h, pitch out_w: int16 at
// scale 0 (the picture's DWT), int32 at scales 1..3.
template <typename Sample, typename Band>
struct DwtArgs {
  const std::uint8_t* src;
  std::ptrdiff_t pitch;
  int w, h;  // input size
  int out_w, out_h;
  Band* band[4];  // a, h, v, d
  bool lowpass_only;
};

// Phase 1, one vertical result: output row `oi`, raw input column `c_raw`
// (2 * tile_j - 1 + c). Scale 0 (int16 bands) shifts by bpc; scales 1..3 by scale.
template <typename Sample, typename Band>
VMAFEXACT_HD inline void dwt_phase1(const DwtArgs<Sample, Band>& a, const px::Db2Taps& f, int scale,
                                    unsigned bpc, int tile_i, int tile_j, int r, int c,
                                    DwtSmem& sm) {
  const int oi = tile_i + r;
  const int c_raw = 2 * tile_j - 1 + c;
  // Only the columns a valid output of this tile reads (2j-1 .. 2j+2, j < out_w).
  if (oi >= a.out_h || c_raw > 2 * a.out_w) return;
  const int col = px::dwt_tap_index(c_raw, a.w);
  std::int32_t s[4];
  for (int k = 0; k < 4; ++k) {
    const int row = px::dwt_tap_index(2 * oi - 1 + k, a.h);
    s[k] = reinterpret_cast<const Sample*>(a.src + static_cast<std::ptrdiff_t>(row) * a.pitch)[col];
  }
  if constexpr (std::is_same_v<Band, std::int16_t>)  // scale 0
    px::dwt0_vertical(f, s, bpc, sm.lo[r][c], sm.hi[r][c]);
  else
    px::dwtn_vertical(f, s, scale, sm.lo[r][c], sm.hi[r][c]);
}

// Phase 2, one output (tile row r, tile column q).
template <typename Sample, typename Band>
VMAFEXACT_HD inline void dwt_phase2(const DwtArgs<Sample, Band>& a, const px::Db2Taps& f, int scale,
                                    int tile_i, int tile_j, int r, int q, const DwtSmem& sm) {
  const int oi = tile_i + r, oj = tile_j + q;
  if (oi >= a.out_h || oj >= a.out_w) return;
  const std::int32_t lo[4] = {sm.lo[r][2 * q], sm.lo[r][2 * q + 1], sm.lo[r][2 * q + 2],
                              sm.lo[r][2 * q + 3]};
  const std::size_t at = static_cast<std::size_t>(oi) * a.out_w + oj;
  if constexpr (std::is_same_v<Band, std::int16_t>) {  // scale 0
    a.band[0][at] = px::dwt0_horizontal_one(f.lo, lo);
    if (a.lowpass_only) return;
    const std::int32_t hi[4] = {sm.hi[r][2 * q], sm.hi[r][2 * q + 1], sm.hi[r][2 * q + 2],
                                sm.hi[r][2 * q + 3]};
    a.band[1][at] = px::dwt0_horizontal_one(f.lo, hi);  // h
    a.band[2][at] = px::dwt0_horizontal_one(f.hi, lo);  // v
    a.band[3][at] = px::dwt0_horizontal_one(f.hi, hi);  // d
  } else {
    const std::int32_t hi[4] = {sm.hi[r][2 * q], sm.hi[r][2 * q + 1], sm.hi[r][2 * q + 2],
                                sm.hi[r][2 * q + 3]};
    a.band[0][at] = px::dwtn_horizontal_one(f.lo, lo, scale);
    a.band[1][at] = px::dwtn_horizontal_one(f.lo, hi, scale);
    a.band[2][at] = px::dwtn_horizontal_one(f.hi, lo, scale);
    a.band[3][at] = px::dwtn_horizontal_one(f.hi, hi, scale);
  }
}

// ---------------------------------------------------------------------------
// Scoring

constexpr int kScoreTileW = 32;                 // = blockDim.x (one warp per tile row)
constexpr int kScoreWarps = 8;                  // = blockDim.y
constexpr int kScoreTileH = 32;                 // rows per tile
constexpr int kScoreRowsPerWarp = kScoreTileH / kScoreWarps;
constexpr int kScoreThreads = kScoreTileW * kScoreWarps;
constexpr int kHaloW = kScoreTileW + 2, kHaloH = kScoreTileH + 2;
constexpr int kHalo = kHaloW * kHaloH;

struct ScoreSmem {
  std::int32_t restored[3][kHalo];
  std::int32_t additive[3][kHalo];
  std::uint32_t share_additive[kHalo];  // masking shares for DLM, summed over h, v, d
  std::uint32_t share_restored[kHalo];  // masking shares for AIM
};

// The geometry of one scale as the kernels need it (vmafexact::adm::ScaleGeometry).
struct TileGeometry {
  int w, h, left, top, right, bottom;
  std::uint32_t den_cube_shift, den_row_shift, num_row_shift;
  std::uint32_t num_cube_shift[3];
};

// Row accumulators of one scale: [quantity (den, num, aim)][theta][row].
constexpr int kQuantities = 3;

template <class Arith>
struct ScoreArgs {
  using Band = typename Arith::Band;
  const Band* ref[3];   // h, v, d bands, pitch g.w
  const Band* dist[3];
  TileGeometry g;
  Arith arith;
  double egl;
  float cos_sq;
  const std::int32_t* div;  // division table (65537 entries)
  bool skip_aim;
  unsigned long long* acc;  // this scale's row accumulators
  int acc_rows;             // rows per (quantity, theta)
};

// Phase 1, one halo sample (hy, hx in [0, kHaloH) x [0, kHaloW)).
template <class Arith>
VMAFEXACT_HD inline void score_phase1(const ScoreArgs<Arith>& a, int tile_top, int tile_left, int hy,
                                      int hx, ScoreSmem& sm) {
  using Band = typename Arith::Band;
  const int gi = tile_top - 1 + hy, gj = tile_left - 1 + hx;
  // Rows/columns past the region's first outside one are never read.
  if (gi > a.g.bottom || gj > a.g.right) return;
  const int mi = px::mask_neighbour_index(gi, a.g.h), mj = px::mask_neighbour_index(gj, a.g.w);
  const std::size_t at = static_cast<std::size_t>(mi) * a.g.w + mj;
  Band o[3], t[3];
  for (int theta = 0; theta < 3; ++theta) {
    o[theta] = a.ref[theta][at];
    t[theta] = a.dist[theta][at];
  }
  const bool angle = px::within_one_degree(o[0], o[1], t[0], t[1], a.cos_sq);
  const int s = hy * kHaloW + hx;
  std::uint32_t share_a = 0, share_r = 0;
  for (int theta = 0; theta < 3; ++theta) {
    const Band rst = Arith::restore(o[theta], t[theta], angle, a.egl, a.div);
    const Band add = Arith::subtract(t[theta], rst);
    sm.restored[theta][s] = rst;
    sm.additive[theta][s] = add;
    share_a += static_cast<std::uint32_t>(Arith::csf_share(a.arith.csf(add, theta)));
    share_r += static_cast<std::uint32_t>(Arith::csf_share(a.arith.csf(rst, theta)));
  }
  sm.share_additive[s] = share_a;
  sm.share_restored[s] = share_r;
}

struct PixelTerms {
  unsigned long long v[kQuantities][3];  // den (uint64), num and aim (int64 bits)
};

// Phase 2, one scored sample at tile position (y, x): its three terms per
// orientation (zeros outside the region).
template <class Arith>
VMAFEXACT_HD inline PixelTerms score_phase2(const ScoreArgs<Arith>& a, int tile_top, int tile_left,
                                            int y, int x, const ScoreSmem& sm) {
  using Band = typename Arith::Band;
  PixelTerms out{};
  const int i = tile_top + y, j = tile_left + x;
  if (i >= a.g.bottom || j >= a.g.right) return out;
  const std::size_t at = static_cast<std::size_t>(i) * a.g.w + j;
  for (int theta = 0; theta < 3; ++theta)
    out.v[0][theta] = a.arith.den_cube(a.ref[theta][at], a.g.den_cube_shift);
  const int c = (y + 1) * kHaloW + (x + 1);
  // The 8 neighbours' shares (all orientations), then the centre's 1/15 shares.
  std::uint32_t thr_dlm = 0, thr_aim = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dy == 0 && dx == 0) continue;
      thr_dlm += sm.share_additive[c + dy * kHaloW + dx];
      thr_aim += sm.share_restored[c + dy * kHaloW + dx];
    }
  Band rst[3], add[3];
  for (int theta = 0; theta < 3; ++theta) {
    rst[theta] = static_cast<Band>(sm.restored[theta][c]);
    add[theta] = static_cast<Band>(sm.additive[theta][c]);
    thr_dlm += static_cast<std::uint32_t>(Arith::centre_share(a.arith.csf(add[theta], theta)));
    thr_aim += static_cast<std::uint32_t>(Arith::centre_share(a.arith.csf(rst[theta], theta)));
  }
  for (int theta = 0; theta < 3; ++theta) {
    out.v[1][theta] = static_cast<unsigned long long>(
        px::masked_cube(a.arith, rst[theta], theta, thr_dlm, a.g.num_cube_shift[theta]));
    if (!a.skip_aim)
      out.v[2][theta] = static_cast<unsigned long long>(
          px::masked_cube(a.arith, add[theta], theta, thr_aim, a.g.num_cube_shift[theta]));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Rows to sums: the CPU's per-row rounded shift of each row's exact sum, the
// rows added (den in uint64, num and aim in int64).
VMAFEXACT_HD inline unsigned long long row_term(int quantity, unsigned long long row_sum,
                                                const TileGeometry& g) {
  if (quantity == 0) {
    const std::uint64_t round = g.den_row_shift == 0 ? 0 : (std::uint64_t{1} << (g.den_row_shift - 1));
    return (static_cast<std::uint64_t>(row_sum) + round) >> g.den_row_shift;
  }
  const std::int64_t round = px::round_offset(g.num_row_shift);
  return static_cast<unsigned long long>((static_cast<std::int64_t>(row_sum) + round) >>
                                         g.num_row_shift);
}

}  // namespace vmafexact::cuda::adm
