// VMAF models: Model's accessors, the checks shared by both loading paths, and
// libvmaf 3.2.0's per-frame prediction (predict.c and svm.cpp), one double
// operation at a time in libvmaf's order. See docs/features/model.md.
#include "model/model.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "model/model_data.h"

namespace vmafexact::model {

Model::Model(std::unique_ptr<Data> data) : data_(std::move(data)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

const std::string& Model::name() const { return data_->name; }
void Model::set_name(std::string name) { data_->name = std::move(name); }
const std::vector<ModelFeature>& Model::features() const { return data_->features; }
void Model::set_feature_options(std::size_t index, FeatureOptions options) {
  data_->features.at(index).options = std::move(options);
}
const Model::Data& Model::data() const { return *data_; }

void check_model_data(const Model::Data& data, std::string_view origin) {
  const auto fail = [&](const std::string& field, const std::string& what) {
    throw Error(std::string(origin) + ": " + field + ": " + what);
  };
  const std::size_t n = data.features.size();
  if (n == 0) fail("model_dict.feature_names", "is empty");
  if (n > kMaxFeatures)
    fail("model_dict.feature_names", "has " + std::to_string(n) + " features; libvmaf reads at most " +
                                         std::to_string(kMaxFeatures));
  if (data.normalization == Normalization::linear_rescale) {
    // One entry for the prediction, then one per feature.
    for (const auto& [field, list] :
         {std::pair{"model_dict.slopes", &data.slopes},
          std::pair{"model_dict.intercepts", &data.intercepts}}) {
      if (list->size() != n + 1)
        fail(field, "has " + std::to_string(list->size()) + " numbers; " + std::to_string(n) +
                        " features need " + std::to_string(n + 1) +
                        " (the prediction's, then one per feature)");
    }
  }
  const auto& knots = data.transform.knots;
  if (knots.size() > kMaxKnots)
    fail("model_dict.score_transform.knots", "has " + std::to_string(knots.size()) +
                                                 " knots; libvmaf reads at most " +
                                                 std::to_string(kMaxKnots));
  for (std::size_t i = 0; i + 1 < knots.size(); ++i) {
    // libvmaf's mapping gives up half way through on such knots.
    if (!(knots[i].x < knots[i + 1].x && knots[i].y <= knots[i + 1].y))
      fail("model_dict.score_transform.knots",
           "x must increase and y must not decrease from knot " + std::to_string(i) + " to " +
               std::to_string(i + 1));
  }
  if (data.chroma_correction.enabled) {
    const std::string field = "model_dict.chroma_correction_parameter";
    // libvmaf then writes no score at all, for any frame.
    if (data.chroma_correction.value == 0.0)
      fail(field, "is 0, with which libvmaf predicts no score; remove it to turn the correction off");
    // libvmaf reads uninitialised values without exactly one of each, or
    // fails at every frame with more.
    for (const std::string_view part : {kChromaGuidingFeature, kChromaGuidedFeature}) {
      std::size_t matches = 0;
      for (const auto& feature : data.features)
        matches += feature.name.find(part) != std::string::npos ? 1 : 0;
      if (matches != 1)
        fail(field, "needs exactly one feature whose name contains \"" + std::string(part) +
                        "\" (the correction reads adm3 into speed_chroma); the model has " +
                        std::to_string(matches));
    }
  }
  const Svm& svm = data.svm;
  if (svm.sv_begin.size() != svm.coefficients.size() + 1 || svm.sv_begin.back() != svm.nodes.size())
    fail("model_dict.model", "inconsistent support vectors");
  for (const SvmNode& node : svm.nodes)
    if (node.index < 1) fail("model_dict.model", "support vector feature index below 1");
}

namespace {

// libsvm's sparse dot product: the products of entries with equal indices, in
// index-merge order. The input vector x is dense with indices 1..n.
double sparse_dot(std::span<const double> x, const SvmNode* y, const SvmNode* y_end) {
  double sum = 0;
  std::size_t i = 0;
  while (i < x.size() && y != y_end) {
    const int x_index = static_cast<int>(i) + 1;
    if (x_index == y->index) {
      sum += x[i] * y->value;
      ++i;
      ++y;
    } else if (x_index > y->index) {
      ++y;
    } else {
      ++i;
    }
  }
  return sum;
}

// libsvm's integer power by repeated squaring.
double integer_power(double base, int times) {
  double square = base, result = 1.0;
  for (int t = times; t > 0; t /= 2) {
    if (t % 2 == 1) result *= square;
    square = square * square;
  }
  return result;
}

// libsvm's kernel value of the input x and one support vector.
double kernel(const Svm& svm, std::span<const double> x, const SvmNode* y, const SvmNode* y_end) {
  switch (svm.kernel) {
    case Kernel::linear:
      return sparse_dot(x, y, y_end);
    case Kernel::poly:
      return integer_power(svm.gamma * sparse_dot(x, y, y_end) + svm.coef0, svm.degree);
    case Kernel::sigmoid:
      return std::tanh(svm.gamma * sparse_dot(x, y, y_end) + svm.coef0);
    case Kernel::rbf:
      break;
  }
  // RBF: exp(-gamma * |x - y|^2), the squared distance summed entry by entry
  // in index-merge order (an entry present on one side only adds its square).
  double sum = 0;
  std::size_t i = 0;
  while (i < x.size() && y != y_end) {
    const int x_index = static_cast<int>(i) + 1;
    if (x_index == y->index) {
      const double d = x[i] - y->value;
      sum += d * d;
      ++i;
      ++y;
    } else if (x_index > y->index) {
      sum += y->value * y->value;
      ++y;
    } else {
      sum += x[i] * x[i];
      ++i;
    }
  }
  for (; i < x.size(); ++i) sum += x[i] * x[i];
  for (; y != y_end; ++y) sum += y->value * y->value;
  return std::exp(-svm.gamma * sum);
}

// libvmaf's piecewise-linear mapping through knots already checked to have
// increasing x and non-decreasing y. Every segment is visited; a later segment
// that also covers x overrides an earlier one; below the first and above the
// last knot the end segments are extended.
double piecewise_linear(double x, const std::vector<Knot>& knots) {
  double y = 0.0;
  double slope = 0.0, offset = 0.0;
  const std::size_t segments = knots.size() - 1;
  for (std::size_t s = 0; s < segments; ++s) {
    const Knot& a = knots[s];
    const Knot& b = knots[s + 1];
    const bool from_a = a.x <= x;
    const bool to_b = x <= b.x;
    const bool below = s == 0 && x < a.x;
    const bool above = s == segments - 1 && x > b.x;
    if (a.y == b.y) {
      if ((from_a && to_b) || below || above) y = a.y;
    } else {
      // The line through a and b (x strictly increases, y strictly here).
      if (a.x == 0) {
        offset = a.y;
        slope = (b.y - offset) / b.x;
      } else {
        slope = (b.y - a.y) / (b.x - a.x);
        offset = a.y - (a.x * slope);
      }
      if ((from_a && to_b) || below || above) y = slope * x + offset;
    }
  }
  return y;
}

// libvmaf's optional score transform: polynomial, then knots, then the
// rectifications against the untransformed score.
double transform(const ScoreTransform& t, double score) {
  double out;
  if (t.p0.enabled || t.p1.enabled || t.p2.enabled) {
    out = 0.;
    if (t.p0.enabled) out += t.p0.value;
    if (t.p1.enabled) out += t.p1.value * score;
    if (t.p2.enabled) out += t.p2.value * score * score;
  } else {
    out = score;
  }
  if (t.knots_enabled && t.knots.size() > 1) out = piecewise_linear(out, t.knots);
  if (t.out_lte_in) out = (out > score) ? score : out;
  if (t.out_gte_in) out = (out < score) ? score : out;
  return out;
}

// The normalised value back on the feature's own scale, as libvmaf's
// denormalize_feature() forms it (not always the value normalised).
double denormalized(const Model::Data& d, std::size_t feature, double normalized) {
  if (d.normalization != Normalization::linear_rescale) return normalized;
  return (normalized - d.intercepts[feature + 1]) / d.slopes[feature + 1];
}

// libvmaf's chroma_from_luma (predict.c, post_process_feature_from_another()):
// a SpEED chroma input that is 0 on its own scale becomes c - c * adm3, with
// adm3 taken back from its normalised value, then normalised again.
// check_model_data() made sure each of the two features is there once.
void correct_chroma_from_luma(const Model::Data& d, std::span<double> x) {
  const double c = d.chroma_correction.value;
  double guiding = 0.0;
  std::size_t guided = 0;
  for (std::size_t i = 0; i < d.features.size(); ++i) {
    const std::string& name = d.features[i].name;
    if (name.find(kChromaGuidingFeature) != std::string::npos) guiding = denormalized(d, i, x[i]);
    if (name.find(kChromaGuidedFeature) != std::string::npos) {
      // libvmaf returns here, correcting nothing, when the chroma input is not 0.
      if (denormalized(d, i, x[i]) != 0.0) return;
      guided = i;
    }
  }
  double corrected = (-c * guiding) + c;
  if (d.normalization == Normalization::linear_rescale)
    corrected = d.slopes[guided + 1] * corrected + d.intercepts[guided + 1];
  x[guided] = corrected;
}

}  // namespace

double Model::predict_unfinished(std::span<const double> feature_values) const {
  const Data& d = *data_;
  const std::size_t n = d.features.size();
  if (feature_values.size() != n)
    throw Error("model " + d.name + " takes " + std::to_string(n) + " feature values, not " +
                std::to_string(feature_values.size()));

  // Normalised inputs: slope * value + intercept, feature i using entry i + 1.
  double normalized_storage[kMaxFeatures];
  const std::span<double> x(normalized_storage, n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = feature_values[i];
    if (d.normalization == Normalization::linear_rescale)
      x[i] = d.slopes[i + 1] * x[i] + d.intercepts[i + 1];
  }

  if (d.chroma_correction.enabled) correct_chroma_from_luma(d, x);

  // nu-SVR: sum over the support vectors of coef * kernel, in file order, minus rho.
  const Svm& svm = d.svm;
  double prediction = 0;
  for (std::size_t v = 0; v < svm.support_vector_count(); ++v) {
    const SvmNode* begin = svm.nodes.data() + svm.sv_begin[v];
    const SvmNode* end = svm.nodes.data() + svm.sv_begin[v + 1];
    prediction += svm.coefficients[v] * kernel(svm, x, begin, end);
  }
  prediction -= svm.rho;

  // Back to the score's scale with the prediction's own slope and intercept.
  if (d.normalization == Normalization::linear_rescale)
    prediction = (prediction - d.intercepts[0]) / d.slopes[0];

  return prediction;
}

double Model::finish(double score, const PredictOptions& options) const {
  const Data& d = *data_;
  // libvmaf applies a transform the model enables itself, or any transform the
  // model has when asked to (VMAF_MODEL_FLAG_ENABLE_TRANSFORM).
  const ScoreTransform& t = d.transform;
  if (t.enabled || (options.enable_transform && t.present)) score = transform(t, score);

  if (d.clip && !options.disable_clip) {
    score = (score < d.clip_min) ? d.clip_min : score;
    score = (score > d.clip_max) ? d.clip_max : score;
  }
  return score;
}

double Model::predict(std::span<const double> feature_values, const PredictOptions& options) const {
  return finish(predict_unfinished(feature_values), options);
}

namespace {

// predict.c's percentile() of sorted scores: linear between the two nearest.
double percentile(const std::vector<double>& sorted, double percent) {
  const double p = percent * static_cast<double>(sorted.size() - 1) / 100.;
  const int low = static_cast<int>(std::floor(p));
  const int high = static_cast<int>(std::ceil(p));
  return low == high ? sorted[low] : sorted[low] * (high - p) + sorted[high] * (p - low);
}

}  // namespace

BootstrapScores bootstrap_scores(std::vector<double> unfinished, const Model& first,
                                 const PredictOptions& options) {
  if (unfinished.empty()) throw Error("a bootstrap collection needs at least one model");
  const auto count = static_cast<double>(unfinished.size());
  double sum = 0.;
  for (const double score : unfinished) sum += score;
  const double mean = sum / count;
  double ssd = 0.;
  for (const double score : unfinished) ssd += std::pow(score - mean, 2);
  BootstrapScores result{};
  result.stddev = std::sqrt(ssd / count);
  std::sort(unfinished.begin(), unfinished.end());
  result.bagging = first.finish(mean, options);
  result.ci_p95_lo = first.finish(percentile(unfinished, 2.5), options);
  result.ci_p95_hi = first.finish(percentile(unfinished, 97.5), options);
  // The standard deviation scaled by the finishing's slope at the mean.
  const double delta = 0.01;
  const double plus = first.finish(mean + delta, options);
  const double minus = first.finish(mean - delta, options);
  result.stddev *= (plus - minus) / (2.0 * delta);
  return result;
}

namespace {

[[noreturn]] void unknown_builtin(std::string_view version) {
  std::string known;
  for (const auto& name : builtin_model_names()) known += (known.empty() ? "" : ", ") + name;
  for (const auto& name : builtin_collection_names()) known += ", " + name;
  throw Error("unknown built-in model '" + std::string(version) + "' (built in: " + known +
              "; other models can be loaded from their JSON file)");
}

}  // namespace

Model load_builtin_model(std::string_view version) {
  auto data = builtin_model_data(version);
  if (!data) {
    if (!builtin_collection_data(version).empty())
      throw Error("built-in '" + std::string(version) +
                  "' is a bootstrap model collection, where one model was expected");
    unknown_builtin(version);
  }
  return Model(std::move(data));
}

ModelFile model_file_of(std::vector<std::unique_ptr<Model::Data>> models) {
  ModelFile file{Model(std::move(models.front())), {}};
  for (std::size_t i = 1; i < models.size(); ++i) file.bootstrap.emplace_back(std::move(models[i]));
  return file;
}

ModelFile load_builtin_model_or_collection(std::string_view version) {
  if (auto data = builtin_model_data(version)) return {Model(std::move(data)), {}};
  auto models = builtin_collection_data(version);
  if (models.empty()) unknown_builtin(version);
  return model_file_of(std::move(models));
}

}  // namespace vmafexact::model
