// Host side of the VIF twin that depends only on the picture size: the sizes
// of the four scales, where the pyramid of decimated pictures keeps each
// scale, and the mirror tables that say which row and column each padded row
// and column reads. The tables come from emulating libvmaf's buffers and
// padding order (the CPU path's pad_mirror, metrics/vif/vif_pixel.h) on
// provenance records instead of samples, so they reproduce the CPU exactly,
// including pictures of 8 to 15 samples per side, where the fourth scale is
// one sample wide or high and libvmaf's padding reads entries its buffers kept
// from the third scale.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "vif/vif.h"
#include "vif/vif_cuda_tile.h"
#include "vif/vif_tables.h"

namespace vmafexact::cuda::vif {

struct ScalePlan {
  unsigned width = 0, height = 0;
  unsigned half = 0;  // half width of the scale's filter
  // Input row of scale 0 .. 3 row 0: 0 at scale 0 (the picture), else a row of
  // the pyramid.
  int first_row = 0;
  // rows[y + 8] for padded rows y = -8 .. height+7: the input row (picture row
  // at scale 0, pyramid row above); -1 where libvmaf never reads.
  std::vector<std::int32_t> rows;
  // columns[x + half] for padded columns x = -half .. width-1+half: the column
  // of this scale, or -(1 + c) for column c of the previous scale's last row of
  // vertical sums (saved by that scale's kernel).
  std::vector<std::int32_t> columns;
  bool save_last_row = false;  // the next scale reads this scale's saved columns
  std::size_t rows_offset = 0, columns_offset = 0;  // of both tables in VifPlan::tables
};

struct VifPlan {
  std::array<ScalePlan, vmafexact::vif::kScaleCount> scales;
  unsigned pyramid_pitch = 0;  // samples per pyramid row (width / 2)
  unsigned pyramid_rows = 0;   // scales 1..3, one after the other
  std::vector<std::int32_t> tables;  // every scale's rows and columns, uploaded once
};

// Throws vmafexact::Error if the layout cannot be represented (it always can
// for the sizes the CPU path accepts, >= 8x8).
VifPlan make_vif_plan(unsigned width, unsigned height, bool skip_scale0);

// Where one frame's data lives: device memory for the kernels, host memory for
// the emulation.
struct FrameBuffers {
  const std::uint8_t* ref = nullptr;  // scale 0: the pictures' luma planes
  const std::uint8_t* dis = nullptr;
  std::ptrdiff_t ref_pitch = 0, dis_pitch = 0;
  std::uint16_t* pyramid_ref = nullptr;  // pyramid_rows x pyramid_pitch samples each
  std::uint16_t* pyramid_dis = nullptr;
  const std::int32_t* tables = nullptr;        // a copy of VifPlan::tables
  const std::uint16_t* log2_table = nullptr;   // a copy of Log2Table::data(), 65536 entries
  unsigned long long* sums = nullptr;          // 4 per scale, zeroed before a frame
  std::uint32_t* saved = nullptr;              // kScaleCount x 5 x kSavedColumns
};

// The parameters of scale s's kernel (or emulated blocks).
ScaleParams scale_params(const VifPlan& plan, unsigned s, unsigned bpc,
                         const vmafexact::vif::VifParams& options, const FrameBuffers& buffers);

// The launch grid of scale s: tiles across and down.
inline unsigned tiles_across(const ScalePlan& scale) { return (scale.width + kTileWidth - 1) / kTileWidth; }
inline unsigned tiles_down(const ScalePlan& scale) { return (scale.height + kTileHeight - 1) / kTileHeight; }

}  // namespace vmafexact::cuda::vif
