// The built-in VMAF models: vmaf_v0.6.1, vmaf_v0.6.1neg and vmaf_4k_v0.6.1.
//
// The parameters are Netflix's published VMAF models (libvmaf 3.2.0's
// model/*.json; Copyright Netflix, Inc., BSD+Patent licence), held here as
// C++ constants in builtin_models_data.inc, which gen_builtin_models.py wrote
// from those files: every number a hexadecimal floating literal equal to the
// double libvmaf parses from the published decimal text. They become the same
// Model::Data a model file gives, checked by the same check_model_data().
#include <array>
#include <cstdint>
#include <span>

#include "model/model_data.h"

namespace vmafexact::model {

namespace {

constexpr std::size_t kFeatures = 6;

struct BuiltinFeature {
  const char* name;
  const char* option;  // nullptr: no option
  const char* value;   // the option's text as libvmaf normalises it ("%g")
};

struct BuiltinSupportVector {
  double coefficient;
  std::uint8_t present;  // bit i: the libsvm line lists feature index i + 1
  std::array<double, kFeatures> values;
};

struct BuiltinModel {
  const char* version;
  std::array<BuiltinFeature, kFeatures> features;
  std::array<double, kFeatures + 1> slopes;
  std::array<double, kFeatures + 1> intercepts;
  double clip_min, clip_max;
  bool has_transform;  // p0, p1, p2 given; rectification out_gte_in
  double p0, p1, p2;
  bool out_gte_in;
  double gamma, rho;  // nu_svr, rbf kernel, nr_class 2
  std::span<const BuiltinSupportVector> support_vectors;
};

#include "model/builtin_models_data.inc"

constexpr std::array<const BuiltinModel*, 3> kBuiltins = {&kVmafV061, &kVmafV061Neg,
                                                          &kVmaf4kV061};

std::unique_ptr<Model::Data> to_data(const BuiltinModel& b) {
  auto data = std::make_unique<Model::Data>();
  data->name = b.version;
  for (const auto& f : b.features) {
    ModelFeature feature{f.name, {}};
    if (f.option) feature.options.emplace_back(f.option, f.value);
    data->features.push_back(std::move(feature));
  }
  data->normalization = Normalization::linear_rescale;
  data->slopes.assign(b.slopes.begin(), b.slopes.end());
  data->intercepts.assign(b.intercepts.begin(), b.intercepts.end());
  data->clip = true;
  data->clip_min = b.clip_min;
  data->clip_max = b.clip_max;
  if (b.has_transform) {
    ScoreTransform& t = data->transform;
    t.present = true;  // not "enabled": applied only with enable_transform
    t.p0 = {true, b.p0};
    t.p1 = {true, b.p1};
    t.p2 = {true, b.p2};
    t.out_gte_in = b.out_gte_in;
  }
  Svm& svm = data->svm;
  svm.kernel = Kernel::rbf;
  svm.gamma = b.gamma;
  svm.rho = b.rho;
  for (const auto& sv : b.support_vectors) {
    svm.coefficients.push_back(sv.coefficient);
    svm.sv_begin.push_back(svm.nodes.size());
    for (std::size_t i = 0; i < kFeatures; ++i)
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

}  // namespace vmafexact::model
