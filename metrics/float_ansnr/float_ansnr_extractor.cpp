#include "float_ansnr/float_ansnr_extractor.h"

namespace vmafexact::float_ansnr {

namespace {

// libvmaf's provided_features names "float_ansnr" only; it writes both.
constexpr std::string_view kProvided[] = {"float_ansnr", "float_anpsnr"};

class FloatAnsnrExtractor final : public StagedExtractor<FloatAnsnrSums> {
 public:
  using StagedExtractor::StagedExtractor;
  bool reads_chroma() const override { return false; }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_ansnr", format.bpc);
    // Below 3 a side libvmaf's mirror reads outside the plane: samples it never wrote.
    if (format.width < kMinSide || format.height < kMinSide)
      throw Error("float_ansnr: pictures must be at least " + size_text(kMinSide, kMinSide) +
                  " (libvmaf's 5x5 filter reads outside smaller ones); this one is " +
                  size_text(format.width, format.height));
  }
  void finish(const FloatAnsnrSums& sums, unsigned index, FeatureCollector& scores) override {
    const PictureFormat& f = format();
    const AnsnrScores s = ansnr_scores(sums, f.width, f.height, f.bpc);
    scores.append(key(0), index, s.ansnr);
    scores.append(key(1), index, s.anpsnr);
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "float_ansnr",
      "libvmaf's anti-noise SNR of the luma (float_ansnr) and its PSNR form (float_anpsnr)",
      kProvided,
      {}};
  return descriptor;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FloatAnsnrSums> make_stage) {
  return std::make_unique<FloatAnsnrExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(
      options, [](const PictureFormat&) { return std::make_unique<FloatAnsnrCpuStage>(); });
}

}  // namespace vmafexact::float_ansnr
