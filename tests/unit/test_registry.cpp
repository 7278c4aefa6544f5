// The feature registry: every entry is complete and consistent, options are
// read through the tables, libvmaf's naming and sharing rules, models checked
// when they load, and the docs' option tables equal the registry's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "../common/build_paths.h"
#include "common/error.h"
#include "error_of.h"
#include "model/model.h"
#include "reference_setup.h"
#include "registry.h"
#include "scorer.h"

using vmafexact::test::kSourceRoot;

using namespace vmafexact;
using vmafexact::test::error_of;

namespace {

TEST(Registry, EveryEntryIsCompleteAndNamedOnce) {
  std::set<std::string_view> names, harness;
  for (const auto& entry : feature_registry()) {
    EXPECT_TRUE(names.insert(entry.name()).second) << entry.name() << " registered twice";
    EXPECT_TRUE(harness.insert(entry.harness).second) << entry.name();
    EXPECT_FALSE(entry.descriptor.summary.empty()) << entry.name();
    EXPECT_FALSE(entry.descriptor.provided.empty()) << entry.name();
    ASSERT_NE(entry.make_cpu, nullptr) << entry.name();
    // No twin without CUDA; which features have one is docs/cuda.md's list
    // (Registry.CudaDocNamesTheFeaturesWithAndWithoutATwin).
    if (!cuda_twins_built()) {
      EXPECT_EQ(entry.make_cuda, nullptr) << entry.name();
    }
    if (entry.cuda_refusal) {
      EXPECT_NE(entry.make_cuda, nullptr) << entry.name();
    }
    // The extractor reports the entry's name and provided features.
    const auto extractor = make_feature_extractor(entry.name());
    EXPECT_EQ(extractor->name(), entry.name());
    EXPECT_EQ(extractor->provided_features(),
              std::vector<std::string>(entry.descriptor.provided.begin(),
                                       entry.descriptor.provided.end()));
    EXPECT_EQ(feature_entry_providing(entry.descriptor.provided[0]), &entry);
    for (const auto& option : entry.descriptor.options) {
      EXPECT_FALSE(option.help.empty()) << entry.name() << " " << option.name;
      // Numbers default within their range, but for libvmaf's 0 meaning "the
      // picture's" (cambi's enc_width and the like) and -1 meaning "none"
      // (float_adm's adm_skip_aim_scale).
      const bool numeric = option.type == OptionType::kInt || option.type == OptionType::kDouble;
      const bool sentinel = option.type == OptionType::kInt &&
                            (option.default_value == 0 || option.default_value == -1);
      if (numeric && !sentinel) {
        EXPECT_LE(option.min, option.default_value) << option.name;
        EXPECT_LE(option.default_value, option.max) << option.name;
      }
    }
  }
  EXPECT_NE(error_of([] { feature_entry("ssimulacra"); }).find("available: adm, motion, cambi, "),
            std::string::npos);
  EXPECT_EQ(feature_entry_providing("no_such_score"), nullptr);
}

TEST(Registry, DescribesEveryFeatureForUsers) {
  // The element's features property help is made of this line.
  EXPECT_EQ(describe_features().substr(0, 18), "adm (options: debu");
  EXPECT_NE(describe_features().find("; vif (options: debug, vif_enhn_gain_limit, vif_skip_scale0); "),
            std::string::npos);
  EXPECT_NE(describe_features().find(
                "; psnr (options: enable_chroma, enable_mse, enable_apsnr, reduced_hbd_peak, "
                "min_sse); "),
            std::string::npos);
  EXPECT_NE(describe_features().find(
                "; float_ssim (options: enable_lcs, enable_db, clip_db, scale); float_ms_ssim "
                "(options: enable_lcs, enable_db, clip_db); "),
            std::string::npos);
  EXPECT_TRUE(describe_features().ends_with(
      "; float_psnr (no options); float_ansnr (no options); float_moment (no options); psnr_hvs "
      "(no options); ciede (no options)"));
}

// What backend=auto checks before it scores CUDA memory on the device: the
// extractors without a CUDA twin that the models (bootstrap members too) and
// the extra features read, each once, in the Scorer's order.
TEST(Registry, NamesTheFeaturesWithoutACudaTwin) {
  const auto missing = [](const std::string& models, const std::string& features) {
    return features_without_cuda_twin(load_models(parse_model_list(models)),
                                      parse_feature_list(features));
  };
  using Names = std::vector<std::string>;
  if (cuda_twins_built()) {
    EXPECT_EQ(missing("vmaf_v0.6.1", "psnr,float_ssim,cambi"), Names{});
    EXPECT_EQ(missing("vmaf_v1.0.16_3d0h", ""), Names{});
    EXPECT_EQ(missing("vmaf_float_v0.6.1", ""), Names{});
    EXPECT_EQ(missing("vmaf_v0.6.1,vmaf_float_b_v0.6.3", "psnr_hvs,float_adm,psnr_hvs"),
              Names{"psnr_hvs (no CUDA twin yet)"});
    EXPECT_EQ(missing("", "float_motion,ciede"), Names{"ciede (no CUDA twin yet)"});
    // libvmaf's float luma extractors (twins since 2026-12-06).
    EXPECT_EQ(missing("", "float_psnr,float_ansnr,float_moment"), Names{});
    // A twin that does not compute an option: named with its reason, each
    // request once.
    const Names p_norm = missing("vmaf_float_v0.6.1", "float_adm=adm_p_norm=2,psnr_hvs");
    ASSERT_EQ(p_norm.size(), 2u);
    EXPECT_TRUE(p_norm[0].starts_with("float_adm (adm_p_norm=2 raises every sample's term"))
        << p_norm[0];
    EXPECT_EQ(p_norm[1], "psnr_hvs (no CUDA twin yet)");
    EXPECT_TRUE(cuda_twin_refusal("float_adm").empty());
    EXPECT_TRUE(cuda_twin_refusal("float_adm", {{"adm_p_norm", "3"}}).empty());
    try {
      make_feature_extractor("float_adm", {{"adm_p_norm", "2.5"}}, Backend::kCuda);
      ADD_FAILURE() << "float_adm's twin took adm_p_norm=2.5";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("adm_p_norm=2.5"), std::string::npos)
          << error.what();
    }
  } else {
    EXPECT_EQ(missing("vmaf_v0.6.1", "psnr"),
              (Names{"adm (no CUDA twin in this build (built without CUDA))",
                     "motion (no CUDA twin in this build (built without CUDA))",
                     "vif (no CUDA twin in this build (built without CUDA))",
                     "psnr (no CUDA twin in this build (built without CUDA))"}));
  }
}

TEST(OptionValues, ReadsThroughTheTable) {
  const auto& vif = feature_entry("vif").descriptor;
  const OptionValues defaults = vif.parse({});
  EXPECT_EQ(defaults.get_double("vif_enhn_gain_limit"), 100.0);
  EXPECT_FALSE(defaults.get_bool("debug"));
  EXPECT_TRUE(defaults.named().empty());
  EXPECT_EQ(defaults.identity(), "vif");

  const OptionValues set = vif.parse({{"vif_enhn_gain_limit", "2"}, {"debug", "1"},
                                      {"vif_enhn_gain_limit", "1.5"}});  // the last one wins
  EXPECT_EQ(set.get_double("vif_enhn_gain_limit"), 1.5);
  EXPECT_TRUE(set.get_bool("debug"));
  EXPECT_EQ(set.identity(), "vif_egl_1.5");  // debug is not a feature parameter
  EXPECT_EQ(set.score_key("VMAF_integer_feature_vif_scale0_score"), "integer_vif_scale0_egl_1.5");

  // A value equal to the default names nothing, however it is written.
  EXPECT_EQ(vif.parse({{"vif_enhn_gain_limit", "100.0"}}).identity(), "vif");

  const auto& adm = feature_entry("adm").descriptor;
  EXPECT_EQ(adm.parse({{"adm_ref_display_height", "2160"}, {"adm_enhn_gain_limit", "1"}}).identity(),
            "adm_egl_1_rdh_2160");  // sorted by option name, ints as %d
  EXPECT_EQ(feature_entry("motion").descriptor.parse({{"motion_five_frame_window", "true"}}).identity(),
            "motion_mffw");  // booleans: the alias alone

  EXPECT_EQ(error_of([&] { vif.parse({{"egl", "1"}}); }),
            "vif: option 'egl' is only the score-name suffix of vif_enhn_gain_limit; libvmaf "
            "takes the option by that full name");
  EXPECT_EQ(error_of([&] { vif.parse({{"vif_kernelscale", "1"}}); }),
            "vif: unknown option 'vif_kernelscale' (options: debug, vif_enhn_gain_limit, "
            "vif_skip_scale0)");
  EXPECT_EQ(error_of([&] { vif.parse({{"vif_enhn_gain_limit", "0.5"}}); }),
            "vif: option vif_enhn_gain_limit=0.5 is not a number in [1, 100]");
  EXPECT_EQ(error_of([&] { vif.parse({{"debug", "yes"}}); }),
            "vif: option debug=yes is not a boolean (true or false)");
  EXPECT_EQ(error_of([&] { adm.parse({{"adm_ref_display_height", "1.5"}}); }),
            "adm: option adm_ref_display_height=1.5 is not an integer in [1, 4320]");
  EXPECT_EQ(error_of([&] { adm.parse({{"adm_ref_display_height", ""}}); }),
            "adm: option adm_ref_display_height= is not an integer in [1, 4320]");
  EXPECT_EQ(error_of([] { OptionValues("plain", {}, {{"enable_chroma", "true"}}); }),
            "plain: unknown option 'enable_chroma' (it takes no options)");
  // Values are read as libvmaf's dictionary stores them: through a float and "%g".
  EXPECT_EQ(vif.parse({{"vif_enhn_gain_limit", "1.0000001"}}).identity(), "vif_egl_1");
  EXPECT_EQ(vif.parse({{"vif_enhn_gain_limit", "1.23456789"}}).get_double("vif_enhn_gain_limit"),
            1.23457);
  EXPECT_EQ(error_of([&] { adm.parse({{"adm_ref_display_height", "1e3x"}}); }),
            "adm: option adm_ref_display_height=1e3x is not an integer in [1, 4320]");
  EXPECT_EQ(error_of([&] { vif.parse({{"vif_enhn_gain_limit", "1e39"}}); }),
            "vif: option vif_enhn_gain_limit=1e39 (inf once libvmaf stores it) is not a number "
            "in [1, 100]");
}

TEST(OptionValues, StoresValuesAsLibvmafsDictionary) {
  EXPECT_EQ(libvmaf_dictionary_value("1.0"), "1");
  EXPECT_EQ(libvmaf_dictionary_value("0.1234567"), "0.123457");
  EXPECT_EQ(libvmaf_dictionary_value("1234567"), "1.23457e+06");
  EXPECT_EQ(libvmaf_dictionary_value("-0"), "-0");
  EXPECT_EQ(libvmaf_dictionary_value("true"), "true");
  EXPECT_EQ(libvmaf_dictionary_value("1x"), "1x");  // not one float alone: as given
  EXPECT_EQ(libvmaf_dictionary_value(""), "");
  EXPECT_EQ(libvmaf_dictionary_value("/tmp/heatmaps"), "/tmp/heatmaps");
}

// libvmaf's vmaf tool registers the models' extractors first, then the
// --feature ones, and drops an extractor whose identity (name and non-default
// feature parameters) is already registered. The four requests below scored
// "written twice" errors before; libvmaf 3.2.0 scores them with the model's
// extractor alone (tests/conformance/test_sharing.cpp compares the logs).
TEST(Sharing, ARequestEqualToAModelsExtractorRunsOnce) {
  const PictureFormat format{64, 64, 8, ChromaFormat::k420};
  struct Case {
    const char* models;
    const char* features;
    std::size_t keys;
  } cases[] = {
      {"vmaf_v0.6.1", "motion=motion_force_zero=false", 15},
      {"vmaf_v0.6.1", "vif=debug=true", 15},  // the model's vif (no debug) is the one kept
      {"vmaf_v0.6.1", "adm=adm_enhn_gain_limit=100", 15},
      {"vmaf_v0.6.1neg", "adm=adm_enhn_gain_limit=1.0", 15},
      {"vmaf_v0.6.1", "adm=adm_enhn_gain_limit=1.0", 22},  // another identity: both run
      {"", "vif=debug=true,vif", 15},                       // the first request wins
  };
  std::vector<std::uint8_t> samples(64 * 64 * 3 / 2, 128);
  PictureView picture;
  picture.width = picture.height = 64;
  picture.planes[0] = {samples.data(), 64, 64, 64};
  picture.planes[1] = {samples.data() + 64 * 64, 32, 32, 32};
  picture.planes[2] = {samples.data() + 64 * 64 + 32 * 32, 32, 32, 32};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.models) + " + " + c.features);
    Scorer scorer(load_models(parse_model_list(c.models)), parse_feature_list(c.features), format);
    scorer.push(picture, picture);
    scorer.push(picture, picture);
    scorer.finish();
    EXPECT_EQ(scorer.scores().names().size(), c.keys);
  }
  EXPECT_EQ(parse_feature_list("adm=adm_enhn_gain_limit=100,adm,adm=debug=true").size(), 1u);
}

TEST(Sharing, AModelFileWithAnUnknownInputFailsWhenItLoads) {
  const auto path = std::filesystem::temp_directory_path() / "vmafexact-unknown-input.json";
  {
    std::ofstream file(path);
    file << R"({"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "linear_rescale",
      "score_transform": {"enabled": false}, "feature_names": ["VMAF_feature_ssim_score"],
      "slopes": [0.0, 1.0], "intercepts": [0.0, 0.0],
      "model": "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:0.5\n"}})";
  }
  const std::string error =
      error_of([&] { load_models(parse_model_list("path=" + path.string())); });
  std::filesystem::remove(path);
  EXPECT_NE(error.find("no feature extractor provides its input 'VMAF_feature_ssim_score'"),
            std::string::npos)
      << error;
}

// ---- the docs' option tables ------------------------------------------------

std::string format_number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The row docs/features/<name>.md must hold for an option (the notes column free).
std::string expected_row(const OptionSpec& option) {
  const bool is_bool = option.type == OptionType::kBool;
  const bool is_string = option.type == OptionType::kString;
  const char* type = is_bool     ? "bool"
                     : is_string ? "string"
                     : option.type == OptionType::kInt ? "int"
                                                        : "double";
  const std::string default_text =
      is_bool     ? (option.default_value != 0 ? "true" : "false")
      : is_string ? (option.default_text.empty() ? std::string("—")
                                                 : std::string("`").append(option.default_text).append("`"))
                  : format_number(option.default_value);
  const std::string range = is_bool || is_string
                                ? "—"
                                : format_number(option.min) + " .. " + format_number(option.max);
  const std::string alias(option.alias.empty() ? option.name : option.alias);
  const std::string suffix =
      !option.feature_param ? "—" : is_bool ? "`_" + alias + "`" : "`_" + alias + "_<value>`";
  return "| `" + std::string(option.name) + "` | " + type + " | " + default_text + " | " + range +
         " | " + suffix + " |";
}

// The table rows of the "## Options" section of a feature's page.
std::vector<std::string> option_rows(const std::filesystem::path& page) {
  std::ifstream file(page);
  std::vector<std::string> rows;
  bool in_section = false;
  for (std::string line; std::getline(file, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Options";
    if (in_section && line.rfind("| `", 0) == 0) rows.push_back(line);
  }
  return rows;
}

TEST(Registry, DocsOptionTablesMatchTheRegistry) {
  const std::filesystem::path docs = std::filesystem::path(kSourceRoot) / "docs";
  for (const auto& entry : feature_registry()) {
    const auto page = docs / "features" / (std::string(entry.name()) + ".md");
    ASSERT_TRUE(std::filesystem::exists(page)) << "no docs page for " << entry.name();
    const auto rows = option_rows(page);
    EXPECT_EQ(rows.size(), entry.descriptor.options.size())
        << page << ": the Options table lists other options than the registry";
    for (const auto& option : entry.descriptor.options) {
      const std::string expected = expected_row(option);
      const bool found = std::any_of(rows.begin(), rows.end(), [&](const std::string& row) {
        return row.rfind(expected, 0) == 0;
      });
      EXPECT_TRUE(found) << page << " lacks the row\n  " << expected << " ... |";
    }
  }
}

// ---- every other list of features -------------------------------------------
// The registry is the one list of features; every list kept elsewhere (docs,
// scripts, reference runs) is checked against it here, so that a feature added
// to the registry fails these tests until each of them names it
// (docs/architecture.md, "Adding a feature").

std::string source_text(const char* relative) {
  std::ifstream file(std::filesystem::path(kSourceRoot) / relative);
  EXPECT_TRUE(file) << relative;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::set<std::string> registry_names() {
  std::set<std::string> names;
  for (const auto& entry : feature_registry()) names.emplace(entry.name());
  return names;
}

// The text between the first pair of backquotes of a table cell ("" if none).
std::string first_code(const std::string& cell) {
  const auto open = cell.find('`');
  const auto close = open == std::string::npos ? open : cell.find('`', open + 1);
  return close == std::string::npos ? std::string() : cell.substr(open + 1, close - open - 1);
}

// The first code span of column `column` of each row of the first table after
// the line `heading` (header and rule rows left out).
std::set<std::string> table_codes(const std::string& text, const std::string& heading,
                                  std::size_t column) {
  std::istringstream lines(text);
  std::set<std::string> codes;
  bool after_heading = false;
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!after_heading) {
      after_heading = line == heading;
      continue;
    }
    if (line.rfind("|", 0) != 0) {
      if (rows > 0) break;
      continue;
    }
    if (rows++ < 2) continue;  // the header and the rule
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell);
    if (column < cells.size() && !first_code(cells[column]).empty())
      codes.insert(first_code(cells[column]));
  }
  return codes;
}

// The line of a Markdown table whose first cell is `first_cell`.
std::string table_row(const std::string& text, const std::string& first_cell) {
  const auto at = text.find("\n| " + first_cell + " |");
  if (at == std::string::npos) return {};
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

bool names_word(const std::string& text, std::string_view name) {
  return std::regex_search(text, std::regex("\\b" + std::string(name) + "\\b"));
}

TEST(Registry, ElementDocListsEveryFeature) {
  const std::string text = source_text("docs/element.md");
  EXPECT_EQ(table_codes(text, "### Features", 0), registry_names())
      << "docs/element.md, Features: one row per registry feature";
  std::set<std::string> scored_by = table_codes(text, "## Scores", 1);
  EXPECT_EQ(scored_by, registry_names()) << "docs/element.md, Scores: the extractor of each score";
  const std::string property = table_row(text, "`features`");
  ASSERT_FALSE(property.empty()) << "docs/element.md has no `features` property row";
  for (const auto& name : registry_names())
    EXPECT_NE(property.find("`" + name + "`"), std::string::npos)
        << "docs/element.md's features property does not name " << name;
  // The error for an unknown feature, as the element words it.
  const std::string unknown = error_of([] { feature_entry("foo"); });
  const std::string available = unknown.substr(unknown.find("(available: "));
  EXPECT_NE(text.find(available), std::string::npos)
      << "docs/element.md's error table lacks " << available;
}

TEST(Registry, FeaturesIndexAndReadmeNameEveryFeature) {
  const std::string index = source_text("docs/features/README.md");
  for (const auto& name : registry_names())
    EXPECT_NE(index.find("(" + name + ".md)"), std::string::npos)
        << "docs/features/README.md does not link " << name << ".md";
  const std::string readme = source_text("README.md");
  const std::string property = table_row(readme, "`features`");
  ASSERT_FALSE(property.empty()) << "README.md has no `features` property row";
  for (const auto& name : registry_names())
    EXPECT_NE(property.find("`" + name + "`"), std::string::npos)
        << "README.md's features property does not name " << name;
}

// docs/cuda.md names the features with a CUDA twin, then those "CPU only so
// far": each feature in one of the two, and (in CUDA builds) in the one its
// registry entry says.
TEST(Registry, CudaDocNamesTheFeaturesWithAndWithoutATwin) {
  std::string text = source_text("docs/cuda.md");
  std::replace(text.begin(), text.end(), '\n', ' ');
  const auto twins_at = text.find("Features with a CUDA twin:");
  const auto cpu_at = text.find("CPU only so far:");
  ASSERT_NE(twins_at, std::string::npos);
  ASSERT_NE(cpu_at, std::string::npos);
  ASSERT_LT(twins_at, cpu_at);
  const std::string twinned = text.substr(twins_at, cpu_at - twins_at);
  const std::string cpu_only = text.substr(cpu_at, text.find('.', cpu_at) - cpu_at);
  for (const auto& entry : feature_registry()) {
    const bool with = names_word(twinned, entry.name());
    const bool without = names_word(cpu_only, entry.name());
    EXPECT_NE(with, without) << "docs/cuda.md must name " << entry.name()
                             << " either with a CUDA twin or CPU only";
    if (cuda_twins_built()) {
      EXPECT_EQ(with, entry.make_cuda != nullptr)
          << entry.name() << ": docs/cuda.md says it has " << (with ? "a" : "no")
          << " CUDA twin, the registry the opposite";
    }
  }
}

// Every feature is compared with libvmaf's bits by some reference log of
// tests/fixtures (make_references.sh's runs), as a run's feature or a model's
// input, and every key of those logs has its extractor in the registry.
TEST(Registry, EveryFeatureIsComparedWithAReferenceLog) {
  const auto fixtures = std::filesystem::path(kSourceRoot) / "tests" / "fixtures";
  std::set<std::string> compared;
  std::size_t logs = 0;
  for (const char* folder : {"ref", "ref-float-models", "ref-sharing"})
    for (const auto& file : std::filesystem::directory_iterator(fixtures / folder)) {
      if (file.path().extension() != ".json") continue;
      ++logs;
      const std::string name = file.path().filename().string();
      const auto setup = test::reference_setup(test::load_reference_log(file.path()), name);
      EXPECT_TRUE(setup.unknown.empty()) << name << ": no extractor writes " << setup.unknown[0];
      for (const auto& request : parse_feature_list(setup.features)) compared.insert(request.name);
      for (const auto& model : load_models(parse_model_list(setup.models))) {
        for (const auto& request : model_feature_requests(model.model)) compared.insert(request.name);
        for (const auto& member : model.bootstrap)
          for (const auto& request : model_feature_requests(member)) compared.insert(request.name);
      }
    }
  EXPECT_GE(logs, 40u);
  // Compared with libvmaf by golden values in a unit test instead (libvmaf's own
  // %.17g values, its command in the test's comment).
  const std::set<std::string> golden_only = {"speed_temporal"};  // tests/unit/test_speed.cpp
  for (const auto& name : registry_names()) {
    if (golden_only.count(name)) {
      EXPECT_FALSE(compared.count(name)) << name << " has reference logs now: not golden only";
    } else {
      EXPECT_TRUE(compared.count(name)) << "no reference log of tests/fixtures scores " << name
                                        << " (make_references.sh's runs)";
    }
  }
  for (const auto& name : golden_only) EXPECT_TRUE(registry_names().count(name)) << name;
}

// Each score key an extractor writes with its default options sets the
// reference run up with that extractor.
TEST(Registry, ReferenceSetupFindsTheExtractorOfEveryScore) {
  for (const auto& entry : feature_registry()) {
    test::ReferenceLog log;
    for (const auto provided : entry.descriptor.provided)
      log.frame_key_order.emplace_back(feature_name_alias(provided));
    const auto setup = test::reference_setup(log, "x.max.json");
    EXPECT_EQ(setup.features, entry.name());
    EXPECT_TRUE(setup.unknown.empty()) << entry.name();
  }
}

// tests/fixtures/tools/differential.py draws each feature (plain or with options).
TEST(Registry, DifferentialRunsDrawEveryFeature) {
  const std::string script = source_text("tests/fixtures/tools/differential.py");
  for (const auto& name : registry_names())
    EXPECT_TRUE(script.find('"' + name + '"') != std::string::npos ||
                script.find('"' + name + '=') != std::string::npos)
        << "tests/fixtures/tools/differential.py draws no " << name;
}

}  // namespace
