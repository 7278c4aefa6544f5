#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "common/feature_extractor.h"

namespace vmafexact::cuda::adm {

// The CUDA twin of the CPU "adm" extractor: same options, names and keys; the
// CPU's partial sums computed on the device; the CPU's finishing function.
// Throws vmafexact::Error for a bad option (as the CPU factory does).
std::unique_ptr<FeatureExtractor> make_cuda_adm_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream);

}  // namespace vmafexact::cuda::adm
