// The CUDA factories of the feature registry (scoring/registry.cpp): each
// makes the feature's one extractor (metrics/) over the feature's CUDA stage.
#pragma once

#include <memory>
#include <string>

#include "factories.h"

namespace vmafexact::cuda {
namespace adm {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options, CudaStream stream);
}
namespace float_motion {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options,
                                                      CudaStream stream);
}
namespace float_adm {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options,
                                                      CudaStream stream);
std::string cuda_refusal(const OptionValues& options);
}  // namespace float_adm
namespace float_vif {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options,
                                                      CudaStream stream);
}
namespace float_psnr {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options,
                                                      CudaStream stream);
}
namespace float_ansnr {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options,
                                                      CudaStream stream);
}
namespace float_moment {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options,
                                                      CudaStream stream);
}
namespace cambi {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options, CudaStream stream);
}
namespace motion {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options, CudaStream stream);
}
namespace psnr {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options, CudaStream stream);
}
namespace speed {
std::unique_ptr<FeatureExtractor> make_chroma_cuda_extractor(const OptionValues& options,
                                                             CudaStream stream);
}
namespace ssim {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options, CudaStream stream);
std::unique_ptr<FeatureExtractor> make_ms_ssim_cuda_extractor(const OptionValues& options,
                                                              CudaStream stream);
}
namespace vif {
std::unique_ptr<FeatureExtractor> make_cuda_extractor(const OptionValues& options, CudaStream stream);
}
}  // namespace vmafexact::cuda
