#include "model/model.h"

#include "common/error.h"

namespace vmafexact::model {

struct Model::Data {};

Model::Model(std::unique_ptr<Data> data) : data_(std::move(data)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

const std::string& Model::name() const { throw Error("models are not implemented yet"); }
void Model::set_name(std::string) { throw Error("models are not implemented yet"); }
const std::vector<ModelFeature>& Model::features() const {
  throw Error("models are not implemented yet");
}
double Model::predict(std::span<const double>, const PredictOptions&) const {
  throw Error("models are not implemented yet");
}

std::vector<std::string> builtin_model_names() { return {}; }
Model load_builtin_model(std::string_view version) {
  throw Error("unknown model '" + std::string(version) + "' (models are not implemented yet)");
}
Model load_model_file(const std::filesystem::path& path) {
  throw Error("cannot load " + path.string() + ": models are not implemented yet");
}
Model load_model_json(std::string_view, std::string_view origin) {
  throw Error("cannot load " + std::string(origin) + ": models are not implemented yet");
}

}  // namespace vmafexact::model
