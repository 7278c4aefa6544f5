#include "vif/vif_cuda_plan.h"

#include <string>

#include "common/error.h"
#include "vif/vif_cuda_tile.h"
#include "vif/vif_pixel.h"

namespace vmafexact::cuda::vif {

namespace {

using vmafexact::vif::kScaleCount;
using vmafexact::vif::pad_mirror;
using vmafexact::vif::vif_filter;

// What a buffer entry holds: the value of `scale` at `index` (a column of a
// row buffer or a row of a picture buffer); scale -1: never written.
struct Origin {
  int scale = -1;
  int index = 0;
  bool operator==(const Origin&) const = default;
};

[[noreturn]] void unsupported(unsigned width, unsigned height, const std::string& what) {
  throw Error("vif (CUDA): " + what + " at " + std::to_string(width) + "x" +
              std::to_string(height) + " is not supported by the twin's plan");
}

// One row buffer of libvmaf (positions -8 .. width+7), followed through the
// scales: per row of scale s, entries 0..w-1 are written with scale s's values,
// then the buffer is mirrored with pad_mirror(w, half). Returns the column map
// of padded columns -half .. w-1+half; `state` keeps the buffer after the scale
// when `commit` (the CPU runs that pass), else it is left untouched.
std::vector<Origin> follow_row_buffer(std::vector<Origin>& state, int scale, unsigned w,
                                      unsigned half, bool commit, unsigned width, unsigned height) {
  std::vector<Origin> buffer = state;
  Origin* origin = buffer.data() + kPadRows;
  auto one_row = [&] {
    for (unsigned c = 0; c < w; ++c) origin[c] = {scale, static_cast<int>(c)};
    pad_mirror(origin, w, half);
  };
  one_row();
  const std::vector<Origin> after_first = buffer;
  one_row();  // every later row must leave the buffer as the first did
  if (buffer != after_first) unsupported(width, height, "row padding that changes from row to row");
  std::vector<Origin> map(origin - half, origin + w + half);
  if (commit) state = buffer;
  return map;
}

}  // namespace

VifPlan make_vif_plan(unsigned width, unsigned height, bool skip_scale0) {
  if (width < 8 || height < 8) unsupported(width, height, "a side below 8");
  VifPlan plan;
  plan.pyramid_pitch = width / 2;
  unsigned w = width, h = height;
  for (unsigned s = 0; s < kScaleCount; ++s) {
    ScalePlan& scale = plan.scales[s];
    scale.width = w;
    scale.height = h;
    scale.half = vif_filter(s).half();
    if (s > 0) {
      scale.first_row = static_cast<int>(plan.pyramid_rows);
      plan.pyramid_rows += h;
    }
    w /= 2;
    h /= 2;
  }

  // Rows. Scale 0 reads the picture through libvmaf's mirrored row index.
  {
    ScalePlan& scale = plan.scales[0];
    std::vector<std::int32_t> index(height + 2 * kPadRows, -1);
    for (unsigned r = 0; r < height; ++r) index[r + kPadRows] = static_cast<std::int32_t>(r);
    pad_mirror(index.data() + kPadRows, height, scale.half);
    for (int y = -static_cast<int>(scale.half); y < static_cast<int>(height + scale.half); ++y)
      if (index[y + kPadRows] < 0 || index[y + kPadRows] >= static_cast<int>(height))
        unsupported(width, height, "scale 0 row padding");
    scale.rows = std::move(index);
  }
  // Scales 1..3 live in one picture buffer (rows -8 .. height/2+7) written in
  // place: after decimating scale s into rows 0..h-1, whole rows are mirrored
  // with scale s's half width, and rows beyond keep what earlier scales left.
  {
    const unsigned buffer_rows = height / 2 + 2 * kPadRows;
    std::vector<Origin> image(buffer_rows);
    Origin* row = image.data() + kPadRows;
    for (unsigned s = 0; s + 1 < kScaleCount; ++s) {
      ScalePlan& next = plan.scales[s + 1];
      const int out_h = static_cast<int>(next.height);
      for (int r = 0; r < out_h; ++r) row[r] = {static_cast<int>(s + 1), r};
      for (int f = 1; f <= static_cast<int>(plan.scales[s].half); ++f) {
        row[-f] = row[f];
        row[out_h - 1 + f] = row[out_h - 1 - f];
      }
      next.rows.assign(next.height + 2 * kPadRows, -1);
      for (int y = -kPadRows; y < out_h + kPadRows; ++y) {
        const Origin o = row[y];
        const bool read = y >= -static_cast<int>(next.half) && y < out_h + static_cast<int>(next.half);
        if (o.scale < 1 || o.scale > static_cast<int>(s + 1)) {
          if (read) unsupported(width, height, "a row read before it is written");
          continue;
        }
        next.rows[y + kPadRows] = plan.scales[o.scale].first_row + o.index;
      }
    }
  }

  // Columns. libvmaf's five row buffers of the statistic and its two of the
  // low-pass, each followed through the scales.
  std::vector<Origin> statistic_buffer(width + 2 * kPadRows), lowpass_buffer(width + 2 * kPadRows);
  for (unsigned s = 0; s < kScaleCount; ++s) {
    ScalePlan& scale = plan.scales[s];
    const bool runs = !(s == 0 && skip_scale0);
    const std::vector<Origin> map = follow_row_buffer(statistic_buffer, static_cast<int>(s),
                                                      scale.width, scale.half, runs, width, height);
    scale.columns.resize(map.size());
    for (std::size_t i = 0; i < map.size(); ++i) {
      const Origin o = map[i];
      if (o.scale == static_cast<int>(s)) {
        scale.columns[i] = o.index;
      } else if (runs && s > 0 && o.scale == static_cast<int>(s) - 1 && o.index < kSavedColumns &&
                 !(s - 1 == 0 && skip_scale0)) {
        scale.columns[i] = -1 - o.index;  // libvmaf's stale entry: saved by scale s-1
        plan.scales[s - 1].save_last_row = true;
      } else {
        unsupported(width, height, "a row-buffer entry read before it is written");
      }
    }
    if (s + 1 < kScaleCount) {
      // The low-pass into scale s+1 reads its own buffers with the next
      // filter's half width; the kernel reads them through the statistic's
      // map, so the two must agree (and hold no stale entry).
      const unsigned dec_half = vif_filter(s + 1).half();
      const std::vector<Origin> dec_map = follow_row_buffer(
          lowpass_buffer, static_cast<int>(s), scale.width, dec_half, true, width, height);
      for (int x = -static_cast<int>(dec_half); x < static_cast<int>(scale.width + dec_half); ++x) {
        const Origin o = dec_map[x + dec_half];
        if (o.scale != static_cast<int>(s) || scale.columns[x + scale.half] != o.index)
          unsupported(width, height, "low-pass padding that differs from the statistic's");
      }
    }
  }
  for (ScalePlan& scale : plan.scales) {
    scale.rows_offset = plan.tables.size();
    plan.tables.insert(plan.tables.end(), scale.rows.begin(), scale.rows.end());
    scale.columns_offset = plan.tables.size();
    plan.tables.insert(plan.tables.end(), scale.columns.begin(), scale.columns.end());
  }
  return plan;
}

ScaleParams scale_params(const VifPlan& plan, unsigned s, unsigned bpc,
                         const vmafexact::vif::VifParams& options, const FrameBuffers& buffers) {
  const ScalePlan& scale = plan.scales[s];
  ScaleParams p;
  if (s == 0) {
    p.ref = buffers.ref;
    p.dis = buffers.dis;
    p.ref_pitch = buffers.ref_pitch;
    p.dis_pitch = buffers.dis_pitch;
  } else {
    p.ref = reinterpret_cast<const std::uint8_t*>(buffers.pyramid_ref);
    p.dis = reinterpret_cast<const std::uint8_t*>(buffers.pyramid_dis);
    p.ref_pitch = p.dis_pitch = static_cast<std::ptrdiff_t>(plan.pyramid_pitch * sizeof(std::uint16_t));
  }
  p.width = static_cast<int>(scale.width);
  p.height = static_cast<int>(scale.height);
  p.first_row = scale.first_row;
  p.rows = buffers.tables + scale.rows_offset;
  p.columns = buffers.tables + scale.columns_offset;

  // The CPU's roundings (VifCpuStage::statistic / subsample): at scale 0 the
  // means drop bpc bits and the squares 2 (bpc - 8); above, both drop 16.
  p.statistic = !(s == 0 && options.skip_scale0);
  const auto& filter = vif_filter(s);
  for (unsigned k = 0; k < filter.width; ++k) p.taps[k] = filter.taps[k];
  p.round_mu = p.round_sq = 32768;
  p.shift_mu = p.shift_sq = 16;
  if (s == 0) {
    p.shift_mu = bpc;
    p.round_mu = 1u << (bpc - 1);
    p.shift_sq = 2 * (bpc - 8);
    p.round_sq = p.shift_sq == 0 ? 0 : 1u << (p.shift_sq - 1);
  }
  p.log2_table = buffers.log2_table;
  p.enhn_gain_limit = options.enhn_gain_limit;
  p.sums = buffers.sums + 4 * s;
  if (scale.save_last_row) {
    p.save_row = static_cast<int>(scale.height) - 1;
    p.save = buffers.saved + s * 5 * kSavedColumns;
  }
  if (s > 0) p.saved = buffers.saved + (s - 1) * 5 * kSavedColumns;

  if (s + 1 < kScaleCount) {
    p.decimate = true;
    const auto& dec = vif_filter(s + 1);
    for (unsigned k = 0; k < dec.width; ++k) p.dec_taps[k] = dec.taps[k];
    p.round_dec = s == 0 ? 1u << (bpc - 1) : 32768;
    p.shift_dec = s == 0 ? bpc : 16;
    p.out_ref = buffers.pyramid_ref;
    p.out_dis = buffers.pyramid_dis;
    p.out_pitch = plan.pyramid_pitch;
    p.out_first_row = plan.scales[s + 1].first_row;
  }
  return p;
}

}  // namespace vmafexact::cuda::vif
