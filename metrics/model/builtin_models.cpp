// The built-in VMAF models, as libvmaf builds them in with its float extractors:
// vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, the float
// models vmaf_float_v0.6.1, vmaf_float_v0.6.1neg and vmaf_float_4k_v0.6.1, the
// eight VMAF v1 models (vmaf_v1.0.16_*, with the hfr variants), and the
// bootstrap collections vmaf_b_v0.6.3 and vmaf_float_b_v0.6.3.
//
// The parameters are Netflix's published VMAF models (libvmaf's model/*.json
// at f85a8536; Copyright Netflix, Inc., BSD+Patent licence), held here as
// C++ constants in builtin_models_data.inc, which gen_builtin_models.py wrote
// from those files: every number a hexadecimal floating literal equal to the
// double libvmaf parses from the published decimal text, every feature option
// the file's own text. They become the same Model::Data a model file gives,
// checked by the same check_model_data().
#include <array>
#include <cstdint>
#include <span>

#include "model/model_data.h"

namespace vmafexact::model {

namespace {

constexpr std::size_t kMaxBuiltinFeatures = 6;

struct BuiltinOption {
  const char* name;
  const char* text;  // a number's JSON text, or a boolean's or string's libvmaf text
  bool number;       // normalised as libvmaf normalises numbers (strtof, "%g")
};

struct BuiltinFeature {
  const char* name;
  std::span<const BuiltinOption> options;
};

struct BuiltinSupportVector {
  double coefficient;
  std::uint8_t present;  // bit i: the libsvm line lists feature index i + 1
  std::array<double, kMaxBuiltinFeatures> values;  // the model's features first, then zeros
};

struct BuiltinTransform {
  bool present;  // the file has a score_transform (with p0, p1 and p2)
  bool enabled;  // ... which says "enabled": true
  double p0, p1, p2;
  bool out_gte_in;
};

struct BuiltinChromaCorrection {
  bool present;
  double parameter;
};

struct BuiltinModel {
  const char* version;
  std::span<const BuiltinFeature> features;
  std::span<const double> slopes;      // prediction's, then one per feature
  std::span<const double> intercepts;
  double clip_min, clip_max;
  BuiltinTransform transform;
  BuiltinChromaCorrection chroma_correction;
  double gamma, rho;  // nu_svr, rbf kernel, nr_class 2
  std::span<const BuiltinSupportVector> support_vectors;
};

#include "model/builtin_models_data.inc"

// The bootstrap model collections libvmaf builds in: model "0" first.
struct BuiltinCollection {
  const char* version;
  std::span<const BuiltinModel* const> models;
};

constexpr std::array<BuiltinCollection, 2> kCollections = {{
    {"vmaf_b_v0.6.3", kVmafBV063Models},
    {"vmaf_float_b_v0.6.3", kVmafFloatBV063Models},
}};

constexpr std::array<const BuiltinModel*, 15> kBuiltins = {
    &kVmafV061,           &kVmafV061Neg,          &kVmaf4kV061,
    &kVmaf4kV061Neg,      &kVmafFloatV061,        &kVmafFloatV061Neg,
    &kVmafFloat4kV061,    &kVmafV1016x3d0h,       &kVmafV1016x5d0h,
    &kVmafV1016x3d0h2160, &kVmafV1016x1d5h2160,   &kVmafV1016Hfr3d0h,
    &kVmafV1016Hfr5d0h,   &kVmafV1016Hfr3d0h2160, &kVmafV1016Hfr1d5h2160,
};

std::unique_ptr<Model::Data> to_data(const BuiltinModel& b) {
  auto data = std::make_unique<Model::Data>();
  data->name = b.version;
  for (const auto& f : b.features) {
    ModelFeature feature{f.name, {}};
    for (const auto& o : f.options)
      feature.options.emplace_back(o.name, o.number ? normalized_option_number(o.text) : o.text);
    data->features.push_back(std::move(feature));
  }
  data->normalization = Normalization::linear_rescale;
  data->slopes.assign(b.slopes.begin(), b.slopes.end());
  data->intercepts.assign(b.intercepts.begin(), b.intercepts.end());
  data->clip = true;
  data->clip_min = b.clip_min;
  data->clip_max = b.clip_max;
  if (b.transform.present) {
    ScoreTransform& t = data->transform;
    t.present = true;
    t.enabled = b.transform.enabled;  // otherwise applied only with enable_transform
    t.p0 = {true, b.transform.p0};
    t.p1 = {true, b.transform.p1};
    t.p2 = {true, b.transform.p2};
    t.out_gte_in = b.transform.out_gte_in;
  }
  data->chroma_correction = {b.chroma_correction.present, b.chroma_correction.parameter};
  Svm& svm = data->svm;
  svm.kernel = Kernel::rbf;
  svm.gamma = b.gamma;
  svm.rho = b.rho;
  const std::size_t features = b.features.size();
  for (const auto& sv : b.support_vectors) {
    svm.coefficients.push_back(sv.coefficient);
    svm.sv_begin.push_back(svm.nodes.size());
    for (std::size_t i = 0; i < features; ++i)
      if (sv.present & (1u << i)) svm.nodes.push_back({static_cast<int>(i) + 1, sv.values[i]});
  }
  svm.sv_begin.push_back(svm.nodes.size());
  check_model_data(*data, std::string("built-in model ") + b.version);
  return data;
}

}  // namespace

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const BuiltinModel* b : kBuiltins) names.emplace_back(b->version);
  return names;
}

std::unique_ptr<Model::Data> builtin_model_data(std::string_view version) {
  for (const BuiltinModel* b : kBuiltins)
    if (version == b->version) return to_data(*b);
  return nullptr;
}

std::vector<std::string> builtin_collection_names() {
  std::vector<std::string> names;
  for (const auto& collection : kCollections) names.emplace_back(collection.version);
  return names;
}

std::vector<std::unique_ptr<Model::Data>> builtin_collection_data(std::string_view version) {
  std::vector<std::unique_ptr<Model::Data>> models;
  for (const auto& collection : kCollections)
    if (version == collection.version)
      for (const BuiltinModel* b : collection.models) models.push_back(to_data(*b));
  return models;
}

}  // namespace vmafexact::model
