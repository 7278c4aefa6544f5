#include "ciede/ciede_extractor.h"

namespace vmafexact::ciede {

namespace {

constexpr std::string_view kProvided[] = {"ciede2000"};

class CiedeExtractor final : public StagedExtractor<CiedeSums> {
 public:
  using StagedExtractor::StagedExtractor;

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("ciede", format.bpc);
    if (format.chroma == ChromaFormat::k400)
      throw Error("ciede: needs chroma planes (libvmaf refuses gray video)");
    if (format.width == 0 || format.height == 0) throw Error("ciede: empty picture");
    if (!ChromaMap(format).inside())
      throw Error(format.chroma == ChromaFormat::k420
                      ? "ciede: 4:2:0 pictures must have an even width and height (libvmaf's "
                        "chroma upsampling reads past the chroma planes of " +
                            size_text(format.width, format.height) + ")"
                      : "ciede: 4:2:2 pictures this small are not supported (libvmaf's chroma "
                        "upsampling reads past the chroma planes of " +
                            size_text(format.width, format.height) + ")");
  }
  void finish(const CiedeSums& sums, unsigned index, FeatureCollector& scores) override {
    scores.append(key(0), index, ciede_score(sums.sum, format().width, format().height));
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "ciede",
      "CIEDE2000 colour difference as a score (ciede2000: 45 - 20 log10 of the mean difference)",
      kProvided,
      {}};
  return descriptor;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<CiedeSums> make_stage) {
  return std::make_unique<CiedeExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(
      options, [](const PictureFormat& format) { return std::make_unique<CiedeCpuStage>(format); });
}

}  // namespace vmafexact::ciede
