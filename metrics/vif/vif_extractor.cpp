#include "vif/vif_extractor.h"

#include "common/error.h"

namespace vmafexact::vif {

std::unique_ptr<FeatureExtractor> make_integer_vif_extractor(const FeatureOptions& options) {
  (void)options;
  throw Error("feature 'vif' is not implemented yet");
}

}  // namespace vmafexact::vif
