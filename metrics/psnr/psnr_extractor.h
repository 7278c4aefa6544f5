#pragma once

#include <array>
#include <memory>

#include "common/feature_extractor.h"

namespace vmafexact::psnr {

std::unique_ptr<FeatureExtractor> make_psnr_extractor(const FeatureOptions& options);

// libvmaf's "psnr" extractor with its default options: psnr_y, and psnr_cb and
// psnr_cr unless the picture is gray.
class PsnrExtractor final : public FeatureExtractor {
 public:
  std::string_view name() const override { return "psnr"; }
  std::vector<std::string> provided_features() const override {
    return {"psnr_y", "psnr_cb", "psnr_cr"};
  }
  std::string score_key(std::string_view provided_name) const override {
    return std::string(provided_name);
  }
  bool sees_every_frame() const override { return true; }  // libvmaf flags psnr TEMPORAL
  void init(const PictureFormat& format) override;
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  BandRunner* runner_ = &serial_band_runner();
  PictureFormat format_{};
  std::array<double, 3> psnr_max_{};
};

}  // namespace vmafexact::psnr
