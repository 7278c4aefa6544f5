#include "float_moment/float_moment_extractor.h"

namespace vmafexact::float_moment {

namespace {

// libvmaf's provided_features names only "float_moment"; the scores it writes
// are these four (models could find the extractor by the first).
constexpr std::string_view kProvided[] = {"float_moment_ref1st", "float_moment_dis1st",
                                          "float_moment_ref2nd", "float_moment_dis2nd"};

class FloatMomentExtractor final : public StagedExtractor<FloatMomentSums> {
 public:
  using StagedExtractor::StagedExtractor;
  bool reads_chroma() const override { return false; }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_moment", format.bpc);
    if (format.width == 0 || format.height == 0) throw Error("float_moment: empty picture");
  }
  void finish(const FloatMomentSums& sums, unsigned index, FeatureCollector& scores) override {
    const PictureFormat& f = format();
    const double values[] = {sums.ref_first, sums.dist_first, sums.ref_second, sums.dist_second};
    for (std::size_t i = 0; i < std::size(values); ++i)
      scores.append(key(i), index, moment_from_sum(values[i], f.width, f.height));
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "float_moment",
      "first and second moments of the reference's and the distorted luma (float_moment_ref1st, "
      "_dis1st, _ref2nd, _dis2nd)",
      kProvided,
      {}};
  return descriptor;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FloatMomentSums> make_stage) {
  return std::make_unique<FloatMomentExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(
      options, [](const PictureFormat&) { return std::make_unique<FloatMomentCpuStage>(); });
}

}  // namespace vmafexact::float_moment
