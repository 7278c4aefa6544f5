#include "registry.h"

#include <algorithm>
#include <array>

#include "adm/adm_extractor.h"
#include "cambi/cambi_extractor.h"
#include "ciede/ciede_extractor.h"
#include "common/error.h"
#include "float_adm/float_adm_extractor.h"
#include "float_ansnr/float_ansnr_extractor.h"
#include "float_moment/float_moment_extractor.h"
#include "float_motion/float_motion_extractor.h"
#include "float_psnr/float_psnr_extractor.h"
#include "float_vif/float_vif_extractor.h"
#include "motion/motion_extractor.h"
#include "psnr/psnr_extractor.h"
#include "psnr_hvs/psnr_hvs_extractor.h"
#include "speed/speed_extractor.h"
#include "ssim/ssim_extractor.h"
#include "vif/vif_extractor.h"

#ifdef VMAFEXACT_HAVE_CUDA
#include "cuda_twins.h"
#define VMAFEXACT_CUDA_TWIN(factory) (factory)
#else
#define VMAFEXACT_CUDA_TWIN(factory) nullptr
#endif

namespace vmafexact {

std::span<const FeatureEntry> feature_registry() {
  // One line per extractor: what it is, its CPU and CUDA factories, and its
  // check in the twin harness.
  static const std::array<FeatureEntry, 17> entries = {{
      {adm::descriptor(), adm::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::adm::make_cuda_extractor), "adm"},
      {motion::descriptor(), motion::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::motion::make_cuda_extractor), "motion"},
      {cambi::descriptor(), cambi::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::cambi::make_cuda_extractor), "cambi"},
      {speed::chroma_descriptor(), speed::make_chroma_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::speed::make_chroma_cuda_extractor), "speed_chroma"},
      {speed::temporal_descriptor(), speed::make_temporal_cpu_extractor, nullptr, "speed_temporal"},
      {vif::descriptor(), vif::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::vif::make_cuda_extractor), "vif"},
      {float_motion::descriptor(), float_motion::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::float_motion::make_cuda_extractor), "float_motion"},
      {float_vif::descriptor(), float_vif::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::float_vif::make_cuda_extractor), "float_vif"},
      {float_adm::descriptor(), float_adm::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::float_adm::make_cuda_extractor), "float_adm",
       VMAFEXACT_CUDA_TWIN(cuda::float_adm::cuda_refusal)},
      {psnr::descriptor(), psnr::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::psnr::make_cuda_extractor), "psnr"},
      {ssim::ssim_descriptor(), ssim::make_ssim_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::ssim::make_cuda_extractor), "float_ssim"},
      {ssim::ms_ssim_descriptor(), ssim::make_ms_ssim_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::ssim::make_ms_ssim_cuda_extractor), "float_ms_ssim"},
      {float_psnr::descriptor(), float_psnr::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::float_psnr::make_cuda_extractor), "float_psnr"},
      {float_ansnr::descriptor(), float_ansnr::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::float_ansnr::make_cuda_extractor), "float_ansnr"},
      {float_moment::descriptor(), float_moment::make_cpu_extractor,
       VMAFEXACT_CUDA_TWIN(cuda::float_moment::make_cuda_extractor), "float_moment"},
      {psnr_hvs::descriptor(), psnr_hvs::make_cpu_extractor, nullptr, "psnr_hvs"},
      {ciede::descriptor(), ciede::make_cpu_extractor, nullptr, "ciede"},
  }};
  return entries;
}

namespace {

std::string known_names() {
  std::string known;
  for (const auto& entry : feature_registry())
    known += (known.empty() ? "" : ", ") + std::string(entry.name());
  return known;
}

}  // namespace

const FeatureEntry& feature_entry(std::string_view name) {
  for (const auto& entry : feature_registry())
    if (entry.name() == name) return entry;
  throw Error("unknown feature '" + std::string(name) + "' (available: " + known_names() + ")");
}

const FeatureEntry* feature_entry_providing(std::string_view provided_feature) {
  for (const auto& entry : feature_registry()) {
    const auto& provided = entry.descriptor.provided;
    if (std::find(provided.begin(), provided.end(), provided_feature) != provided.end())
      return &entry;
  }
  return nullptr;
}

bool cuda_twins_built() {
#ifdef VMAFEXACT_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

namespace {

std::string refusal_of(const FeatureEntry& entry, const OptionValues& values) {
  if (!entry.make_cuda)
    return std::string(cuda_twins_built() ? "no CUDA twin yet"
                                          : "no CUDA twin in this build (built without CUDA)");
  if (entry.cuda_refusal) return entry.cuda_refusal(values);
  return {};
}

}  // namespace

std::string cuda_twin_refusal(std::string_view name, const FeatureOptions& options) {
  const FeatureEntry& entry = feature_entry(name);
  return refusal_of(entry, entry.descriptor.parse(options));
}

std::unique_ptr<FeatureExtractor> make_feature_extractor(std::string_view name,
                                                         const FeatureOptions& options,
                                                         Backend backend, CudaStream stream) {
  const FeatureEntry& entry = feature_entry(name);
  const OptionValues values = entry.descriptor.parse(options);
  if (backend == Backend::kCpu) return entry.make_cpu(values);
  if (const std::string why = refusal_of(entry, values); !why.empty())
    throw Error("feature '" + std::string(name) + "': " + why +
                ": score it on the CPU (the element's backend=cpu, which also reads frames in "
                "CUDA memory)");
  return entry.make_cuda(values, stream);
}

std::string describe_features() {
  std::string text;
  for (const auto& entry : feature_registry()) {
    std::string options;
    for (const auto& option : entry.descriptor.options)
      options += (options.empty() ? "" : ", ") + std::string(option.name);
    text += (text.empty() ? "" : "; ") + std::string(entry.name()) + " (" +
            (options.empty() ? std::string("no options") : "options: " + options) + ")";
  }
  return text;
}

}  // namespace vmafexact
