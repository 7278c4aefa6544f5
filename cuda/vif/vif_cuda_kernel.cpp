#include <string>

#include "common/error.h"
#include "vif/vif_cuda.h"
#include "vif/vif_tables.h"

namespace vmafexact::cuda::vif {

using vmafexact::vif::FrameSums;
using vmafexact::vif::kScaleCount;

VifCudaStage::VifCudaStage(unsigned width, unsigned height, unsigned bpc,
                             const vmafexact::vif::VifParams& params, cudaStream_t stream)
    : width_(width), height_(height), bpc_(bpc), params_(params), stream_(stream),
      sums_(4 * kScaleCount), readback_(4 * kScaleCount), saved_(kScaleCount * 5 * kSavedColumns) {
  vmafexact::vif::VifCpuStage checks(width, height, bpc, params);  // the CPU's checks and errors
  (void)checks;
  plan_ = make_vif_plan(width, height, params.skip_scale0);
  const std::size_t pyramid = std::size_t{plan_.pyramid_pitch} * plan_.pyramid_rows;
  pyramid_ref_.resize(pyramid);
  pyramid_dis_.resize(pyramid);
  tables_.resize(plan_.tables.size());
  log2_.resize(65536);
  // Built on the host by the CPU code, uploaded once.
  check(cudaMemcpyAsync(tables_.data(), plan_.tables.data(),
                        plan_.tables.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (vif tables)");
  check(cudaMemcpyAsync(log2_.data(), vmafexact::vif::log2_table().data(),
                        65536 * sizeof(std::uint16_t), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (vif log2 table)");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

void VifCudaStage::submit(const PlaneView& ref, const PlaneView& dist, unsigned index) {
  if (ref.width != width_ || ref.height != height_ || dist.width != width_ ||
      dist.height != height_)
    throw Error("vif: picture size changed from " + std::to_string(width_) + "x" +
                std::to_string(height_));
  FrameBuffers buffers;
  buffers.ref = ref.data;
  buffers.dis = dist.data;
  buffers.ref_pitch = ref.stride;
  buffers.dis_pitch = dist.stride;
  buffers.pyramid_ref = pyramid_ref_.data();
  buffers.pyramid_dis = pyramid_dis_.data();
  buffers.tables = tables_.data();
  buffers.log2_table = log2_.data();
  buffers.sums = sums_.data();
  buffers.saved = saved_.data();

  // The memset of the next frame follows this frame's read-back in stream
  // order, so one set of device sums serves overlapping frames.
  readback_.reserve();
  graphs_.run(graph_key(ref.data, dist.data, ref.stride, dist.stride, frame_slot(index)), stream_, [&] {
    check(cudaMemsetAsync(sums_.data(), 0, sums_.size() * sizeof(unsigned long long), stream_),
          "cudaMemsetAsync (vif sums)");
    for (unsigned s = 0; s < kScaleCount; ++s)
      enqueue_scale(scale_params(plan_, s, bpc_, params_, buffers), plan_.scales[s], s, bpc_, stream_);
    readback_.copy(sums_.data(), index, stream_);
  });
  readback_.mark(index, stream_);
}

FrameSums VifCudaStage::collect(unsigned index) {
  const unsigned long long* host = readback_.collect(index);
  FrameSums sums{};
  for (unsigned s = 0; s < kScaleCount; ++s) {
    sums[s].num_log = static_cast<std::int64_t>(host[4 * s + 0]);
    sums[s].den_log = static_cast<std::int64_t>(host[4 * s + 1]);
    sums[s].num_non_log = static_cast<std::int64_t>(host[4 * s + 2]);
    sums[s].den_non_log = static_cast<std::int64_t>(host[4 * s + 3]);
  }
  return sums;
}

FrameSums VifCudaStage::compute(const PlaneView& ref, const PlaneView& dist) {
  const unsigned index = computed_++;
  submit(ref, dist, index);
  return collect(index);
}

}  // namespace vmafexact::cuda::vif
