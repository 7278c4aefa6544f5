// vmafexact's frame ranges (--start, --frames, --duration) found by accurate
// seeks (issue 41): on 20 s H.264 files made here with ffmpeg, a range near
// the end decodes a few frames of each input rather than everything before
// it, and scores exactly what decoding from the start and dropping gives
// (VMAFEXACT_NO_SEEK=1), also with each input's own start skip
// (--dist-delay); an input that cannot seek (a y4m file, fed by the tool)
// falls back to decode-and-drop with the same scores. The decoded frames are
// counted by the tool under VMAFEXACT_DEBUG_SEEK=1.

#include <glib.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/scratch_files.h"

using vmafexact::test::kCliPath;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using vmafexact::test::read_file;
using vmafexact::test::ScratchFolder;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs a program, the test's environment plus `settings`, output captured.
Result run_program(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& settings = {}) {
  std::vector<gchar*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<gchar*>(arg.c_str()));
  argv.push_back(nullptr);
  gchar** environment = g_get_environ();
  for (const char* name : {"VMAFEXACT_NO_SEEK", "VMAFEXACT_DEBUG_SEEK"})
    environment = g_environ_unsetenv(environment, name);
  for (const auto& [name, value] : settings)
    environment = g_environ_setenv(environment, name.c_str(), value.c_str(), TRUE);
  gchar* out = nullptr;
  gchar* err = nullptr;
  gint wait_status = 0;
  GError* error = nullptr;
  Result result;
  if (g_spawn_sync(nullptr, argv.data(), environment, G_SPAWN_SEARCH_PATH, nullptr, nullptr, &out,
                   &err, &wait_status, &error)) {
    result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
    result.out = out ? out : "";
    result.err = err ? err : "";
  } else {
    result.err = error ? error->message : "spawn failed";
  }
  g_clear_error(&error);
  g_free(out);
  g_free(err);
  g_strfreev(environment);
  return result;
}

std::string describe(const Result& result) {
  return "exit " + std::to_string(result.status) + "\nstderr:\n" + result.err;
}

// One run's seek notes: "ref" / "dist0" ... -> (note, frames decoded).
struct SeekNote {
  std::string note;
  long frames = -1;
};
std::map<std::string, SeekNote> seek_notes(const std::string& err) {
  static const std::regex line("vmafexact: debug: seek: ([a-z0-9]+): (.*?)([0-9]+) frames decoded");
  std::map<std::string, SeekNote> notes;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator();
       ++it)
    notes[(*it)[1]] = {(*it)[2], std::stol((*it)[3])};
  return notes;
}

class Ranges : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = std::make_unique<ScratchFolder>("vmafexact-ranges-test");
    const std::string ff = "ffmpeg -nostdin -loglevel error -y ";
    const std::string f = folder_->path().string() + "/";
    // 20 s at 25 fps, 160x90; an encode of it; the encode without its first
    // second (REF runs 1 s ahead: --dist-delay -1); REF as y4m.
    for (const std::string& command : {
             ff + "-f lavfi -i testsrc2=size=160x90:rate=25:duration=20 -c:v libx264 -preset " +
                 "fast -crf 18 -pix_fmt yuv420p " + f + "ref.mp4",
             ff + "-i " + f + "ref.mp4 -c:v libx264 -preset fast -crf 38 " + f + "dist.mp4",
             ff + "-i " + f + "dist.mp4 -vf trim=start_frame=25,setpts=PTS-STARTPTS -c:v " +
                 "libx264 -preset fast -crf 38 " + f + "dist_cut.mp4",
             ff + "-i " + f + "dist.mp4 -vf trim=start_frame=50,setpts=PTS-STARTPTS -c:v " +
                 "libx264 -preset fast -crf 38 " + f + "dist_cut2.mp4",
             ff + "-i " + f + "ref.mp4 " + f + "ref.y4m",
             ff + "-i " + f + "ref.mp4 -c copy -f h264 " + f + "ref.h264",
             ff + "-i " + f + "dist.mp4 -r 50 -c:v libx264 -preset fast -crf 38 " + f +
                 "dist_50fps.mp4",
         }) {
      const Result made = run_program({"/bin/sh", "-c", command});
      ASSERT_EQ(made.status, 0) << command << "\n" << made.err;
    }
  }
  static void TearDownTestSuite() { folder_.reset(); }

  static std::string in(const std::string& name) { return (folder_->path() / name).string(); }

  // Scores `inputs` with `range`, sought or not; returns the run and its log's frames.
  static std::pair<Result, Json> score(std::vector<std::string> args, bool seek,
                                       const std::string& log) {
    const std::string json = in(log);
    args.insert(args.begin(), {kCliPath, "--precision", "max", "--json", json});
    std::map<std::string, std::string> settings{{"VMAFEXACT_DEBUG_SEEK", "1"}};
    if (!seek) settings["VMAFEXACT_NO_SEEK"] = "1";
    Result result = run_program(args, settings);
    Json frames;
    if (result.status == 0 && fs::exists(json)) frames = Json::parse(read_file(json))["frames"];
    return {result, frames};
  }

  static inline std::unique_ptr<ScratchFolder> folder_;
};

// --start 18 --frames 10: each input is sought 1 s before the range (frame
// 450 less half a frame: 16.98 s), so its decoder gives a few dozen frames,
// not the 460 up to the range's end; the log is the decode-and-drop run's,
// every value.
TEST_F(Ranges, ARangeNearTheEndIsSoughtAndScoresAsDecodingFromTheStart) {
  const std::vector<std::string> args = {"--start", "18",          "--frames",
                                         "10",      in("ref.mp4"), in("dist.mp4")};
  const auto [sought, sought_frames] = score(args, true, "sought.json");
  ASSERT_EQ(sought.status, 0) << describe(sought);
  const auto [dropped, dropped_frames] = score(args, false, "dropped.json");
  ASSERT_EQ(dropped.status, 0) << describe(dropped);
  ASSERT_EQ(sought_frames.size(), 10u);
  EXPECT_EQ(sought_frames, dropped_frames);

  const auto notes = seek_notes(sought.err), unsought = seek_notes(dropped.err);
  for (const char* input : {"ref", "dist0"}) {
    ASSERT_TRUE(notes.count(input)) << sought.err;
    EXPECT_NE(notes.at(input).note.find("accurate seek to 16.980 s"), std::string::npos)
        << notes.at(input).note;
    // 1 s before the range, the range, a margin past it (at most 2 s more).
    EXPECT_LE(notes.at(input).frames, 100) << input << ": " << notes.at(input).note;
    EXPECT_GE(notes.at(input).frames, 10) << input;
    ASSERT_TRUE(unsought.count(input)) << dropped.err;
    EXPECT_GE(unsought.at(input).frames, 18 * 25) << input;
  }
}

// --dist-delay -1 (DIST lacks REF's first second): REF is sought to its
// range, DIST to its own (1 s earlier in its file); the log is the
// decode-and-drop run's.
TEST_F(Ranges, EachInputIsSoughtToItsOwnStart) {
  const std::vector<std::string> args = {"--dist-delay", "-1",  "--start",     "15",
                                         "--duration",   "0.5", in("ref.mp4"), in("dist_cut.mp4")};
  const auto [sought, sought_frames] = score(args, true, "skip_sought.json");
  ASSERT_EQ(sought.status, 0) << describe(sought);
  const auto [dropped, dropped_frames] = score(args, false, "skip_dropped.json");
  ASSERT_EQ(dropped.status, 0) << describe(dropped);
  ASSERT_EQ(sought_frames.size(), 13u);
  EXPECT_EQ(sought_frames, dropped_frames);
  const auto notes = seek_notes(sought.err);
  ASSERT_TRUE(notes.count("ref") && notes.count("dist0")) << sought.err;
  // REF's part starts at 16 s of it, DIST's at 15 s (less half a frame
  // each); each is sought 1 s before.
  EXPECT_NE(notes.at("ref").note.find("accurate seek to 14.980 s"), std::string::npos)
      << notes.at("ref").note;
  EXPECT_NE(notes.at("dist0").note.find("accurate seek to 13.980 s"), std::string::npos)
      << notes.at("dist0").note;
  for (const char* input : {"ref", "dist0"}) EXPECT_LE(notes.at(input).frames, 100) << input;
}

// A y4m REF (read by the tool into an appsrc, which cannot seek) starts at
// the frame 1 s before the range, its planes never read before it; a DIST at
// another rate is not sought (videorate's grid starts with its segment), so
// it is decoded from the start and dropped. The log is the decode-and-drop
// run's of the same inputs.
TEST_F(Ranges, AY4mStartsAtItsFrameAndAnInputNotSoughtIsDecodedFromTheStart) {
  const std::vector<std::string> args = {"--start", "18",          "--frames",
                                         "10",      in("ref.y4m"), in("dist_50fps.mp4")};
  const auto [dropped, dropped_frames] = score(args, false, "y4m_dropped.json");
  ASSERT_EQ(dropped.status, 0) << describe(dropped);
  const auto [started, started_frames] = score(args, true, "y4m.json");
  ASSERT_EQ(started.status, 0) << describe(started);
  ASSERT_EQ(started_frames.size(), 10u);
  EXPECT_EQ(started_frames, dropped_frames);
  const auto notes = seek_notes(started.err);
  ASSERT_TRUE(notes.count("ref")) << started.err;
  // 16.98 s at 25 fps: frame 424.
  EXPECT_NE(notes.at("ref").note.find("y4m read from frame 424"), std::string::npos)
      << notes.at("ref").note;
  EXPECT_LE(notes.at("ref").frames, 100);
  ASSERT_TRUE(notes.count("dist0")) << started.err;
  EXPECT_NE(notes.at("dist0").note.find("not sought (converted to another frame rate)"),
            std::string::npos)
      << notes.at("dist0").note;
  EXPECT_GE(notes.at("dist0").frames, 18 * 50);
  const auto unsought = seek_notes(dropped.err);
  ASSERT_TRUE(unsought.count("ref")) << dropped.err;
  EXPECT_GE(unsought.at("ref").frames, 18 * 25);
}

// An H.264 elementary stream has no demuxer: its timestamps are counted by
// the parser from where it starts, so it is not sought (decoded from the
// start), with the decode-and-drop run's log.
TEST_F(Ranges, AnElementaryStreamIsNotSought) {
  const std::vector<std::string> args = {"--start", "18",           "--frames",
                                         "10",      in("ref.h264"), in("dist.mp4")};
  const auto [dropped, dropped_frames] = score(args, false, "es_dropped.json");
  ASSERT_EQ(dropped.status, 0) << describe(dropped);
  const auto [run, run_frames] = score(args, true, "es.json");
  ASSERT_EQ(run.status, 0) << describe(run);
  ASSERT_EQ(run_frames.size(), 10u);
  EXPECT_EQ(run_frames, dropped_frames);
  const auto notes = seek_notes(run.err);
  ASSERT_TRUE(notes.count("ref") && notes.count("dist0")) << run.err;
  EXPECT_NE(notes.at("ref").note.find("not sought (no demuxer"), std::string::npos)
      << notes.at("ref").note;
  EXPECT_GE(notes.at("ref").frames, 18 * 25);
  EXPECT_NE(notes.at("dist0").note.find("accurate seek"), std::string::npos)
      << notes.at("dist0").note;
}

// Several encodes whose REF skips differ by 2 s (--align auto: dist.mp4
// starts with REF, dist_cut2.mp4 lacks REF's first 50 frames), with a range
// end: REF, decoded once and teed, runs on to the later encode's end after
// the earlier one's window has ended. Each encode gets its whole range, the
// frames it gets when scored alone. (The earlier encode's branch once
// answered the tee EOS after its end, and the tee stopped feeding every
// branch: the later encode lost its last frames, always when the skips
// differ by more than the branch's queue holds, 1 s, and at random below;
// and with skips that far apart, the earlier encode's sink, prerolled, held
// REF's tee before the later encode had its first frame: a deadlock.)
TEST_F(Ranges, AnEncodeWhoseWindowEndsFirstDoesNotEndTheOthersReference) {
  const std::vector<std::string> range = {"--align", "auto", "--align-range", "3",
                                          "--start", "15",   "--duration",    "1"};
  for (const bool seek : {true, false}) {
    SCOPED_TRACE(seek ? "sought" : "decoded from the start (VMAFEXACT_NO_SEEK=1)");
    const std::map<std::string, std::string> settings =
        seek ? std::map<std::string, std::string>{}
             : std::map<std::string, std::string>{{"VMAFEXACT_NO_SEEK", "1"}};
    // Bounded: the same run once deadlocked (see below).
    std::vector<std::string> args = {"timeout", "-k", "5", "30", kCliPath};
    args.insert(args.end(), {"--precision", "max", "--json", in("several_{name}.json")});
    args.insert(args.end(), range.begin(), range.end());
    args.insert(args.end(), {in("ref.mp4"), in("dist.mp4"), in("dist_cut2.mp4")});
    const Result several = run_program(args, settings);
    ASSERT_EQ(several.status, 0) << describe(several);
    EXPECT_EQ(several.err.find("ended first"), std::string::npos) << several.err;
    for (const char* name : {"dist", "dist_cut2"}) {
      SCOPED_TRACE(name);
      const Json frames =
          Json::parse(read_file(in("several_" + std::string(name) + ".json")))["frames"];
      EXPECT_EQ(frames.size(), 25u);
      std::vector<std::string> alone_args = {kCliPath, "--precision", "max", "--json",
                                             in("alone.json")};
      alone_args.insert(alone_args.end(), range.begin(), range.end());
      alone_args.insert(alone_args.end(), {in("ref.mp4"), in(std::string(name) + ".mp4")});
      const Result alone = run_program(alone_args, settings);
      ASSERT_EQ(alone.status, 0) << describe(alone);
      EXPECT_EQ(frames, Json::parse(read_file(in("alone.json")))["frames"]);
    }
  }
}

}  // namespace
