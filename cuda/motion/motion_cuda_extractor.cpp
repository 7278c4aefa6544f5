#include "motion/motion_cuda_extractor.h"

#include "common/error.h"

namespace vmafexact::cuda::motion {

std::unique_ptr<FeatureExtractor> make_cuda_motion_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  (void)options;
  (void)stream;
  throw Error("feature 'motion' has no CUDA twin yet");
}

}  // namespace vmafexact::cuda::motion
