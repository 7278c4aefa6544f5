// What the registry's entries and the table of CUDA twins (cuda_twins.h) have
// in common: the factories' types. Its own header, so that the twin table
// does not include the registry that includes it.
#pragma once

#include <memory>
#include <string>

#include "common/feature_extractor.h"
#include "common/feature_options.h"

// The CUDA runtime's stream type, without its headers (cudaStream_t).
struct CUstream_st;

namespace vmafexact {

using CudaStream = CUstream_st*;

using CpuFactory = std::unique_ptr<FeatureExtractor> (*)(const OptionValues& options);
using CudaFactory = std::unique_ptr<FeatureExtractor> (*)(const OptionValues& options,
                                                          CudaStream stream);
// Why a CUDA twin cannot score with these options (empty: it can).
using CudaRefusal = std::string (*)(const OptionValues& options);

}  // namespace vmafexact
