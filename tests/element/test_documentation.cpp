// What gst-inspect-1.0 shows about the element, checked against what the
// element does: every property's help says what its default means and lists
// the values it takes (every unit the parsers accept and no other, every
// built-in model, every feature and option); enum values are described; the
// plugin's license and origin are real; the element's metadata lists every
// message it posts.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "element_harness.h"
#include "model/model.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

struct ElementRef {
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  ElementRef() {
    if (!element) throw std::runtime_error("vmafexact element not found (GST_PLUGIN_PATH?)");
    gst_object_ref_sink(element);
  }
  ~ElementRef() { gst_object_unref(element); }
};

// The element's own properties (not GstAggregator's or GstObject's).
std::vector<GParamSpec*> own_properties(GstElement* element) {
  guint count = 0;
  GParamSpec** specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(element), &count);
  std::vector<GParamSpec*> own;
  for (guint i = 0; i < count; ++i)
    if (specs[i]->owner_type == G_OBJECT_TYPE(element)) own.push_back(specs[i]);
  g_free(specs);
  return own;
}

std::string blurb_of(const char* property) {
  ElementRef ref;
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(ref.element), property);
  if (!spec) throw std::runtime_error(std::string("no property ") + property);
  return g_param_spec_get_blurb(spec);
}

// Whether the element starts (READY to PAUSED) with these properties set.
bool starts_with(const std::vector<std::pair<const char*, std::string>>& properties) {
  ElementRef ref;
  g_object_set(ref.element, "model", "", "features", "psnr", nullptr);
  for (const auto& [name, value] : properties)
    gst_util_set_object_arg(G_OBJECT(ref.element), name, value.c_str());
  GstBus* bus = gst_bus_new();  // takes the start's error message
  gst_element_set_bus(ref.element, bus);
  const bool started =
      gst_element_set_state(ref.element, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE;
  gst_element_set_state(ref.element, GST_STATE_NULL);
  gst_element_set_bus(ref.element, nullptr);
  gst_object_unref(bus);
  return started;
}

// Whether the help shows a value with this unit: a number right before it,
// and no letter after (so "ms" is not read as "m" or "s").
bool blurb_shows_unit(const std::string& blurb, const std::string& unit) {
  return std::regex_search(blurb, std::regex("[0-9]" + unit + "(?![A-Za-z])"));
}

const std::vector<std::string> kCandidateUnits = {"ns", "us", "ms", "s",      "m",   "min",
                                                  "h",  "d",  "f",  "frames", "sec", "hours"};

}  // namespace

TEST(Documentation, EveryPropertySaysWhatItsDefaultMeans) {
  ElementRef ref;
  const auto properties = own_properties(ref.element);
  ASSERT_GE(properties.size(), 18u);
  for (GParamSpec* spec : properties) {
    const std::string name = spec->name;
    const std::string blurb = g_param_spec_get_blurb(spec) ? g_param_spec_get_blurb(spec) : "";
    EXPECT_GE(blurb.size(), 30u) << name << ": " << blurb;
    EXPECT_NE(blurb, g_param_spec_get_nick(spec)) << name;
    const GValue* fallback = g_param_spec_get_default_value(spec);
    if (G_IS_PARAM_SPEC_STRING(spec)) {
      // Unset and empty mean the same: the help says what; a set default is named.
      const char* text = g_value_get_string(fallback);
      EXPECT_NE(blurb.find("Empty: "), std::string::npos) << name << ": " << blurb;
      if (text && *text) {
        EXPECT_NE(blurb.find(text), std::string::npos) << name << ": " << blurb;
      }
    } else if (G_IS_PARAM_SPEC_UINT(spec)) {
      // A default at the bottom of the range is a special value (0: auto, ...) unless it is 1.
      const auto* range = G_PARAM_SPEC_UINT(spec);
      if (range->default_value == range->minimum && range->minimum == 0) {
        EXPECT_NE(blurb.find("0: "), std::string::npos) << name << ": " << blurb;
      }
    } else if (G_IS_PARAM_SPEC_INT(spec)) {
      const auto* range = G_PARAM_SPEC_INT(spec);
      if (range->default_value == range->minimum && range->minimum <= 0) {
        EXPECT_NE(blurb.find(std::to_string(range->minimum) + ": "), std::string::npos)
            << name << ": " << blurb;
      }
    } else if (G_IS_PARAM_SPEC_INT64(spec)) {
      // A negative minimum is a special value (-1: never, ...) that the help names.
      const auto* range = G_PARAM_SPEC_INT64(spec);
      if (range->minimum < 0) {
        EXPECT_NE(blurb.find(std::to_string(range->minimum) + ": "), std::string::npos)
            << name << ": " << blurb;
      }
    } else if (G_IS_PARAM_SPEC_ENUM(spec)) {
      // gst-inspect-1.0 lists the values with their descriptions.
      const GEnumClass* values = G_PARAM_SPEC_ENUM(spec)->enum_class;
      for (guint i = 0; i < values->n_values; ++i) {
        const std::string described = values->values[i].value_name;
        EXPECT_FALSE(described.empty()) << name;
        EXPECT_NE(described, values->values[i].value_nick) << name << " " << described;
      }
    } else if (G_IS_PARAM_SPEC_BOXED(spec)) {
      // A structure (extra-provenance): unset is none, the help shows its syntax.
      EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(spec), GST_TYPE_STRUCTURE) << name;
      EXPECT_EQ(g_value_get_boxed(fallback), nullptr) << name;
      EXPECT_NE(blurb.find("e.g."), std::string::npos) << name << ": " << blurb;
    } else {
      EXPECT_TRUE(G_IS_PARAM_SPEC_BOOLEAN(spec)) << name << ": a type this test does not check";
    }
  }
}

// Each duration property shows exactly the units its parser accepts: every unit
// the element takes at start, and none it refuses.
TEST(Documentation, DurationPropertiesShowEveryUnitTheyTake) {
  const auto log_pattern =
      (std::filesystem::temp_directory_path() / "vmafexact-doc-{index}.json").string();
  struct Case {
    const char* property;
    std::vector<std::pair<const char*, std::string>> (*setting)(const std::string& value,
                                                                const std::string& unit,
                                                                const std::string& log);
  };
  const Case cases[] = {
      {"window",
       [](const std::string& value, const std::string&, const std::string&) {
         return std::vector<std::pair<const char*, std::string>>{{"window", value}};
       }},
      {"window-step",
       [](const std::string& value, const std::string&, const std::string&) {
         // The window as long as the step (tumbling windows): every step unit
         // is taken, however short (a step far shorter than the window is
         // refused for the number of windows it would open).
         return std::vector<std::pair<const char*, std::string>>{{"window", value},
                                                                 {"window-step", value}};
       }},
      {"input-timeout",
       [](const std::string& value, const std::string&, const std::string&) {
         return std::vector<std::pair<const char*, std::string>>{{"input-timeout", value}};
       }},
      {"log-rotate",
       [](const std::string& value, const std::string&, const std::string& log) {
         return std::vector<std::pair<const char*, std::string>>{{"log-location", log},
                                                                 {"log-rotate", value}};
       }},
  };
  for (const Case& test : cases) {
    const std::string blurb = blurb_of(test.property);
    std::size_t taken = 0;
    for (const std::string& unit : kCandidateUnits) {
      const bool accepted = starts_with(test.setting("1" + unit, unit, log_pattern));
      taken += accepted;
      EXPECT_EQ(blurb_shows_unit(blurb, unit), accepted)
          << test.property << (accepted ? " takes" : " refuses") << " the unit '" << unit
          << "', but its help " << (accepted ? "does not show it" : "shows it") << ": " << blurb;
    }
    EXPECT_GE(taken, 4u) << test.property;
  }
  // The checks themselves: a value without a unit is refused everywhere.
  EXPECT_FALSE(starts_with({{"window", "10"}}));
  EXPECT_TRUE(starts_with({{"window", "10s"}}));
}

TEST(Documentation, ModelAndFeaturesListEveryValueTheyTake) {
  const std::string model = blurb_of("model");
  const auto models = model::builtin_model_names();
  ASSERT_GE(models.size(), 3u);
  for (const auto& name : models) EXPECT_NE(model.find(name), std::string::npos) << name;
  for (const auto& name : model::builtin_collection_names())
    EXPECT_NE(model.find(name), std::string::npos) << name;

  const std::string features = blurb_of("features");
  for (const FeatureEntry& entry : feature_registry()) {
    EXPECT_NE(features.find(std::string(entry.name()) + " ("), std::string::npos) << entry.name();
    for (const OptionSpec& option : entry.descriptor.options)
      EXPECT_NE(features.find(option.name), std::string::npos)
          << entry.name() << " option " << option.name;
  }

  // The alert's syntax: every comparison and option.
  const std::string alert = blurb_of("alert");
  for (const char* part : {"<", "<=", ">", ">=", "for=", "clear=", "on=frame|window", ";"})
    EXPECT_NE(alert.find(part), std::string::npos) << part;
}

TEST(Documentation, PluginHasItsRealLicenseAndNoMadeUpOrigin) {
  ElementRef ref;
  GstPlugin* plugin =
      gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(gst_element_get_factory(ref.element)));
  ASSERT_TRUE(plugin);
  // GStreamer's nearest short name, and the exact license in the description.
  EXPECT_STREQ(gst_plugin_get_license(plugin), "BSD");
  EXPECT_NE(std::string(gst_plugin_get_description(plugin)).find("License: BSD-2-Clause-Patent"),
            std::string::npos)
      << gst_plugin_get_description(plugin);
  const std::string origin = gst_plugin_get_origin(plugin);
  EXPECT_FALSE(origin.empty());
  EXPECT_EQ(origin.find("example"), std::string::npos) << origin;
  EXPECT_FALSE(std::string(gst_plugin_get_package(plugin)).empty());
  gst_object_unref(plugin);
}

// A run with windows and alerts posts every kind of message; each is named in
// the element's "messages" metadata, which gst-inspect-1.0 prints.
TEST(Documentation, MetadataListsEveryMessageTheElementPosts) {
  ElementRef ref;
  const char* listed =
      gst_element_factory_get_metadata(gst_element_get_factory(ref.element), "messages");
  ASSERT_TRUE(listed);
  const std::string text = listed;
  EXPECT_NE(text.find("docs/element.md"), std::string::npos);

  ElementHarness harness("window=2f alert=psnr_y<1000");
  const std::string caps = caps_string(GST_VIDEO_FORMAT_I420, 32, 24);
  harness.set_caps(caps, caps);
  constexpr GstClockTime kFrame = GST_SECOND / 24;
  for (unsigned i = 0; i < 5; ++i) {
    const RawPicture picture = random_picture(32, 24, 8, ChromaFormat::k420, 700 + i);
    ASSERT_EQ(harness.push_ref(make_buffer(picture, GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)),
              GST_FLOW_OK);
    ASSERT_EQ(harness.push_dist(make_buffer(distorted(picture, 3, 800 + i), GST_VIDEO_FORMAT_I420,
                                            i * kFrame, kFrame)),
              GST_FLOW_OK);
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  std::set<std::string> posted;
  for (const MessagePtr& message : harness.drain_messages())
    if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ELEMENT)
      posted.insert(gst_structure_get_name(gst_message_get_structure(message.get())));
  EXPECT_EQ(posted, (std::set<std::string>{"vmafexact-frame", "vmafexact-window", "vmafexact-alert",
                                           "vmafexact-summary"}));
  for (const std::string& name : posted) EXPECT_NE(text.find(name), std::string::npos) << name;
}
