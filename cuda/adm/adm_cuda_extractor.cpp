#include "adm/adm_cuda_extractor.h"

#include "common/error.h"

namespace vmafexact::cuda::adm {

std::unique_ptr<FeatureExtractor> make_cuda_adm_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  (void)options;
  (void)stream;
  throw Error("feature 'adm' has no CUDA twin yet");
}

}  // namespace vmafexact::cuda::adm
