#include "psnr/psnr_extractor.h"

#include "common/cpu.h"
#include "psnr/psnr.h"
#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {

namespace {

constexpr std::string_view kProvided[] = {"psnr_y", "psnr_cb", "psnr_cr"};

class PsnrExtractor final : public StagedExtractor<PsnrSums> {
 public:
  using StagedExtractor::StagedExtractor;
  bool sees_every_frame() const override { return true; }  // libvmaf flags psnr TEMPORAL

 private:
  void check_format(const PictureFormat& format) override {
    if (!is_supported_bpc(format.bpc))
      throw Error("psnr: unsupported bit depth " + std::to_string(format.bpc) +
                  " (libvmaf takes 8, 10, 12 or 16)");
    if (format.width == 0 || format.height == 0) throw Error("psnr: empty picture");
  }

  void finish(const PsnrSums& sums, unsigned index, FeatureCollector& scores) override {
    const PictureFormat& f = format();
    const double psnr_max = default_psnr_max(f.bpc);
    const unsigned planes = f.chroma == ChromaFormat::k400 ? 1 : 3;
    for (unsigned p = 0; p < planes; ++p) {
      // A 4:2:0 or 4:2:2 picture one pixel wide or high has empty chroma planes
      // in libvmaf's layout: mse is then 0/0, its max() with 1e-16 picks 1e-16,
      // and the score is psnr_max, as libvmaf reports it.
      const unsigned width = p == 0 ? f.width : chroma_plane_width(f.width, f.chroma);
      const unsigned height = p == 0 ? f.height : chroma_plane_height(f.height, f.chroma);
      scores.append(key(p), index, psnr_from_sse(sums.sse[p], width, height, f.bpc, psnr_max));
    }
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "psnr", "PSNR of each plane (psnr_y, psnr_cb, psnr_cr; luma only for gray)", kProvided, {}};
  return descriptor;
}

PsnrCpuStage::PsnrCpuStage(const PsnrDsp& dsp) : dsp_(&dsp) {}

PsnrSums PsnrCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  PsnrSums sums;
  for (unsigned p = 0; p < ref.plane_count(); ++p)
    sums.sse[p] = plane_sse(ref.planes[p], dist.planes[p], ref.bpc, *dsp_, *runner_);
  return sums;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<PsnrSums> make_stage) {
  return std::make_unique<PsnrExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [](const PictureFormat&) {
    return std::make_unique<PsnrCpuStage>(psnr_dsp(cpu::flags()));  // chosen once per stream
  });
}

}  // namespace vmafexact::psnr
