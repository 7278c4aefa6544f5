// The Python examples (examples/python/) run as programs with /usr/bin/python3
// and Debian's PyGObject: the JSON they print, read back at full precision,
// must equal the element's own messages from a run of the same input here
// (every field, in the element's order, doubles compared with ==); the live
// monitor prints windows and alerts with the documented fields and ends with
// the summary on SIGINT. Skips, saying why, where python3-gi or GStreamer's
// typelibs are missing (CI installs them: scripts/install-deps.sh).

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace std::chrono_literals;
using vmafexact::test::ChildProcess;

const fs::path kExamples = fs::path(VMAFEXACT_SOURCE_ROOT) / "examples" / "python";
constexpr const char* kPython = "/usr/bin/python3";

// Why the examples cannot run here, or empty when they can.
const std::string& python_missing() {
  static const std::string reason = [] {
    if (!fs::exists(kPython)) return std::string(kPython) + " is not installed";
    char dir_template[] = "/tmp/vmafexact-python-check-XXXXXX";
    if (!g_mkdtemp(dir_template)) return std::string("no temporary folder");
    const fs::path dir = dir_template;
    std::string problem;
    {
      ChildProcess check({kPython, "-c",
                          "import gi; gi.require_version('Gst', '1.0'); "
                          "gi.require_version('GstPbutils', '1.0'); "
                          "from gi.repository import Gst, GstPbutils"},
                         dir / "stderr.txt");
      const auto status = check.wait_exit(60s);
      if (status != 0)
        problem =
            "PyGObject or GStreamer's typelibs are missing (Debian: python3-gi, "
            "gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0): " +
            check.error_output();
    }
    fs::remove_all(dir);
    return problem;
  }();
  return reason;
}

std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(Json::parse(line));
  return lines;
}

bool is_time_field(std::string_view name) {
  return name == "pts" || name == "running-time" || name == "stream-time" || name == "duration" ||
         name == "window-start" || name == "window-end" || name == "stalled-for";
}

// Every field of the element's structure against the JSON the example wrote:
// the same names in the same order, the same values (doubles bit for bit; a
// non-finite double and an unknown time as null).
void expect_same_fields(const GstStructure* structure, const Json& fields, const std::string& at) {
  ASSERT_TRUE(fields.is_object()) << at;
  const gint count = gst_structure_n_fields(structure);
  ASSERT_EQ(fields.size(), static_cast<std::size_t>(count)) << at << ": " << fields.dump();
  auto item = fields.begin();
  for (gint i = 0; i < count; ++i, ++item) {
    const std::string name = gst_structure_nth_field_name(structure, i);
    const std::string where = at + "." + name;
    ASSERT_EQ(item.key(), name) << at << ": fields out of order";
    const Json& json = item.value();
    const GValue* value = gst_structure_get_value(structure, name.c_str());
    const GType type = G_VALUE_TYPE(value);
    if (type == G_TYPE_DOUBLE) {
      const double number = g_value_get_double(value);
      if (std::isfinite(number)) {
        ASSERT_TRUE(json.is_number()) << where;
        EXPECT_EQ(json.get<double>(), number) << where;
      } else {
        EXPECT_TRUE(json.is_null()) << where;
      }
    } else if (type == G_TYPE_UINT64) {
      const guint64 number = g_value_get_uint64(value);
      if (is_time_field(name) && !GST_CLOCK_TIME_IS_VALID(number))
        EXPECT_TRUE(json.is_null()) << where;
      else
        EXPECT_EQ(json, Json(number)) << where;
    } else if (type == G_TYPE_UINT) {
      EXPECT_EQ(json, Json(g_value_get_uint(value))) << where;
    } else if (type == G_TYPE_BOOLEAN) {
      EXPECT_EQ(json, Json(static_cast<bool>(g_value_get_boolean(value)))) << where;
    } else if (type == G_TYPE_STRING) {
      EXPECT_EQ(json, Json(g_value_get_string(value))) << where;
    } else if (type == GST_TYPE_STRUCTURE) {
      expect_same_fields(gst_value_get_structure(value), json, where);
    } else {
      ADD_FAILURE() << where << ": a field of type " << g_type_name(type)
                    << " the test does not know";
    }
  }
}

struct StructureFree {
  void operator()(GstStructure* structure) const { gst_structure_free(structure); }
};
using StructurePtr = std::unique_ptr<GstStructure, StructureFree>;

// Runs the pipeline here to EOS and keeps the element messages of vmafexact.
std::vector<StructurePtr> element_messages(const std::string& description) {
  std::vector<StructurePtr> messages;
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_TRUE(pipeline && !error) << (error ? error->message : "?");
  g_clear_error(&error);
  if (!pipeline) return messages;
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  for (;;) {
    GstMessage* message = gst_bus_timed_pop_filtered(
        bus, 60 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT));
    if (!message) {
      ADD_FAILURE() << "no end of stream: " << description;
      break;
    }
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_ELEMENT) {
      const GstStructure* structure = gst_message_get_structure(message);
      if (g_str_has_prefix(gst_structure_get_name(structure), "vmafexact-"))
        messages.emplace_back(gst_structure_copy(structure));
    } else if (type == GST_MESSAGE_ERROR) {
      GError* failure = nullptr;
      gst_message_parse_error(message, &failure, nullptr);
      ADD_FAILURE() << failure->message << ": " << description;
      g_error_free(failure);
    }
    gst_message_unref(message);
    if (type != GST_MESSAGE_ELEMENT) break;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return messages;
}

void write_streams(const std::string& description) {
  const auto messages = element_messages(description);
  ASSERT_TRUE(messages.empty());
}

class PythonExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_missing().empty()) GTEST_SKIP() << python_missing();
    char dir_template[] = "/tmp/vmafexact-python-XXXXXX";
    ASSERT_TRUE(g_mkdtemp(dir_template));
    dir_ = dir_template;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // A test pattern (ref.y4m, 160x90 I420, 25 fps), a JPEG-compressed copy at the
  // same size (dist.y4m) and one at 80x46 in Matroska (dist_small.mkv).
  void write_inputs(int frames) {
    write_streams("videotestsrc num-buffers=" + std::to_string(frames) +
                  " pattern=smpte horizontal-speed=2 ! "
                  "video/x-raw,format=I420,width=160,height=90,framerate=25/1 ! tee name=t "
                  "t. ! queue ! y4menc ! filesink location=" +
                  path("ref.y4m") +
                  " t. ! queue ! jpegenc quality=30 ! jpegdec ! videoconvert ! "
                  "video/x-raw,format=I420 ! y4menc ! filesink location=" +
                  path("dist.y4m") +
                  " t. ! queue ! videoscale ! video/x-raw,width=80,height=46 ! jpegenc "
                  "quality=50 ! matroskamux ! filesink location=" +
                  path("dist_small.mkv"));
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs an example to its end; returns its exit status.
  int run(const std::string& script, const std::vector<std::string>& arguments) {
    std::vector<std::string> argv = {kPython, (kExamples / script).string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    ChildProcess child(argv, dir_ / "stderr.txt", dir_ / "stdout.txt");
    const auto status = child.wait_exit(120s);
    output_ = child.output();
    errors_ = child.error_output();
    return status.value_or(-1);
  }

  fs::path dir_;
  std::string output_;
  std::string errors_;
};

// The messages of a C++ run against the lines score.py printed.
void expect_same_messages(const std::vector<StructurePtr>& messages,
                          const std::vector<Json>& lines) {
  ASSERT_EQ(lines.size(), messages.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string name = gst_structure_get_name(messages[i].get());
    ASSERT_EQ(lines[i].at("message"), name) << "line " << i;
    expect_same_fields(messages[i].get(), lines[i].at("fields"),
                       name + "[" + std::to_string(i) + "]");
  }
}

TEST_F(PythonExamples, ScorePrintsTheElementsOwnValues) {
  write_inputs(12);
  ASSERT_EQ(run("score.py", {path("ref.y4m"), path("dist.y4m"), "--features",
                             "psnr=enable_apsnr=true", "--json", path("scores.json")}),
            0)
      << errors_;
  const auto lines = json_lines(output_);
  const auto messages = element_messages(
      "filesrc location=" + path("ref.y4m") +
      " ! y4mdec ! v.ref_sink filesrc location=" + path("dist.y4m") +
      " ! y4mdec ! v.dist_sink vmafexact name=v features=psnr=enable_apsnr=true ! fakesink "
      "sync=false");
  ASSERT_EQ(messages.size(), 13u);  // 12 frames, the summary
  expect_same_messages(messages, lines);
  EXPECT_TRUE(lines.back().at("fields").contains("vmaf"));
  EXPECT_TRUE(lines.back().at("fields").contains("apsnr_y"));

  // --json: the same frames and summary in one document.
  const Json document = Json::parse(vmafexact::test::read_text(dir_ / "scores.json"));
  ASSERT_EQ(document.at("frames").size(), 12u);
  for (std::size_t i = 0; i < 12; ++i)
    EXPECT_EQ(document.at("frames")[i], lines[i].at("fields")) << i;
  EXPECT_EQ(document.at("summary"), lines.back().at("fields"));
}

TEST_F(PythonExamples, ScoreScalesTheDistortedVideoToTheReference) {
  write_inputs(10);
  ASSERT_EQ(run("score.py", {path("ref.y4m"), path("dist_small.mkv"), "--set", "threads=1"}), 0)
      << errors_;
  EXPECT_NE(errors_.find("scoring at 160x90 I420"), std::string::npos) << errors_;
  // What score.py builds, written out here.
  const std::string branch =
      " ! decodebin ! videoconvert ! videoscale ! "
      "video/x-raw,format=I420,width=160,height=90 ! ";
  const auto messages =
      element_messages("filesrc location=" + path("ref.y4m") + branch + "v.ref_sink filesrc " +
                       "location=" + path("dist_small.mkv") + branch +
                       "v.dist_sink vmafexact name=v threads=1 ! fakesink sync=false");
  ASSERT_EQ(messages.size(), 11u);
  expect_same_messages(messages, json_lines(output_));

  // --summary-only: the summary line alone, the same.
  ASSERT_EQ(run("score.py",
                {path("ref.y4m"), path("dist_small.mkv"), "--set", "threads=1", "--summary-only"}),
            0)
      << errors_;
  const auto lines = json_lines(output_);
  ASSERT_EQ(lines.size(), 1u);
  expect_same_fields(messages.back().get(), lines[0].at("fields"), "summary");
}

TEST_F(PythonExamples, ScoreFailuresAreClearAndLeaveNoOutput) {
  write_inputs(3);
  EXPECT_EQ(run("score.py", {path("nothing.y4m"), path("dist.y4m")}), 1);
  EXPECT_NE(errors_.find("nothing.y4m: no such file"), std::string::npos) << errors_;

  std::ofstream(dir_ / "notes.txt") << "not a video\n";
  EXPECT_EQ(run("score.py", {path("notes.txt"), path("dist.y4m")}), 1);
  EXPECT_NE(errors_.find("notes.txt: GStreamer cannot read it"), std::string::npos) << errors_;

  EXPECT_EQ(run("score.py", {path("ref.y4m"), path("dist.y4m"), "--set", "threads=many"}), 2);
  EXPECT_NE(errors_.find("'many' is not a value of type guint"), std::string::npos) << errors_;
  EXPECT_EQ(run("score.py", {path("ref.y4m"), path("dist.y4m"), "--set", "nope=1"}), 2);
  EXPECT_NE(errors_.find("has no property 'nope' (it has: "), std::string::npos) << errors_;

  // An element error at start (a bad model) fails the run; an existing --json
  // file is left as it was.
  std::ofstream(dir_ / "out.json") << "previous\n";
  EXPECT_EQ(run("score.py", {path("ref.y4m"), path("dist.y4m"), "--model", "vmaf_nope", "--json",
                             path("out.json")}),
            1);
  EXPECT_NE(errors_.find("ERROR from v: Invalid model property"), std::string::npos) << errors_;
  EXPECT_EQ(vmafexact::test::read_text(dir_ / "out.json"), "previous\n");
  EXPECT_EQ(run("score.py", {path("ref.y4m"), path("dist.y4m"), "--json", path("no/out.json")}), 1);
  EXPECT_NE(errors_.find("cannot write in " + path("no")), std::string::npos) << errors_;

  EXPECT_EQ(run("score.py", {"--help"}), 0);
  EXPECT_NE(output_.find("--json FILE"), std::string::npos) << output_;
  EXPECT_EQ(run("score.py", {path("ref.y4m")}), 2);
}

double number_or_nan(const Json& value) {
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

// A live pipeline for a few seconds, windows of 10 frames and two alerts (one
// raised at once, one never), then SIGINT: the last window and the summary.
TEST_F(PythonExamples, MonitorPrintsWindowsAndAlertsAndEndsWithTheSummaryOnSigint) {
  ChildProcess monitor(
      {kPython, (kExamples / "monitor.py").string(), "--pipeline",
       "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! "
       "video/x-raw,format=GRAY8,width=96,height=64,framerate=25/1 ! tee name=t "
       "t. ! queue ! v.ref_sink t. ! queue ! jpegenc quality=30 ! jpegdec ! videoconvert ! "
       "video/x-raw,format=GRAY8 ! v.dist_sink vmafexact name=v latency=200000000 ! fakesink",
       "--window", "10f", "--alert", "psnr_y<1000;psnr_y<0", "--input-timeout", "5s", "--frames",
       "--set", "model=\"\"", "--set", "features=psnr=enable_apsnr=true", "--set", "threads=1"},
      dir_ / "stderr.txt", dir_ / "stdout.txt");
  const auto windows_posted = [&] {
    std::size_t windows = 0;
    for (const Json& line : json_lines(monitor.output()))
      windows += line.at("message") == "vmafexact-window";
    return windows;
  };
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       windows_posted() < 2 && std::chrono::steady_clock::now() < deadline && monitor.running();)
    ChildProcess::pump(100ms);
  ASSERT_GE(windows_posted(), 2u) << monitor.error_output();
  monitor.send_signal(SIGINT);
  ASSERT_EQ(monitor.wait_exit(30s), 0) << monitor.error_output();
  EXPECT_NE(monitor.error_output().find("alert psnr_y<1000 raised"), std::string::npos)
      << monitor.error_output();

  std::vector<Json> frames, windows, alerts, summaries;
  const auto lines = json_lines(monitor.output());
  for (const Json& line : lines) {
    const std::string name = line.at("message");
    auto& kind = name == "vmafexact-frame"    ? frames
                 : name == "vmafexact-window" ? windows
                 : name == "vmafexact-alert"  ? alerts
                                              : summaries;
    kind.push_back(line.at("fields"));
  }
  ASSERT_EQ(summaries.size(), 1u);
  ASSERT_EQ(lines.back().at("message"), "vmafexact-summary");
  ASSERT_GE(frames.size(), 20u);

  const std::set<std::string> stats = {"min", "max", "mean",      "harmonic_mean", "p1",
                                       "p5",  "p50", "low1_mean", "low5_mean"};
  const std::vector<std::string> window_fields = {"window-start",
                                                  "window-end",
                                                  "frames",
                                                  "frames-unpaired",
                                                  "frames-unpaired-ref",
                                                  "frames-unpaired-dist",
                                                  "frames-skipped-late",
                                                  "partial",
                                                  "truncated",
                                                  "vmafexact-version",
                                                  "libvmaf-version",
                                                  "models",
                                                  "backend",
                                                  "threads",
                                                  "psnr_y"};
  std::size_t first_frame = 0;
  for (const Json& window : windows) {
    std::vector<std::string> names;
    for (const auto& [name, value] : window.items()) names.push_back(name);
    EXPECT_EQ(names, window_fields) << window.dump();
    std::set<std::string> figures;
    for (const auto& [stat, value] : window.at("psnr_y").items()) figures.insert(stat);
    EXPECT_EQ(figures, stats);
    // The window's figures are those of the frames the program printed, exactly.
    const auto count = window.at("frames").get<std::size_t>();
    if (!window.at("partial").get<bool>()) {
      EXPECT_EQ(count, 10u);
    }
    ASSERT_LE(first_frame + count, frames.size());
    double low = INFINITY, high = -INFINITY;
    for (std::size_t i = first_frame; i < first_frame + count; ++i) {
      low = std::min(low, frames[i].at("psnr_y").get<double>());
      high = std::max(high, frames[i].at("psnr_y").get<double>());
    }
    EXPECT_EQ(window.at("psnr_y").at("min").get<double>(), low);
    EXPECT_EQ(window.at("psnr_y").at("max").get<double>(), high);
    // (An unpaired frame, on a loaded machine, may open the window instead.)
    if (window.at("frames-unpaired") == 0) {
      EXPECT_EQ(window.at("window-start"), frames[first_frame].at("running-time"));
    }
    first_frame += count;
  }
  EXPECT_EQ(first_frame, frames.size()) << "every frame is in one window";

  // psnr_y<1000 is raised at the first frame; psnr_y<0 never.
  ASSERT_EQ(alerts.size(), 1u);
  const Json& alert = alerts[0];
  EXPECT_EQ(alert.at("alert"), "psnr_y<1000");
  EXPECT_EQ(alert.at("state"), "raised");
  EXPECT_EQ(alert.at("score"), "psnr_y");
  EXPECT_EQ(alert.at("value").get<double>(), frames[0].at("psnr_y").get<double>());
  EXPECT_EQ(alert.at("threshold").get<double>(), 1000.0);
  EXPECT_EQ(alert.at("running-time"), frames[0].at("running-time"));
  for (const char* field : {"vmafexact-version", "libvmaf-version", "models", "backend"})
    EXPECT_TRUE(alert.at(field).is_string()) << field;
  std::set<std::string> alert_figures;
  for (const auto& [stat, value] : alert.at("window").items()) alert_figures.insert(stat);
  EXPECT_EQ(alert_figures, stats);

  // The summary: every frame printed, pooled as they were; gray video has no
  // chroma, so apsnr_cb and apsnr_cr are -inf, written null.
  const Json& summary = summaries[0];
  EXPECT_EQ(summary.at("frames-scored").get<std::size_t>(), frames.size());
  double low = INFINITY;
  for (const Json& frame : frames) low = std::min(low, frame.at("psnr_y").get<double>());
  EXPECT_EQ(summary.at("psnr_y").at("min").get<double>(), low);
  EXPECT_TRUE(std::isfinite(number_or_nan(summary.at("apsnr_y"))));
  EXPECT_TRUE(summary.at("apsnr_cb").is_null());
  EXPECT_TRUE(summary.at("apsnr_cr").is_null());
}

TEST_F(PythonExamples, MonitorRefusesBadCommandLines) {
  EXPECT_EQ(run("monitor.py", {"--ref", "a.mkv"}), 2);
  EXPECT_NE(errors_.find("give --ref URI and --dist URI, or --pipeline"), std::string::npos)
      << errors_;
  EXPECT_EQ(run("monitor.py", {"--pipeline", "videotestsrc ! fakesink"}), 2);
  EXPECT_NE(errors_.find("needs a vmafexact element named v"), std::string::npos) << errors_;
  EXPECT_EQ(
      run("monitor.py", {"--pipeline", "videotestsrc ! vmafexact name=v", "--set", "backend=gpu"}),
      2);
  EXPECT_NE(errors_.find("'gpu' is not a value of type GstVmafExactBackend"), std::string::npos)
      << errors_;
  // The element's own checks at start: an error from it, status 1.
  EXPECT_EQ(run("monitor.py", {"--pipeline", "videotestsrc ! vmafexact name=v", "--window", "10x"}),
            1);
  EXPECT_NE(errors_.find("Invalid window property: window: '10x' has an unknown unit"),
            std::string::npos)
      << errors_;
  EXPECT_EQ(run("monitor.py", {"--help"}), 0);
  EXPECT_NE(output_.find("--eos-timeout SECONDS"), std::string::npos) << output_;
}

// The helper module on every kind of value a structure can hold, in Python.
TEST_F(PythonExamples, MessagesModuleConvertsEveryKindOfValue) {
  const fs::path test =
      fs::path(VMAFEXACT_SOURCE_ROOT) / "tests" / "examples" / "test_vmafexact_messages.py";
  ChildProcess child({kPython, test.string(), kExamples.string()}, dir_ / "stderr.txt",
                     dir_ / "stdout.txt");
  EXPECT_EQ(child.wait_exit(60s), 0) << child.error_output() << child.output();
}

// A model file whose key holds a byte that is not UTF-8 (issue 39): the
// element's error quotes the key, and PyGObject decodes error texts as UTF-8.
// score.py ends with the element's error and exit status 1, no traceback.
TEST_F(PythonExamples, ScoreReportsAnErrorQuotingABadByteWithoutATraceback) {
  write_inputs(2);
  std::ofstream(dir_ / "bad_key.json")
      << "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"norm\xFF_type\": \"none\"}}\n";
  EXPECT_EQ(run("score.py", {path("ref.y4m"), path("dist.y4m"), "--model", path("bad_key.json")}),
            1);
  EXPECT_NE(errors_.find("ERROR from v: Invalid model property: " + path("bad_key.json")),
            std::string::npos)
      << errors_;
  EXPECT_NE(errors_.find("\xEF\xBF\xBD"), std::string::npos) << errors_;  // U+FFFD for the byte
  EXPECT_EQ(errors_.find("Traceback"), std::string::npos) << errors_;
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
