// CUDA twin of metrics/adm's per-pixel stage (AdmCpuStage::compute()): the
// same integer sums per scale and orientation, computed on the device and read
// back as 36 64-bit values per frame. The decomposition is in adm_cuda_tiles.h.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

#include "adm/adm.h"
#include "adm/adm_cuda_tiles.h"
#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "common/picture.h"

namespace vmafexact::cuda::adm {

class AdmCudaStage final : public FeatureStage<vmafexact::adm::FrameSums> {
 public:
  // Allocates the device buffers for width x height (>= 33 x 33) and uploads
  // the host-built tables. Options as AdmCpuStage takes them. The stage's
  // contract (submit(), compute()) enqueues on `stream`.
  AdmCudaStage(unsigned width, unsigned height, const vmafexact::adm::AdmOptions& options,
               cudaStream_t stream = nullptr);

  // The stage's contract, on the luma planes (device pointers).
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    enqueue(ref.planes[0], dist.planes[0], ref.bpc, stream_, index);
  }
  vmafexact::adm::FrameSums compute(const PictureView& ref, const PictureView& dist,
                                    unsigned index) override {
    if (!enqueued(index)) submit(ref, dist, index);
    return sums(index);
  }

  // Enqueues one frame's work on `stream` (luma planes with DEVICE pointers):
  // the 4 DWT levels, the 4 scoring passes, the row sums, and the 288-byte
  // read-back into pinned memory.
  void enqueue(const PlaneView& ref, const PlaneView& dist, unsigned bpc, cudaStream_t stream);
  // The same for frame `index`, whose read-back has a slot of its own, so that
  // the next frame can be enqueued before this one's sums are taken.
  void enqueue(const PlaneView& ref, const PlaneView& dist, unsigned bpc, cudaStream_t stream,
               unsigned index);
  bool enqueued(unsigned index) const { return readback_.submitted(index); }
  // Waits for frame `index`'s read-back and returns its sums.
  vmafexact::adm::FrameSums sums(unsigned index);
  // The sums of the frame of the last enqueue() without an index.
  vmafexact::adm::FrameSums sums() { return sums(unindexed_ - 1); }

  const vmafexact::adm::CsfWeights& weights() const { return weights_; }

  // Tests: copies of the device's intermediate buffers after a frame
  // (synchronous): the scale-0 bands [picture][a, h, v, d][band], those of
  // scales 1..3 (index 0 unused), and the row accumulators.
  void debug_download(std::vector<std::int16_t>& bands0,
                      std::array<std::vector<std::int32_t>, 4>& bands,
                      std::vector<unsigned long long>& rows) const;

 private:
  // The frame's kernels and read-back copy (captured as a graph by enqueue()).
  void enqueue_work(const PlaneView& ref, const PlaneView& dist, unsigned bpc, cudaStream_t stream,
                    unsigned index);

  unsigned width_, height_;
  cudaStream_t stream_;
  vmafexact::adm::AdmOptions options_;
  vmafexact::adm::CsfWeights weights_;
  std::array<vmafexact::adm::ScaleGeometry, 4> geometry_;
  std::array<TileGeometry, 4> tiles_{};
  vmafexact::adm::pixel::Db2Taps taps_{};
  float cos_sq_ = 0;
  std::size_t band_size_[4]{};
  int acc_rows_ = 0;
  DeviceBuffer<std::int32_t> division_;        // 65537 entries
  DeviceBuffer<std::int16_t> bands0_;          // [picture][a, h, v, d][scale-0 band]
  std::array<DeviceBuffer<std::int32_t>, 4> bands_;  // scales 1..3: [picture][a, h, v, d][band]
  DeviceBuffer<unsigned long long> acc_;       // [scale][quantity][theta][row]
  DeviceBuffer<unsigned long long> out_;       // [scale][quantity][theta]
  FrameReadback<unsigned long long> readback_;
  // The scales' scoring runs on a stream of its own, each scale's after its
  // DWT level (level_done_), beside the next level; joined (scores_done_)
  // before the row sums.
  Stream scoring_;
  std::array<Event, 4> level_done_;
  Event scores_done_;
  FrameGraphs graphs_;  // one frame's work, by input pictures, stream and read-back slot
  unsigned unindexed_ = 0;  // frames given to enqueue() without an index
};

// The geometry the kernels use, from the CPU's.
TileGeometry tile_geometry(const vmafexact::adm::ScaleGeometry& g);

}  // namespace vmafexact::cuda::adm
