// The backend-neutral scoring session: the selected extractors, their scores,
// and which frames are final. The GStreamer element and the conformance tests
// both drive this, so the element adds no arithmetic of its own.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/feature_collector.h"
#include "common/feature_extractor.h"

namespace vmafexact {

// Names accepted in the element's `features` property, in the order listed.
const std::vector<std::string>& available_features();

// Splits a comma-separated feature list ("psnr, psnr" -> {"psnr"}); throws
// vmafexact::Error naming an unknown feature and the available ones.
std::vector<std::string> parse_feature_list(std::string_view list);

std::unique_ptr<FeatureExtractor> make_feature_extractor(std::string_view name);

class Scorer {
 public:
  // Throws vmafexact::Error when a feature is unknown or cannot score `format`.
  Scorer(const std::vector<std::string>& features, const PictureFormat& format);

  const PictureFormat& format() const { return format_; }

  // Scores the next pair (index frames_pushed()) and returns the indices of the
  // frames whose scores became final, in order.
  std::vector<unsigned> push(const PictureView& ref, const PictureView& dist);

  // End of stream: flushes held-back scores and returns the frames they finish.
  std::vector<unsigned> finish();

  unsigned frames_pushed() const { return frames_pushed_; }
  unsigned latency_frames() const { return latency_frames_; }
  const FeatureCollector& scores() const { return scores_; }

 private:
  PictureFormat format_;
  std::vector<std::unique_ptr<FeatureExtractor>> extractors_;
  FeatureCollector scores_;
  unsigned frames_pushed_ = 0;
  unsigned frames_final_ = 0;
  unsigned latency_frames_ = 0;
};

}  // namespace vmafexact
