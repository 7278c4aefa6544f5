// The feature registry: one entry per extractor, the one place that lists
// them. Feature lists are parsed, option errors worded, the element's property
// help written, the CUDA backend's twins made and the twin harness's checks
// found through it (docs/architecture.md, "Adding a feature").
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/feature_extractor.h"
#include "common/feature_stage.h"
#include "factories.h"

namespace vmafexact {

struct FeatureEntry {
  const FeatureDescriptor& descriptor;  // name, provided features, option table
  CpuFactory make_cpu;                  // the scalar reference and its SIMD twins
  CudaFactory make_cuda;                // the CUDA twin; null where there is none
  // The twin harness's check of this feature's stages (tests/harness/).
  std::string_view harness;
  // Options its CUDA twin does not compute; null where it computes them all.
  CudaRefusal cuda_refusal = nullptr;

  std::string_view name() const { return descriptor.name; }
};

// Every extractor, in the order feature lists name them.
std::span<const FeatureEntry> feature_registry();

// The entry of an extractor by libvmaf's name; throws vmafexact::Error listing
// the known names.
const FeatureEntry& feature_entry(std::string_view name);

// The entry whose extractor provides a libvmaf feature name (as models name
// their inputs, e.g. "VMAF_integer_feature_vif_scale0_score"), or null.
const FeatureEntry* feature_entry_providing(std::string_view provided_feature);

// Which backend's twin make_feature_extractor() makes.
enum class Backend { kCpu, kCuda };

// Why `name` with these options cannot be scored by a CUDA twin: it has none
// (in this build), or its twin refuses the options; empty where it can.
// Throws vmafexact::Error for an unknown name or a bad option.
std::string cuda_twin_refusal(std::string_view name, const FeatureOptions& options = {});

// Creates an extractor by name with options in libvmaf's text form; throws
// vmafexact::Error for an unknown name, a bad option, or a feature without a
// twin on `backend` (cuda_twin_refusal()). CUDA twins enqueue their work on
// `stream`.
std::unique_ptr<FeatureExtractor> make_feature_extractor(std::string_view name,
                                                         const FeatureOptions& options = {},
                                                         Backend backend = Backend::kCpu,
                                                         CudaStream stream = nullptr);

// Whether this build has CUDA twins at all.
bool cuda_twins_built();

// Every feature with its options, on one line for users:
// "adm (options: debug, ...); ...; psnr (no options)".
std::string describe_features();

}  // namespace vmafexact
