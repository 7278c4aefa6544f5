#include "cuda_backend.h"

#include <string>

namespace vmafexact::cuda {

CudaBackend::CudaBackend() {
  std::string reason;
  if (!device_available(&reason)) throw Error("no usable CUDA device: " + reason);
  stream_ = std::make_unique<Stream>();
}

}  // namespace vmafexact::cuda
