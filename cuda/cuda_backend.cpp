#include "cuda_backend.h"

#include <string>

#include "psnr/psnr_cuda_extractor.h"

namespace vmafexact::cuda {

CudaBackend::CudaBackend() {
  std::string reason;
  if (!device_available(&reason)) throw Error("no usable CUDA device: " + reason);
  stream_ = std::make_unique<Stream>();
}

std::unique_ptr<FeatureExtractor> CudaBackend::make_extractor(std::string_view name,
                                                              const FeatureOptions& options) {
  if (name == "psnr") return psnr::make_cuda_psnr_extractor(options, stream());
  throw Error("feature '" + std::string(name) + "' has no CUDA twin yet");
}

}  // namespace vmafexact::cuda
