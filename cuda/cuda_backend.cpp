#include "cuda_backend.h"

#include <string>

#include "adm/adm_cuda_extractor.h"
#include "motion/motion_cuda_extractor.h"
#include "psnr/psnr_cuda_extractor.h"
#include "vif/vif_cuda_extractor.h"

namespace vmafexact::cuda {

CudaBackend::CudaBackend() {
  std::string reason;
  if (!device_available(&reason)) throw Error("no usable CUDA device: " + reason);
  stream_ = std::make_unique<Stream>();
}

std::unique_ptr<FeatureExtractor> CudaBackend::make_extractor(std::string_view name,
                                                              const FeatureOptions& options) {
  if (name == "psnr") return psnr::make_cuda_psnr_extractor(options, stream());
  if (name == "vif") return vif::make_cuda_vif_extractor(options, stream());
  if (name == "adm") return adm::make_cuda_adm_extractor(options, stream());
  if (name == "motion") return motion::make_cuda_motion_extractor(options, stream());
  throw Error("feature '" + std::string(name) + "' has no CUDA twin yet");
}

}  // namespace vmafexact::cuda
