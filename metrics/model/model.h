// VMAF models: libvmaf's JSON model files (one loader for built-in and user
// files) and libvmaf 3.2.0's per-frame prediction arithmetic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/feature_options.h"

namespace vmafexact::model {

// One input of a model, as its file names it.
struct ModelFeature {
  std::string name;        // e.g. "VMAF_integer_feature_adm2_score" (the model's feature_names)
  FeatureOptions options;  // from feature_opts_dicts, e.g. {{"adm_enhn_gain_limit", "1"}}
};

struct PredictOptions {
  bool disable_clip = false;      // libvmaf's VMAF_MODEL_FLAG_DISABLE_CLIP
  bool enable_transform = false;  // libvmaf's VMAF_MODEL_FLAG_ENABLE_TRANSFORM
};

class Model {
 public:
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  // The model's name: its version for a built-in one ("vmaf_v0.6.1"); "vmaf"
  // for one loaded from JSON (libvmaf's name for a model given no name=, also
  // when loaded from a path); or what set_name() chose.
  const std::string& name() const;
  void set_name(std::string name);

  // Inputs, in the order predict() takes their values.
  const std::vector<ModelFeature>& features() const;
  // Replaces the options of input `index` (a model feature overload).
  void set_feature_options(std::size_t index, FeatureOptions options);

  // libvmaf's per-frame score: normalise each feature, nu-SVR RBF prediction,
  // denormalise, optional score transform, clip — the same double operations in
  // the same order as libvmaf 3.2.0's predict.c and svm.cpp.
  double predict(std::span<const double> feature_values, const PredictOptions& options) const;
  // The same before the transform and the clip (libvmaf's flags
  // VMAF_MODEL_FLAG_DISABLE_TRANSFORM | VMAF_MODEL_FLAG_DISABLE_CLIP): what a
  // bootstrap collection's statistics are formed from.
  double predict_unfinished(std::span<const double> feature_values) const;
  // predict()'s transform and clip applied to `score`.
  double finish(double score, const PredictOptions& options) const;

  struct Data;  // the parsed parameters (model/model_data.h)
  explicit Model(std::unique_ptr<Data> data);
  const Data& data() const;

 private:
  std::unique_ptr<Data> data_;
};

// Names of the models built into vmafexact.
std::vector<std::string> builtin_model_names();
// Names of the bootstrap model collections built in (libvmaf's too).
std::vector<std::string> builtin_collection_names();

// Throws vmafexact::Error naming the known versions.
Model load_builtin_model(std::string_view version);

// The largest model file read (libvmaf's models are under 1 MB).
inline constexpr std::uintmax_t kMaxModelFileBytes = 64u << 20;

// Throws vmafexact::Error naming the file and the missing or malformed field,
// or for anything but a regular file of at most kMaxModelFileBytes.
Model load_model_file(const std::filesystem::path& path);
Model load_model_json(std::string_view json_text, std::string_view origin);

// A model file that may also be a bootstrap model collection (libvmaf's
// VmafModelCollection, e.g. vmaf_b_v0.6.3.json: top-level keys "0", "1", ...,
// each a model): libvmaf scores model "0" as any model and models "1" on as
// the collection. For a plain model file `bootstrap` is empty.
struct ModelFile {
  Model model;
  std::vector<Model> bootstrap;
};
// A built-in model or bootstrap collection; throws vmafexact::Error naming the
// known versions.
ModelFile load_builtin_model_or_collection(std::string_view version);
ModelFile load_model_file_or_collection(const std::filesystem::path& path);
ModelFile load_model_json_or_collection(std::string_view json_text, std::string_view origin);

// A bootstrap collection's per-frame statistics, as libvmaf's
// vmaf_bootstrap_predict_score_at_index() forms them from its models'
// unfinished predictions (in collection order), finished with the first
// model's transform and clip (`first`, `options`).
struct BootstrapScores {
  double bagging, stddev, ci_p95_lo, ci_p95_hi;
};
BootstrapScores bootstrap_scores(std::vector<double> unfinished, const Model& first,
                                 const PredictOptions& options);

}  // namespace vmafexact::model
