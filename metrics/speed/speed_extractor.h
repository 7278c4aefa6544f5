// libvmaf's SpEED extractors "speed_chroma" and "speed_temporal" (speed.c)
// over a stage of any backend (only the CPU's so far).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/feature_stage.h"
#include "speed/speed.h"

namespace vmafexact::speed {

// Names, provided features and options, as libvmaf declares them.
const FeatureDescriptor& chroma_descriptor();
const FeatureDescriptor& temporal_descriptor();

// The parameters of the arithmetic, from parsed options of either extractor
// (speed_temporal has no speed_weight_var_mode: libvmaf leaves it 0). Throws
// vmafexact::Error for a kernel scale outside libvmaf's table or an unknown
// prescale method (libvmaf logs an error and then crashes).
SpeedParams params_of(const OptionValues& options);

// The geometry of a picture of width x height for `params`; throws
// vmafexact::Error, naming `extractor` and what the picture is, where
// libvmaf would crash or read memory it never wrote: fewer than one 5x5
// block after prescaling and 16x decimation (a scaled side below 80), or a
// prescale within 1e-3 of 1 that rounds a side up (libvmaf then filters a
// column or row it never filled).
// `hint` is appended to the size error.
SpeedGeometry checked_geometry(std::string_view extractor, std::string_view what, unsigned width,
                               unsigned height, const SpeedParams& params, std::string_view hint);

// speed_chroma's frame: the U and V planes' scores (speed_extract_score).
struct ChromaSums {
  SpeedScore u, v;
  bool operator==(const ChromaSums&) const = default;
};

// The CPU stage of speed_chroma: both chroma planes of the pair, through the
// best DSP table cpu::flags() allows or a given one.
class SpeedChromaCpuStage final : public FeatureStage<ChromaSums> {
 public:
  SpeedChromaCpuStage(const SpeedGeometry& chroma, const SpeedParams& params, const SpeedDsp& dsp);
  ChromaSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  SpeedKernel kernel_;
  const SpeedDsp* dsp_;
};

// speed_temporal's frame: nullopt for the first frame (libvmaf writes 0), else
// the score of the luma differences previous - current.
using TemporalSums = std::optional<float>;

// The CPU stage of speed_temporal: keeps the previous frame's luma of both
// pictures.
class SpeedTemporalCpuStage final : public FeatureStage<TemporalSums> {
 public:
  SpeedTemporalCpuStage(const PictureFormat& format, const SpeedGeometry& luma,
                        const SpeedParams& params, bool use_ref_diff, const SpeedDsp& dsp);
  TemporalSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  PictureFormat format_;
  bool use_ref_diff_;
  SpeedKernel kernel_;
  const SpeedDsp* dsp_;
  std::vector<std::uint8_t> previous_ref_, previous_dis_;  // empty before the first frame
};

// The extractors over the stages `make_stage` makes, and over the CPU stages
// (the registry's CPU factories).
using ChromaStageFactory = std::function<std::unique_ptr<FeatureStage<ChromaSums>>(
    const PictureFormat&, const SpeedGeometry& chroma, const SpeedParams&)>;
using TemporalStageFactory = std::function<std::unique_ptr<FeatureStage<TemporalSums>>(
    const PictureFormat&, const SpeedGeometry& luma, const SpeedParams&, bool use_ref_diff)>;
std::unique_ptr<FeatureExtractor> make_chroma_extractor(const OptionValues& options,
                                                        ChromaStageFactory make_stage);
std::unique_ptr<FeatureExtractor> make_temporal_extractor(const OptionValues& options,
                                                          TemporalStageFactory make_stage);
std::unique_ptr<FeatureExtractor> make_chroma_cpu_extractor(const OptionValues& options);
std::unique_ptr<FeatureExtractor> make_temporal_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::speed
