// What vmafexact must compute to reproduce a libvmaf reference log: the models
// and extra features, in the element's property syntax, and which keys are
// compared. Shared by the conformance and the pipeline tests.
#pragma once

#include <string>
#include <vector>

#include "fixtures.h"

namespace vmafexact::test {

// Keys of libvmaf extractors vmafexact does not claim yet (float_* and cambi).
bool is_unclaimed_key(const std::string& key);

struct ReferenceSetup {
  std::string models;    // "model" property: "vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg"
  std::string features;  // "features" property: "psnr,motion"
  std::vector<std::string> expected_keys;  // claimed keys, in the reference's order
  std::vector<std::string> not_yet;        // claimed keys whose feature this build lacks
  std::vector<std::string> unknown;        // keys this function does not know (a test bug)
  bool empty() const { return models.empty() && features.empty(); }
};

ReferenceSetup reference_setup(const ReferenceLog& log);

}  // namespace vmafexact::test
