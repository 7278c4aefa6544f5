// The CUDA stage of speed_chroma: per frame, the four pictures (the reference's
// and the distorted picture's U and V planes) go through the kernels of
// speed_cuda.cu (antialiasing and decimation with the prescale folded in, less
// the local mean, the means and the 25x25 covariance), and their decimated
// pictures and covariances come home in one read-back. The rest (eigenvalues,
// the solve, the entropies with glibc's log2, the score) is the CPU's own code,
// SpeedKernel::block_stats and pair_score, on the host.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "common/bands.h"
#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "speed/speed_cuda.h"
#include "speed/speed_extractor.h"

namespace vmafexact::cuda::speed {

using vmafexact::speed::ChromaSums;

class SpeedChromaCudaStage final : public FeatureStage<ChromaSums> {
 public:
  SpeedChromaCudaStage(const vmafexact::speed::SpeedGeometry& chroma,
                       const vmafexact::speed::SpeedParams& params, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  ChromaSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  // The host's finishing of the four pictures runs side by side on the
  // runner's threads (each picture on its own SpeedKernel).
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  // Device memory and the tables are taken on the first submit(), so that the
  // extractor can be made (and its options checked) without a device.
  void prepare_device();

  cudaStream_t stream_;
  vmafexact::speed::SpeedGeometry geometry_;
  vmafexact::speed::SpeedParams params_;
  // One per picture: the tables (the first one's), and the statistics finished here.
  std::vector<vmafexact::speed::SpeedKernel> host_;
  BandRunner* runner_ = &serial_band_runner();
  tile::Tables tables_{};              // pointers into the device tables
  DeviceBuffer<float> float_tables_;
  DeviceBuffer<int> int_tables_;
  DeviceBuffer<float> low_, results_;
  FrameReadback<float> readback_;
  FrameGraphs graphs_;  // one frame's kernels and read-back, by input chroma planes and slot
  // Per picture, its decimated samples as block_stats takes them.
  std::vector<std::vector<float>> low_host_;
};

}  // namespace vmafexact::cuda::speed
