#include "common/device_picture.h"

namespace vmafexact::cuda {

void DevicePicture::upload(const PictureView& host, cudaStream_t stream) {
  view_ = host;
  const std::size_t sample_bytes = host.bpc > 8 ? 2 : 1;
  for (unsigned p = 0; p < host.plane_count(); ++p) {
    const PlaneView& plane = host.planes[p];
    if (plane.data == nullptr) continue;  // left out (no extractor reads it): null on the device too
    // Rows padded to 256 bytes, as pitched allocations are, so kernels are
    // exercised with a pitch wider than the row.
    const std::size_t row_bytes = plane.width * sample_bytes;
    const std::size_t pitch = (row_bytes + 255) / 256 * 256 + 256;
    planes_[p].resize(pitch * (plane.height ? plane.height : 1));
    if (row_bytes && plane.height)
      check(cudaMemcpy2DAsync(planes_[p].data(), pitch, plane.data, plane.stride, row_bytes,
                              plane.height, cudaMemcpyHostToDevice, stream),
            "cudaMemcpy2DAsync (upload)");
    view_.planes[p].data = planes_[p].data();
    view_.planes[p].stride = static_cast<std::ptrdiff_t>(pitch);
  }
}

}  // namespace vmafexact::cuda
