// integer motion (libvmaf's "motion", integer_motion.c).
#pragma once

#include <memory>

#include "common/feature_extractor.h"

namespace vmafexact::motion {

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(const FeatureOptions& options);

}  // namespace vmafexact::motion
