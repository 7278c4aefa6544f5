// The CUDA stage of float_vif: per frame, both luma planes converted (and
// prescaled with vif_prescale) on the device, then at each scale the
// decimation, the five maps' passes and the statistic's terms, and each row's
// num and den summed in column order (float_vif_cuda.h). Only the rows' sums
// come home; the host adds them in row order with the CPU's finishing
// function (float_vif::finish_rows()). Stateless from frame to frame: the
// backend may run two instances, on the even and the odd frames.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <optional>
#include <vector>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "float_vif/float_vif_cuda.h"
#include "float_vif/float_vif_extractor.h"

namespace vmafexact::cuda::float_vif {

using vmafexact::float_vif::FloatVifParams;
using vmafexact::float_vif::FloatVifSums;
using vmafexact::float_vif::kScales;

class FloatVifCudaStage final : public FeatureStage<FloatVifSums> {
 public:
  FloatVifCudaStage(const PictureFormat& format, const FloatVifParams& params, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  FloatVifSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  // Device memory, the filters and the prescale tables are taken on the first
  // submit(), so that the extractor can be made (and its options checked)
  // without a device.
  void prepare_device();
  void enqueue_frame(const PictureView& ref, const PictureView& dist);

  struct Scale {
    int width = 0, height = 0;
    std::size_t plane = 0;  // the scale's ref plane in planes_; its dist plane follows
    std::size_t taps = 0;   // its filter in taps_
    int tap_count = 0;
    std::size_t rows = 0;  // its rows' num sums in rows_; the den sums follow
  };

  cudaStream_t stream_;
  PictureFormat format_;
  FloatVifParams params_;
  tile::StatisticConstants constants_;
  int first_scale_;  // 1 with vif_skip_scale0
  bool rescaled_;    // vif_prescale changes the size
  std::array<Scale, kScales> scales_{};
  std::size_t converted_ =
      0;  // after the scales' planes: the converted ref and dist (when rescaled)
  std::size_t row_sums_ = 0;  // floats read back per frame
  std::vector<float> host_taps_;
  PrescaleTables host_prescale_;
  DeviceBuffer<float> planes_, maps_, terms_, rows_, taps_, prescale_weights_;
  DeviceBuffer<int> prescale_indices_;
  tile::Prescale prescale_{};
  std::optional<FrameReadback<float>> readback_;  // sized once the scales are known
  FrameGraphs graphs_;  // one frame's passes and read-back, by input planes and slot
};

}  // namespace vmafexact::cuda::float_vif
