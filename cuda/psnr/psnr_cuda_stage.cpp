#include "psnr/psnr_cuda_stage.h"

#include "psnr/psnr_cuda.h"

namespace vmafexact::cuda::psnr {

PsnrCudaStage::PsnrCudaStage(cudaStream_t stream, bool chroma)
    : stream_(stream), chroma_(chroma), device_sse_(3 * kFrameSlots), readback_(3) {}

void PsnrCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  // Each frame has its own device sums (the slot), so that the memset of a
  // later frame cannot race frame i's read-back on the same stream order.
  unsigned long long* sums = device_sse_.data() + 3 * frame_slot(index);
  const unsigned planes = chroma_ ? ref.plane_count() : 1;
  readback_.reserve();
  graphs_.run(graph_key(ref.planes[0].data, ref.planes[1].data, ref.planes[2].data,
                        dist.planes[0].data, dist.planes[1].data, dist.planes[2].data,
                        ref.planes[0].stride, ref.planes[1].stride, ref.planes[2].stride,
                        dist.planes[0].stride, dist.planes[1].stride, dist.planes[2].stride,
                        planes, frame_slot(index)),
              stream_, [&] {
                check(cudaMemsetAsync(sums, 0, 3 * sizeof(unsigned long long), stream_),
                      "cudaMemsetAsync");
                for (unsigned p = 0; p < planes; ++p)
                  enqueue_plane_sse(ref.planes[p], dist.planes[p], ref.bpc, sums + p, stream_);
                readback_.copy(sums, index, stream_);
              });
  readback_.mark(index, stream_);
}

vmafexact::psnr::PsnrSums PsnrCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                                 unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const unsigned long long* sse = readback_.collect(index);
  vmafexact::psnr::PsnrSums sums;
  // The planes not summed stay 0 (the memset), as the CPU stage leaves them.
  for (unsigned p = 0; p < ref.plane_count(); ++p) sums.sse[p] = sse[p];
  return sums;
}

}  // namespace vmafexact::cuda::psnr
