// The CUDA stage of CAMBI: the CPU's pipeline (metrics/cambi/) as kernels
// (cambi_cuda.h) per pass (the distorted picture, and with full_ref the
// reference), the pooling of each scale on the device when its double sum is
// order-independent, by the CPU's spatial_pooling() on the c-values brought
// home otherwise.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <vector>

#include "cambi/cambi_cuda.h"
#include "cambi/cambi_extractor.h"
#include "common/cuda_util.h"
#include "common/frame_graphs.h"

namespace vmafexact::cuda::cambi {

using vmafexact::cambi::CambiSetup;
using vmafexact::cambi::CambiSums;
using vmafexact::cambi::kNumScales;

// How the scales were pooled, over every CambiCudaStage of the process.
struct PoolingCounts {
  unsigned long long exact = 0;     // on the device (fixed-point sum)
  unsigned long long fallback = 0;  // c-values brought home, spatial_pooling()
};

class CambiCudaStage final : public FeatureStage<CambiSums> {
 public:
  CambiCudaStage(const CambiSetup& setup, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  CambiSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

  static PoolingCounts pooling_counts();

 private:
  static constexpr int kMaxPasses = 2;
  static constexpr int kSegments = kMaxPasses * kNumScales;
  // What the device writes per frame and the host reads back.
  struct FrameRecord {
    tile::PoolRecord pools[kSegments];
    unsigned largest[kMaxPasses];  // the largest input sample of each pass's luma
  };
  struct Scale {
    unsigned width = 0, height = 0;
    std::size_t offset = 0;  // of its c-values in a frame slot
    unsigned k = 0;          // c-values pooled
  };
  struct Pass {
    vmafexact::cambi::PassSetup setup;
    std::array<Scale, kNumScales> scales;
    DeviceBuffer<unsigned> map_x, map_y;
    unsigned mask_index = 0;
  };

  void allocate();
  void enqueue_pass(int pass, const PlaneView& luma, unsigned slot);

  CambiSetup setup_;
  cudaStream_t stream_;
  int passes_ = 1;
  std::array<Pass, kMaxPasses> pass_;
  std::size_t c_values_per_slot_ = 0;
  unsigned submitted_ = 0;  // the lowest index the next submit() may have
  bool allocated_ = false;
  // Working pictures at the widest pass's size.
  DeviceBuffer<std::uint16_t> preprocessed_;
  std::array<DeviceBuffer<std::uint16_t>, 2> images_;
  std::array<DeviceBuffer<std::uint8_t>, 2> masks_;
  DeviceBuffer<std::uint8_t> derivative_;
  DeviceBuffer<float> c_values_;  // 2 frame slots
  // Contrast tables.
  DeviceBuffer<std::uint8_t> first_diff_;
  DeviceBuffer<std::int32_t> weights_;
  DeviceBuffer<float> reciprocal_;
  tile::CValueTables tables_{};
  // Pooling: the segments of each slot, digit counts, one record per slot.
  DeviceBuffer<PoolSegment> segments_;
  DeviceBuffer<std::uint32_t> digit_counts_;
  DeviceBuffer<FrameRecord> records_;
  FrameReadback<FrameRecord> readback_{1};
  FrameGraphs graphs_;  // one frame's passes, pooling and read-back, by input lumas and slots
  std::vector<float> host_values_;  // fallback pooling, with kReadAhead slack

  static std::atomic<unsigned long long> exact_pools_, fallback_pools_;
};

}  // namespace vmafexact::cuda::cambi
