#include "psnr/psnr_cuda_extractor.h"

#include "psnr/psnr.h"
#include "psnr/psnr_cuda.h"
#include "psnr/psnr_extractor.h"

namespace vmafexact::cuda::psnr {

namespace {

class CudaPsnrExtractor final : public FeatureExtractor {
 public:
  explicit CudaPsnrExtractor(cudaStream_t stream)
      : stream_(stream), device_sse_(6), readback_(3) {}

  std::string_view name() const override { return cpu_.name(); }
  std::vector<std::string> provided_features() const override { return cpu_.provided_features(); }
  std::string score_key(std::string_view provided) const override { return cpu_.score_key(provided); }
  bool sees_every_frame() const override { return cpu_.sees_every_frame(); }

  void init(const PictureFormat& format) override {
    cpu_.init(format);  // the same checks
    format_ = format;
  }

  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    const unsigned planes = ref.plane_count();
    // Each frame has its own device sums (the slot), so that the memset of
    // frame i + 1 cannot race frame i's read-back on the same stream order.
    unsigned long long* sums = device_sse_.data() + 3 * (index % 2);
    check(cudaMemsetAsync(sums, 0, 3 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    for (unsigned p = 0; p < planes; ++p)
      enqueue_plane_sse(ref.planes[p], dist.planes[p], ref.bpc, sums + p, stream_);
    readback_.submit(sums, index, stream_);
  }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    static constexpr const char* kNames[] = {"psnr_y", "psnr_cb", "psnr_cr"};
    if (!readback_.submitted(index)) submit(ref, dist, index);
    const unsigned long long* sse = readback_.collect(index);
    const double psnr_max = vmafexact::psnr::default_psnr_max(ref.bpc);
    for (unsigned p = 0; p < ref.plane_count(); ++p)
      scores.append(kNames[p], index,
                    vmafexact::psnr::psnr_from_sse(sse[p], ref.planes[p].width,
                                                   ref.planes[p].height, ref.bpc, psnr_max));
  }

 private:
  vmafexact::psnr::PsnrExtractor cpu_;  // names, checks and options
  cudaStream_t stream_;
  PictureFormat format_{};
  DeviceBuffer<unsigned long long> device_sse_;  // two frames' sums
  FrameReadback<unsigned long long> readback_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_cuda_psnr_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  vmafexact::psnr::make_psnr_extractor(options);  // validates the options, as on the CPU
  return std::make_unique<CudaPsnrExtractor>(stream);
}

}  // namespace vmafexact::cuda::psnr
