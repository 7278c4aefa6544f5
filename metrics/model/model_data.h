// The parsed parameters of a VMAF model (Model::Data). Built-in models and
// model files are both turned into this one structure and checked by the same
// function, so a built-in model predicts exactly as the same model read from
// its JSON file. Private to metrics/model/ and its tests.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace vmafexact::model {

// libsvm's kernel types; the numbering is libsvm's.
enum class Kernel { linear = 0, poly = 1, rbf = 2, sigmoid = 3 };

// One non-zero entry of a support vector: libsvm's 1-based feature index and
// the value, a double as libsvm keeps it.
struct SvmNode {
  int index = 0;
  double value = 0.0;
};

// A libsvm regression model (nu_svr or epsilon_svr; both predict the same way).
struct Svm {
  Kernel kernel = Kernel::rbf;
  int degree = 0;      // poly only
  double gamma = 0.0;  // poly, rbf, sigmoid
  double coef0 = 0.0;  // poly, sigmoid
  double rho = 0.0;
  std::vector<double> coefficients;   // one per support vector
  std::vector<SvmNode> nodes;         // all support vectors' entries, in file order
  std::vector<std::size_t> sv_begin;  // support vector i is nodes[sv_begin[i], sv_begin[i+1])
  std::size_t support_vector_count() const { return coefficients.size(); }
};

struct OptionalParameter {
  bool enabled = false;
  double value = 0.0;
};

struct Knot {
  double x = 0.0;
  double y = 0.0;
};

// libvmaf's score_transform object.
struct ScoreTransform {
  bool present = false;  // the model has a score_transform object
  bool enabled = false;  // ... and it says "enabled": true
  OptionalParameter p0, p1, p2;
  bool knots_enabled = false;
  std::vector<Knot> knots;
  bool out_lte_in = false;
  bool out_gte_in = false;
};

enum class Normalization { none, linear_rescale };

struct Model::Data {
  std::string name;
  std::string type = "LIBSVMNUSVR";  // model_type (bootstrap types predict alike)
  std::vector<ModelFeature> features;
  Normalization normalization = Normalization::none;
  // linear_rescale: slopes[0]/intercepts[0] map the prediction, slopes[i+1] /
  // intercepts[i+1] feature i. Empty with norm_type "none".
  std::vector<double> slopes;
  std::vector<double> intercepts;
  bool clip = false;
  double clip_min = 0.0;
  double clip_max = 0.0;
  ScoreTransform transform;
  // libvmaf's chroma_from_luma: with a chroma_correction_parameter c, a frame
  // whose SpEED chroma input is 0 has it replaced by c * (1 - adm3) (VMAF v1).
  OptionalParameter chroma_correction;
  Svm svm;
};

// The features chroma correction reads, found as libvmaf finds them: the one
// feature whose name contains "adm3" (guiding) and the one containing
// "speed_chroma" (guided).
inline constexpr std::string_view kChromaGuidingFeature = "adm3";
inline constexpr std::string_view kChromaGuidedFeature = "speed_chroma";

// The limits libvmaf's model reader has (MAX_FEATURE_COUNT, MAX_KNOT_COUNT).
inline constexpr std::size_t kMaxFeatures = 64;
inline constexpr std::size_t kMaxKnots = 10;

// Checks what both loading paths must satisfy (feature and parameter counts,
// knots, support vectors); throws vmafexact::Error naming `origin` and the field.
void check_model_data(const Model::Data& data, std::string_view origin);

// Parses libsvm's model text as libvmaf's svm.cpp reads it; `origin` names the
// model file in errors.
Svm parse_libsvm_text(std::string_view text, std::string_view origin);

// The parsed data of a built-in model, or nullptr for an unknown version.
std::unique_ptr<Model::Data> builtin_model_data(std::string_view version);
// The models of a built-in bootstrap collection, model "0" first; empty for an
// unknown version.
std::vector<std::unique_ptr<Model::Data>> builtin_collection_data(std::string_view version);

// A collection's models, model "0" first, as a ModelFile (both loading paths).
ModelFile model_file_of(std::vector<std::unique_ptr<Model::Data>> models);

// libvmaf's normalisation of a numeric option value from a model file: the JSON
// number's text read as a float (strtof), printed with "%g".
std::string normalized_option_number(std::string_view json_number_text);

}  // namespace vmafexact::model
