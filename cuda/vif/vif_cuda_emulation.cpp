#include "vif/vif_cuda_emulation.h"

#include <cstring>
#include <memory>
#include <vector>

#include "vif/vif_cuda_tile.h"

namespace vmafexact::cuda::vif {

namespace {

using vmafexact::vif::kScaleCount;

template <typename Sample, int Half, int DecHalf>
void emulate_scale(const ScaleParams& p, const ScalePlan& scale) {
  using Phases = TilePhases<Sample, Half, DecHalf>;
  auto shared = std::make_unique<typename Phases::Shared>();
  for (unsigned tile_y = 0; tile_y < tiles_down(scale); ++tile_y)
    for (unsigned tile_x = 0; tile_x < tiles_across(scale); ++tile_x) {
      std::memset(static_cast<void*>(shared.get()), 0xA5, sizeof *shared);  // uninitialised
      const int tx = static_cast<int>(tile_x), ty = static_cast<int>(tile_y);
      for (int t = 0; t < kThreads; ++t) Phases::load(p, *shared, tx, ty, t);
      for (int t = 0; t < kThreads; ++t) Phases::vertical(p, *shared, tx, ty, t);
      PixelSums block;
      for (int t = 0; t < kThreads; ++t) {
        PixelSums thread;
        Phases::horizontal(p, *shared, tx, ty, t, thread);
        block.num_log += thread.num_log;
        block.den_log += thread.den_log;
        block.num_non_log += thread.num_non_log;
        block.den_non_log += thread.den_non_log;
      }
      if (!p.statistic) continue;
      p.sums[0] += static_cast<unsigned long long>(block.num_log);
      p.sums[1] += static_cast<unsigned long long>(block.den_log);
      p.sums[2] += static_cast<unsigned long long>(block.num_non_log);
      p.sums[3] += static_cast<unsigned long long>(block.den_non_log);
    }
}

}  // namespace

vmafexact::vif::FrameSums emulate_frame(const VifPlan& plan, unsigned bpc,
                                        const vmafexact::vif::VifParams& options,
                                        const PlaneView& ref, const PlaneView& dist) {
  const std::size_t pyramid = std::size_t{plan.pyramid_pitch} * plan.pyramid_rows;
  std::vector<std::uint16_t> pyramid_ref(pyramid, 0xA5A5), pyramid_dis(pyramid, 0x5A5A);
  std::vector<unsigned long long> sums(4 * kScaleCount, 0);
  std::vector<std::uint32_t> saved(kScaleCount * 5 * kSavedColumns, 0xA5A5A5A5u);
  FrameBuffers buffers;
  buffers.ref = ref.data;
  buffers.dis = dist.data;
  buffers.ref_pitch = ref.stride;
  buffers.dis_pitch = dist.stride;
  buffers.pyramid_ref = pyramid_ref.data();
  buffers.pyramid_dis = pyramid_dis.data();
  buffers.tables = plan.tables.data();
  buffers.log2_table = vmafexact::vif::log2_table().data();
  buffers.sums = sums.data();
  buffers.saved = saved.data();
  for (unsigned s = 0; s < kScaleCount; ++s) {
    const ScaleParams p = scale_params(plan, s, bpc, options, buffers);
    const ScalePlan& scale = plan.scales[s];
    switch (s) {
      case 0:
        if (bpc == 8)
          emulate_scale<std::uint8_t, 8, 4>(p, scale);
        else
          emulate_scale<std::uint16_t, 8, 4>(p, scale);
        break;
      case 1: emulate_scale<std::uint16_t, 4, 2>(p, scale); break;
      case 2: emulate_scale<std::uint16_t, 2, 1>(p, scale); break;
      default: emulate_scale<std::uint16_t, 1, 0>(p, scale); break;
    }
  }
  vmafexact::vif::FrameSums result{};
  for (unsigned s = 0; s < kScaleCount; ++s) {
    result[s].num_log = static_cast<std::int64_t>(sums[4 * s + 0]);
    result[s].den_log = static_cast<std::int64_t>(sums[4 * s + 1]);
    result[s].num_non_log = static_cast<std::int64_t>(sums[4 * s + 2]);
    result[s].den_non_log = static_cast<std::int64_t>(sums[4 * s + 3]);
  }
  return result;
}

}  // namespace vmafexact::cuda::vif
