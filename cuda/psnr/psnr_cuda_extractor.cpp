#include "psnr/psnr_cuda_extractor.h"

#include "psnr/psnr.h"
#include "psnr/psnr_cuda.h"
#include "psnr/psnr_extractor.h"

namespace vmafexact::cuda::psnr {

namespace {

class CudaPsnrExtractor final : public FeatureExtractor {
 public:
  explicit CudaPsnrExtractor(cudaStream_t stream)
      : stream_(stream), device_sse_(3), host_sse_(3) {}

  std::string_view name() const override { return cpu_.name(); }
  std::vector<std::string> provided_features() const override { return cpu_.provided_features(); }
  std::string score_key(std::string_view provided) const override { return cpu_.score_key(provided); }
  bool sees_every_frame() const override { return cpu_.sees_every_frame(); }

  void init(const PictureFormat& format) override {
    cpu_.init(format);  // the same checks
    format_ = format;
  }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    static constexpr const char* kNames[] = {"psnr_y", "psnr_cb", "psnr_cr"};
    const unsigned planes = ref.plane_count();
    check(cudaMemsetAsync(device_sse_.data(), 0, 3 * sizeof(unsigned long long), stream_),
          "cudaMemsetAsync");
    for (unsigned p = 0; p < planes; ++p)
      enqueue_plane_sse(ref.planes[p], dist.planes[p], ref.bpc, device_sse_.data() + p, stream_);
    check(cudaMemcpyAsync(host_sse_.data(), device_sse_.data(), 3 * sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync (psnr sums)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    const double psnr_max = vmafexact::psnr::default_psnr_max(ref.bpc);
    for (unsigned p = 0; p < planes; ++p)
      scores.append(kNames[p], index,
                    vmafexact::psnr::psnr_from_sse(host_sse_[p], ref.planes[p].width,
                                                   ref.planes[p].height, ref.bpc, psnr_max));
  }

 private:
  vmafexact::psnr::PsnrExtractor cpu_;  // names, checks and options
  cudaStream_t stream_;
  PictureFormat format_{};
  DeviceBuffer<unsigned long long> device_sse_;
  PinnedBuffer<unsigned long long> host_sse_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_cuda_psnr_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  vmafexact::psnr::make_psnr_extractor(options);  // validates the options, as on the CPU
  return std::make_unique<CudaPsnrExtractor>(stream);
}

}  // namespace vmafexact::cuda::psnr
