#include "adm/adm_extractor.h"

#include "common/error.h"

namespace vmafexact::adm {

std::unique_ptr<FeatureExtractor> make_integer_adm_extractor(const FeatureOptions& options) {
  (void)options;
  throw Error("feature 'adm' is not implemented yet");
}

}  // namespace vmafexact::adm
