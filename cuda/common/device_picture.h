// A picture in device memory owned by vmafexact (for uploads from system
// memory and for tests); its view() has device pointers in place of host ones.
#pragma once

#include <array>
#include <cstdint>

#include "common/cuda_util.h"
#include "common/picture.h"

namespace vmafexact::cuda {

class DevicePicture {
 public:
  // Copies the planes of a host picture (libvmaf-sized) to the device,
  // asynchronously on `stream`; the host memory must stay valid until it syncs.
  // A plane left out (null data) stays null.
  void upload(const PictureView& host, cudaStream_t stream);

  // Same planes, device pointers. Valid while this object lives.
  const PictureView& view() const { return view_; }

 private:
  std::array<DeviceBuffer<std::uint8_t>, 3> planes_;
  PictureView view_{};
};

}  // namespace vmafexact::cuda
