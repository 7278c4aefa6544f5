// The Barten contrast-sensitivity weights of ADM's adm_csf_mode 1..3 (VMAF v1's
// ADM reads mode 2). Mode 0, Watson et al. 1997, is in adm.cpp.
#pragma once

#include <optional>

namespace vmafexact::adm {

// libvmaf's adm_csf_mode values.
enum CsfMode : int {
  kCsfWatson97 = 0,
  kCsfBarten = 1,              // Barten's CSF as HDR-VDP-2 simplifies it
  kCsfBartenWatsonBlend = 2,   // tabulated blend of Barten and Watson (VMAF v1.0.16)
  kCsfBartenWatsonBlendMae = 3,  // the same, re-fitted (libvmaf's "v1.0.17+" tables)
};

// The luminance Barten's CSF is evaluated at (libvmaf's DEFAULT_ADM_CSF_LUM).
inline constexpr double kCsfLuminance = 100.0;

// Mode 1: the weight of DWT level `level` (0 finest .. 3) at a luminance of
// `luminance` cd/m2, times `scale`, as libvmaf's barten_csf() forms it in float.
float barten_csf(int level, double norm_view_dist, int ref_display_height, double luminance,
                 double scale);

// Modes 2 and 3: the tabulated weight of `level` for orientations h and v
// (`diagonal` false) or d, or nothing for a viewing condition without a table
// (libvmaf then uses -EINVAL, -22, as the weight).
std::optional<float> blended_csf(int mode, int level, bool diagonal, double norm_view_dist,
                                 int ref_display_height);

// The viewing conditions modes 2 and 3 have tables for, for error messages.
inline constexpr const char* kBlendedCsfConditions =
    "adm_ref_display_height=480, 720, 1080 or 2160 with adm_norm_view_dist=3.0 or 5.0, "
    "or 2160 with 1.5";

}  // namespace vmafexact::adm
