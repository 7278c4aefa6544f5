// integer VIF (libvmaf's "vif", integer_vif.c).
#pragma once

#include <memory>

#include "common/feature_extractor.h"

namespace vmafexact::vif {

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_vif_extractor(const FeatureOptions& options);

}  // namespace vmafexact::vif
