#include "common/cuda_util.h"

namespace vmafexact::cuda {

bool device_available(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (reason) *reason = cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error
    return false;
  }
  if (count == 0) {
    if (reason) *reason = "no CUDA device";
    return false;
  }
  return true;
}

}  // namespace vmafexact::cuda
