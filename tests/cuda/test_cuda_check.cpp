// cuda::check: a failed call is a DeviceError naming the call and CUDA's
// reason, and a sticky error (after which no call in the process can succeed)
// also says what to do. Needs no device: it runs in CI too.
#include <gtest/gtest.h>

#include <string>

#include "common/cuda_util.h"

using namespace vmafexact;

namespace {

std::string failure_of(cudaError_t status, const char* what) {
  try {
    cuda::check(status, what);
  } catch (const DeviceError& error) {
    return error.what();
  }
  return "";
}

TEST(CudaCheck, SuccessThrowsNothing) { EXPECT_NO_THROW(cuda::check(cudaSuccess, "cudaMalloc")); }

TEST(CudaCheck, AFailedCallIsADeviceErrorNamingTheCallAndTheReason) {
  const std::string text = failure_of(cudaErrorMemoryAllocation, "cudaMalloc");
  EXPECT_EQ(text.rfind("CUDA: cudaMalloc failed: ", 0), 0u) << text;
  EXPECT_NE(text.find(cudaGetErrorString(cudaErrorMemoryAllocation)), std::string::npos) << text;
  EXPECT_EQ(text.find("restart"), std::string::npos) << "out of memory is not sticky: " << text;
  EXPECT_FALSE(cuda::is_sticky(cudaErrorMemoryAllocation));
  EXPECT_FALSE(cuda::is_sticky(cudaErrorInvalidValue));
}

TEST(CudaCheck, AStickyErrorSaysTheProcessMustBeRestarted) {
  for (const cudaError_t status : {cudaErrorIllegalAddress, cudaErrorLaunchFailure,
                                   cudaErrorECCUncorrectable, cudaErrorAssert}) {
    EXPECT_TRUE(cuda::is_sticky(status)) << cudaGetErrorName(status);
    const std::string text = failure_of(status, "vif kernel launch");
    EXPECT_EQ(text.rfind("CUDA: vif kernel launch failed: ", 0), 0u) << text;
    EXPECT_NE(text.find("restart the process, or score with backend=cpu"), std::string::npos)
        << text;
  }
}

}  // namespace
