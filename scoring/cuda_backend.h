// The CUDA backend of one scoring session: its stream, and the extractors over
// the features' CUDA stages (the registry's CUDA factories). Each is the CPU's
// extractor (name, options, score keys, finishing function) over a stage that
// computes the CPU's partial sums on the device from pictures in device memory
// (PictureView with device pointers) and reads back a few bytes per frame.
//
// Frames arrive on the backend's stream (uploads, repacks, the producer's
// work). Each extractor runs on a stream of its own that waits for the frame
// there (an event), so that the device runs a frame's features side by side:
// at 1920x1080 no single feature fills an H200. What a twin finishes on the
// host (SpEED's eigenvalues and entropies, say) runs its bands on the
// backend's own few host threads.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string_view>

#include "common/cuda_util.h"
#include "common/feature_extractor.h"
#include "common/thread_pool.h"
#include "registry.h"

namespace vmafexact::cuda {

class CudaBackend {
 public:
  // Throws vmafexact::Error when no CUDA device is usable, or for frames in
  // flight outside 1 .. kFrameSlots. `frames_in_flight`: the frames the
  // Scorer keeps submitted at once (its overlap_frames + 1).
  explicit CudaBackend(unsigned frames_in_flight = kDefaultFramesInFlight);

  // Two: frame i + 1 submitted while frame i is read back.
  static constexpr unsigned kDefaultFramesInFlight = 2;
  unsigned frames_in_flight() const { return frames_in_flight_; }

  // Where frames are uploaded or produced: every extractor's work on a frame
  // starts after what this stream holds when the frame is submitted.
  cudaStream_t stream() const { return stream_->get(); }

  // The twin of make_feature_extractor(name, options) on a stream of its own;
  // throws vmafexact::Error for a feature without a CUDA twin or a bad option.
  std::unique_ptr<FeatureExtractor> make_extractor(std::string_view name,
                                                   const FeatureOptions& options);

 private:
  unsigned frames_in_flight_;
  std::unique_ptr<Stream> stream_;
  ThreadPool host_pool_;          // the twins' host work
  PoolBandRunner host_runner_;    // bands of it, side by side
};

}  // namespace vmafexact::cuda
