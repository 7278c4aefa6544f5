// The CUDA backend of one scoring session: its stream, and the extractors over
// the features' CUDA stages (the registry's CUDA factories). Each is the CPU's
// extractor (name, options, score keys, finishing function) over a stage that
// computes the CPU's partial sums on the device from pictures in device memory
// (PictureView with device pointers) and reads back a few bytes per frame.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string_view>

#include "common/cuda_util.h"
#include "common/feature_extractor.h"
#include "registry.h"

namespace vmafexact::cuda {

class CudaBackend {
 public:
  // Throws vmafexact::Error when no CUDA device is usable.
  CudaBackend();

  cudaStream_t stream() const { return stream_->get(); }

  // The twin of make_feature_extractor(name, options); throws vmafexact::Error
  // for a feature without a CUDA twin or a bad option.
  std::unique_ptr<FeatureExtractor> make_extractor(std::string_view name,
                                                   const FeatureOptions& options) {
    return make_feature_extractor(name, options, Backend::kCuda, stream());
  }

 private:
  std::unique_ptr<Stream> stream_;
};

}  // namespace vmafexact::cuda
