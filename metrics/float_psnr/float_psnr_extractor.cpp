#include "float_psnr/float_psnr_extractor.h"

namespace vmafexact::float_psnr {

namespace {

constexpr std::string_view kProvided[] = {"float_psnr"};

class FloatPsnrExtractor final : public StagedExtractor<FloatPsnrSums> {
 public:
  using StagedExtractor::StagedExtractor;
  bool reads_chroma() const override { return false; }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_psnr", format.bpc);
    if (format.width == 0 || format.height == 0) throw Error("float_psnr: empty picture");
  }
  void finish(const FloatPsnrSums& sums, unsigned index, FeatureCollector& scores) override {
    const PictureFormat& f = format();
    scores.append(key(0), index, float_psnr_from_noise(sums.noise, f.width, f.height, f.bpc));
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "float_psnr",
      "luma PSNR of libvmaf's float extractor (float_psnr), with its peak and cap per bit depth",
      kProvided,
      {}};
  return descriptor;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FloatPsnrSums> make_stage) {
  return std::make_unique<FloatPsnrExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options,
                        [](const PictureFormat&) { return std::make_unique<FloatPsnrCpuStage>(); });
}

}  // namespace vmafexact::float_psnr
