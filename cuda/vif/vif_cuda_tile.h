// The CUDA twin's decomposition of one VIF scale into tiles, written once as
// __host__ __device__ phases so that the kernel (vif_cuda.cu) and a host
// emulation of it (vif_cuda_emulation.cpp, tested without a GPU) run the same
// code: a block of kThreads threads handles a tile of kTileWidth x kTileHeight
// pixels of the scale, in phases separated by barriers. Each phase is a loop
// `for (i = thread; i < count; i += kThreads)`, so emulating a block means
// running every thread of a phase before the next phase.
//
//   load        the input samples of the tile and its halo (rows and columns
//               through the plan's mirror tables, or directly for a tile
//               inside the picture) into shared memory
//   vertical    the statistic's vertical filter at every column of tile+halo,
//               kRowsPerItem rows per thread, and the next scale's vertical
//               low-pass at even rows
//   horizontal  the statistic's horizontal filter, kColumnsPerItem columns per
//               thread, and libvmaf's per-pixel terms (accumulate_pixel, shared
//               with the CPU); the low-pass's horizontal filter at even
//               columns, written to the next scale
//
// Everything is integer arithmetic with the CPU path's types (metrics/vif/vif.cpp)
// except accumulate_pixel's double gain, which is the CPU's function itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "vif/vif_pixel.h"

// Full unrolling of the filter loops in device code (a hint only).
#if defined(__CUDA_ARCH__)
#define VMAFEXACT_VIF_UNROLL _Pragma("unroll")
#else
#define VMAFEXACT_VIF_UNROLL
#endif

namespace vmafexact::cuda::vif {

inline constexpr int kTileWidth = 64;
inline constexpr int kTileHeight = 16;  // even: decimated rows are the tile's even rows
inline constexpr int kThreads = 256;
// Columns of a scale's last vertical row kept for the next scale (libvmaf's
// stale row-buffer entries when the next scale is one column wide).
inline constexpr int kSavedColumns = 16;
// Row tables cover rows -kPadRows .. height + kPadRows - 1.
inline constexpr int kPadRows = 8;

// Everything one scale's kernel reads and writes. Plain data, passed by value.
struct ScaleParams {
  // Input of the scale: scale 0 the pictures (8- or 16-bit samples), scales 1-3
  // the pyramids of decimated pictures (16-bit). Row r of the input starts at
  // base + r * pitch (bytes).
  const std::uint8_t* ref = nullptr;
  const std::uint8_t* dis = nullptr;
  std::ptrdiff_t ref_pitch = 0;
  std::ptrdiff_t dis_pitch = 0;
  int width = 0;
  int height = 0;
  int first_row = 0;  // input row of the scale's row 0
  // rows[y + kPadRows]: input row read for padded row y (-8 .. height+7);
  // columns[x + half]: column read for padded column x (-half .. width-1+half),
  // or -(1 + c) for saved column c of the previous scale's last vertical row.
  const std::int32_t* rows = nullptr;
  const std::int32_t* columns = nullptr;

  // The statistic (false: scale 0 under vif_skip_scale0).
  bool statistic = true;
  std::uint16_t taps[17] = {};
  std::uint32_t round_mu = 0, shift_mu = 0, round_sq = 0, shift_sq = 0;
  const std::uint16_t* log2_table = nullptr;  // 65536 entries, built by the CPU code
  double enhn_gain_limit = 100.0;
  unsigned long long* sums = nullptr;  // num_log, den_log, num_non_log, den_non_log (int64 bits)
  int save_row = -1;                   // this scale's row whose vertical values are saved
  std::uint32_t* save = nullptr;       // 5 x kSavedColumns: mu1, mu2, xx, yy, xy
  const std::uint32_t* saved = nullptr;  // the previous scale's save

  // The low-pass and decimation into the next scale (false at scale 3).
  bool decimate = false;
  std::uint16_t dec_taps[17] = {};
  std::uint32_t round_dec = 0, shift_dec = 0;
  std::uint16_t* out_ref = nullptr;  // pyramid, out_pitch samples per row
  std::uint16_t* out_dis = nullptr;
  std::ptrdiff_t out_pitch = 0;
  int out_first_row = 0;
};

struct PixelSums {
  long long num_log = 0;
  long long den_log = 0;
  long long num_non_log = 0;
  long long den_non_log = 0;
};

// Shared memory of one block. Half: the statistic filter's half width;
// DecHalf: the low-pass's (0 without decimation).
template <int Half, int DecHalf>
struct TileShared {
  static constexpr int kInWidth = kTileWidth + 2 * Half;
  static constexpr int kInHeight = kTileHeight + 2 * Half;
  // Rows of the vertical sums padded to whole 16-byte groups, so that the
  // horizontal pass reads its windows 4 values at a time from aligned rows.
  static constexpr int kSumsWidth = (kInWidth + 3) / 4 * 4;
  static constexpr int kConvolWidth = kTileWidth + 2 * (DecHalf > 0 ? DecHalf : 1);
  std::uint16_t in_ref[kInHeight][kInWidth];
  std::uint16_t in_dis[kInHeight][kInWidth];
  alignas(16) std::uint32_t mu1[kTileHeight][kSumsWidth];
  alignas(16) std::uint32_t mu2[kTileHeight][kSumsWidth];
  alignas(16) std::uint32_t xx[kTileHeight][kSumsWidth];
  alignas(16) std::uint32_t yy[kTileHeight][kSumsWidth];
  alignas(16) std::uint32_t xy[kTileHeight][kSumsWidth];
  std::uint16_t convol_ref[kTileHeight / 2][kConvolWidth];
  std::uint16_t convol_dis[kTileHeight / 2][kConvolWidth];
};

// Work per thread in the statistic's passes: the vertical pass filters a
// column for kRowsPerItem rows, the horizontal pass a row for kColumnsPerItem
// columns, each input value read once into registers for all the outputs it
// feeds (one read per tap and output made the shared memory the bottleneck).
inline constexpr int kRowsPerItem = 4;
inline constexpr int kColumnsPerItem = 4;
static_assert(kTileHeight % kRowsPerItem == 0 && kTileWidth % kColumnsPerItem == 0);

// values[k] = row[k] for k < N (N a multiple of 4; row 16-byte aligned): 128-bit
// shared loads on the device.
template <int N>
VMAFEXACT_HD inline void load_window(const std::uint32_t* row, std::uint32_t (&values)[N]) {
  static_assert(N % 4 == 0);
#if defined(__CUDA_ARCH__)
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const uint4 group = reinterpret_cast<const uint4*>(row)[q];
    values[4 * q + 0] = group.x;
    values[4 * q + 1] = group.y;
    values[4 * q + 2] = group.z;
    values[4 * q + 3] = group.w;
  }
#else
  for (int k = 0; k < N; ++k) values[k] = row[k];
#endif
}

// The column of the scale read at padded column x: >= 0 a column of the scale,
// < -1 ... see ScaleParams::columns; kNoColumn outside the padded range.
inline constexpr int kNoColumn = -0x40000000;

template <int Half>
VMAFEXACT_HD inline int column_code(const ScaleParams& p, int x) {
  if (x >= 0 && x < p.width) return x;
  if (x >= -Half && x < p.width + Half) return p.columns[x + Half];
  return kNoColumn;
}

// Input row of padded row y, or -1 outside the padded range.
template <int Half>
VMAFEXACT_HD inline int row_of(const ScaleParams& p, int y) {
  if (y >= 0 && y < p.height) return p.first_row + y;
  if (y >= -Half && y < p.height + Half) return p.rows[y + kPadRows];
  return -1;
}

template <typename Sample, int Half, int DecHalf>
struct TilePhases {
  using Shared = TileShared<Half, DecHalf>;
  static constexpr int kWidth = 2 * Half + 1;
  static constexpr int kDecWidth = 2 * DecHalf + 1;
  // The vertical sums of squares and products: 8-bit samples (scale 0 of an
  // 8-bit picture) keep them in 32 bits, where they never wrap (taps sum to
  // 65536, so each sum is at most 65536 * 255 * 255 < 2^32) and so equal the
  // CPU's 64-bit sums, at half the cost of 64-bit multiply-adds; 16-bit
  // samples need 64.
  using SquareSum = std::conditional_t<sizeof(Sample) == 1, std::uint32_t, std::uint64_t>;

  // acc[c] += taps[k] * window[c + k] for every output c and tap k: the
  // statistic's horizontal filter at kColumnsPerItem neighbouring pixels.
  template <typename Acc, int C, int N>
  VMAFEXACT_HD static void filter_row(const ScaleParams& p, const std::uint32_t (&window)[N],
                                      Acc (&acc)[C]) {
VMAFEXACT_VIF_UNROLL
    for (int k = 0; k < kWidth; ++k) {
      const std::uint32_t coeff = p.taps[k];
VMAFEXACT_VIF_UNROLL
      for (int c = 0; c < C; ++c) acc[c] += static_cast<Acc>(coeff) * window[c + k];
    }
  }

  // Phase 1: input samples of tile + halo.
  VMAFEXACT_HD static void load(const ScaleParams& p, Shared& s, int tile_x, int tile_y, int thread) {
    const int x0 = tile_x * kTileWidth - Half, y0 = tile_y * kTileHeight - Half;
    if (x0 >= 0 && x0 + Shared::kInWidth <= p.width && y0 >= 0 && y0 + Shared::kInHeight <= p.height) {
      // Inside the picture (most tiles): row_of and column_code are the
      // identity there, so the rows are addressed directly.
      for (int i = thread; i < Shared::kInHeight * Shared::kInWidth; i += kThreads) {
        const int r = i / Shared::kInWidth, x = i % Shared::kInWidth;
        const std::ptrdiff_t row = p.first_row + y0 + r;
        s.in_ref[r][x] = reinterpret_cast<const Sample*>(p.ref + row * p.ref_pitch)[x0 + x];
        s.in_dis[r][x] = reinterpret_cast<const Sample*>(p.dis + row * p.dis_pitch)[x0 + x];
      }
      return;
    }
    for (int i = thread; i < Shared::kInHeight * Shared::kInWidth; i += kThreads) {
      const int r = i / Shared::kInWidth, x = i % Shared::kInWidth;
      const int row = row_of<Half>(p, y0 + r);
      const int column = column_code<Half>(p, x0 + x);
      std::uint16_t ref = 0, dis = 0;
      if (row >= 0 && column >= 0) {
        ref = reinterpret_cast<const Sample*>(p.ref + row * p.ref_pitch)[column];
        dis = reinterpret_cast<const Sample*>(p.dis + row * p.dis_pitch)[column];
      }
      s.in_ref[r][x] = ref;
      s.in_dis[r][x] = dis;
    }
  }

  // Phase 2: the statistic's vertical pass (libvmaf's rounding and types) at
  // every tile row and halo column, and the low-pass's vertical pass at even
  // tile rows.
  VMAFEXACT_HD static void vertical(const ScaleParams& p, Shared& s, int tile_x, int tile_y,
                                    int thread) {
    const int x0 = tile_x * kTileWidth - Half, y0 = tile_y * kTileHeight;
    if (p.statistic) {
      // Item: one column x, rows r0 .. r0 + kRowsPerItem - 1. Each input
      // sample's products (rv * rv, ...) are formed once for every row it
      // feeds: t * (v * v) equals (t * v) * v, both exact (no wrap in 32 and
      // 64 bits for 16-bit samples and 16-bit taps).
      constexpr int R = kRowsPerItem;
      for (int i = thread; i < kTileHeight / R * Shared::kInWidth; i += kThreads) {
        const int r0 = i / Shared::kInWidth * R, x = i % Shared::kInWidth;
        if (y0 + r0 >= p.height) continue;  // no output row here
        const int column = column_code<Half>(p, x0 + x);
        std::uint32_t mu1[R] = {}, mu2[R] = {}, xx[R] = {}, yy[R] = {}, xy[R] = {};
        if (column >= 0) {
          std::uint32_t acc_mu1[R] = {}, acc_mu2[R] = {};
          SquareSum acc_xx[R] = {}, acc_yy[R] = {}, acc_xy[R] = {};
VMAFEXACT_VIF_UNROLL
          for (int k = 0; k < R + kWidth - 1; ++k) {
            const std::uint32_t rv = s.in_ref[r0 + k][x];
            const std::uint32_t dv = s.in_dis[r0 + k][x];
            const std::uint32_t rr = rv * rv, dd = dv * dv, rd = rv * dv;
VMAFEXACT_VIF_UNROLL
            for (int o = 0; o < R; ++o) {
              const int tap = k - o;
              if (tap < 0 || tap >= kWidth) continue;
              const std::uint32_t coeff = p.taps[tap];
              acc_mu1[o] += coeff * rv;
              acc_mu2[o] += coeff * dv;
              acc_xx[o] += static_cast<SquareSum>(coeff) * rr;
              acc_yy[o] += static_cast<SquareSum>(coeff) * dd;
              acc_xy[o] += static_cast<SquareSum>(coeff) * rd;
            }
          }
VMAFEXACT_VIF_UNROLL
          for (int o = 0; o < R; ++o) {
            mu1[o] = static_cast<std::uint16_t>((acc_mu1[o] + p.round_mu) >> p.shift_mu);
            mu2[o] = static_cast<std::uint16_t>((acc_mu2[o] + p.round_mu) >> p.shift_mu);
            xx[o] = static_cast<std::uint32_t>((acc_xx[o] + p.round_sq) >> p.shift_sq);
            yy[o] = static_cast<std::uint32_t>((acc_yy[o] + p.round_sq) >> p.shift_sq);
            xy[o] = static_cast<std::uint32_t>((acc_xy[o] + p.round_sq) >> p.shift_sq);
            if (y0 + r0 + o == p.save_row && column == x0 + x && column < kSavedColumns) {
              p.save[0 * kSavedColumns + column] = mu1[o];
              p.save[1 * kSavedColumns + column] = mu2[o];
              p.save[2 * kSavedColumns + column] = xx[o];
              p.save[3 * kSavedColumns + column] = yy[o];
              p.save[4 * kSavedColumns + column] = xy[o];
            }
          }
        } else if (column != kNoColumn) {  // libvmaf's stale buffer entry
          const int c = -1 - column;
          for (int o = 0; o < R; ++o) {
            mu1[o] = p.saved[0 * kSavedColumns + c];
            mu2[o] = p.saved[1 * kSavedColumns + c];
            xx[o] = p.saved[2 * kSavedColumns + c];
            yy[o] = p.saved[3 * kSavedColumns + c];
            xy[o] = p.saved[4 * kSavedColumns + c];
          }
        }
VMAFEXACT_VIF_UNROLL
        for (int o = 0; o < R; ++o) {
          s.mu1[r0 + o][x] = mu1[o];
          s.mu2[r0 + o][x] = mu2[o];
          s.xx[r0 + o][x] = xx[o];
          s.yy[r0 + o][x] = yy[o];
          s.xy[r0 + o][x] = xy[o];
        }
      }
    }
    if constexpr (DecHalf > 0) {
      // Convolution rows: the tile's even rows; columns: padded x0 + Half - DecHalf + j.
      constexpr int kCount = kTileHeight / 2 * (kTileWidth + 2 * DecHalf);
      for (int i = thread; i < kCount; i += kThreads) {
        const int rr = i / (kTileWidth + 2 * DecHalf), j = i % (kTileWidth + 2 * DecHalf);
        if (y0 + 2 * rr >= p.height) continue;
        const int x = Half - DecHalf + j;  // column in the input tile
        std::uint32_t acc_ref = 0, acc_dis = 0;
VMAFEXACT_VIF_UNROLL
        for (int k = 0; k < kDecWidth; ++k) {
          acc_ref += p.dec_taps[k] * static_cast<std::uint32_t>(s.in_ref[2 * rr + Half - DecHalf + k][x]);
          acc_dis += p.dec_taps[k] * static_cast<std::uint32_t>(s.in_dis[2 * rr + Half - DecHalf + k][x]);
        }
        s.convol_ref[rr][j] = static_cast<std::uint16_t>((acc_ref + p.round_dec) >> p.shift_dec);
        s.convol_dis[rr][j] = static_cast<std::uint16_t>((acc_dis + p.round_dec) >> p.shift_dec);
      }
    }
  }

  // Phase 3: the statistic's horizontal pass and per-pixel terms into `sums`;
  // the low-pass's horizontal pass at even columns, written to the next scale.
  VMAFEXACT_HD static void horizontal(const ScaleParams& p, Shared& s, int tile_x, int tile_y,
                                      int thread, PixelSums& sums) {
    const int x0 = tile_x * kTileWidth, y0 = tile_y * kTileHeight;
    if (p.statistic) {
      // Item: row r, columns j0 .. j0 + kColumnsPerItem - 1, each of the five
      // sums' window (kWindow values from column j0) read once.
      constexpr int C = kColumnsPerItem;
      constexpr int kWindow = (C + kWidth - 1 + 3) / 4 * 4;
      static_assert(kTileWidth - C + kWindow <= Shared::kSumsWidth);  // the last window fits
      for (int i = thread; i < kTileHeight * (kTileWidth / C); i += kThreads) {
        const int r = i / (kTileWidth / C), j0 = i % (kTileWidth / C) * C;
        if (y0 + r >= p.height || x0 + j0 >= p.width) continue;
        std::uint32_t acc_mu1[C] = {}, acc_mu2[C] = {};
        std::uint64_t acc_xx[C] = {}, acc_yy[C] = {}, acc_xy[C] = {};
        std::uint32_t window[kWindow];
        load_window(&s.mu1[r][j0], window);
        filter_row(p, window, acc_mu1);
        load_window(&s.mu2[r][j0], window);
        filter_row(p, window, acc_mu2);
        load_window(&s.xx[r][j0], window);
        filter_row(p, window, acc_xx);
        load_window(&s.yy[r][j0], window);
        filter_row(p, window, acc_yy);
        load_window(&s.xy[r][j0], window);
        filter_row(p, window, acc_xy);
VMAFEXACT_VIF_UNROLL
        for (int c = 0; c < C; ++c) {
          if (x0 + j0 + c >= p.width) break;
          vmafexact::vif::accumulate_pixel(sums, acc_mu1[c], acc_mu2[c], acc_xx[c], acc_yy[c],
                                           acc_xy[c], p.log2_table, p.enhn_gain_limit);
        }
      }
    }
    if constexpr (DecHalf > 0) {
      const int out_w = p.width / 2, out_h = p.height / 2;
      for (int i = thread; i < kTileHeight / 2 * (kTileWidth / 2); i += kThreads) {
        const int rr = i / (kTileWidth / 2), jj = i % (kTileWidth / 2);
        const int oy = y0 / 2 + rr, ox = x0 / 2 + jj;
        if (oy >= out_h || ox >= out_w) continue;
        std::uint32_t acc_ref = 0, acc_dis = 0;
VMAFEXACT_VIF_UNROLL
        for (int k = 0; k < kDecWidth; ++k) {
          acc_ref += p.dec_taps[k] * static_cast<std::uint32_t>(s.convol_ref[rr][2 * jj + k]);
          acc_dis += p.dec_taps[k] * static_cast<std::uint32_t>(s.convol_dis[rr][2 * jj + k]);
        }
        const std::ptrdiff_t at = (p.out_first_row + oy) * p.out_pitch + ox;
        p.out_ref[at] = static_cast<std::uint16_t>((acc_ref + 32768) >> 16);
        p.out_dis[at] = static_cast<std::uint16_t>((acc_dis + 32768) >> 16);
      }
    }
  }
};

}  // namespace vmafexact::cuda::vif
