#include "vif/vif_cuda_extractor.h"

#include "common/error.h"

namespace vmafexact::cuda::vif {

std::unique_ptr<FeatureExtractor> make_cuda_vif_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  (void)options;
  (void)stream;
  throw Error("feature 'vif' has no CUDA twin yet");
}

}  // namespace vmafexact::cuda::vif
