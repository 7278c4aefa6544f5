// The scalar references of cambi_dsp.h's routines, over column ranges where
// the SIMD twins hand them their borders and tails.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "cambi/cambi_c_value.h"
#include "cambi/cambi_dsp.h"

namespace vmafexact::cambi::scalar {

// libvmaf's mode3: the value two of a, b, c share, else the smallest (as
// selects, which compilers vectorize).
inline std::uint16_t mode3(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  const std::uint16_t smallest = std::min(a, std::min(b, c));
  const std::uint16_t unless_a = b == c ? b : smallest;
  return a == b || a == c ? a : unless_a;
}

// Columns [begin, end) of preprocess_8 / preprocess_16 (cambi_dsp.h); returns
// the largest input sample among them.
inline std::uint16_t preprocess_8(const std::uint8_t* row, const std::uint8_t* below, unsigned begin,
                                  unsigned end, unsigned w, bool anti_dither, std::uint16_t* out) {
  std::uint16_t largest = 0;
  for (unsigned c = begin; c < end; ++c) largest = std::max<std::uint16_t>(largest, row[c]);
  if (!anti_dither) {
    for (unsigned c = begin; c < end; ++c) out[c] = static_cast<std::uint16_t>(row[c] << 2);
    return largest;
  }
  // (4a + 4b + 4c + 4d) >> 2 is a + b + c + d exactly, and so on.
  const unsigned last = w - 1;
  for (unsigned c = begin; c < end; ++c) {
    unsigned v;
    if (below) {
      v = c < last ? (row[c] + row[c + 1] + below[c] + below[c + 1]) : 2u * (row[c] + below[c]);
    } else {
      v = c < last ? 2u * (row[c] + row[c + 1]) : 4u * row[c];
    }
    out[c] = static_cast<std::uint16_t>(v);
  }
  return largest;
}

inline std::uint16_t to_10_bits(std::uint16_t v, unsigned shift) {
  const unsigned round = shift == 0 ? 0u : 1u << (shift - 1);
  return static_cast<std::uint16_t>((v + round) >> shift);
}

// out[c] for c in [begin, end) from two converted rows (below nullptr in the last row).
inline void anti_dither(const std::uint16_t* row, const std::uint16_t* below, unsigned begin,
                        unsigned end, unsigned w, std::uint16_t* out) {
  const unsigned last = w - 1;
  for (unsigned c = begin; c < end; ++c) {
    unsigned v;
    if (below) {
      v = c < last ? (row[c] + row[c + 1] + below[c] + below[c + 1]) >> 2 : (row[c] + below[c]) >> 1;
    } else {
      v = c < last ? (row[c] + row[c + 1]) >> 1 : row[c];
    }
    out[c] = static_cast<std::uint16_t>(v);
  }
}

inline std::uint16_t preprocess_16(const std::uint16_t* row, const std::uint16_t* below,
                                   unsigned begin, unsigned end, unsigned w, unsigned shift,
                                   bool anti_dither, std::uint16_t* out) {
  std::uint16_t largest = 0;
  for (unsigned c = begin; c < end; ++c) largest = std::max(largest, row[c]);
  if (!anti_dither) {
    for (unsigned c = begin; c < end; ++c) out[c] = to_10_bits(row[c], shift);
    return largest;
  }
  const unsigned last = w - 1;
  for (unsigned c = begin; c < end; ++c) {
    const unsigned a = to_10_bits(row[c], shift);
    const unsigned b = c < last ? to_10_bits(row[c + 1], shift) : 0u;
    unsigned v;
    if (below) {
      const unsigned d = to_10_bits(below[c], shift);
      v = c < last ? (a + b + d + to_10_bits(below[c + 1], shift)) >> 2 : (a + d) >> 1;
    } else {
      v = c < last ? (a + b) >> 1 : a;
    }
    out[c] = static_cast<std::uint16_t>(v);
  }
  return largest;
}

inline void derivative(const std::uint16_t* row, const std::uint16_t* below, unsigned begin,
                       unsigned end, unsigned w, std::uint8_t* out) {
  // The last column has no right neighbour: flat to the right.
  const unsigned inner_end = std::min(end, w - 1);
  unsigned c = begin;
  if (below) {
    for (; c < inner_end; ++c) out[c] = (row[c] == row[c + 1]) & (row[c] == below[c]);
    for (; c < end; ++c) out[c] = row[c] == below[c];
  } else {
    for (; c < inner_end; ++c) out[c] = row[c] == row[c + 1];
    for (; c < end; ++c) out[c] = 1;
  }
}

inline void update_counts(std::uint8_t* counts, const std::uint8_t* entering,
                          const std::uint8_t* leaving, unsigned begin, unsigned end) {
  if (entering)
    for (unsigned c = begin; c < end; ++c) counts[c] = static_cast<std::uint8_t>(counts[c] + entering[c]);
  if (leaving)
    for (unsigned c = begin; c < end; ++c) counts[c] = static_cast<std::uint8_t>(counts[c] - leaving[c]);
}

inline void mask_row(const std::uint8_t* counts, unsigned begin, unsigned end, unsigned index,
                     std::uint8_t* mask) {
  for (unsigned c = begin; c < end; ++c) {
    const std::uint8_t* box = counts + static_cast<std::ptrdiff_t>(c) - 3;
    const unsigned sum = box[0] + box[1] + box[2] + box[3] + box[4] + box[5] + box[6];
    mask[c] = static_cast<std::uint8_t>(sum > index);
  }
}

template <typename Sample>
inline void decimate(const Sample* src, unsigned begin, unsigned end, Sample* dst) {
  for (unsigned j = begin; j < end; ++j) dst[j] = src[2 * j];
}

inline void mode_horizontal(const std::uint16_t* src, unsigned begin, unsigned end, unsigned w,
                            std::uint16_t* out) {
  // The first and last columns are copied.
  unsigned j = begin;
  if (j == 0 && j < end) out[j] = src[j], ++j;
  const unsigned inner_end = std::min(end, w - 1);
  for (; j < inner_end; ++j) out[j] = mode3(src[j - 1], src[j], src[j + 1]);
  for (; j < end; ++j) out[j] = src[j];
}

inline void mode_vertical(const std::uint16_t* a, const std::uint16_t* b, const std::uint16_t* c,
                          unsigned begin, unsigned end, std::uint16_t* out) {
  for (unsigned j = begin; j < end; ++j) out[j] = mode3(a[j], b[j], c[j]);
}

// The count of the run [first, last] of columns that lies within `pad` of
// column c: how much a run of equal samples adds to column c's window.
inline int run_overlap(int c, int first, int last, int pad) {
  return std::min(c + pad, last) - std::max(c - pad, first) + 1;
}

// Adds sign * run_overlap() to row[c] for every column the run reaches.
inline void apply_run(std::uint16_t* row, int first, int last, int pad, int w, int sign) {
  const int begin = std::max(first - pad, 0);
  const int end = std::min(last + pad + 1, w);
  for (int c = begin; c < end; ++c)
    row[c] = static_cast<std::uint16_t>(row[c] + sign * run_overlap(c, first, last, pad));
}

// The band row of a masked sample, or -1 for none (unmasked, out of band, or absent).
inline int band_row(const std::uint16_t* samples, const std::uint8_t* mask, unsigned c,
                    int band_base, int band_size) {
  if (!samples || !mask[c]) return -1;
  const int r = int{samples[c]} - band_base;
  return r >= 0 && r < band_size ? r : -1;
}

// slide (cambi_dsp.h) over the sample columns [begin, end), whose windows
// reach columns [begin - pad, end + pad). A column whose leaving and entering
// samples are the same value changes nothing; runs of equal values along the
// row are applied at once (their overlaps add up, every count being exact).
inline void slide(const HistogramView& h, unsigned begin, unsigned end, unsigned w, unsigned pad,
                  int band_base, const std::uint16_t* leaving, const std::uint8_t* leaving_mask,
                  const std::uint16_t* entering, const std::uint8_t* entering_mask) {
  const int width = static_cast<int>(w), p = static_cast<int>(pad);
  struct Run {
    int row = -1, first = 0;
  };
  Run out_run, in_run;  // the runs of leaving and of entering samples being gathered
  auto flush = [&](Run& run, int last, int sign) {
    if (run.row >= 0) apply_run(h.count + run.row * h.stride, run.first, last, p, width, sign);
    run.row = -1;
  };
  auto extend = [&](Run& run, int row, int c, int sign) {
    if (row == run.row) return;
    flush(run, c - 1, sign);
    run.row = row;
    run.first = c;
  };
  for (int c = static_cast<int>(begin); c < static_cast<int>(end); ++c) {
    int out_row = band_row(leaving, leaving_mask, static_cast<unsigned>(c), band_base, h.band_size);
    int in_row = band_row(entering, entering_mask, static_cast<unsigned>(c), band_base, h.band_size);
    if (out_row == in_row) out_row = in_row = -1;  // the same value leaves and joins
    extend(out_run, out_row, c, -1);
    extend(in_run, in_row, c, +1);
  }
  flush(out_run, static_cast<int>(end) - 1, -1);
  flush(in_run, static_cast<int>(end) - 1, +1);
}

// The c-value of one sample (c_values_row in cambi_dsp.h).
inline float c_value(const HistogramView& h, const ContrastRowTables& t, std::uint16_t value,
                     unsigned c) {
  const int first = t.first_diff[value];
  if (first >= t.num_diffs) return 0.0f;
  const std::uint16_t* column = h.count + c;
  const std::ptrdiff_t r = (int{value} - t.band_base) * h.stride;
  const int p0 = column[r];
  float best = 0.0f;
  for (int d = first; d < t.num_diffs; ++d) {
    const int above = column[r + (d + 1) * h.stride];
    const int below = column[r - (d + 1) * h.stride];  // a zero row below the band
    const int pm = std::max(above, below);
    best = pixel::larger(best, pixel::c_value_term(t.weights[d], p0, pm, t.reciprocal));
  }
  return best;
}

inline void c_values_row(const HistogramView& h, const ContrastRowTables& t,
                         const std::uint16_t* image, const std::uint8_t* mask, unsigned begin,
                         unsigned end, float* out) {
  for (unsigned c = begin; c < end; ++c) out[c] = mask[c] ? c_value(h, t, image[c], c) : 0.0f;
}

// One partition of libvmaf's quick_select around `pivot`, from i = left and
// j = right: Hoare's scans and swaps until i and j cross.
inline void partition(float* values, float pivot, int& i, int& j) {
  do {
    while (values[i] > pivot) ++i;
    while (values[j] < pivot) --j;
    if (i <= j) {
      std::swap(values[i], values[j]);
      ++i;
      --j;
    }
  } while (i <= j);
}

// libvmaf's quick_select: partitions around values[k] until [0, k) holds the
// k largest, in the order the partitions leave them (which decides how their
// sum rounds).
inline void quick_select(float* values, int n, int k) {
  if (n == k) return;
  int left = 0, right = n - 1;
  while (left < right) {
    int i = left, j = right;
    partition(values, values[k], i, j);
    if (j < k) left = i;
    if (k < i) right = j;
  }
}

inline double ordered_sum(const float* values, int begin, int end) {
  double sum = 0;
  for (int i = begin; i < end; ++i) sum += values[i];
  return sum;
}

}  // namespace vmafexact::cambi::scalar
