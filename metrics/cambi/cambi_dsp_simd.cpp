// The SIMD twins of CAMBI's DSP routines, written once over the vector layer
// `V` (metrics/common/simd.h: N16 lanes of 16 bits or N8 bytes in an I, N
// lanes of 32 bits, N floats in an FW; the comparisons used here give lanes of
// all ones or zero) and compiled once per ISA by metrics/meson.build
// (cambi_dsp_avx2(), cambi_dsp_avx512()).
//
// Exactness against cambi_dsp_scalar.h: every routine but c_values_row is
// integer (sums of at most four 10-bit samples, counts of at most 49 or 4225,
// histogram updates modulo 2^16 whose final counts are exact); c_values_row
// forms each lane's float as the scalar code does — an int32 product
// converted to float (cvtdq2ps, round to nearest as C's conversion), times
// the table's float (one rounded multiply) — and takes the max of
// non-negative floats, which is exact in any order. Lanes that do not apply
// are computed from counts that exist and masked to 0. Each row's tail (and
// the columns the vectors cannot reach) goes to the scalar reference.

#include <algorithm>
#include <cstdint>
#include <utility>

#include "cambi/cambi_dsp.h"
#include "cambi/cambi_dsp_scalar.h"
#include "common/simd.h"

namespace vmafexact::cambi {
namespace VMAFEXACT_ISA {
namespace {

template <class V>
std::uint16_t preprocess_8(const std::uint8_t* row, const std::uint8_t* below, unsigned w,
                           bool anti_dither, std::uint16_t* out) {
  using W = typename V::I;
  constexpr unsigned L = V::N16;
  W largest = V::zero();
  unsigned c = 0;
  if (!anti_dither) {
    for (; c + L <= w; c += L) {
      const W a = V::load_u8_as_u16(row + c);
      largest = V::max_u16(largest, a);
      V::store16(out + c, V::template slli16<2>(a));
    }
  } else if (below) {
    // (4a + 4b + 4c + 4d) >> 2: the sum of the four 8-bit samples.
    for (; c + L < w; c += L) {
      const W a = V::load_u8_as_u16(row + c);
      largest = V::max_u16(largest, a);
      const W sum =
          V::add16(V::add16(a, V::load_u8_as_u16(row + c + 1)),
                   V::add16(V::load_u8_as_u16(below + c), V::load_u8_as_u16(below + c + 1)));
      V::store16(out + c, sum);
    }
  } else {
    for (; c + L < w; c += L) {
      const W a = V::load_u8_as_u16(row + c);
      largest = V::max_u16(largest, a);
      V::store16(out + c, V::template slli16<1>(V::add16(a, V::load_u8_as_u16(row + c + 1))));
    }
  }
  const std::uint16_t tail = scalar::preprocess_8(row, below, c, w, w, anti_dither, out);
  return std::max(V::hmax_u16(largest), tail);
}

// (v + 2^(shift-1)) >> shift without overflow: v >> shift plus the bit below.
template <class V>
typename V::I to_10_bits(typename V::I v, unsigned shift) {
  if (shift == 0) return v;
  return V::add16(V::srl16(v, shift), V::and_(V::srl16(v, shift - 1), V::set16(1)));
}

// floor((a + b + c + d) / 4) and floor((a + b) / 2) of 16-bit lanes without
// overflow (any 16-bit input, as the scalar code's int sums): the quarters
// (halves) added, plus the floor of their remainders' sum.
template <class V>
typename V::I average4(typename V::I a, typename V::I b, typename V::I c, typename V::I d) {
  const auto three = V::set16(3);
  const auto quarters = V::add16(V::add16(V::template srli16<2>(a), V::template srli16<2>(b)),
                                 V::add16(V::template srli16<2>(c), V::template srli16<2>(d)));
  const auto rests = V::add16(V::add16(V::and_(a, three), V::and_(b, three)),
                              V::add16(V::and_(c, three), V::and_(d, three)));
  return V::add16(quarters, V::template srli16<2>(rests));
}

template <class V>
typename V::I average2(typename V::I a, typename V::I b) {
  const auto one = V::set16(1);
  return V::add16(V::add16(V::template srli16<1>(a), V::template srli16<1>(b)),
                  V::template srli16<1>(V::add16(V::and_(a, one), V::and_(b, one))));
}

template <class V>
std::uint16_t preprocess_16(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                            unsigned shift, bool anti_dither, std::uint16_t* out) {
  using W = typename V::I;
  constexpr unsigned L = V::N16;
  W largest = V::zero();
  unsigned c = 0;
  if (!anti_dither) {
    for (; c + L <= w; c += L) {
      const W a = V::load16(row + c);
      largest = V::max_u16(largest, a);
      V::store16(out + c, to_10_bits<V>(a, shift));
    }
  } else if (below) {
    for (; c + L < w; c += L) {
      const W a = V::load16(row + c);
      largest = V::max_u16(largest, a);
      V::store16(out + c, average4<V>(to_10_bits<V>(a, shift),
                                      to_10_bits<V>(V::load16(row + c + 1), shift),
                                      to_10_bits<V>(V::load16(below + c), shift),
                                      to_10_bits<V>(V::load16(below + c + 1), shift)));
    }
  } else {
    for (; c + L < w; c += L) {
      const W a = V::load16(row + c);
      largest = V::max_u16(largest, a);
      V::store16(out + c, average2<V>(to_10_bits<V>(a, shift),
                                      to_10_bits<V>(V::load16(row + c + 1), shift)));
    }
  }
  const std::uint16_t tail = scalar::preprocess_16(row, below, c, w, w, shift, anti_dither, out);
  return std::max(V::hmax_u16(largest), tail);
}

template <class V>
void anti_dither(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                 std::uint16_t* out) {
  constexpr unsigned L = V::N16;
  unsigned c = 0;
  if (below) {
    for (; c + L < w; c += L)
      V::store16(out + c, average4<V>(V::load16(row + c), V::load16(row + c + 1),
                                      V::load16(below + c), V::load16(below + c + 1)));
  } else {
    for (; c + L < w; c += L)
      V::store16(out + c, average2<V>(V::load16(row + c), V::load16(row + c + 1)));
  }
  scalar::anti_dither(row, below, c, w, w, out);
}

template <class V>
void derivative(const std::uint16_t* row, const std::uint16_t* below, unsigned w,
                std::uint8_t* out) {
  using W = typename V::I;
  constexpr unsigned L = V::N16;
  const W one = V::set16(1);
  unsigned c = 0;
  for (; c + L < w; c += L) {
    const W a = V::load16(row + c);
    W flat = V::eq16(a, V::load16(row + c + 1));
    if (below) flat = V::and_(flat, V::eq16(a, V::load16(below + c)));
    V::store_u16_as_u8(out + c, V::and_(flat, one));
  }
  scalar::derivative(row, below, c, w, w, out);
}

template <class V>
void update_counts(std::uint8_t* counts, const std::uint8_t* entering, const std::uint8_t* leaving,
                   unsigned w) {
  constexpr unsigned L = V::N8;
  unsigned c = 0;
  for (; c + L <= w; c += L) {
    auto v = V::load8(counts + c);
    if (entering) v = V::add8(v, V::load8(entering + c));
    if (leaving) v = V::sub8(v, V::load8(leaving + c));
    V::store8(counts + c, v);
  }
  scalar::update_counts(counts, entering, leaving, c, w);
}

template <class V>
void mask_row(const std::uint8_t* counts, unsigned w, unsigned index, std::uint8_t* mask) {
  constexpr unsigned L = V::N8;
  // Sums of seven counts of at most 7, and the index (at most 55), are below
  // 128: a signed byte compare is the unsigned one.
  const auto limit = V::set8(static_cast<int>(index));
  const auto one = V::set8(1);
  unsigned c = 0;
  for (; c + L <= w; c += L) {
    const std::uint8_t* box = counts + c - 3;
    auto sum = V::add8(V::add8(V::load8(box), V::load8(box + 1)),
                       V::add8(V::load8(box + 2), V::load8(box + 3)));
    sum = V::add8(sum, V::add8(V::add8(V::load8(box + 4), V::load8(box + 5)), V::load8(box + 6)));
    V::store8(mask + c, V::and_(V::gt_i8(sum, limit), one));
  }
  scalar::mask_row(counts, c, w, index, mask);
}

// dst may be src: each vector's samples are read before it is stored, and a
// store never reaches samples still to be read (they lie at twice the index).
template <class V>
void decimate_16(const std::uint16_t* src, unsigned w, std::uint16_t* dst) {
  constexpr unsigned L = V::N16;
  unsigned j = 0;
  for (; j + L <= w; j += L) V::store16(dst + j, V::even16(src + 2 * j));
  scalar::decimate(src, j, w, dst);
}

template <class V>
void decimate_8(const std::uint8_t* src, unsigned w, std::uint8_t* dst) {
  constexpr unsigned L = V::N8;
  unsigned j = 0;
  for (; j + L <= w; j += L) V::store8(dst + j, V::even8(src + 2 * j));
  scalar::decimate(src, j, w, dst);
}

template <class V>
typename V::I mode3(typename V::I a, typename V::I b, typename V::I c) {
  const auto smallest = V::min_u16(a, V::min_u16(b, c));
  const auto unless_a = V::select16(V::eq16(b, c), b, smallest);
  return V::select16(V::or_(V::eq16(a, b), V::eq16(a, c)), a, unless_a);
}

template <class V>
void mode_horizontal(const std::uint16_t* src, unsigned w, std::uint16_t* out) {
  constexpr unsigned L = V::N16;
  unsigned j = 0;
  if (w > L + 1) {
    out[0] = src[0];
    for (j = 1; j + L < w; j += L)
      V::store16(out + j, mode3<V>(V::load16(src + j - 1), V::load16(src + j), V::load16(src + j + 1)));
  }
  scalar::mode_horizontal(src, j, w, w, out);
}

template <class V>
void mode_vertical(const std::uint16_t* a, const std::uint16_t* b, const std::uint16_t* c,
                   unsigned w, std::uint16_t* out) {
  constexpr unsigned L = V::N16;
  unsigned j = 0;
  for (; j + L <= w; j += L)
    V::store16(out + j, mode3<V>(V::load16(a + j), V::load16(b + j), V::load16(c + j)));
  scalar::mode_vertical(a, b, c, j, w, out);
}

// sign * run_overlap() added to every column of `row` the run [first, last]
// reaches, in vectors that start at multiples of L16 (so that the runs of one
// value row load what earlier runs stored at the same addresses). Lanes the
// run does not reach, and those at or past w, add 0: the vectors may cover
// up to L16 - 1 samples past the row (the next value row or the buffer's
// slack), which they leave unchanged.
template <class V>
void apply_run(std::uint16_t* row, int first, int last, int pad, int w, bool add) {
  using W = typename V::I;
  constexpr int L = static_cast<int>(V::N16);
  const int begin = std::max(first - pad, 0);
  const int end = std::min(last + pad + 1, w);
  const W pad_v = V::set16(pad), first_v = V::set16(first), last_v = V::set16(last);
  const W width_v = V::set16(w), one = V::set16(1), step = V::set16(L);
  int c = begin - begin % L;
  W column = V::add16(V::iota16(), V::set16(c));
  for (; c < end; c += L, column = V::add16(column, step)) {
    W overlap = V::sub16(V::min_i16(V::add16(column, pad_v), last_v),
                         V::max_i16(V::sub16(column, pad_v), first_v));
    overlap = V::max_i16(V::add16(overlap, one), V::zero());
    overlap = V::and_(overlap, V::gt_i16(width_v, column));
    const W counts = V::load16(row + c);
    V::store16(row + c, add ? V::add16(counts, overlap) : V::sub16(counts, overlap));
  }
}

// slide (cambi_dsp.h): each vector of columns gives the band rows of its
// leaving and entering samples (-1 for none, both -1 where they are equal);
// the lanes where a row differs from the lane before end and start runs,
// found from the bits of the comparison, and each run is applied at once.
template <class V>
void slide(const HistogramView& h, unsigned w, unsigned pad, int band_base,
           const std::uint16_t* leaving, const std::uint8_t* leaving_mask,
           const std::uint16_t* entering, const std::uint8_t* entering_mask) {
  using W = typename V::I;
  constexpr unsigned L = V::N16;
  const int width = static_cast<int>(w), p = static_cast<int>(pad);
  const W none = V::set16(-1), base = V::set16(band_base), size = V::set16(h.band_size);
  // A masked sample's band row, or -1 (values are at most 1024, rows fit int16).
  auto rows_of = [&](const std::uint16_t* samples, const std::uint8_t* mask, unsigned c) {
    if (!samples) return none;
    const W row = V::sub16(V::load16(samples + c), base);
    const W in_band = V::and_(V::gt_i16(row, none), V::gt_i16(size, row));
    const W masked = V::gt_i16(V::load_u8_as_u16(mask + c), V::zero());
    return V::select16(V::and_(in_band, masked), row, none);
  };
  struct Runs {
    alignas(64) std::int16_t rows[L];  // the vector's rows, read lane by lane
    W last = V::set16(-1);             // the vector before (its last lane: the column before)
    int row = -1, first = 0;
  };
  Runs out_runs, in_runs;
  auto scan = [&](Runs& runs, W rows, unsigned c, bool add) {
    // Each lane's row beside the row of the column before it, moved in from
    // the vector before in registers (a store and an overlapping load would
    // wait for the store).
    const W before = V::shift_in16(runs.last, rows);
    runs.last = rows;
    std::uint32_t changes = V::bits16(V::not_(V::eq16(rows, before)));
    if (!changes) return;
    V::store16(reinterpret_cast<std::uint16_t*>(runs.rows), rows);
    while (changes) {
      const int lane = __builtin_ctz(changes);
      changes &= changes - 1;
      const int column = static_cast<int>(c) + lane;
      if (runs.row >= 0)
        apply_run<V>(h.count + runs.row * h.stride, runs.first, column - 1, p, width, add);
      runs.row = runs.rows[lane];
      runs.first = column;
    }
  };
  unsigned c = 0;
  for (; c + L <= w; c += L) {
    W out_rows = rows_of(leaving, leaving_mask, c);
    W in_rows = rows_of(entering, entering_mask, c);
    const W same = V::eq16(out_rows, in_rows);
    out_rows = V::select16(same, none, out_rows);
    in_rows = V::select16(same, none, in_rows);
    scan(out_runs, out_rows, c, false);
    scan(in_runs, in_rows, c, true);
  }
  // The last columns one at a time, continuing the runs.
  auto extend = [&](Runs& runs, int row, int column, bool add) {
    if (row == runs.row) return;
    if (runs.row >= 0)
      apply_run<V>(h.count + runs.row * h.stride, runs.first, column - 1, p, width, add);
    runs.row = row;
    runs.first = column;
  };
  for (; c < w; ++c) {
    int out_row = scalar::band_row(leaving, leaving_mask, c, band_base, h.band_size);
    int in_row = scalar::band_row(entering, entering_mask, c, band_base, h.band_size);
    if (out_row == in_row) out_row = in_row = -1;
    extend(out_runs, out_row, static_cast<int>(c), false);
    extend(in_runs, in_row, static_cast<int>(c), true);
  }
  extend(out_runs, -1, width, false);
  extend(in_runs, -1, width, true);
}

// c_values_row (cambi_dsp.h) over L32 columns at a time. Lanes whose sample
// is unmasked or has no diff are inactive: their values are 0.
// Where the masked lanes hold few values (up to kMaxGroups, common in the
// flat areas the mask keeps), each value's count rows are read as plain
// vectors (a column's counts of a value are in that value's row) and each
// group's lanes take theirs; then per diff one product and one gather of the
// reciprocals serve every group. Inactive lanes keep p0 = pm = 0: their term
// is 0 * reciprocal[0] = 0. Otherwise every lane's counts are gathered, the
// rows of inactive lanes clamped into the band so that every count read
// exists. Every count read is of one window, so p0 + pm stays within the
// reciprocal table.
template <class V>
void c_values_row(const HistogramView& h, const ContrastRowTables& t, const std::uint16_t* image,
                  const std::uint8_t* mask, unsigned w, float* out) {
  using I = typename V::I;
  using F = typename V::FW;
  constexpr unsigned L = V::N;
  const int nd = t.num_diffs;
  const std::ptrdiff_t stride = h.stride;
  const I num_diffs = V::set_i32(nd), zero = V::zero();
  const I base = V::set_i32(t.band_base), top_row = V::set_i32(h.band_size - 1);
  const I stride_v = V::set_i32(static_cast<int>(stride));
  // The groups of values read with plain loads, and the values looked at to
  // find them (groups whose value has no diff are dropped, not counted).
  constexpr int kMaxGroups = 4, kMaxScans = 8;
  unsigned c = 0;
  for (; c + L <= w; c += L) {
    float* dst = out + c;
    const I masked = V::gt_i32(V::load(mask + c), zero);
    std::uint32_t rest = V::bits32(masked);
    if (!rest) {
      V::storefw(dst, V::zerofw());
      continue;
    }
    const I value = V::load(image + c);
    alignas(64) std::int32_t values[L];
    V::store_aligned(values, value);
    const std::uint16_t* columns[kMaxGroups];
    I group_lanes[kMaxGroups];
    int group_first[kMaxGroups];
    int group_count = 0, first_min = nd;
    std::uint32_t active_bits = 0;
    for (int scan = 0; rest && scan < kMaxScans && group_count < kMaxGroups; ++scan) {
      const int v = values[__builtin_ctz(rest)];
      const std::uint32_t same = V::bits32(V::eq32(value, V::set_i32(v))) & rest;
      rest &= ~same;
      const int first = t.first_diff[v];
      if (first >= nd) continue;  // no diff applies (or outside the band): 0
      columns[group_count] = h.count + (v - t.band_base) * stride + c;
      group_lanes[group_count] = V::lanes32(same);
      group_first[group_count++] = first;
      first_min = std::min(first_min, first);
      active_bits |= same;
    }
    if (!rest) {
      if (!active_bits) {
        V::storefw(dst, V::zerofw());
        continue;
      }
      I p0 = zero;
      for (int g = 0; g < group_count; ++g)
        p0 = V::or_(p0, V::and_(group_lanes[g], V::load(columns[g])));
      F best = V::zerofw();
      for (int d = first_min; d < nd; ++d) {
        I pm = zero;
        for (int g = 0; g < group_count; ++g) {
          if (d < group_first[g]) continue;
          const I above = V::load(columns[g] + (d + 1) * stride);
          const I below = V::load(columns[g] - (d + 1) * stride);
          pm = V::or_(pm, V::and_(group_lanes[g], V::max_i32(above, below)));
        }
        // No sample of either neighbouring value: every product is 0 (the
        // common case in flat areas), and max(best, 0) is best.
        if (!V::any32(V::gt_i32(pm, zero))) continue;
        const I product = V::mullo32(V::set_i32(t.weights[d]), V::mullo32(p0, pm));
        const F val =
            V::mulfw(V::cvt_i32_fw(product), V::gather_fw(t.reciprocal, V::add32(p0, pm)));
        best = V::maxfw(best, val);
      }
      V::storefw(dst, V::andfw(best, V::lanes32(active_bits)));
      continue;
    }
    const I first = V::gather_u8(t.first_diff, value);
    const I active = V::and_(masked, V::gt_i32(num_diffs, first));
    if (!V::any32(active)) {
      V::storefw(dst, V::zerofw());
      continue;
    }
    F best = V::zerofw();
    const I row = V::min_i32(V::max_i32(V::sub32(value, base), zero), top_row);
    const I index0 = V::add32(V::mullo32(row, stride_v),
                              V::add32(V::iota32(), V::set_i32(static_cast<int>(c))));
    const I p0 = V::gather_u16(h.count, index0);
    for (int d = 0; d < nd; ++d) {
      const I use = V::and_(active, V::gt_i32(V::set_i32(d + 1), first));  // d >= first
      if (!V::any32(use)) continue;
      const I offset = V::set_i32(static_cast<int>((d + 1) * stride));
      const I above = V::gather_u16(h.count, V::add32(index0, offset));
      const I below = V::gather_u16(h.count, V::sub32(index0, offset));
      const I pm = V::max_i32(above, below);
      if (!V::any32(V::and_(use, V::gt_i32(pm, zero)))) continue;
      const I product = V::mullo32(V::set_i32(t.weights[d]), V::mullo32(p0, pm));
      const F val =
          V::mulfw(V::cvt_i32_fw(product), V::gather_fw(t.reciprocal, V::add32(p0, pm)));
      best = V::maxfw(best, V::andfw(val, use));
    }
    V::storefw(dst, V::andfw(best, active));
  }
  scalar::c_values_row(h, t, image, mask, c, w, out);
}

// quick_select (cambi_dsp.h) with the scans done a vector at a time: the
// first index from i whose value is <= pivot, the last one down from j whose
// value is >= pivot, read from the array as it is then, as the scalar loops
// read it (the chosen index is the same; the lanes past it, slack included,
// are only read). A pivot of 0 — the common case, most c-values being 0 —
// is one pass over the zeros from i (nothing is below it, so j never scans):
// each zero is swapped with values[j] and j steps down; while j is more than
// two vectors ahead no swap reaches the vector being read.
template <class V>
void quick_select(float* values, int n, int k) {
  constexpr int L = static_cast<int>(V::N);
  if (n == k) return;
  // Short scans are the common case: the first two values are looked at one
  // by one, the rest a vector at a time.
  auto scan_up = [&](int i, float pivot, typename V::FW pivot_v) {
    if (!(values[i] > pivot)) return i;
    if (!(values[i + 1] > pivot)) return i + 1;
    for (i += 2;; i += L)
      if (const std::uint32_t bits = V::le_bits(V::loadfw(values + i), pivot_v))
        return i + __builtin_ctz(bits);
  };
  auto scan_down = [&](int j, float pivot, typename V::FW pivot_v) {
    if (!(values[j] < pivot)) return j;
    if (!(values[j - 1] < pivot)) return j - 1;
    for (j -= 2;; j -= L)
      if (const std::uint32_t bits = V::ge_bits(V::loadfw(values + j - (L - 1)), pivot_v))
        return j - (L - 1) + (31 - __builtin_clz(bits));
  };
  int left = 0, right = n - 1;
  while (left < right) {
    const float pivot = values[k];
    const typename V::FW pivot_v = V::set1fw(pivot);
    int i = left, j = right;
    if (pivot == 0.0f) {
      // A vector's zero lanes, in order, take values[j], values[j - 1], ...
      // (the vector ending at j, reversed and expanded into them), and those
      // become zeros: the swaps of the scalar loop, a vector at a time.
      while (j - i >= 3 * L) {
        const typename V::FW chunk = V::loadfw(values + i);
        const std::uint32_t zeros = V::le_bits(chunk, pivot_v);
        if (zeros) {
          const int count = __builtin_popcount(zeros);
          float* tail = values + j - (L - 1);
          V::storefw(values + i, V::fill_lanes(chunk, zeros, V::reverse_fw(V::loadfw(tail))));
          V::store_zero_top(tail, count);
          j -= count;
        }
        i += L;
      }
    }
    do {
      i = scan_up(i, pivot, pivot_v);
      j = scan_down(j, pivot, pivot_v);
      if (i <= j) {
        std::swap(values[i], values[j]);
        ++i;
        --j;
      }
    } while (i <= j);
    if (j < k) left = i;
    if (k < i) right = j;
  }
}

// ordered_sum: the nonzero values, a block at a time, packed in order into a
// buffer (vector compress) and added there one by one: the same additions in
// the same order, without a branch per value.
template <class V>
double ordered_sum(const float* values, int k) {
  constexpr int L = static_cast<int>(V::N);
  constexpr int kBlock = 512;
  const typename V::FW zero = V::zerofw();
  alignas(64) float packed[kBlock + L];
  double sum = 0;
  int i = 0;
  while (i + L <= k) {
    const int end = std::min(k - (k - i) % L, i + kBlock);
    int count = 0;
    for (; i < end; i += L) {
      const typename V::FW v = V::loadfw(values + i);
      const std::uint32_t nonzero = ~V::le_bits(v, zero) & ((1u << L) - 1);
      V::storefw(packed + count, V::compress_fw(v, nonzero));
      count += __builtin_popcount(nonzero);
    }
    for (int j = 0; j < count; ++j) sum += packed[j];
  }
  for (; i < k; ++i) sum += values[i];
  return sum;
}

template <class V>
constexpr CambiDsp make_dsp(const char* isa) {
  return CambiDsp{isa,
                  preprocess_8<V>,
                  preprocess_16<V>,
                  anti_dither<V>,
                  derivative<V>,
                  update_counts<V>,
                  mask_row<V>,
                  decimate_16<V>,
                  decimate_8<V>,
                  mode_horizontal<V>,
                  mode_vertical<V>,
                  slide<V>,
                  c_values_row<V>,
                  quick_select<V>,
                  ordered_sum<V>};
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const CambiDsp& VMAFEXACT_ISA_NAMED(cambi_dsp)() {
  static constexpr CambiDsp dsp =
      VMAFEXACT_ISA::make_dsp<simd::VMAFEXACT_ISA::V>(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::cambi
