// ADM option sets the CUDA checks score with (tests/cuda, tests/harness):
// defaults and every option that changes the arithmetic or the names.
#pragma once

#include <string>
#include <vector>

#include "common/feature_options.h"

namespace vmafexact::test {

struct NamedAdmOptions {
  std::string label;
  FeatureOptions options;
};

inline const std::vector<NamedAdmOptions>& option_sets() {
  static const std::vector<NamedAdmOptions> sets = {
      {"defaults", {}},
      {"egl=1", {{"adm_enhn_gain_limit", "1"}}},
      {"egl=1.2 nw=0.02 min=0.5 dlmw=0.7", {{"adm_enhn_gain_limit", "1.2"}, {"adm_noise_weight", "0.02"},
                                            {"adm_min_val", "0.5"}, {"adm_dlm_weight", "0.7"}}},
      {"skip_aim", {{"adm_skip_aim", "true"}}},
      {"skip_scale0", {{"adm_skip_scale0", "true"}}},
      {"nvd=4 rdh=2160", {{"adm_norm_view_dist", "4"}, {"adm_ref_display_height", "2160"}}},
      {"nvd=3 rdh=1081 debug", {{"adm_ref_display_height", "1081"}, {"debug", "true"}}},
      // VMAF v1's ADM (vmaf_v1.0.16_3d0h) and its 4K variant.
      {"v1 csf=2", {{"adm_dlm_weight", "0.7"}, {"adm_enhn_gain_limit", "1"}, {"adm_noise_weight", "0.02"},
                    {"adm_min_val", "0.5"}, {"adm_csf_mode", "2"}}},
      {"csf=3 nvd=1.5 rdh=2160", {{"adm_csf_mode", "3"}, {"adm_norm_view_dist", "1.5"},
                                  {"adm_ref_display_height", "2160"}}},
      // Barten's CSF: weights above 1, wrapped in fixed point as in libvmaf.
      {"csf=1 scf=0.5 scfd=2", {{"adm_csf_mode", "1"}, {"adm_csf_scale", "0.5"},
                                {"adm_csf_diag_scale", "2"}}},
  };
  return sets;
}

}  // namespace vmafexact::test
