#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "common/feature_extractor.h"

namespace vmafexact::cuda::motion {

// The CUDA twin of the CPU "motion" extractor: the CPU's IntegerMotionExtractor
// itself (options, checks, names, keys, MotionSequence, latency) with its
// earlier reference luma planes kept in device memory and each frame's sum
// (motion_sad) computed by a kernel; one uint64 per frame comes back. Throws
// vmafexact::Error for a bad option (as the CPU factory does). No device call
// happens before the first extract().
std::unique_ptr<FeatureExtractor> make_cuda_motion_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream);

}  // namespace vmafexact::cuda::motion
