// The vmafexact element through GstHarness: its score logs. Every layout holds
// every frame and pooled score, the extension picks the layout, log-format and
// the extension must agree, subsample lists every nth frame, and a run that
// fails (or a full disk) leaves the previous log whole.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

TEST(Element, ARunThatFailsLeavesTheExistingLogAsItWas) {
  // Starting does not truncate the log, and it is replaced only by a complete
  // new one: a run that fails at its first frame leaves the old file intact,
  // and no temporary file behind.
  const auto folder = std::filesystem::temp_directory_path() / "vmafexact-log-kept";
  std::filesystem::create_directories(folder);
  const auto path = folder / "scores.json";
  std::ofstream(path) << "the previous log\n";
  {
    ElementHarness harness(("features=psnr model=\"\" log-location=" + path.string()).c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48),
                     caps_string(GST_VIDEO_FORMAT_I420, 32, 24));
    harness.push_ref(make_buffer(random_picture(64, 48, 8, ChromaFormat::k420, 1),
                                 GST_VIDEO_FORMAT_I420, 0, kFrame));
    harness.push_dist(make_buffer(random_picture(32, 24, 8, ChromaFormat::k420, 2),
                                  GST_VIDEO_FORMAT_I420, 0, kFrame));
    GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()),
                                                   10 * GST_SECOND, GST_MESSAGE_ERROR);
    ASSERT_NE(error, nullptr);
    gst_message_unref(error);
  }
  EXPECT_EQ(read_text(path), "the previous log\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(folder);
}

// In a child process whose files may not grow past 4 KiB (as on a full disk):
// the end-of-stream log, larger than that, cannot be written. Prints what it
// found and exits 0 when the error came, the previous log is intact and no
// temporary file is left.
[[noreturn]] void end_a_run_on_a_full_disk(const std::filesystem::path& folder) {
  const auto path = folder / "scores.json";
  std::ofstream(path) << "the previous log\n";
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
  const rlimit file_size{4096, 4096};
  if (::setrlimit(RLIMIT_FSIZE, &file_size) != 0) std::_Exit(2);
  bool error_posted = false;
  {
    ElementHarness harness(("features=psnr model= log-location=" + path.string()).c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 16, 16),
                     caps_string(GST_VIDEO_FORMAT_I420, 16, 16));
    const Frames frames = make_frames(2, 16, 16, 8, ChromaFormat::k420);
    for (unsigned i = 0; i < 200; ++i) {  // about 20 KB of JSON
      harness.push_ref(make_buffer(frames.ref[i % 2], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
      harness.push_dist(make_buffer(frames.dist[i % 2], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    }
    harness.push_eos_ref();
    harness.push_eos_dist();
    GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()),
                                                   20 * GST_SECOND, GST_MESSAGE_ERROR);
    if (error) {
      GError* gerror = nullptr;
      gst_message_parse_error(error, &gerror, nullptr);
      std::fprintf(stderr, "posted: %s\n", gerror->message);
      error_posted = true;
      g_error_free(gerror);
      gst_message_unref(error);
    }
  }
  const bool kept = read_text(path) == "the previous log\n";
  const auto files = std::distance(std::filesystem::directory_iterator(folder),
                                   std::filesystem::directory_iterator());
  std::fprintf(stderr, "previous log %s, %ld file(s) in the folder\n", kept ? "kept" : "LOST",
               static_cast<long>(files));
  std::fflush(stderr);
  // The child's own folder (temp_path names it after the child's pid): the
  // test body's remove_all after EXPECT_EXIT runs only in the parent.
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  std::_Exit(error_posted && kept && files == 1 ? 0 : 1);
}

TEST(ElementDeathTest, AFullDiskAtEndOfStreamLeavesThePreviousLogWhole) {
  const auto folder = temp_path("full-disk");
  std::filesystem::create_directories(folder);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(end_a_run_on_a_full_disk(folder), ::testing::ExitedWithCode(0),
              "posted: Could not write the score log(.|\n)*previous log kept, 1 file\\(s\\)");
  std::filesystem::remove_all(folder);
}

class ElementLogs : public ::testing::TestWithParam<const char*> {};

TEST_P(ElementLogs, LogHoldsEveryFrameAndPooledScore) {
  const std::string format = GetParam();
  const auto path = temp_path("log." + format);
  const std::string properties =
      "log-location=" + path.string() + " log-format=" + format + " log-precision=max";
  const Frames frames = make_frames(4, 40, 30, 8, ChromaFormat::k420);
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 40, 30), caps_string(GST_VIDEO_FORMAT_I420, 40, 30));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(text.empty());
  std::vector<std::vector<double>> expected;
  for (unsigned i = 0; i < 4; ++i) expected.push_back(expected_psnr(frames.ref[i], frames.dist[i]));
  const char* names[] = {"psnr_y", "psnr_cb", "psnr_cr"};

  if (format == "json") {
    const auto json = nlohmann::ordered_json::parse(text);
    ASSERT_EQ(json.at("frames").size(), 4u);
    for (unsigned i = 0; i < 4; ++i) {
      EXPECT_EQ(json["frames"][i]["frameNum"].get<unsigned>(), i);
      for (unsigned p = 0; p < 3; ++p)
        EXPECT_EQ(json["frames"][i]["metrics"][names[p]].get<double>(), expected[i][p]);
    }
    double sum = 0;
    for (unsigned i = 0; i < 4; ++i) sum += expected[i][0];
    EXPECT_EQ(json["pooled_metrics"]["psnr_y"]["mean"].get<double>(), sum / 4);
    EXPECT_TRUE(json.at("aggregate_metrics").empty());
    EXPECT_EQ(json.at("version").get<std::string>().rfind("vmafexact", 0), 0u);
  } else if (format == "xml") {
    EXPECT_EQ(text.rfind("<VMAF version=\"vmafexact", 0), 0u) << text;
    EXPECT_NE(text.find("<params qualityWidth=\"40\" qualityHeight=\"30\" />"), std::string::npos);
    for (unsigned i = 0; i < 4; ++i) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "<frame frameNum=\"%u\" psnr_y=\"%.17g\" psnr_cb=\"%.17g\" psnr_cr=\"%.17g\" />", i,
                    expected[i][0], expected[i][1], expected[i][2]);
      EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    }
    EXPECT_NE(text.find("<metric name=\"psnr_cr\" min="), std::string::npos);
  } else if (format == "sub") {
    std::istringstream lines(text);
    std::string line;
    for (unsigned i = 0; i < 4; ++i) {
      ASSERT_TRUE(std::getline(lines, line));
      char expected_line[512];
      std::snprintf(expected_line, sizeof expected_line,
                    "{%u}{%u}frame: %u|psnr_y: %.17g|psnr_cb: %.17g|psnr_cr: %.17g|", i, i + 1, i,
                    expected[i][0], expected[i][1], expected[i][2]);
      EXPECT_EQ(line, expected_line);
    }
    EXPECT_FALSE(std::getline(lines, line));
  } else {
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "Frame,psnr_y,psnr_cb,psnr_cr,");
    for (unsigned i = 0; i < 4; ++i) {
      ASSERT_TRUE(std::getline(lines, line));
      char expected_line[512];
      std::snprintf(expected_line, sizeof expected_line, "%u,%.17g,%.17g,%.17g,", i,
                    expected[i][0], expected[i][1], expected[i][2]);
      EXPECT_EQ(line, expected_line);
    }
    EXPECT_FALSE(std::getline(lines, line));
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, ElementLogs, ::testing::Values("json", "xml", "csv", "sub"));

// Without log-format, the extension of log-location picks the layout (in any
// case); another extension, or none, keeps JSON.
class ElementLogExtensions : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
};

TEST_P(ElementLogExtensions, PickTheLayoutWhenLogFormatIsNotSet) {
  const auto [name, start] = GetParam();
  const auto path = temp_path(name);
  const std::string properties = "features=psnr model=\"\" log-location=" + path.string();
  const Frames frames = make_frames(2, 40, 30, 8, ChromaFormat::k420);
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 40, 30),
                     caps_string(GST_VIDEO_FORMAT_I420, 40, 30));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  EXPECT_EQ(text.rfind(start, 0), 0u) << name << ":\n" << text;
}

INSTANTIATE_TEST_SUITE_P(Extensions, ElementLogExtensions,
                         ::testing::Values(std::pair{"ext.json", "{\n  \"version\""},
                                           std::pair{"ext.xml", "<VMAF version="},
                                           std::pair{"ext.csv", "Frame,psnr_y,psnr_cb,psnr_cr,\n"},
                                           std::pair{"ext.CSV", "Frame,psnr_y,"},
                                           std::pair{"ext.Xml", "<VMAF version="},
                                           std::pair{"ext.sub", "{0}{1}frame: 0|psnr_y: "},
                                           std::pair{"ext.log", "{\n  \"version\""},
                                           std::pair{"noextension", "{\n  \"version\""}));

// log-format set to another layout than the extension names: refused at start,
// naming both and the fix; the same layout, or an extension naming none, is fine.
TEST(Element, LogFormatThatContradictsTheExtensionIsAnErrorAtStart) {
  const auto folder = std::filesystem::temp_directory_path();
  struct Case {
    const char* format;
    const char* file;
    bool refused;
  };
  for (const Case c : {Case{"json", "scores.csv", true}, Case{"csv", "scores.XML", true},
                       Case{"xml", "scores.json", true}, Case{"csv", "scores.csv", false},
                       Case{"csv", "scores.log", false}, Case{"xml", "scores", false}}) {
    GstElement* element = gst_element_factory_make("vmafexact", nullptr);
    ASSERT_NE(element, nullptr);
    const std::string location = (folder / c.file).string();
    gst_util_set_object_arg(G_OBJECT(element), "log-format", c.format);
    g_object_set(element, "log-location", location.c_str(), nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(element, bus);
    const GstStateChangeReturn ret = gst_element_set_state(element, GST_STATE_PAUSED);
    std::string message, details;
    if (GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
      GError* gerror = nullptr;
      gchar* debug = nullptr;
      gst_message_parse_error(error, &gerror, &debug);
      message = gerror->message;
      details = debug ? debug : "";
      g_error_free(gerror);
      g_free(debug);
      gst_message_unref(error);
    }
    gst_element_set_state(element, GST_STATE_NULL);
    gst_element_set_bus(element, nullptr);
    gst_object_unref(bus);
    gst_object_unref(element);
    std::filesystem::remove(location);
    SCOPED_TRACE(std::string(c.format) + " " + c.file);
    if (!c.refused) {
      EXPECT_NE(ret, GST_STATE_CHANGE_FAILURE) << message;
      continue;
    }
    EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE);
    std::string named = c.file + std::string(c.file).rfind('.') + 1;
    for (char& ch : named) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(message, "log-location \"" + location + "\" names a " + named +
                           " log, but log-format is " + c.format + ".");
    EXPECT_NE(details.find("Set log-format=" + named), std::string::npos) << details;
    EXPECT_NE(details.find("the extension ." + std::string(c.format)), std::string::npos)
        << details;
  }
}

TEST(Element, SubsampleListsAndPoolsEveryNthFrame) {
  const auto path = temp_path("subsample.csv");
  const std::string properties =
      "subsample=2 log-format=csv log-precision=max log-location=" + path.string();
  const Frames frames = make_frames(5, 32, 32, 8, ChromaFormat::k400);
  std::vector<const GstStructure*> posted;
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_GRAY8, 32, 32), caps_string(GST_VIDEO_FORMAT_GRAY8, 32, 32));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
    const auto messages = harness.drain_messages();
    posted = element_messages(messages, "vmafexact-frame");
    ASSERT_EQ(posted.size(), 3u);
    EXPECT_EQ(field_uint64(posted[1], "index"), 2u);
    const auto summary = element_messages(messages, "vmafexact-summary");
    ASSERT_EQ(summary.size(), 1u);
    const GstStructure* pooled = nullptr;
    ASSERT_TRUE(gst_structure_get(summary[0], "psnr_y", GST_TYPE_STRUCTURE, &pooled, nullptr));
    double mean = 0;
    gst_structure_get_double(pooled, "mean", &mean);
    double sum = 0;
    for (unsigned i : {0u, 2u, 4u}) sum += expected_psnr(frames.ref[i], frames.dist[i])[0];
    EXPECT_EQ(mean, sum / 3);
    gst_structure_free(const_cast<GstStructure*>(pooled));
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  char expected[512];
  std::snprintf(expected, sizeof expected, "Frame,psnr_y,\n0,%.17g,\n2,%.17g,\n4,%.17g,\n",
                expected_psnr(frames.ref[0], frames.dist[0])[0],
                expected_psnr(frames.ref[2], frames.dist[2])[0],
                expected_psnr(frames.ref[4], frames.dist[4])[0]);
  EXPECT_EQ(text, expected);
}
