// integer ADM (libvmaf's "adm", integer_adm.c).
#pragma once

#include <memory>

#include "common/feature_extractor.h"

namespace vmafexact::adm {

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_adm_extractor(const FeatureOptions& options);

}  // namespace vmafexact::adm
