// The decomposition of CAMBI's kernels (cambi_cuda.cu) and the per-thread
// pieces they are built from, as __host__ __device__ functions, so that the
// host emulation (tests/harness/check_cambi_cuda.cpp) runs the very same code
// in the kernels' order without a GPU. Everything up to the c-values is
// integer (exact by construction); each c-value is the CPU's two rounded float
// operations (metrics/cambi/cambi_c_value.h); the pooling finds the top-k set
// by a radix select on the floats' bits and sums it exactly in fixed point
// when every order of the CPU's double sum gives the same value (see
// exact_topk_sum below and docs/features/cambi.md, "CUDA twin").
#pragma once

#include <cstddef>
#include <cstdint>

#include "cambi/cambi_c_value.h"

#if !defined(__CUDACC__)
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#endif

namespace vmafexact::cuda::cambi::tile {

// --- preprocessing: the 10-bit working picture ------------------------------------

// One input sample to 10 bits: v << 2 at 8 bits, else (v + round) >> shift.
VMAFEXACT_HD inline unsigned to_working(unsigned v, unsigned bpc) {
  if (bpc == 8) return v << 2;
  const unsigned shift = bpc > 10 ? bpc - 10 : 0;
  const unsigned round = shift == 0 ? 0u : 1u << (shift - 1);
  return (v + round) >> shift;
}

// The input plane seen at the pass's size: sample (i, j) is the input's
// (map_y[i], map_x[j]) converted to 10 bits (identity maps when unscaled).
template <typename Sample>
struct ScaledInput {
  const std::uint8_t* data;
  std::ptrdiff_t stride;  // bytes
  const unsigned* map_x;
  const unsigned* map_y;
  unsigned bpc;
  VMAFEXACT_HD unsigned operator()(unsigned i, unsigned j) const {
    const auto* row = reinterpret_cast<const Sample*>(data + static_cast<std::ptrdiff_t>(map_y[i]) * stride);
    return to_working(row[map_x[j]], bpc);
  }
};

// The working sample (i, j) of a w x h pass: the converted sample, with
// anti-dithering the mean of it and its right, lower and lower-right
// neighbours (of those that exist), truncated as libvmaf's shifts do.
template <class Input>
VMAFEXACT_HD inline std::uint16_t working_sample(const Input& in, bool anti_dither, unsigned w,
                                                 unsigned h, unsigned i, unsigned j) {
  const unsigned a = in(i, j);
  if (!anti_dither) return static_cast<std::uint16_t>(a);
  const bool last_column = j + 1 == w, last_row = i + 1 == h;
  unsigned v;
  if (!last_row)
    v = last_column ? (a + in(i + 1, j)) >> 1 : (a + in(i, j + 1) + in(i + 1, j) + in(i + 1, j + 1)) >> 2;
  else
    v = last_column ? a : (a + in(i, j + 1)) >> 1;
  return static_cast<std::uint16_t>(v);
}

// --- the spatial mask -----------------------------------------------------------

// 1 where the sample equals its right neighbour (always in the last column)
// and its lower one (always in the last row).
VMAFEXACT_HD inline std::uint8_t derivative_at(const std::uint16_t* image, unsigned w, unsigned h,
                                               unsigned r, unsigned c) {
  const std::uint16_t* row = image + std::size_t{r} * w;
  const bool right = c + 1 == w || row[c] == row[c + 1];
  const bool below = r + 1 == h || row[c] == row[c + w];
  return static_cast<std::uint8_t>(right && below);
}

// The mask: more than `index` flat samples in the 7x7 window (clipped to the picture).
VMAFEXACT_HD inline std::uint8_t mask_at(const std::uint8_t* derivative, unsigned w, unsigned h,
                                         unsigned index, unsigned i, unsigned c) {
  const int r0 = static_cast<int>(i) - 3 < 0 ? 0 : static_cast<int>(i) - 3;
  const int r1 = i + 3 >= h ? static_cast<int>(h) - 1 : static_cast<int>(i) + 3;
  const int c0 = static_cast<int>(c) - 3 < 0 ? 0 : static_cast<int>(c) - 3;
  const int c1 = c + 3 >= w ? static_cast<int>(w) - 1 : static_cast<int>(c) + 3;
  unsigned sum = 0;
  for (int r = r0; r <= r1; ++r)
    for (int x = c0; x <= c1; ++x) sum += derivative[static_cast<std::size_t>(r) * w + x];
  return static_cast<std::uint8_t>(sum > index);
}

// --- scales: decimation and the 3x3 mode filter ---------------------------------------

// libvmaf's mode3: the value two of a, b, c share, else the smallest.
VMAFEXACT_HD inline std::uint16_t mode3(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  const std::uint16_t ab = a < b ? a : b;
  return ab < c ? ab : c;
}

// A scale's picture before its mode filter: the previous scale's (filtered)
// picture, every other sample of it when decimating (step 2).
struct ScaleSource {
  const std::uint16_t* image;
  unsigned pitch;  // samples per row of `image`
  unsigned step;   // 1 or 2
  VMAFEXACT_HD std::uint16_t operator()(unsigned r, unsigned j) const {
    return image[std::size_t{step * r} * pitch + step * j];
  }
};

// The horizontal mode of row r at column j (the first and last columns kept).
VMAFEXACT_HD inline std::uint16_t mode_horizontal_at(const ScaleSource& src, unsigned w, unsigned r,
                                                     unsigned j) {
  if (j == 0 || j + 1 >= w) return src(r, j);
  return mode3(src(r, j - 1), src(r, j), src(r, j + 1));
}

// The filtered sample (i, j): the vertical mode of three horizontal modes;
// the first and last rows stay as they were (not even filtered horizontally).
VMAFEXACT_HD inline std::uint16_t mode_filtered_at(const ScaleSource& src, unsigned w, unsigned h,
                                                   unsigned i, unsigned j) {
  if (i == 0 || i + 1 >= h) return src(i, j);
  return mode3(mode_horizontal_at(src, w, i - 1, j), mode_horizontal_at(src, w, i, j),
               mode_horizontal_at(src, w, i + 1, j));
}

// --- c-values ---------------------------------------------------------------------------

// One block computes the c-values of a kTileW x kTileH tile of a scale from a
// shared tile of "codes" that reaches `pad` samples beyond it on every side:
// the sample's value where it is masked and inside the histograms' band, else
// kNoCode (as outside the picture), so that counting the window's samples of
// value X is counting codes equal to X, and the clipped window of the CPU is
// the whole shared window. A sample whose own code is kNoCode has c-value 0
// (unmasked, or out of the band, where no diff applies).
// Each thread owns one column of kStripRows consecutive rows of the tile and
// walks down them keeping the counts of its window around the centre's value:
// while the centre keeps its value, the window slides by whole rows (the
// leaving row's codes out, the entering row's in); otherwise it is counted
// afresh. Either way the counts are the window's exact integers, so the
// c-values are the CPU's. Measured on an H200 (VMAF v1's options, synthetic
// banded frames), strips of 8 rows were slower than one row per thread (0.84
// against 0.35 ms per 1080p frame, 2.45 against 1.46 ms at 2160p: 8 times
// fewer threads, and the centre's value changes often), so the kernel runs
// strips of one row; the emulation also walks 8-row strips (the sliding).
inline constexpr int kTileW = 32;
inline constexpr int kStripRows = 1;
inline constexpr int kTileThreads = 256;
inline constexpr int kTileH = kTileThreads / kTileW * kStripRows;
inline constexpr std::uint16_t kNoCode = 0xFFFF;  // far from every value (<= 1024)
// The largest window the reciprocal table allows (65): pad <= 32.
inline constexpr int kMaxPad = 32;

VMAFEXACT_HD inline unsigned tile_span(unsigned tile, int pad) { return tile + 2u * static_cast<unsigned>(pad); }

VMAFEXACT_HD inline std::uint16_t window_code(std::uint16_t value, std::uint8_t mask, int band_base,
                                              int band_size) {
  const int row = int{value} - band_base;
  return mask && row >= 0 && row < band_size ? value : kNoCode;
}

// The code at shared position (sy, sx) of block (bx, by): picture sample
// (by * kTileH - pad + sy, bx * kTileW - pad + sx).
VMAFEXACT_HD inline std::uint16_t tile_code(const std::uint16_t* image, const std::uint8_t* mask,
                                            int w, int h, int pad, int band_base, int band_size,
                                            int bx, int by, int sx, int sy) {
  const int y = by * kTileH - pad + sy, x = bx * kTileW - pad + sx;
  if (y < 0 || y >= h || x < 0 || x >= w) return kNoCode;
  const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + x;
  return window_code(image[at], mask[at], band_base, band_size);
}

// The contrast tables as the kernel reads them (cambi.h's ContrastTables).
struct CValueTables {
  const std::uint8_t* first_diff;  // by sample value, 0 .. 1024
  const std::int32_t* weights;     // by diff index
  const float* reciprocal;
  int num_diffs;
  int band_base;
  int band_size;
};

// The counts of the values v - ND .. v + ND in a window, slot ND + k for v + k.
// Up to 9 slots: 13-bit fields packed in registers (a window holds at most
// 65 * 65 = 4225 < 2^13 samples, and no field goes below 0: only samples
// counted before leave).
template <int ND, bool Packed = (ND <= 4)>
struct WindowCounts;

template <int ND>
struct WindowCounts<ND, true> {
  std::uint64_t low = 0, high = 0;  // slots 0..3, 4..7
  std::uint32_t last = 0;           // slot 8
  VMAFEXACT_HD void add(int slot, int sign) {
    const std::uint64_t one = std::uint64_t{1} << (13 * (slot & 3));
    if (slot < 4)
      low += sign > 0 ? one : 0 - one;
    else if (slot < 8)
      high += sign > 0 ? one : 0 - one;
    else
      last += static_cast<std::uint32_t>(sign);
  }
  VMAFEXACT_HD int at(int slot) const {
    if (slot < 4) return static_cast<int>((low >> (13 * slot)) & 0x1FFF);
    if (slot < 8) return static_cast<int>((high >> (13 * (slot - 4))) & 0x1FFF);
    return static_cast<int>(last);
  }
};

template <int ND>
struct WindowCounts<ND, false> {
  std::int16_t count[2 * ND + 1] = {};
  VMAFEXACT_HD void add(int slot, int sign) { count[slot] = static_cast<std::int16_t>(count[slot] + sign); }
  VMAFEXACT_HD int at(int slot) const { return count[slot]; }
};

// Adds (sign +1) or removes (-1) the codes of one window row near `value`.
template <int ND>
VMAFEXACT_HD inline void count_row(WindowCounts<ND>& counts, const std::uint16_t* row, int side,
                                   int value, int sign) {
  for (int q = 0; q < side; ++q) {
    const int slot = int{row[q]} - value + ND;
    if (static_cast<unsigned>(slot) <= 2u * ND) counts.add(slot, sign);
  }
}

// The c-value from the counts (the CPU's c_value, cambi_dsp_scalar.h).
template <int ND>
VMAFEXACT_HD inline float c_value_of(const WindowCounts<ND>& counts, int first, const CValueTables& t) {
  const int p0 = counts.at(ND);
  float best = 0.0f;
  for (int d = first; d < ND; ++d) {
    const int above = counts.at(ND + d + 1), below = counts.at(ND - d - 1);
    const int pm = above < below ? below : above;
    best = vmafexact::cambi::pixel::larger(
        best, vmafexact::cambi::pixel::c_value_term(t.weights[d], p0, pm, t.reciprocal));
  }
  return best;
}

// The c-values of a thread's strip: column tx of the tile, shared rows
// sy0 .. sy0 + rows - 1 (rows: those inside the picture); out[k * out_pitch]
// for row k.
template <int ND>
VMAFEXACT_HD inline void c_values_strip(const std::uint16_t* codes, int pad, int tx, int sy0, int rows,
                                        const CValueTables& t, float* out, std::ptrdiff_t out_pitch) {
  const int span = static_cast<int>(tile_span(kTileW, pad)), side = 2 * pad + 1;
  WindowCounts<ND> counts;
  int counted = -1;  // the shared row at the window's top that `counts` holds, -1: none
  int base = -1;     // the value they are counted around
  for (int k = 0; k < rows; ++k) {
    const int sy = sy0 + k;
    const std::uint16_t code = codes[(sy + pad) * span + tx + pad];
    float c = 0.0f;
    const int first = code == kNoCode ? ND : t.first_diff[code];
    if (first < ND) {
      const int v = code;
      const std::uint16_t* window = codes + tx;
      if (v == base && counted >= 0 && 2 * (sy - counted) < side) {
        for (int r = counted; r < sy; ++r) {
          count_row<ND>(counts, window + r * span, side, v, -1);
          count_row<ND>(counts, window + (r + side) * span, side, v, +1);
        }
      } else {
        counts = WindowCounts<ND>{};
        for (int r = sy; r < sy + side; ++r) count_row<ND>(counts, window + r * span, side, v, +1);
      }
      counted = sy, base = v;
      c = c_value_of<ND>(counts, first, t);
    }
    out[k * out_pitch] = c;
  }
}

// --- pooling: the top-k set by a radix select, its sum in fixed point ------------------

// c-values are non-negative floats (+0 for none): their bit patterns, as
// unsigned integers, are in the floats' order. The select walks the bits in
// kDigitBits-bit digits from the top: at each pass the values whose upper
// bits equal the prefix chosen so far are counted by digit, and the digit of
// the k-th largest is the first from the top where the counts reach the
// number still to be found.
inline constexpr int kDigitBits = 8;
inline constexpr int kDigits = 1 << kDigitBits;
inline constexpr int kPasses = 32 / kDigitBits;

VMAFEXACT_HD inline int digit_shift(int pass) { return 32 - kDigitBits * (pass + 1); }
// The bits a pass's prefix fixes (those above its digit).
VMAFEXACT_HD inline std::uint32_t prefix_mask(int pass) {
  return pass == 0 ? 0u : ~std::uint32_t{0} << (32 - kDigitBits * pass);
}

// The per-segment record the pooling kernels write (one per scale and pass),
// read back to the host. While selecting, `threshold` holds the prefix and
// `copies` how many of the top k are still to be found under it; at the end
// `threshold` is the k-th largest value's bits and `copies` how many values
// equal to it belong to the top k (the others are larger).
struct PoolRecord {
  std::uint32_t threshold;
  std::uint32_t copies;
  std::uint32_t min_positive;  // bits of the smallest positive value (~0: none)
  std::uint32_t fail;          // a value above the threshold is too far from the smallest
  unsigned long long low;      // sum of the low 32 bits of the units of the values above
  unsigned long long high;     // sum of their high bits (units >> 32)
};

// Picks the digit of the k-th largest from a pass's digit counts; updates the
// record's prefix and the count still to be found.
VMAFEXACT_HD inline void choose_digit(const std::uint32_t* counts, int pass, PoolRecord& record) {
  std::uint32_t remaining = record.copies;
  int digit = kDigits - 1;
  for (; digit > 0; --digit) {
    if (counts[digit] >= remaining) break;
    remaining -= counts[digit];
  }
  record.threshold |= static_cast<std::uint32_t>(digit) << digit_shift(pass);
  record.copies = remaining;
}

// A float as M * 2^q, M an integer below 2^24: q of its bits (subnormals -149).
VMAFEXACT_HD inline int ulp_exponent(std::uint32_t bits) {
  const int biased = static_cast<int>((bits >> 23) & 0xFF);
  return biased == 0 ? -149 : biased - 150;
}
VMAFEXACT_HD inline std::uint32_t significand(std::uint32_t bits) {
  const std::uint32_t m = bits & 0x7FFFFF;
  return (bits >> 23) & 0xFF ? m | 0x800000u : m;
}

// The exponent e of the fixed-point units 2^e: that of the smallest positive
// value summed (every larger float is a multiple of its 2^q). The values
// summed are the threshold (when positive) and those above it.
VMAFEXACT_HD inline int unit_exponent(const PoolRecord& record) {
  return ulp_exponent(record.threshold != 0 ? record.threshold : record.min_positive);
}

// A value's units (value / 2^e) when below 2^53, else false: 53 bits are the
// bound of the whole sum anyway.
VMAFEXACT_HD inline bool units_of(std::uint32_t bits, int e, std::uint64_t& units) {
  const int shift = ulp_exponent(bits) - e;  // >= 0 for every value summed
  if (shift > 29) return false;              // significand >= 2^23: units >= 2^53
  units = std::uint64_t{significand(bits)} << shift;
  return true;
}

#if !defined(__CUDACC__)
// The CPU's double sum of the top k, when every order gives it: all the
// values summed are multiples of 2^e, so every partial sum is; while the total
// (in units) is below 2^53 every partial sum is a double and each addition of
// the CPU (a float converted to double, added in double) is exact, so the sum
// is the exact total in any order. nullopt when that does not hold (then the
// c-values are pooled by the CPU's own spatial_pooling()).
inline std::optional<double> exact_topk_sum(const PoolRecord& record) {
  if (record.fail) return std::nullopt;
  const bool any_positive = record.threshold != 0 || record.min_positive != ~std::uint32_t{0};
  if (!any_positive) return 0.0;  // only zeros
  const int e = unit_exponent(record);
  constexpr std::uint64_t kBound = std::uint64_t{1} << 53;
  // high < 2^21 here, and low < n * 2^32 (n < 2^31 values): no wrap below.
  if (record.high >= (kBound >> 32)) return std::nullopt;
  std::uint64_t total = (record.high << 32) + record.low;
  if (total >= kBound) return std::nullopt;
  if (record.threshold != 0) {
    std::uint64_t units = 0;
    if (!units_of(record.threshold, e, units)) return std::nullopt;
    if (record.copies != 0 && units > (kBound - 1 - total) / record.copies) return std::nullopt;
    total += units * record.copies;
  }
  return std::ldexp(static_cast<double>(total), e);
}
#endif

}  // namespace vmafexact::cuda::cambi::tile
