// integer ADM (libvmaf's "adm", integer_adm.c).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adm/adm.h"
#include "common/feature_extractor.h"

namespace vmafexact::adm {

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_adm_extractor(const FeatureOptions& options);

// libvmaf's options of "adm" read from FeatureOptions (names, ranges and
// defaults as libvmaf declares them), and those that name its scores.
AdmOptions read_adm_options(const FeatureOptions& options, std::vector<NamedOption>* named);

// The format checks of IntegerAdmExtractor::init() (bit depth, then size),
// shared with the CUDA twin: throws vmafexact::Error as init() does.
void check_adm_format(const PictureFormat& format);

// Writes the scores of one frame as the extractor does: `keys` are the score
// keys of provided_features() in order; the first seven, all with debug.
void append_adm_scores(const AdmScores& scores, const std::vector<std::string>& keys, bool debug,
                       unsigned index, FeatureCollector& collector);

// libvmaf's "adm" extractor: integer_adm2, integer_aim, integer_adm3 and
// integer_adm_scale0..3 of the luma plane (plus num/den values with debug=true).
class IntegerAdmExtractor final : public FeatureExtractor {
 public:
  IntegerAdmExtractor(const AdmOptions& options, std::vector<NamedOption> named);
  std::string_view name() const override { return "adm"; }
  std::vector<std::string> provided_features() const override;
  std::string score_key(std::string_view provided_name) const override;
  void init(const PictureFormat& format) override;
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  AdmOptions options_;
  std::vector<NamedOption> named_;
  std::vector<std::string> keys_;  // score keys in libvmaf's order of writing
  PictureFormat format_{};
  std::optional<AdmComputer> computer_;
  BandRunner* runner_ = &serial_band_runner();
};

}  // namespace vmafexact::adm
