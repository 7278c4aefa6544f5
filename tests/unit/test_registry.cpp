// The feature registry: every entry is complete and consistent, options are
// read through the tables, libvmaf's naming and sharing rules, models checked
// when they load, and the docs' option tables equal the registry's.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/error.h"
#include "error_of.h"
#include "model/model.h"
#include "registry.h"
#include "scorer.h"

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
    // Every feature but speed_temporal, psnr_hvs, ciede and libvmaf's float ones
    // (SSIM's, MS-SSIM's, float_motion's, float_vif's and float_adm's excepted:
    // they have twins) has a CUDA twin wherever CUDA is built.
    const bool twinned_float = entry.name() == "float_ssim" || entry.name() == "float_ms_ssim" ||
                               entry.name() == "float_motion" || entry.name() == "float_vif" ||
                               entry.name() == "float_adm";
    const bool cpu_only = entry.name() == "speed_temporal" || entry.name() == "psnr_hvs" ||
                          entry.name() == "ciede" ||
                          (entry.name().starts_with("float_") && !twinned_float);
    EXPECT_EQ(entry.make_cuda != nullptr, cuda_twins_built() && !cpu_only) << entry.name();
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
    // A twin that does not compute an option: named with its reason, each
    // request once.
    const Names p_norm = missing("vmaf_float_v0.6.1", "float_adm=adm_p_norm=2,float_ansnr");
    ASSERT_EQ(p_norm.size(), 2u);
    EXPECT_TRUE(p_norm[0].starts_with("float_adm (adm_p_norm=2 raises every sample's term"))
        << p_norm[0];
    EXPECT_EQ(p_norm[1], "float_ansnr (no CUDA twin yet)");
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
  const std::filesystem::path docs = std::filesystem::path(VMAFEXACT_SOURCE_ROOT) / "docs";
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
  // The element's reference lists every extractor.
  std::ifstream element(docs / "element.md");
  std::stringstream text;
  text << element.rdbuf();
  for (const auto& entry : feature_registry())
    EXPECT_NE(text.str().find("| `" + std::string(entry.name()) + "` |"), std::string::npos)
        << "docs/element.md does not list " << entry.name();
}

}  // namespace
