#include "psnr_hvs/psnr_hvs_extractor.h"

namespace vmafexact::psnr_hvs {

namespace {

constexpr std::string_view kProvided[] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};

class PsnrHvsExtractor final : public StagedExtractor<PsnrHvsSums> {
 public:
  using StagedExtractor::StagedExtractor;

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("psnr_hvs", format.bpc);
    if (format.bpc > 12)
      throw Error("psnr_hvs: libvmaf scores at most 12 bits per sample; this video has " +
                  std::to_string(format.bpc) + " (convert it to 12 bits or fewer)");
    if (format.chroma == ChromaFormat::k400)
      throw Error("psnr_hvs: needs chroma planes (libvmaf refuses gray video)");
    // Below one 8x8 block a plane adds no term, and libvmaf's score is 0/0 (NaN).
    const unsigned chroma_w = chroma_plane_width(format.width, format.chroma);
    const unsigned chroma_h = chroma_plane_height(format.height, format.chroma);
    if (format.width < kBlock || format.height < kBlock || chroma_w < kBlock || chroma_h < kBlock)
      throw Error(
          "psnr_hvs: every plane must be at least 8x8 (libvmaf scores NaN below); this "
          "video's luma is " +
          size_text(format.width, format.height) + " and its chroma " +
          size_text(chroma_w, chroma_h));
  }
  void finish(const PsnrHvsSums& sums, unsigned index, FeatureCollector& scores) override {
    const std::array<double, 4> values = scores_of(sums, format().bpc);
    for (std::size_t i = 0; i < values.size(); ++i) scores.append(key(i), index, values[i]);
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "psnr_hvs",
      "PSNR-HVS of each plane (psnr_hvs_y, _cb, _cr) and combined (psnr_hvs): Xiph's DCT-domain "
      "PSNR with contrast masking, up to 12 bits",
      kProvided,
      {}};
  return descriptor;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<PsnrHvsSums> make_stage) {
  return std::make_unique<PsnrHvsExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options,
                        [](const PictureFormat&) { return std::make_unique<PsnrHvsCpuStage>(); });
}

}  // namespace vmafexact::psnr_hvs
