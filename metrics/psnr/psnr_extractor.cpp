#include "psnr/psnr_extractor.h"

#include "common/error.h"
#include "common/cpu.h"
#include "psnr/psnr.h"
#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {

namespace {
constexpr std::array<const char*, 3> kScoreNames = {"psnr_y", "psnr_cb", "psnr_cr"};
}

std::unique_ptr<FeatureExtractor> make_psnr_extractor(const FeatureOptions& options) {
  // libvmaf's psnr options (enable_chroma, enable_mse, enable_apsnr,
  // reduced_hbd_peak, min_sse) are not offered yet: any option is an error.
  OptionReader reader("psnr", options);
  reader.finish();
  return std::make_unique<PsnrExtractor>();
}

void PsnrExtractor::init(const PictureFormat& format) {
  if (!is_supported_bpc(format.bpc))
    throw Error("psnr: unsupported bit depth " + std::to_string(format.bpc) +
                " (libvmaf takes 8, 10, 12 or 16)");
  if (format.width == 0 || format.height == 0) throw Error("psnr: empty picture");
  format_ = format;
  psnr_max_.fill(default_psnr_max(format.bpc));
}

void PsnrExtractor::extract(const PictureView& ref, const PictureView& dist, unsigned index,
                            FeatureCollector& scores) {
  const unsigned plane_count = ref.plane_count();
  for (unsigned p = 0; p < plane_count; ++p) {
    const PlaneView& ref_plane = ref.planes[p];
    // A 4:2:0 or 4:2:2 picture one pixel wide or high has empty chroma planes in
    // libvmaf's layout: mse is then 0/0, its max() with 1e-16 picks 1e-16, and the
    // score is psnr_max, as libvmaf reports it.
    const std::uint64_t sse =
        plane_sse(ref_plane, dist.planes[p], ref.bpc, psnr_dsp(cpu::flags()), *runner_);
    scores.append(kScoreNames[p], index,
                  psnr_from_sse(sse, ref_plane.width, ref_plane.height, ref.bpc, psnr_max_[p]));
  }
}

}  // namespace vmafexact::psnr
