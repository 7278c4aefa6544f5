#pragma once

#include <cuda_runtime.h>

#include <array>
#include <memory>

#include "common/cuda_util.h"
#include "common/feature_extractor.h"

namespace vmafexact::cuda::psnr {

// The CUDA twin of psnr::PsnrExtractor: same keys, same finishing function.
std::unique_ptr<FeatureExtractor> make_cuda_psnr_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream);

}  // namespace vmafexact::cuda::psnr
