// The CUDA stage of float_adm: per frame, both luma planes converted on the
// device, then at each level the DWT, the decoupling, the CSF and the masking
// in the CPU stage's order over libvmaf's band buffers in device memory, and
// each row's den and masking sums added in column order
// (float_adm_cuda.h). Only the rows' sums come home; the host adds them in
// row order and finishes each level with the CPU's finish_p_norms().
// Stateless from frame to frame: the backend may run two instances, on the
// even and the odd frames.
//
// adm_p_norm other than 3 takes the C library's powf per sample, which device
// code has no equal of; VMAFEXACT_FLOAT_ADM_DIVIDER=this-cpu divides as this
// CPU does. The twin refuses both (cuda_refusal()).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "float_adm/float_adm_cuda.h"
#include "float_adm/float_adm_extractor.h"

namespace vmafexact::cuda::float_adm {

using vmafexact::float_adm::FloatAdmParams;
using vmafexact::float_adm::FloatAdmSums;
using vmafexact::float_adm::kScales;

// Why the twin cannot score with `params` (empty: it can).
std::string cuda_refusal(const FloatAdmParams& params);

class FloatAdmCudaStage final : public FeatureStage<FloatAdmSums> {
 public:
  // Throws vmafexact::Error where cuda_refusal() names a reason.
  FloatAdmCudaStage(const PictureFormat& format, const FloatAdmParams& params, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  FloatAdmSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  // Device memory and the reciprocal table are taken on the first submit(),
  // so that the extractor can be made (and its options checked) without a
  // device.
  void prepare_device();
  void enqueue_frame(const PictureView& ref, const PictureView& dist);

  cudaStream_t stream_;
  PictureFormat format_;
  FloatAdmParams params_;
  ArenaLayout layout_;
  float cos_1deg_sq_;
  std::size_t row_sums_ = 0;      // floats read back per frame
  std::size_t terms_floats_ = 0;  // the masking terms' scratch
  std::array<tile::Level, kScales> levels_;
  DeviceBuffer<float> pictures_, arena_, lo_, hi_, terms_, rows_;
  DeviceBuffer<std::uint32_t> rcp_table_;
  std::optional<FrameReadback<float>> readback_;
  FrameGraphs graphs_;  // one frame's passes and read-back, by input planes and slot
};

}  // namespace vmafexact::cuda::float_adm
