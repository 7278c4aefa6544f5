// Which SIMD table the CPU mask selects (metrics/common/cpu.h). The twins
// themselves are checked against the scalar references by the twin harness
// (tests/harness/, vmafexact-checktwins).
#include <gtest/gtest.h>

#include <cstdio>

#include "adm/adm_dsp.h"
#include "common/cpu.h"
#include "motion/motion_dsp.h"
#include "psnr/psnr_dsp.h"
#include "vif/vif.h"
#include "vif/vif_dsp.h"

using namespace vmafexact;
using namespace vmafexact::vif;

namespace {

TEST(CpuMask, MaskSelectsTheTable) {
  const unsigned saved = cpu::set_cpu_mask(0);
  EXPECT_EQ(cpu::flags(), 0u);
  EXPECT_STREQ(vif_dsp(cpu::flags()).isa, "scalar");
  VifCpuStage kernel(16, 16, 8, VifParams{});
  EXPECT_STREQ(kernel.dsp().isa, "scalar");
  cpu::set_cpu_mask(cpu::kAllFlags);
  EXPECT_EQ(cpu::flags(), cpu::detected_flags());
  EXPECT_STREQ(vif_dsp(cpu::flags()).isa, cpu::best_isa_name(cpu::detected_flags()));
  cpu::set_cpu_mask(cpu::kAvx2);
  EXPECT_EQ(cpu::flags() & cpu::kAvx512, 0u);
  cpu::set_cpu_mask(saved);
  EXPECT_STREQ(adm::adm_dsp(0).isa, "scalar");
  EXPECT_STREQ(adm::adm_dsp(cpu::detected_flags()).isa, cpu::best_isa_name(cpu::detected_flags()));
  EXPECT_STREQ(motion::motion_dsp(0).isa, "scalar");
  EXPECT_STREQ(psnr::psnr_dsp(0).isa, "scalar");
  EXPECT_STREQ(psnr::psnr_dsp(cpu::detected_flags()).isa,
               cpu::best_isa_name(cpu::detected_flags()));
  EXPECT_STREQ(motion::motion_dsp(cpu::detected_flags()).isa,
               cpu::best_isa_name(cpu::detected_flags()));
  std::printf(
      "[ cpu      ] detected: %s; mask 0x%x; VIF runs: %s; ADM runs: %s; motion runs: %s; "
      "psnr runs: %s\n",
      cpu::best_isa_name(cpu::detected_flags()), cpu::cpu_mask(), vif_dsp(cpu::flags()).isa,
      adm::adm_dsp(cpu::flags()).isa, motion::motion_dsp(cpu::flags()).isa,
      psnr::psnr_dsp(cpu::flags()).isa);
}

}  // namespace
