// libvmaf's JSON model format, read field by field as libvmaf 3.2.0's
// read_json_model.c reads it (keys in file order; unknown keys skipped), with
// nlohmann::json as the tokenizer. The document is first turned into a small
// tree that keeps key order, duplicate keys and each number's text, because
// libvmaf
//  - converts JSON numbers with strtod (nlohmann does the same, so the doubles
//    are the correctly rounded ones), and
//  - turns a number in feature_opts_dicts into text by reading its text with
//    strtof and printing that float with "%g" (the extractor then parses it).
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "model/model_data.h"

namespace vmafexact::model {

namespace {

struct JsonMember;  // an object's key and value, below (a pair cannot hold an incomplete type)

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string text;  // a string's value, or a number's text
  std::vector<JsonValue> items;
  std::vector<JsonMember> members;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

const char* kind_name(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::null: return "null";
    case JsonValue::Kind::boolean: return "a boolean";
    case JsonValue::Kind::number: return "a number";
    case JsonValue::Kind::string: return "a string";
    case JsonValue::Kind::array: return "an array";
    case JsonValue::Kind::object: return "an object";
  }
  return "?";
}

// Builds a JsonValue tree from nlohmann's SAX events.
class TreeBuilder : public nlohmann::json::json_sax_t {
 public:
  JsonValue root;
  std::string error;
  std::vector<bool> negative_zero;  // per number token, in order: the text is "-0"

  bool null() override { return add(JsonValue{}); }
  bool boolean(bool value) override {
    JsonValue v;
    v.kind = JsonValue::Kind::boolean;
    v.boolean = value;
    return add(std::move(v));
  }
  bool number_integer(number_integer_t value) override {
    if (next_number_is_negative_zero()) return add(number(-0.0, "-0"));
    return add(number(static_cast<double>(value), std::to_string(value)));
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (next_number_is_negative_zero()) return add(number(-0.0, "-0"));
    return add(number(static_cast<double>(value), std::to_string(value)));
  }
  bool number_float(number_float_t value, const string_t& text) override {
    next_number_is_negative_zero();
    // nlohmann writes the locale's decimal point into the token it hands to
    // strtod; give the text back its '.'.
    std::string plain = text;
    for (char& c : plain)
      if (!(c >= '0' && c <= '9') && c != '-' && c != '+' && c != 'e' && c != 'E') c = '.';
    return add(number(value, std::move(plain)));
  }
  bool string(string_t& value) override {
    JsonValue v;
    v.kind = JsonValue::Kind::string;
    v.text = value;
    return add(std::move(v));
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    JsonValue v;
    v.kind = JsonValue::Kind::object;
    return open(std::move(v));
  }
  bool key(string_t& name) override {
    pending_key_ = name;
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    JsonValue v;
    v.kind = JsonValue::Kind::array;
    return open(std::move(v));
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::json::exception& ex) override {
    error = ex.what();
    return false;
  }

 private:
  bool next_number_is_negative_zero() {
    const std::size_t token = numbers_seen_++;
    return token < negative_zero.size() && negative_zero[token];
  }

  static JsonValue number(double value, std::string text) {
    JsonValue v;
    v.kind = JsonValue::Kind::number;
    v.number = value;
    v.text = std::move(text);
    return v;
  }

  JsonValue* add_slot(JsonValue&& value) {
    if (stack_.empty()) {
      root = std::move(value);
      return &root;
    }
    JsonValue& parent = *stack_.back();
    if (parent.kind == JsonValue::Kind::array) {
      parent.items.push_back(std::move(value));
      return &parent.items.back();
    }
    parent.members.push_back(JsonMember{std::move(pending_key_), std::move(value)});
    return &parent.members.back().value;
  }
  bool add(JsonValue&& value) {
    add_slot(std::move(value));
    return true;
  }
  bool open(JsonValue&& value) {
    // A bound on nesting keeps the tree's recursive destructor (and any walk
    // of it) off the end of the stack; libvmaf's models nest 3 levels deep.
    if (stack_.size() >= kMaxDepth) {
      error = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
    stack_.push_back(add_slot(std::move(value)));
    return true;
  }
  static constexpr std::size_t kMaxDepth = 64;

  // The open containers, innermost last. A container's vector is only appended
  // to while it is the innermost one, so the pointers to its open ancestors,
  // which live in vectors not appended to meanwhile, stay valid.
  std::vector<JsonValue*> stack_;
  std::string pending_key_;
  std::size_t numbers_seen_ = 0;
};

class Loader {
 public:
  explicit Loader(std::string_view origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(std::string(origin_) + ": " + field + ": " + what);
  }

  // The members of an object, rejecting repeated keys (libvmaf would read a
  // repeated key twice, e.g. append feature_names twice).
  const std::vector<JsonMember>& members(const JsonValue& object, const std::string& field) const {
    const auto& list = object.members;
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (list[i].key == list[j].key)
          fail(field, "the key \"" + list[i].key + "\" appears twice");
    return list;
  }

  void expect(const JsonValue& value, JsonValue::Kind kind, const std::string& field) const {
    if (value.kind != kind)
      fail(field, std::string("must be ") + kind_name(kind) + ", not " + kind_name(value.kind));
  }

  std::vector<double> numbers(const JsonValue& value, const std::string& field) const {
    expect(value, JsonValue::Kind::array, field);
    std::vector<double> result;
    for (std::size_t i = 0; i < value.items.size(); ++i) {
      expect(value.items[i], JsonValue::Kind::number, field + "[" + std::to_string(i) + "]");
      result.push_back(value.items[i].number);
    }
    return result;
  }

  // Whether the document is a bootstrap model collection: no "model_dict" at
  // the top level, and a model under "0".
  bool is_collection(const JsonValue& root) const {
    if (root.kind != JsonValue::Kind::object) return false;
    bool model_dict = false, first = false;
    for (const auto& [key, value] : root.members) {
      model_dict = model_dict || key == "model_dict";
      first = first || (key == "0" && value.kind == JsonValue::Kind::object);
    }
    return first && !model_dict;
  }

  std::unique_ptr<Model::Data> load(const JsonValue& root) {
    if (root.kind != JsonValue::Kind::object)
      fail("top level", std::string("must be an object, not ") + kind_name(root.kind));
    const JsonValue* model_dict = nullptr;
    for (const auto& [key, value] : members(root, "top level"))
      if (key == "model_dict") model_dict = &value;
    if (!model_dict) {
      if (is_collection(root))
        fail("top level",
             "no \"model_dict\" (this is a bootstrap model collection: give it as a model "
             "file of the model property, not here)");
      fail("top level", "no \"model_dict\" (not a libvmaf JSON model)");
    }
    expect(*model_dict, JsonValue::Kind::object, "model_dict");
    return load_model_dict(*model_dict);
  }

  // libvmaf's model_collection_parse(): the top-level keys "0", "1", ... in
  // the document's order, each a model, others skipped as libvmaf skips them;
  // model "0" and at least model "1", the models from "1" on of one type.
  std::vector<std::unique_ptr<Model::Data>> load_collection(const JsonValue& root) {
    std::vector<std::unique_ptr<Model::Data>> models;
    std::string type;
    for (const auto& [key, value] : members(root, "top level")) {
      if (key != std::to_string(models.size())) continue;
      const std::string origin = std::string(origin_) + ", model \"" + key + "\"";
      Loader member(origin);
      auto data = member.load(value);
      if (models.size() == 1) type = data->type;
      if (models.size() > 1 && data->type != type)
        member.fail("model_dict.model_type", "\"" + data->type + "\" where model \"1\" has \"" +
                                                 type + "\" (a collection has one type)");
      models.push_back(std::move(data));
    }
    if (models.size() < 2)
      fail("top level", "a bootstrap model collection needs models \"0\" and \"1\"");
    return models;
  }

 private:
  std::unique_ptr<Model::Data> load_model_dict(const JsonValue& dict) {
    auto data = std::make_unique<Model::Data>();
    bool has_model_type = false, has_norm_type = false, has_model = false;
    bool has_names = false;
    const JsonValue* opts_dicts = nullptr;
    for (const auto& [key, value] : members(dict, "model_dict")) {
      const std::string field = "model_dict." + key;
      if (key == "model_type") {
        expect(value, JsonValue::Kind::string, field);
        // libvmaf predicts every type alike; a collection's models share one.
        if (value.text != "LIBSVMNUSVR" && value.text != "BOOTSTRAP_LIBSVMNUSVR" &&
            value.text != "RESIDUEBOOTSTRAP_LIBSVMNUSVR")
          fail(field, "unknown model type \"" + value.text +
                          "\" (expected LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR or "
                          "RESIDUEBOOTSTRAP_LIBSVMNUSVR)");
        data->type = value.text;
        has_model_type = true;
      } else if (key == "norm_type") {
        expect(value, JsonValue::Kind::string, field);
        if (value.text == "linear_rescale")
          data->normalization = Normalization::linear_rescale;
        else if (value.text == "none")
          data->normalization = Normalization::none;
        else
          fail(field, "unknown normalization \"" + value.text +
                          "\" (expected linear_rescale or none)");
        has_norm_type = true;
      } else if (key == "score_clip") {
        const auto bounds = numbers(value, field);
        if (bounds.size() != 2) fail(field, "must hold two numbers, [min, max]");
        data->clip = true;
        data->clip_min = bounds[0];
        data->clip_max = bounds[1];
      } else if (key == "score_transform") {
        expect(value, JsonValue::Kind::object, field);
        data->transform = load_transform(value, field);
      } else if (key == "chroma_correction_parameter") {
        expect(value, JsonValue::Kind::number, field);
        data->chroma_correction = {true, value.number};
      } else if (key == "slopes") {
        data->slopes = numbers(value, field);
        if (data->slopes.empty()) fail(field, "is empty");
      } else if (key == "intercepts") {
        data->intercepts = numbers(value, field);
        if (data->intercepts.empty()) fail(field, "is empty");
      } else if (key == "feature_names") {
        expect(value, JsonValue::Kind::array, field);
        for (std::size_t i = 0; i < value.items.size(); ++i) {
          expect(value.items[i], JsonValue::Kind::string, field + "[" + std::to_string(i) + "]");
          data->features.push_back({value.items[i].text, {}});
        }
        has_names = true;
      } else if (key == "feature_opts_dicts") {
        expect(value, JsonValue::Kind::array, field);
        opts_dicts = &value;
      } else if (key == "model") {
        expect(value, JsonValue::Kind::string, field);
        data->svm = parse_libsvm_text(value.text, origin_);
        has_model = true;
      }
      // Other keys (feature_dict, ...) are not read by libvmaf either.
    }
    if (!has_model_type) fail("model_dict", "no \"model_type\"");
    if (!has_names) fail("model_dict", "no \"feature_names\"");
    if (!has_norm_type) fail("model_dict", "no \"norm_type\"");
    if (!has_model) fail("model_dict", "no \"model\" (the libsvm model text)");
    if (opts_dicts) load_feature_options(*opts_dicts, *data);
    data->name = "vmaf";  // libvmaf's name for a model nobody named
    check_model_data(*data, origin_);
    return data;
  }

  void load_feature_options(const JsonValue& list, Model::Data& data) const {
    const std::string field = "model_dict.feature_opts_dicts";
    if (list.items.size() > data.features.size())
      fail(field, "has " + std::to_string(list.items.size()) + " entries for " +
                      std::to_string(data.features.size()) + " features");
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const std::string item_field = field + "[" + std::to_string(i) + "]";
      expect(list.items[i], JsonValue::Kind::object, item_field);
      FeatureOptions& options = data.features[i].options;
      for (const auto& [key, value] : list.items[i].members) {
        std::string text;
        if (value.kind == JsonValue::Kind::number)
          text = normalized_option_number(value.text);
        else if (value.kind == JsonValue::Kind::boolean)
          text = value.boolean ? "true" : "false";
        else if (value.kind == JsonValue::Kind::string)
          text = value.text;
        else
          fail(item_field + "." + key, std::string("must be a number, a boolean or a string, not ") +
                                           kind_name(value.kind));
        // libvmaf's dictionary keeps the first value and rejects a different one.
        bool repeated = false;
        for (const auto& [name, existing] : options) {
          if (name != key) continue;
          if (existing != text)
            fail(item_field + "." + key, "given twice with different values");
          repeated = true;
        }
        if (!repeated) options.emplace_back(key, std::move(text));
      }
    }
  }

  ScoreTransform load_transform(const JsonValue& object, const std::string& field) const {
    ScoreTransform transform;
    transform.present = true;
    // libvmaf's reader means to accept null for p0, p1, p2 and knots (as "not
    // given") but fails on the null it leaves unread, so such files are errors.
    const auto no_null = [&](const JsonValue& value, const std::string& name) {
      if (value.kind == JsonValue::Kind::null)
        fail(name, "null is not accepted (libvmaf rejects it too); leave the key out");
    };
    const auto parameter = [&](const JsonValue& value, const std::string& name) {
      no_null(value, name);
      OptionalParameter p;
      expect(value, JsonValue::Kind::number, name);
      p.enabled = true;
      p.value = value.number;
      return p;
    };
    const auto flag = [&](const JsonValue& value, const std::string& name) {
      // libvmaf reads these as strings and sets them only for "true".
      expect(value, JsonValue::Kind::string, name);
      return value.text == "true";
    };
    for (const auto& [key, value] : members(object, field)) {
      const std::string name = field + "." + key;
      if (key == "enabled") {
        expect(value, JsonValue::Kind::boolean, name);
        transform.enabled = value.boolean;
      } else if (key == "p0") {
        transform.p0 = parameter(value, name);
      } else if (key == "p1") {
        transform.p1 = parameter(value, name);
      } else if (key == "p2") {
        transform.p2 = parameter(value, name);
      } else if (key == "knots") {
        no_null(value, name);
        expect(value, JsonValue::Kind::array, name);
        for (std::size_t i = 0; i < value.items.size(); ++i) {
          const auto point = numbers(value.items[i], name + "[" + std::to_string(i) + "]");
          if (point.size() != 2)
            fail(name + "[" + std::to_string(i) + "]", "must hold two numbers, [x, y]");
          transform.knots.push_back({point[0], point[1]});
        }
        transform.knots_enabled = true;
      } else if (key == "out_lte_in") {
        transform.out_lte_in = flag(value, name);
      } else if (key == "out_gte_in") {
        transform.out_gte_in = flag(value, name);
      }
    }
    return transform;
  }

  std::string_view origin_;
};

}  // namespace

std::string normalized_option_number(std::string_view json_number_text) {
  float value = 0.0f;
  const char* first = json_number_text.data();
  const char* last = first + json_number_text.size();
  const auto result = std::from_chars(first, last, value);  // correctly rounded, as strtof
  if (result.ec == std::errc::result_out_of_range)
    throw Error("model option value " + std::string(json_number_text) +
                " is out of the range of a float");
  if (result.ec != std::errc() || result.ptr != last)
    throw Error("model option value '" + std::string(json_number_text) + "' is not a number");
  return format_option_double(static_cast<double>(value));
}

namespace {

// Which number tokens of the document, in order, are the integer "-0".
// nlohmann hands integers to the SAX handler as values, so "-0" arrives as 0,
// while libvmaf's strtod makes it -0.0.
std::vector<bool> negative_zero_tokens(std::string_view text) {
  std::vector<bool> tokens;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i;
      while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                                   text[end] == '-' || text[end] == '+' || text[end] == '.' ||
                                   text[end] == 'e' || text[end] == 'E'))
        ++end;
      tokens.push_back(text.substr(i, end - i) == "-0");
      i = end - 1;
    }
  }
  return tokens;
}

}  // namespace

ModelFile load_model_json_or_collection(std::string_view json_text, std::string_view origin) {
  TreeBuilder builder;
  builder.negative_zero = negative_zero_tokens(json_text);
  const bool ok = nlohmann::json::sax_parse(json_text.begin(), json_text.end(), &builder);
  if (!ok) throw Error(std::string(origin) + ": not valid JSON: " + builder.error);
  Loader loader(origin);
  if (!loader.is_collection(builder.root)) return {Model(loader.load(builder.root)), {}};
  return model_file_of(loader.load_collection(builder.root));
}

namespace {

// The one model of a file, which the single-model loaders need.
Model only_model(ModelFile file, std::string_view origin) {
  if (!file.bootstrap.empty())
    throw Error(std::string(origin) +
                ": top level: a bootstrap model collection, where one model was expected");
  return std::move(file.model);
}

}  // namespace

Model load_model_json(std::string_view json_text, std::string_view origin) {
  return only_model(load_model_json_or_collection(json_text, origin), origin);
}

Model load_model_file(const std::filesystem::path& path) {
  return only_model(load_model_file_or_collection(path), path.string());
}

ModelFile load_model_file_or_collection(const std::filesystem::path& path) {
  // Only regular files of a sane size: a FIFO would block the start forever,
  // and /dev/zero would be read until memory runs out.
  std::error_code code;
  const auto status = std::filesystem::status(path, code);
  if (code)
    throw Error("cannot open model file " + path.string() + ": " + code.message());
  if (!std::filesystem::is_regular_file(status))
    throw Error("model file " + path.string() + " is not a regular file");
  const auto size = std::filesystem::file_size(path, code);
  if (code) throw Error("cannot read model file " + path.string() + ": " + code.message());
  if (size > kMaxModelFileBytes)
    throw Error("model file " + path.string() + " is " + std::to_string(size) +
                " bytes; model files are at most " + std::to_string(kMaxModelFileBytes) +
                " bytes (libvmaf's largest is under 1 MB)");
  if (path.extension() == ".pkl")
    throw Error(path.string() +
                ": pkl model files are not supported (libvmaf dropped them too); use the "
                "JSON model");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string message = "cannot open model file " + path.string() + ": " + std::strerror(errno);
    throw Error(message);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return load_model_json_or_collection(text.str(), path.string());
}

}  // namespace vmafexact::model
