// `vmafexact batch` (tools/vmafexact/batch.cpp) run as a program on small
// videos made here with ffmpeg: its logs against direct runs of the tool,
// rows side by side, a failed row, resuming after a rerun and after an
// interrupted or killed batch, the shares of a job array, per-row options,
// --list, bad manifests and output folders, and a row locked by another batch.

#include <fcntl.h>
#include <glib.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "child_process.h"

using vmafexact::test::kCliPath;
using vmafexact::test::kModelFile;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using vmafexact::test::ChildProcess;
using vmafexact::test::read_text;

struct Result {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

std::string describe(const Result& result) {
  return "exit " + std::to_string(result.status) + "\nstdout:\n" + result.out + "\nstderr:\n" +
         result.err;
}

// The test's environment (GST_PLUGIN_PATH from meson) without a scheduler's
// task index, plus `extra`.
std::vector<std::string> environment(const std::map<std::string, std::string>& extra = {}) {
  gchar** names = g_listenv();
  std::vector<std::string> variables;
  for (gchar** name = names; *name; ++name) {
    const std::string key = *name;
    if (key.rfind("SLURM_", 0) == 0 || key == "JOB_COMPLETION_INDEX" ||
        key == "VMAFEXACT_SHARD_COUNT" || extra.count(key))
      continue;
    if (const char* value = g_getenv(*name)) variables.push_back(key + "=" + value);
  }
  g_strfreev(names);
  for (const auto& [key, value] : extra) variables.push_back(key + "=" + value);
  return variables;
}

Result run_tool(std::vector<std::string> args, const std::map<std::string, std::string>& extra = {},
                const std::string& folder = {}) {
  args.insert(args.begin(), kCliPath);
  std::vector<gchar*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> variables = environment(extra);
  std::vector<gchar*> envp;
  for (auto& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  gchar* out = nullptr;
  gchar* err = nullptr;
  gint wait_status = 0;
  GError* error = nullptr;
  Result result;
  // It dies with the test (a meson timeout): a hung batch leaves no orphan.
  auto die_with_parent = [](gpointer) { prctl(PR_SET_PDEATHSIG, SIGKILL); };
  if (!g_spawn_sync(folder.empty() ? nullptr : folder.c_str(), argv.data(), envp.data(),
                    G_SPAWN_DEFAULT, die_with_parent, nullptr, &out, &err, &wait_status, &error)) {
    result.err = error ? error->message : "spawn failed";
    g_clear_error(&error);
    return result;
  }
  result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  result.out = out ? out : "";
  result.err = err ? err : "";
  g_free(out);
  g_free(err);
  return result;
}

Json read_json(const fs::path& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

// The scores of a JSON log: everything but the run's provenance (its date and
// command line differ) and the speed.
Json scores_of(const fs::path& log) {
  const Json json = read_json(log);
  Json scores = {{"frames", json.at("frames")}, {"pooled_metrics", json.at("pooled_metrics")}};
  if (json.contains("aggregate_metrics")) scores["aggregate_metrics"] = json["aggregate_metrics"];
  return scores;
}

struct FileIdentity {
  ino_t inode = 0;
  timespec modified{};
  bool operator==(const FileIdentity& other) const {
    return inode == other.inode && modified.tv_sec == other.modified.tv_sec &&
           modified.tv_nsec == other.modified.tv_nsec;
  }
};
FileIdentity identity_of(const fs::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return {};
  return {status.st_ino, status.st_mtim};
}

// Hidden files left in DIR and DIR/rows, the rows' lock files aside.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::path& folder : {dir, dir / "rows"}) {
    if (!fs::exists(folder)) continue;
    for (const auto& entry : fs::directory_iterator(folder)) {
      const std::string name = entry.path().filename().string();
      if (name[0] != '.') continue;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".lock") == 0) continue;
      names.push_back(name);
    }
  }
  return names;
}

std::set<std::string> recorded_ids(const fs::path& dir) {
  std::set<std::string> ids;
  if (!fs::exists(dir / "rows")) return ids;
  for (const auto& entry : fs::directory_iterator(dir / "rows")) {
    const std::string name = entry.path().filename().string();
    if (name[0] != '.' && entry.path().extension() == ".json") ids.insert(entry.path().stem());
  }
  return ids;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

class Batch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = fs::temp_directory_path() / ("vmafexact-batch-test-" + std::to_string(getpid()));
    fs::create_directories(folder_);
    const std::string ff = "ffmpeg -nostdin -loglevel error -y ";
    const std::string f = folder_.string() + "/";
    // 10 frames of 160x90 at 24 fps and three H.264 encodes of them.
    const std::vector<std::string> commands = {
        ff + "-f lavfi -i testsrc2=size=160x90:rate=24 -frames:v 10 -pix_fmt yuv420p " + f +
            "ref.y4m",
        ff + "-i " + f + "ref.y4m -c:v libx264 -preset fast -crf 30 -pix_fmt yuv420p " + f +
            "d1.mp4",
        ff + "-i " + f + "ref.y4m -c:v libx264 -preset fast -crf 38 -pix_fmt yuv420p " + f +
            "d2.mp4",
        ff + "-i " + f + "ref.y4m -c:v libx264 -preset fast -crf 46 -pix_fmt yuv420p " + f +
            "d3.mp4",
        // Ten seconds, for a row stopped while it scores.
        ff + "-f lavfi -i testsrc2=size=320x180:rate=24 -frames:v 240 -c:v libx264 -preset fast " +
            "-crf 18 -pix_fmt yuv420p " + f + "long_ref.mp4",
        ff + "-i " + f + "long_ref.mp4 -c:v libx264 -preset fast -crf 40 " + f + "long_dist.mp4",
    };
    for (const std::string& command : commands)
      ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static void TearDownTestSuite() { fs::remove_all(folder_); }

  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    work_ = folder_ / test->name();
    fs::remove_all(work_);
    fs::create_directories(work_);
    out_ = work_ / "out";
  }

  // A CSV manifest in the test's folder (paths relative to the inputs' folder).
  fs::path manifest(const std::string& text, const std::string& name = "pairs.csv") {
    const fs::path path =
        folder_ /
        (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" + name);
    write_text(path, text);
    return path;
  }

  // A direct run of the tool on REF and DIST with `options`: its log's scores.
  Json direct_scores(const std::string& dist, std::vector<std::string> options = {}) {
    const fs::path log = work_ / ("direct-" + dist + ".json");
    std::vector<std::string> args = {"--json", log.string(), "--precision", "max", "--quiet"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back((folder_ / "ref.y4m").string());
    args.push_back((folder_ / dist).string());
    const Result result = run_tool(args);
    EXPECT_EQ(result.status, 0) << describe(result);
    return scores_of(log);
  }

  Result batch(std::vector<std::string> args, const std::map<std::string, std::string>& env = {},
               const std::string& folder = {}) {
    args.insert(args.begin(), "batch");
    return run_tool(args, env, folder);
  }

  static fs::path folder_;
  fs::path work_, out_;
};
fs::path Batch::folder_;

const char* kThreeRows =
    "id,ref,dist\n"
    "r0,ref.y4m,d1.mp4\n"
    "r1,ref.y4m,d2.mp4\n"
    "r2,ref.y4m,d3.mp4\n";

// Every row's log equals a direct run's with the same options (per-row
// columns win over the batch's options); two rows ran side by side.
TEST_F(Batch, LogsEqualDirectRunsWithPerRowOptions) {
  const fs::path pairs = manifest(
      "id,ref,dist,model,features,x-note\n"
      "plain,ref.y4m,d1.mp4,,,first\n"
      "ssim,ref.y4m,d2.mp4,,float_ssim,\n"
      "neg,ref.y4m,d3.mp4,vmaf_v0.6.1neg,,\n");
  const Result result = batch({pairs.string(), "--output-dir", out_.string(), "--jobs", "2",
                               "--threads", "1", "--features", "psnr"});
  ASSERT_EQ(result.status, 0) << describe(result);
  EXPECT_NE(result.err.find("2 at once with 1 thread each"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("ok, vmaf "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("done: 3 ok, 0 failed"), std::string::npos) << result.err;

  EXPECT_EQ(scores_of(out_ / "plain.json"), direct_scores("d1.mp4", {"--features", "psnr"}));
  EXPECT_EQ(scores_of(out_ / "ssim.json"), direct_scores("d2.mp4", {"--features", "float_ssim"}));
  EXPECT_EQ(scores_of(out_ / "neg.json"),
            direct_scores("d3.mp4", {"--features", "psnr", "--model", "vmaf_v0.6.1neg"}));
  // The columns reached the runs: float_ssim instead of the batch's psnr.
  const Json ssim = read_json(out_ / "ssim.json");
  EXPECT_TRUE(ssim["pooled_metrics"].contains("float_ssim"));
  EXPECT_FALSE(ssim["pooled_metrics"].contains("psnr_y"));

  const Json plain = read_json(out_ / "rows" / "plain.json");
  EXPECT_EQ(plain["status"], "ok");
  EXPECT_EQ(plain["exit_code"], 0);
  EXPECT_EQ(plain["attempt"], 1);
  EXPECT_EQ(plain["log"], "plain.json");
  EXPECT_EQ(plain["line"], 2);
  EXPECT_EQ(plain["shard"], "0/1");
  EXPECT_EQ(plain["options"]["precision"], "max");
  EXPECT_EQ(plain["options"]["features"], "psnr");
  EXPECT_EQ(plain["extra"].size(), 1u);
  EXPECT_EQ(plain["fingerprint"].get<std::string>().size(), 64u);
  // Rows 1 and 2 started together (--jobs 2): each started before the
  // other ended. The ISO 8601 times with milliseconds compare as text.
  const Json ssim_record = read_json(out_ / "rows" / "ssim.json");
  EXPECT_LT(plain["started"].get<std::string>(), ssim_record["finished"].get<std::string>());
  EXPECT_LT(ssim_record["started"].get<std::string>(), plain["finished"].get<std::string>());
  EXPECT_TRUE(leftovers(out_).empty());
}

// --group 3: the rows of one reference with the same options (a0, a1, a2)
// are scored by one process, each log equal to a direct run of its row
// alone; a row of another reference file and one of other options are
// scored alone. merge reads the records.
TEST_F(Batch, RowsOfOneReferenceScoredByOneProcess) {
  fs::copy_file(folder_ / "ref.y4m", work_ / "ref_copy.y4m");
  const std::string other_ref = (work_ / "ref_copy.y4m").string();
  const fs::path pairs = manifest("id,ref,dist,features\na0,ref.y4m,d1.mp4,\nother," + other_ref +
                                  ",d2.mp4,\na1,ref.y4m,d2.mp4,\nopt,ref.y4m,d3.mp4,psnr\n"
                                  "a2,ref.y4m,d3.mp4,\n");
  const Result result = batch({pairs.string(), "--output-dir", out_.string(), "--group", "3",
                               "--jobs", "3", "--threads", "1"});
  ASSERT_EQ(result.status, 0) << describe(result);
  EXPECT_NE(result.err.find("3 at once with 1 thread each, rows of one reference scored "
                            "together up to 3 per process;"),
            std::string::npos)
      << result.err;
  // One progress line per row.
  for (const std::string id : {"a0", "a1", "a2", "other", "opt"})
    EXPECT_NE(result.err.find("] " + id + ": ok, vmaf "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("done: 5 ok, 0 failed"), std::string::npos) << result.err;

  const std::map<std::string, std::vector<std::string>> together = {
      {"a0", {"a1", "a2"}}, {"a1", {"a0", "a2"}}, {"a2", {"a0", "a1"}}, {"other", {}}, {"opt", {}}};
  for (const auto& [id, others] : together) {
    SCOPED_TRACE(id);
    const Json record = read_json(out_ / "rows" / (id + ".json"));
    EXPECT_EQ(record["status"], "ok");
    EXPECT_EQ(record["scored_with"], Json(others)) << record.dump(2);
    EXPECT_EQ(record["attempt"], 1);
  }
  // One process: one command line, one start, each log staged as a row alone stages it.
  const Json a0 = read_json(out_ / "rows" / "a0.json");
  const std::string command = a0["command_line"];
  EXPECT_NE(command.find("'" + out_.string() + "/.{name}.json.partial' --names a0,a1,a2 --quiet"),
            std::string::npos)
      << command;
  for (const std::string id : {"a1", "a2"}) {
    EXPECT_EQ(read_json(out_ / "rows" / (id + ".json"))["command_line"], command);
    EXPECT_EQ(read_json(out_ / "rows" / (id + ".json"))["started"], a0["started"]);
  }
  EXPECT_EQ(
      read_json(out_ / "rows" / "other.json")["command_line"].get<std::string>().find("--names"),
      std::string::npos);

  EXPECT_EQ(scores_of(out_ / "a0.json"), direct_scores("d1.mp4"));
  EXPECT_EQ(scores_of(out_ / "a1.json"), direct_scores("d2.mp4"));
  EXPECT_EQ(scores_of(out_ / "a2.json"), direct_scores("d3.mp4"));
  EXPECT_EQ(scores_of(out_ / "other.json"), direct_scores("d2.mp4"));
  EXPECT_EQ(scores_of(out_ / "opt.json"), direct_scores("d3.mp4", {"--features", "psnr"}));
  EXPECT_EQ(read_json(out_ / "a1.json")["frames"].size(), 10u);
  EXPECT_TRUE(leftovers(out_).empty());

  // merge reads the records with their scored_with.
  const Result merged = run_tool({"merge", out_.string()});
  EXPECT_EQ(merged.status, 0) << describe(merged);
  EXPECT_NE(merged.err.find("5 rows: 5 ok, 0 failed"), std::string::npos) << merged.err;

  // Done rows are skipped as ever.
  const Result again = batch({pairs.string(), "--output-dir", out_.string(), "--group", "3"});
  EXPECT_EQ(again.status, 0) << describe(again);
  EXPECT_NE(again.err.find("5 already done, 0 to score"), std::string::npos) << again.err;
}

// A process of several rows that fails (here one DIST missing) records none
// of them: each is scored again alone, so that only the bad row fails, with
// its own error.
TEST_F(Batch, AFailedGroupIsScoredAgainRowByRow) {
  const fs::path pairs = manifest(
      "id,ref,dist\n"
      "b0,ref.y4m,d1.mp4\n"
      "bad,ref.y4m,missing.mp4\n"
      "b1,ref.y4m,d2.mp4\n");
  const Result result = batch({pairs.string(), "--output-dir", out_.string(), "--group", "3",
                               "--jobs", "3", "--threads", "1"});
  ASSERT_EQ(result.status, 6) << describe(result);
  EXPECT_NE(result.err.find("batch: rows b0, bad, b1 scored together failed (exit 2: cannot read "
                            "the distorted video " +
                            (folder_ / "missing.mp4").string()),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("); scoring each alone\n"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("bad: FAILED (exit 2): cannot read the distorted video"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("done: 2 ok, 1 failed"), std::string::npos) << result.err;
  const Json bad = read_json(out_ / "rows" / "bad.json");
  EXPECT_EQ(bad["status"], "failed");
  EXPECT_EQ(bad["exit_code"], 2);
  EXPECT_EQ(bad["attempt"], 1);
  EXPECT_EQ(bad["scored_with"], Json::array());
  EXPECT_NE(bad["error"].get<std::string>().find("missing.mp4"), std::string::npos);
  EXPECT_EQ(bad["command_line"].get<std::string>().find("--names"), std::string::npos);
  for (const std::string id : {"b0", "b1"}) {
    const Json record = read_json(out_ / "rows" / (id + ".json"));
    EXPECT_EQ(record["status"], "ok") << record.dump(2);
    EXPECT_EQ(record["scored_with"], Json::array());
    EXPECT_EQ(record["attempt"], 1);
  }
  EXPECT_EQ(scores_of(out_ / "b1.json"), direct_scores("d2.mp4"));
  EXPECT_FALSE(fs::exists(out_ / "bad.json"));
  EXPECT_TRUE(leftovers(out_).empty());
}

// By default on the CPU each row is its own process; and a row whose log is a
// symlink to the user's file (its log staged beside the link's target) is
// scored alone while the others of its reference share one.
TEST_F(Batch, CpuRowsAloneByDefaultAndALinkedLogAlone) {
  const fs::path pairs = manifest(kThreeRows);
  const Result plain =
      batch({pairs.string(), "--output-dir", out_.string(), "--jobs", "3", "--threads", "1"});
  ASSERT_EQ(plain.status, 0) << describe(plain);
  EXPECT_EQ(plain.err.find("scored together"), std::string::npos) << plain.err;
  for (const std::string id : {"r0", "r1", "r2"})
    EXPECT_EQ(read_json(out_ / "rows" / (id + ".json"))["scored_with"], Json::array()) << id;

  const fs::path linked = work_ / "linked";
  fs::create_directories(linked);
  write_text(work_ / "mine.json", "the user's previous log\n");
  fs::create_symlink(work_ / "mine.json", linked / "r1.json");
  const Result grouped = batch({pairs.string(), "--output-dir", linked.string(), "--jobs", "3",
                                "--threads", "1", "--group", "3"});
  ASSERT_EQ(grouped.status, 0) << describe(grouped);
  EXPECT_EQ(read_json(linked / "rows" / "r0.json")["scored_with"], Json::array({"r2"}));
  EXPECT_EQ(read_json(linked / "rows" / "r2.json")["scored_with"], Json::array({"r0"}));
  EXPECT_EQ(read_json(linked / "rows" / "r1.json")["scored_with"], Json::array());
  EXPECT_TRUE(fs::is_symlink(linked / "r1.json"));
  EXPECT_EQ(scores_of(work_ / "mine.json"), scores_of(out_ / "r1.json"));
  EXPECT_EQ(scores_of(linked / "r2.json"), scores_of(out_ / "r2.json"));
  EXPECT_TRUE(leftovers(linked).empty());
  EXPECT_FALSE(fs::exists(work_ / ".mine.json.partial"));
}

// A row that fails is recorded with its error and exit code, the others go
// on; a rerun skips the done rows (their logs and records untouched) and
// runs the failed one again as attempt 2.
TEST_F(Batch, FailedRowRecordedAndRetriedDoneRowsSkipped) {
  const fs::path pairs = manifest(
      "id,ref,dist\n"
      "good,ref.y4m,d1.mp4\n"
      "bad,ref.y4m,missing.mp4\n");
  const Result first = batch({pairs.string(), "--output-dir", out_.string(), "--jobs", "1"});
  ASSERT_EQ(first.status, 6) << describe(first);
  EXPECT_NE(first.err.find("bad: FAILED (exit 2): cannot read the distorted video"),
            std::string::npos)
      << first.err;
  const Json bad = read_json(out_ / "rows" / "bad.json");
  EXPECT_EQ(bad["status"], "failed");
  EXPECT_EQ(bad["exit_code"], 2);
  EXPECT_EQ(bad["attempt"], 1);
  EXPECT_NE(bad["error"].get<std::string>().find("missing.mp4"), std::string::npos);
  EXPECT_FALSE(fs::exists(out_ / "bad.json"));
  EXPECT_EQ(read_json(out_ / "rows" / "good.json")["status"], "ok");

  const Result listed = batch({pairs.string(), "--output-dir", out_.string(), "--list"});
  EXPECT_EQ(listed.status, 0) << describe(listed);
  EXPECT_NE(listed.out.find("good\tdone\n"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("bad\tfailed (attempt 1, exit 2"), std::string::npos) << listed.out;

  // Other options make the done row outdated.
  const Result other =
      batch({pairs.string(), "--output-dir", out_.string(), "--list", "--features", "psnr"});
  EXPECT_NE(other.out.find("good\toutdated"), std::string::npos) << other.out;

  const FileIdentity log_before = identity_of(out_ / "good.json");
  const std::string record_before = read_text(out_ / "rows" / "good.json");
  const Result quiet = batch({pairs.string(), "--output-dir", out_.string(), "--quiet"});
  ASSERT_EQ(quiet.status, 6) << describe(quiet);
  // --quiet: the failed row only.
  EXPECT_NE(quiet.err.find("bad: FAILED (exit 2)"), std::string::npos) << quiet.err;
  EXPECT_EQ(quiet.err.find("already done"), std::string::npos) << quiet.err;
  EXPECT_EQ(read_json(out_ / "rows" / "bad.json")["attempt"], 2);
  const Result second = batch({pairs.string(), "--output-dir", out_.string()});
  ASSERT_EQ(second.status, 6) << describe(second);
  EXPECT_NE(second.err.find("1 already done, 1 to score"), std::string::npos) << second.err;
  EXPECT_TRUE(identity_of(out_ / "good.json") == log_before);
  EXPECT_EQ(read_text(out_ / "rows" / "good.json"), record_before);
  EXPECT_EQ(read_json(out_ / "rows" / "bad.json")["attempt"], 3);

  // Other options: the done row is scored again.
  const Result changed =
      batch({pairs.string(), "--output-dir", out_.string(), "--features", "psnr"});
  EXPECT_EQ(changed.status, 6) << describe(changed);
  EXPECT_EQ(read_json(out_ / "rows" / "good.json")["attempt"], 2);
  EXPECT_TRUE(read_json(out_ / "good.json")["pooled_metrics"].contains("psnr_y"));

  // --force scores the done row again.
  const Result forced =
      batch({pairs.string(), "--output-dir", out_.string(), "--features", "psnr", "--force"});
  EXPECT_EQ(forced.status, 6) << describe(forced);
  EXPECT_EQ(read_json(out_ / "rows" / "good.json")["attempt"], 3);
  EXPECT_TRUE(leftovers(out_).empty());
}

// A batch stopped midway (SIGTERM after the first row's record, or
// SIGKILL) leaves no log or record of a row it did not finish and no
// temporary file; the next run scores only the missing rows.
// The processes `pid` started (Linux's /proc/PID/task/PID/children).
std::vector<pid_t> children_of(const std::string& pid) {
  std::istringstream list(read_text("/proc/" + pid + "/task/" + pid + "/children"));
  std::vector<pid_t> children;
  for (pid_t child = 0; list >> child;) children.push_back(child);
  return children;
}

// Whether `pid` runs the tool on a row (not the batch between fork and
// exec) and has its handler for `signal` (/proc/PID/status, SigCgt).
bool catches(pid_t pid, int signal) {
  if (read_text("/proc/" + std::to_string(pid) + "/cmdline").find("--quiet") == std::string::npos)
    return false;
  std::istringstream status(read_text("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);)
    if (line.rfind("SigCgt:", 0) == 0)
      return (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1)) & 1;
  return false;
}

void stop_midway_then_resume(const fs::path& pairs, const fs::path& out, const fs::path& work,
                             int signal, const std::vector<std::string>& grouped = {}) {
  // Grouped: two places, for a group of two.
  std::vector<std::string> args = {kCliPath, "batch", pairs.string(), "--output-dir", out.string()};
  args.insert(args.end(), {"--threads", "1", "--jobs", grouped.empty() ? "1" : "2"});
  args.insert(args.end(), grouped.begin(), grouped.end());
  ChildProcess running(args, work / "stopped.err");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (running.running() && !fs::exists(out / "rows" / "r0.json") &&
         std::chrono::steady_clock::now() < deadline)
    ChildProcess::pump(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(out / "rows" / "r0.json")) << running.error_output();
  running.send_signal(signal);
  const auto status = running.wait_exit(std::chrono::seconds(30));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 128 + signal) << running.error_output();

  const std::set<std::string> done = recorded_ids(out);
  ASSERT_TRUE(done.count("r0"));
  if (!grouped.empty()) {
    EXPECT_EQ(read_json(out / "rows" / "r0.json")["scored_with"], Json::array({"r1"}));
  }
  ASSERT_LT(done.size(), 4u) << "every row ended before the signal: " << running.error_output();
  std::map<std::string, FileIdentity> logs;
  for (const std::string& id : done) logs[id] = identity_of(out / (id + ".json"));
  // Rows without a record have no log either.
  for (const std::string id : {"r0", "r1", "r2", "r3"})
    EXPECT_EQ(fs::exists(out / (id + ".json")), done.count(id) == 1) << id;

  const Result resumed = run_tool({"batch", pairs.string(), "--output-dir", out.string()});
  ASSERT_EQ(resumed.status, 0) << describe(resumed);
  EXPECT_NE(resumed.err.find(std::to_string(done.size()) + " already done, " +
                             std::to_string(4 - done.size()) + " to score"),
            std::string::npos)
      << resumed.err;
  for (const auto& [id, identity] : logs)
    EXPECT_TRUE(identity_of(out / (id + ".json")) == identity) << id << " was scored again";
  EXPECT_EQ(recorded_ids(out).size(), 4u);
  for (const std::string id : {"r0", "r1", "r2", "r3"})
    EXPECT_EQ(read_json(out / "rows" / (id + ".json"))["attempt"], 1) << id;
  EXPECT_EQ(leftovers(out), std::vector<std::string>{});
}

const char* kFourRows =
    "id,ref,dist\n"
    "r0,ref.y4m,d1.mp4\n"
    "r1,ref.y4m,d2.mp4\n"
    "r2,ref.y4m,d3.mp4\n"
    "r3,ref.y4m,d1.mp4\n";

TEST_F(Batch, InterruptedBySigtermThenResumed) {
  stop_midway_then_resume(manifest(kFourRows), out_, work_, SIGTERM);
}

// Rows scored two to a process (r0 with r1, r2 with r3): the process running
// at the signal leaves no log or record of its rows either.
TEST_F(Batch, InterruptedBySigtermThenResumedWithGroups) {
  stop_midway_then_resume(manifest(kFourRows), out_, work_, SIGTERM, {"--group", "2"});
}

TEST_F(Batch, KilledThenResumed) {
  stop_midway_then_resume(manifest(kFourRows), out_, work_, SIGKILL);
}

// The CPU time `pid` has used, in clock ticks (/proc/PID/stat: utime + stime).
long cpu_ticks(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto end = stat.rfind(')');
  if (end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(end + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

// Under nohup (SIGHUP ignored) a hangup does not stop the batch; otherwise
// SIGHUP stops it as SIGTERM does (exit code 129).
TEST_F(Batch, HangupIgnoredUnderNohup) {
  const fs::path pairs = manifest(kThreeRows);
  for (const bool ignored : {true, false}) {
    const fs::path out = out_ / (ignored ? "ignored" : "default");
    ChildProcess running(
        {"/bin/sh", "-c", std::string(ignored ? "trap '' HUP; " : "") + "exec \"$0\" \"$@\"",
         kCliPath, "batch", pairs.string(), "--output-dir", out.string(), "--jobs", "1"},
        work_ / "hangup.err");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (running.running() && !fs::exists(out / "rows" / "r0.json") &&
           std::chrono::steady_clock::now() < deadline)
      ChildProcess::pump(std::chrono::milliseconds(10));
    running.send_signal(SIGHUP);
    const auto status = running.wait_exit(std::chrono::seconds(60));
    ASSERT_TRUE(status.has_value());
    if (ignored) {
      EXPECT_EQ(*status, 0) << running.error_output();
      EXPECT_EQ(recorded_ids(out).size(), 3u);
    } else {
      EXPECT_EQ(*status, 129) << running.error_output();
      EXPECT_LT(recorded_ids(out).size(), 3u);
    }
  }
}

// A row stopped by a signal of its own while it scores (Slurm and
// Kubernetes signal every process of a task) writes the frames scored so
// far: they stay out of DIR/{id}.json, the row is recorded failed, and the
// next run scores it again.
TEST_F(Batch, RowSignalledAloneLeavesNoLog) {
  const fs::path pairs = manifest(
      "id,ref,dist\n"
      "r0,ref.y4m,d1.mp4\n"
      "r1,long_ref.mp4,long_dist.mp4\n"
      "r2,ref.y4m,d2.mp4\n");
  ChildProcess running({kCliPath, "batch", pairs.string(), "--output-dir", out_.string(), "--jobs",
                        "1", "--threads", "1"},
                       work_ / "batch.err");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (running.running() && !fs::exists(out_ / "rows" / "r0.json") &&
         std::chrono::steady_clock::now() < deadline)
    ChildProcess::pump(std::chrono::milliseconds(10));
  // r1 runs: signalled once it has its SIGTERM handler (it is scoring).
  std::vector<pid_t> rows;
  while (running.running() && std::chrono::steady_clock::now() < deadline) {
    rows = children_of(running.pid());
    if (!rows.empty() && catches(rows.front(), SIGTERM)) break;
    ChildProcess::pump(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(rows.size(), 1u) << running.error_output();
  // Scoring: a third of a second of CPU time since it got its handler (the
  // row takes about two), so that it has frames scored to write.
  const long ticks = cpu_ticks(rows.front());
  while (running.running() && cpu_ticks(rows.front()) < ticks + sysconf(_SC_CLK_TCK) / 3 &&
         std::chrono::steady_clock::now() < deadline)
    ChildProcess::pump(std::chrono::milliseconds(5));
  ::kill(rows.front(), SIGTERM);
  const auto status = running.wait_exit(std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 6) << running.error_output();
  const Json r1 = read_json(out_ / "rows" / "r1.json");
  EXPECT_EQ(r1["status"], "failed");
  EXPECT_EQ(r1["exit_code"], 143);
  EXPECT_FALSE(fs::exists(out_ / "r1.json"));
  EXPECT_EQ(read_json(out_ / "rows" / "r2.json")["status"], "ok");
  EXPECT_EQ(leftovers(out_), std::vector<std::string>{});

  const Result resumed = run_tool({"batch", pairs.string(), "--output-dir", out_.string()});
  ASSERT_EQ(resumed.status, 0) << describe(resumed);
  EXPECT_EQ(read_json(out_ / "rows" / "r1.json")["attempt"], 2);
  EXPECT_EQ(read_json(out_ / "r1.json")["frames"].size(), 240u);
}

// A batch started with SIGQUIT ignored (`batch ... &` from a script) still
// stops its rows: killed while a row is starting (before the tool has its
// own SIGQUIT handler), the row dies with it and writes nothing.
TEST_F(Batch, RowDiesWithBatchStartedWithSigquitIgnored) {
  const fs::path pairs = manifest(
      "id,ref,dist\n"
      "r1,long_ref.mp4,long_dist.mp4\n");
  ChildProcess running(
      {"/bin/sh", "-c", "trap '' QUIT INT; exec \"$0\" \"$@\"", kCliPath, "batch", pairs.string(),
       "--output-dir", out_.string(), "--jobs", "1", "--threads", "1"},
      work_ / "batch.err");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<pid_t> rows;
  // The row has become the tool (exec'd) and has no SIGQUIT handler yet.
  while (running.running() && std::chrono::steady_clock::now() < deadline) {
    rows = children_of(running.pid());
    if (!rows.empty() &&
        read_text("/proc/" + std::to_string(rows.front()) + "/cmdline").find("--quiet") !=
            std::string::npos)
      break;
    ChildProcess::pump(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(rows.size(), 1u) << running.error_output();
  running.send_signal(SIGKILL);
  ASSERT_TRUE(running.wait_exit(std::chrono::seconds(30)).has_value());
  const fs::path row_proc = "/proc/" + std::to_string(rows.front());
  while (fs::exists(row_proc) && std::chrono::steady_clock::now() < deadline)
    ChildProcess::pump(std::chrono::milliseconds(10));
  // Gone before the end of its row (about two seconds of scoring), without a log.
  EXPECT_FALSE(fs::exists(row_proc)) << "the row outlived its batch";
  EXPECT_FALSE(fs::exists(out_ / ".r1.json.partial"));
  EXPECT_FALSE(fs::exists(out_ / "rows" / ".r1.partial.json"));
  EXPECT_FALSE(fs::exists(out_ / "r1.json"));
  EXPECT_FALSE(fs::exists(out_ / "rows" / "r1.json"));
}

// A record replaced by a FIFO (or a link to a device) is no record: --list
// and a run do not block on it, the row runs and its record replaces it.
TEST_F(Batch, RecordThatIsAFifoIsReplaced) {
  const fs::path pairs = manifest("id,ref,dist\nr0,ref.y4m,d1.mp4\nr1,ref.y4m,d2.mp4\n");
  fs::create_directories(out_ / "rows");
  ASSERT_EQ(::mkfifo((out_ / "rows" / "r0.json").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", out_ / "rows" / "r1.json");
  const Result listed = batch({pairs.string(), "--output-dir", out_.string(), "--list"});
  EXPECT_EQ(listed.status, 0) << describe(listed);
  EXPECT_NE(listed.out.find("r0\tnot run"), std::string::npos) << listed.out;
  const Result scored = batch({pairs.string(), "--output-dir", out_.string()});
  EXPECT_EQ(scored.status, 0) << describe(scored);
  for (const char* id : {"r0", "r1"}) {
    EXPECT_TRUE(
        fs::is_regular_file(fs::symlink_status(out_ / "rows" / (id + std::string(".json")))));
    EXPECT_EQ(read_json(out_ / "rows" / (id + std::string(".json")))["status"], "ok");
  }
}

// Two batches on one folder never score a row twice: B planned row x, but
// A scored it while B was busy with a long row; B reads x's record again
// under x's lock and leaves it (or, had A still held it, reports it being
// scored elsewhere).
TEST_F(Batch, TwoBatchesScoreARowOnce) {
  const fs::path pairs_b = manifest(
      "id,ref,dist\n"
      "slow,long_ref.mp4,long_dist.mp4\n"
      "x,ref.y4m,d1.mp4\n",
      "b.csv");
  const fs::path pairs_a = manifest("id,ref,dist\nx,ref.y4m,d1.mp4\n", "a.csv");
  ChildProcess b({kCliPath, "batch", pairs_b.string(), "--output-dir", out_.string(), "--jobs", "1",
                  "--threads", "1"},
                 work_ / "b.err");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (b.running() && children_of(b.pid()).empty() && std::chrono::steady_clock::now() < deadline)
    ChildProcess::pump(std::chrono::milliseconds(5));
  ASSERT_TRUE(b.running()) << b.error_output();
  const Result a = batch({pairs_a.string(), "--output-dir", out_.string()});
  EXPECT_EQ(a.status, 0) << describe(a);
  const auto status = b.wait_exit(std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value());
  const std::string err = b.error_output();
  EXPECT_EQ(read_json(out_ / "rows" / "x.json")["attempt"], 1) << err;
  EXPECT_EQ(read_json(out_ / "rows" / "slow.json")["status"], "ok") << err;
  if (err.find("x: being scored elsewhere") != std::string::npos)
    EXPECT_EQ(*status, 6) << err;
  else
    EXPECT_NE(err.find("x: already done (by another batch meanwhile)"), std::string::npos) << err;
}

// --shard I/N and the schedulers' task indexes select position % N == I.
TEST_F(Batch, ShardsSelectTheirRows) {
  const fs::path pairs = manifest(
      "id,ref,dist\n"
      "p0,ref.y4m,d1.mp4\n"
      "p1,ref.y4m,d2.mp4\n"
      "p2,ref.y4m,d3.mp4\n"
      "p3,ref.y4m,d1.mp4\n"
      "p4,ref.y4m,d2.mp4\n");
  auto listed_ids = [&](const Result& result) {
    std::vector<std::string> ids;
    std::istringstream lines(result.out);
    std::string line;
    while (std::getline(lines, line)) ids.push_back(line.substr(0, line.find('\t')));
    return ids;
  };
  const std::vector<std::string> list = {pairs.string(), "--output-dir", out_.string(), "--list"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = list;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const Result all = batch(list);
  EXPECT_EQ(listed_ids(all), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));
  EXPECT_EQ(listed_ids(batch(with({"--shard", "1/2"}))), (std::vector<std::string>{"p1", "p3"}));
  EXPECT_EQ(listed_ids(batch(with({"--shard", "0/3"}))), (std::vector<std::string>{"p0", "p3"}));
  EXPECT_EQ(listed_ids(batch(list, {{"SLURM_ARRAY_TASK_ID", "12"},
                                    {"SLURM_ARRAY_TASK_MIN", "10"},
                                    {"SLURM_ARRAY_TASK_MAX", "14"},
                                    {"SLURM_ARRAY_TASK_STEP", "2"},
                                    {"SLURM_ARRAY_TASK_COUNT", "3"}})),
            (std::vector<std::string>{"p1", "p4"}));
  // Index 2 of 2 is out of range.
  EXPECT_EQ(batch(list, {{"JOB_COMPLETION_INDEX", "2"}, {"VMAFEXACT_SHARD_COUNT", "2"}}).status, 1);
  EXPECT_EQ(
      listed_ids(batch(list, {{"JOB_COMPLETION_INDEX", "2"}, {"VMAFEXACT_SHARD_COUNT", "3"}})),
      (std::vector<std::string>{"p2"}));
  // --shard wins over the environment.
  EXPECT_EQ(listed_ids(batch(with({"--shard", "0/5"}),
                             {{"JOB_COMPLETION_INDEX", "2"}, {"VMAFEXACT_SHARD_COUNT", "3"}})),
            (std::vector<std::string>{"p0"}));
  EXPECT_EQ(batch(with({"--shard", "2/2"})).status, 1);

  // A scoring run of one Slurm task scores its share and records it.
  const Result scored =
      batch({pairs.string(), "--output-dir", out_.string()}, {{"SLURM_ARRAY_TASK_ID", "2"},
                                                              {"SLURM_ARRAY_TASK_MIN", "0"},
                                                              {"SLURM_ARRAY_TASK_MAX", "2"},
                                                              {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                              {"SLURM_CPUS_PER_TASK", "1"}});
  ASSERT_EQ(scored.status, 0) << describe(scored);
  // The task's CPUs bound the rows and threads.
  EXPECT_NE(scored.err.find("1 row in shard 2/3 (SLURM_ARRAY_TASK_ID)"), std::string::npos)
      << scored.err;
  EXPECT_NE(scored.err.find("1 at once with 1 thread each; 1 CPU ("), std::string::npos)
      << scored.err;
  EXPECT_NE(scored.err.find("SLURM_CPUS_PER_TASK 1)"), std::string::npos) << scored.err;
  EXPECT_EQ(recorded_ids(out_), (std::set<std::string>{"p2"}));
  EXPECT_EQ(read_json(out_ / "rows" / "p2.json")["shard"], "2/3");
}

// With --backend cuda each row gets one GPU of --gpus in its
// CUDA_VISIBLE_DEVICES, the least busy (here two rows, two GPUs: one each);
// a row of its own backend cpu gets none. (Whether the rows score depends on
// the machine's GPUs: not checked here.)
TEST_F(Batch, GpusSharedOutAmongRows) {
  const fs::path pairs = manifest(
      "id,ref,dist,backend\n"
      "g0,ref.y4m,d1.mp4,\n"
      "g1,ref.y4m,d2.mp4,\n"
      "c0,ref.y4m,d3.mp4,cpu\n");
  // With --group 1 each row is alone, with CUDA too.
  const Result result = batch({pairs.string(), "--output-dir", out_.string(), "--backend", "cuda",
                               "--gpus", "7,9", "--threads", "1", "--jobs", "3", "--group", "1"});
  EXPECT_NE(result.err.find("3 at once with 1 thread each;"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("scored together"), std::string::npos) << result.err;
  EXPECT_EQ(read_json(out_ / "rows" / "g0.json")["scored_with"], Json::array());
  EXPECT_NE(result.err.find("GPUs 7,9"), std::string::npos) << result.err;
  EXPECT_EQ(read_json(out_ / "rows" / "g0.json")["gpu"], "7");
  EXPECT_EQ(read_json(out_ / "rows" / "g1.json")["gpu"], "9");
  EXPECT_TRUE(read_json(out_ / "rows" / "c0.json")["gpu"].is_null());
  EXPECT_EQ(read_json(out_ / "rows" / "c0.json")["status"], "ok");
  EXPECT_EQ(read_json(out_ / "rows" / "g0.json")["options"]["backend"], "cuda");

  // The default with CUDA: one row per CPU (the CPU decoders set the pace),
  // not a number per GPU.
  const Result by_cpus =
      batch({pairs.string(), "--output-dir", out_.string(), "--backend", "cuda", "--gpus", "7,9",
             "--force"},
            {{"SLURM_CPUS_PER_TASK", "1"}});
  EXPECT_NE(by_cpus.err.find("1 at once with 1 thread each"), std::string::npos) << by_cpus.err;

  // By default with CUDA, rows of one reference share a process (on one
  // GPU): g0 and g1 (c0's backend differs). Where their process fails (no
  // such GPU here), each is scored again alone.
  const Result grouped = batch({pairs.string(), "--output-dir", out_.string(), "--backend", "cuda",
                                "--gpus", "7,9", "--threads", "1", "--jobs", "3", "--force"});
  EXPECT_NE(grouped.err.find("3 at once with 1 thread each, rows of one reference scored "
                             "together up to 3 per process;"),
            std::string::npos)
      << grouped.err;
  const Json g0 = read_json(out_ / "rows" / "g0.json");
  const Json g1 = read_json(out_ / "rows" / "g1.json");
  if (g0["scored_with"] == Json::array({"g1"})) {
    EXPECT_EQ(g1["scored_with"], Json::array({"g0"}));
    EXPECT_EQ(g0["gpu"], g1["gpu"]);
  } else {
    EXPECT_NE(grouped.err.find("batch: rows g0, g1 scored together failed (exit "),
              std::string::npos)
        << grouped.err;
    EXPECT_EQ(g0["scored_with"], Json::array()) << g0.dump(2);
  }
  EXPECT_EQ(read_json(out_ / "rows" / "c0.json")["scored_with"], Json::array());
}

// A model file named in a row's `model` cell is relative to the manifest's
// folder, as ref and dist are; one given to the batch, to the current folder.
TEST_F(Batch, ModelFilesRelativeToTheManifestOrTheCurrentFolder) {
  fs::create_directories(folder_ / "models");
  fs::copy_file(kModelFile, folder_ / "models" / "lin.json", fs::copy_options::overwrite_existing);
  fs::create_directories(work_ / "here");
  fs::copy_file(kModelFile, work_ / "here" / "lin2.json");
  const fs::path pairs = manifest(
      "id,ref,dist,model\n"
      "cell,ref.y4m,d1.mp4,models/lin.json:name=lin\n"
      "wide,ref.y4m,d2.mp4,\n");
  // Run from another folder: neither path resolves against it by chance.
  const Result result =
      batch({pairs.string(), "--output-dir", out_.string(), "--model", "here/lin2.json:name=lin2"},
            {}, work_.string());
  ASSERT_EQ(result.status, 0) << describe(result);
  EXPECT_EQ(scores_of(out_ / "cell.json"),
            direct_scores("d1.mp4", {"--model", kModelFile + std::string(":name=lin")}));
  EXPECT_EQ(scores_of(out_ / "wide.json"),
            direct_scores("d2.mp4", {"--model", kModelFile + std::string(":name=lin2")}));
  EXPECT_EQ(read_json(out_ / "rows" / "cell.json")["options"]["model"],
            (folder_ / "models" / "lin.json").string() + ":name=lin");
  EXPECT_EQ(read_json(out_ / "rows" / "wide.json")["options"]["model"],
            (work_ / "here" / "lin2.json").string() + ":name=lin2");
}

// A bad manifest, option or output folder stops the batch before any row runs.
TEST_F(Batch, RefusalsBeforeAnythingRuns) {
  const fs::path good = manifest(kThreeRows);
  const Result unknown_column =
      batch({manifest("id,ref,dist,colour\nr0,ref.y4m,d1.mp4,red\n", "bad.csv").string(),
             "--output-dir", out_.string()});
  EXPECT_EQ(unknown_column.status, 1) << describe(unknown_column);
  EXPECT_NE(unknown_column.err.find("colour"), std::string::npos) << unknown_column.err;

  const Result bad_value =
      batch({manifest("id,ref,dist,subsample\nr0,ref.y4m,d1.mp4,0\n", "value.csv").string(),
             "--output-dir", out_.string()});
  EXPECT_EQ(bad_value.status, 1) << describe(bad_value);
  EXPECT_NE(bad_value.err.find("row r0"), std::string::npos) << bad_value.err;

  const Result bad_option =
      batch({good.string(), "--output-dir", out_.string(), "--scale-flags", "nonsense"});
  EXPECT_EQ(bad_option.status, 1) << describe(bad_option);
  EXPECT_EQ(batch({good.string()}).status, 1);
  EXPECT_EQ(batch({good.string(), "--output-dir", out_.string(), "--jobs", "-1"}).status, 1);
  for (const std::string group : {"0", "65", "many"}) {
    const Result bad_group =
        batch({good.string(), "--output-dir", out_.string(), "--group", group});
    EXPECT_EQ(bad_group.status, 1) << describe(bad_group);
    EXPECT_NE(bad_group.err.find("vmafexact: --group " + group + ": "), std::string::npos)
        << bad_group.err;
    EXPECT_NE(bad_group.err.find("Write 1 to 64 rows per run"), std::string::npos) << bad_group.err;
  }
  EXPECT_EQ(batch({good.string(), "--output-dir", out_.string(), "--bogus"}).status, 1);
  EXPECT_EQ(batch({"--output-dir", out_.string()}).status, 1);
  EXPECT_FALSE(fs::exists(out_)) << "nothing may be written before the options are checked";

  // The output folder: an input, a file, or under a file.
  const std::string ref = (folder_ / "ref.y4m").string();
  const Result is_input = batch({good.string(), "--output-dir", ref});
  EXPECT_EQ(is_input.status, 5) << describe(is_input);
  EXPECT_NE(is_input.err.find("is the input"), std::string::npos) << is_input.err;
  write_text(work_ / "file", "x");
  EXPECT_EQ(batch({good.string(), "--output-dir", (work_ / "file").string()}).status, 5);
  EXPECT_EQ(batch({good.string(), "--output-dir", (work_ / "file" / "sub").string()}).status, 5);

  const Result help = batch({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--output-dir"), std::string::npos);
}

// A row another batch holds (its lock file locked) is left to it: reported,
// not recorded, exit code 6; the other rows are scored. Once free, the next
// run scores it.
TEST_F(Batch, LockedRowLeftToTheOtherBatch) {
  const fs::path pairs = manifest(
      "id,ref,dist\n"
      "mine,ref.y4m,d1.mp4\n"
      "theirs,ref.y4m,d2.mp4\n");
  fs::create_directories(out_ / "rows");
  const int lock = ::open((out_ / "rows" / ".theirs.lock").c_str(), O_RDWR | O_CREAT, 0666);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  const Result contended = batch({pairs.string(), "--output-dir", out_.string()});
  EXPECT_EQ(contended.status, 6) << describe(contended);
  EXPECT_NE(contended.err.find("theirs: being scored elsewhere"), std::string::npos)
      << contended.err;
  EXPECT_EQ(recorded_ids(out_), (std::set<std::string>{"mine"}));
  const Result listed = batch({pairs.string(), "--output-dir", out_.string(), "--list"});
  EXPECT_NE(listed.out.find("theirs\tbeing scored elsewhere"), std::string::npos) << listed.out;
  ::close(lock);

  const Result freed = batch({pairs.string(), "--output-dir", out_.string()});
  EXPECT_EQ(freed.status, 0) << describe(freed);
  EXPECT_EQ(recorded_ids(out_), (std::set<std::string>{"mine", "theirs"}));
}

}  // namespace

// --row-timeout: a row that runs too long (here a sparse raw file of hours of
// frames, as a stalled or endless input would) is stopped without a log and
// recorded failed saying why; the rows after it still run.
TEST_F(Batch, RowTimeoutStopsARowThatRunsTooLong) {
  const fs::path endless = work_ / "endless.yuv";
  {
    std::ofstream file(endless, std::ios::binary);
  }
  fs::resize_file(endless, std::uintmax_t{64} * 64 * 3 / 2 * 2'000'000);  // sparse: no disk
  const fs::path pairs = manifest(
      "id,ref,dist,size\n"
      "slow," + endless.string() + "," + endless.string() + ",64x64\n"
      "r1,ref.y4m,d1.mp4,\n");
  const auto started = std::chrono::steady_clock::now();
  const Result result = batch({pairs.string(), "--output-dir", out_.string(), "--jobs", "1",
                               "--threads", "1", "--row-timeout", "1.5"});
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.status, 6) << describe(result);
  EXPECT_LT(took, std::chrono::seconds(40)) << describe(result);
  const Json slow = read_json(out_ / "rows" / "slow.json");
  EXPECT_EQ(slow["status"], "failed");
  EXPECT_NE(slow["error"].get<std::string>().find("--row-timeout 1.5 s"), std::string::npos)
      << slow.dump(2);
  EXPECT_FALSE(fs::exists(out_ / "slow.json"));
  EXPECT_EQ(read_json(out_ / "rows" / "r1.json")["status"], "ok");
  EXPECT_EQ(leftovers(out_), std::vector<std::string>{});

  const Result bad = batch({pairs.string(), "--output-dir", out_.string(), "--row-timeout", "0"});
  EXPECT_EQ(bad.status, 1) << describe(bad);
  EXPECT_NE(bad.err.find("--row-timeout '0': not a time"), std::string::npos) << describe(bad);
}

// A group that one endless DIST holds up is stopped after its rows' time
// together (the row timeout times 2), and its rows are scored again alone:
// the endless one is stopped after the row timeout, the short one is scored.
TEST_F(Batch, RowTimeoutStopsAGroupThenEachRowAlone) {
  // The element reads each input to its end (it counts the unpaired frames),
  // so the endless input is the slow row's DIST, not the shared REF.
  const fs::path endless = work_ / "endless.yuv";
  const fs::path reference = work_ / "reference.yuv";
  const fs::path short_clip = work_ / "short.yuv";
  {
    std::ofstream file(endless, std::ios::binary);
    std::ofstream ref(reference, std::ios::binary);
    ref << std::string(64 * 64 * 3 / 2 * 10, '\x40');
    std::ofstream clip(short_clip, std::ios::binary);
    clip << std::string(64 * 64 * 3 / 2 * 5, '\x48');
  }
  fs::resize_file(endless, std::uintmax_t{64} * 64 * 3 / 2 * 2'000'000);  // sparse: no disk
  const fs::path pairs = manifest(
      "id,ref,dist,size,framerate\n"
      "slow," + reference.string() + "," + endless.string() + ",64x64,25\n"
      "quick," + reference.string() + "," + short_clip.string() + ",64x64,25\n");
  const auto started = std::chrono::steady_clock::now();
  const Result result = batch({pairs.string(), "--output-dir", out_.string(), "--jobs", "2",
                               "--threads", "1", "--group", "2", "--row-timeout", "1.5"});
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.status, 6) << describe(result);
  EXPECT_LT(took, std::chrono::seconds(60)) << describe(result);
  EXPECT_NE(result.err.find("batch: rows slow, quick scored together failed (exit "),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("stopped after --row-timeout 3 s (2 rows' time)"), std::string::npos)
      << result.err;
  const Json slow = read_json(out_ / "rows" / "slow.json");
  EXPECT_EQ(slow["status"], "failed") << slow.dump(2);
  EXPECT_NE(slow["error"].get<std::string>().find("--row-timeout 1.5 s"), std::string::npos)
      << slow.dump(2);
  EXPECT_EQ(slow["scored_with"], Json::array());
  const Json quick = read_json(out_ / "rows" / "quick.json");
  EXPECT_EQ(quick["status"], "ok") << quick.dump(2);
  EXPECT_EQ(quick["scored_with"], Json::array());
  EXPECT_TRUE(fs::exists(out_ / "quick.json"));
  EXPECT_FALSE(fs::exists(out_ / "slow.json"));
  EXPECT_EQ(leftovers(out_), std::vector<std::string>{});
}
