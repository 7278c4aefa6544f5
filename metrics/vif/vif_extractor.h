// integer VIF (libvmaf's "vif", integer_vif.c).
#pragma once

#include <memory>
#include <optional>

#include "common/feature_extractor.h"
#include "vif/vif.h"

namespace vmafexact::vif {

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_vif_extractor(const FeatureOptions& options);

// libvmaf's "vif" extractor. Options, as libvmaf takes them (by full name):
//   vif_enhn_gain_limit  double in [1, 100], default 100; score suffix _egl_<%g>
//   vif_skip_scale0      bool, default false; score suffix _ssclz
//   debug                bool, default false; adds integer_vif, integer_vif_num,
//                        integer_vif_den and integer_vif_{num,den}_scale0..3
class IntegerVifExtractor final : public FeatureExtractor {
 public:
  IntegerVifExtractor(const VifParams& params, bool debug) : params_(params), debug_(debug) {}

  std::string_view name() const override { return "vif"; }
  std::vector<std::string> provided_features() const override;
  std::string score_key(std::string_view provided_name) const override;
  void init(const PictureFormat& format) override;
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

  // The options as read, and the finishing step of extract() on its own: the
  // scores of one frame's accumulators, appended under this extractor's keys in
  // libvmaf's order (after init()). Used by the CUDA twin.
  const VifParams& params() const { return params_; }
  void append_scores(const FrameSums& sums, unsigned index, FeatureCollector& scores) const;

 private:
  VifParams params_;
  bool debug_ = false;
  std::optional<VifKernel> kernel_;
  BandRunner* runner_ = &serial_band_runner();
  std::vector<std::string> keys_;  // score_key() of provided_features(), in order
};

}  // namespace vmafexact::vif
