#include "motion/motion_extractor.h"

#include "common/error.h"

namespace vmafexact::motion {

std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(const FeatureOptions& options) {
  (void)options;
  throw Error("feature 'motion' is not implemented yet");
}

}  // namespace vmafexact::motion
