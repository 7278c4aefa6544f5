// The shipped Slurm job-array scripts (deploy/slurm/) on a real Slurm: a
// one-node cluster on the loopback started by the test from Debian's packages
// (slurm_cluster.h). An array over a manifest of six pairs writes, for every
// row, the log that a direct `vmafexact REF DIST --json` run writes; an array
// cancelled midway and submitted again scores only the rows not yet done.
//
// Skips when Slurm or munge is missing or the test does not run as root (slurmd
// starts jobs as their user), except under CI (the environment variable CI set),
// where that fails: scripts/install-deps.sh installs them.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "slurm_cluster.h"

using vmafexact::test::kCliPath;
using vmafexact::test::kSourceRoot;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using vmafexact::system_test::CommandResult;
using vmafexact::system_test::read_text;
using vmafexact::system_test::run_command;
using vmafexact::system_test::SlurmCluster;
using vmafexact::system_test::SystemProcess;

const fs::path kScripts = fs::path(kSourceRoot) / "deploy" / "slurm";
const fs::path kCpuScript = kScripts / "vmafexact-batch.sbatch";
const fs::path kGpuScript = kScripts / "vmafexact-batch-gpu.sbatch";
// The scripts ask for 8 CPUs a task: the node declares 16, two tasks at once.
constexpr int kNodeCpus = 16;

constexpr int kWidth = 160, kHeight = 90;

// A y4m file of `frames` 160x90 4:2:0 pictures: a pattern that moves with
// the frame number, textured by `seed`; with `noise`, every luma sample moved
// by a pseudo-random amount of at most `noise` either way (the "encode").
void write_y4m(const fs::path& path, int frames, unsigned seed, int noise) {
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W" << kWidth << " H" << kHeight << " F25:1 Ip A1:1 C420jpeg\n";
  std::string picture(kWidth * kHeight * 3 / 2, '\0');
  for (int t = 0; t < frames; ++t) {
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x) {
        int value =
            (x * 2 + y * 3 + t * 4 + static_cast<int>((x / 8 + y / 8 + seed) % 5) * 40) % 220 + 16;
        if (noise > 0) {
          std::uint32_t h = static_cast<std::uint32_t>(x) * 73856093u ^
                            static_cast<std::uint32_t>(y) * 19349663u ^
                            static_cast<std::uint32_t>(t) * 83492791u ^ seed * 2654435761u;
          h ^= h >> 13;
          h *= 0x5bd1e995u;
          h ^= h >> 15;
          value += static_cast<int>(h % static_cast<std::uint32_t>(2 * noise + 1)) - noise;
        }
        picture[static_cast<std::size_t>(y * kWidth + x)] =
            static_cast<char>(std::clamp(value, 0, 255));
      }
    for (std::size_t i = kWidth * kHeight; i < picture.size(); ++i)
      picture[i] =
          static_cast<char>(128 + static_cast<int>((i + seed + static_cast<unsigned>(t)) % 16));
    out << "FRAME\n";
    out.write(picture.data(), static_cast<std::streamsize>(picture.size()));
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

// A manifest row: its id, media and tool options (column -> value).
struct Row {
  std::string id, ref, dist;
  std::map<std::string, std::string> options;
};

// The manifest as CSV: a column for every option some row gives (an empty
// cell gives none).
void write_manifest(const fs::path& path, const std::vector<Row>& rows) {
  std::set<std::string> columns;
  for (const Row& row : rows)
    for (const auto& [column, value] : row.options) columns.insert(column);
  std::ofstream out(path);
  out << "id,ref,dist";
  for (const std::string& column : columns) out << "," << column;
  out << "\n";
  for (const Row& row : rows) {
    out << row.id << "," << row.ref << "," << row.dist;
    for (const std::string& column : columns)
      out << "," << (row.options.contains(column) ? row.options.at(column) : "");
    out << "\n";
  }
}

Json read_json(const fs::path& path) {
  try {
    return Json::parse(read_text(path));
  } catch (const Json::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

// What a log says about the video: every frame's scores and the pooled ones
// (not where and when it was made: provenance, fps).
Json scores_of(const Json& log) {
  Json scores;
  for (const char* key : {"frames", "pooled_metrics", "aggregate_metrics"})
    if (log.contains(key)) scores[key] = log.at(key);
  return scores;
}

::testing::AssertionResult same_scores(const fs::path& batch_log, const fs::path& direct_log) {
  if (!fs::exists(batch_log)) return ::testing::AssertionFailure() << batch_log << " is missing";
  const Json batch = scores_of(read_json(batch_log));
  const Json direct = scores_of(read_json(direct_log));
  if (!batch.contains("frames") || batch.at("frames").empty())
    return ::testing::AssertionFailure() << batch_log << " holds no frames";
  if (batch == direct) return ::testing::AssertionSuccess();
  const std::string patch = Json::diff(direct, batch).dump();
  return ::testing::AssertionFailure()
         << batch_log << " differs from the direct run " << direct_log
         << " (JSON patch from the direct run's): " << patch.substr(0, 1500);
}

// Each row run directly, `vmafexact REF DIST --json OUT --precision max` with
// the row's options and `extra` (all at once), into `dir`/{id}.json.
void run_directly(const std::vector<Row>& rows, const fs::path& media, const fs::path& dir,
                  const std::vector<std::string>& extra = {}) {
  fs::create_directories(dir);
  std::vector<std::unique_ptr<SystemProcess>> runs;
  for (const Row& row : rows) {
    std::vector<std::string> argv = {kCliPath,
                                     (media / row.ref).string(),
                                     (media / row.dist).string(),
                                     "--json",
                                     (dir / (row.id + ".json")).string(),
                                     "--precision",
                                     "max",
                                     "--quiet"};
    for (const auto& [option, value] : row.options) argv.push_back("--" + option + "=" + value);
    argv.insert(argv.end(), extra.begin(), extra.end());
    runs.push_back(
        std::make_unique<SystemProcess>(argv, dir / (row.id + ".stderr"), dir / (row.id + ".out")));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::optional<int> status = runs[i]->wait_exit(120s);
    if (status != 0)
      throw std::runtime_error("the direct run of " + rows[i].id + " failed (" +
                               (status ? std::to_string(*status) : "timed out") +
                               "): " + runs[i]->error_output());
  }
}

// The value of `key` in one line of `scontrol --oneliner show job`.
std::string field(const std::string& line, const std::string& key) {
  std::smatch match;
  if (!std::regex_search(line, match, std::regex("(^| )" + key + "=(\\S*)"))) return "";
  return match[2];
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// A file's identity and last change: unchanged when nobody rewrote it.
struct FileStamp {
  ino_t inode = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};
FileStamp stamp_of(const fs::path& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return {};
  return {info.st_ino, std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec};
}

bool record_ok(const fs::path& record) {
  if (!fs::exists(record)) return false;
  try {
    return read_json(record).value("status", "") == "ok";
  } catch (const std::runtime_error&) {
    return false;  // never a partial file (written through a temporary one), but be safe
  }
}

class SlurmTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    const char* ci = g_getenv("CI");
    const bool in_ci = ci && *ci;
    std::string missing;
    for (const std::string& program : SlurmCluster::missing_programs())
      missing += (missing.empty() ? "" : ", ") + program;
    std::string reason;
    if (!missing.empty())
      reason = missing +
               " not found (PATH, /usr/sbin); scripts/install-deps.sh installs them (Debian's "
               "slurm-wlm, slurmctld, slurmd, slurm-client, munge)";
    else if (geteuid() != 0)
      reason = "not root: the test's slurmd must start jobs (run as root, as CI does)";
    if (!reason.empty()) {
      (in_ci ? setup_error_ : skip_reason_) = reason + (in_ci ? " (CI is set: it must run)" : "");
      return;
    }
    try {
      gchar* made = g_dir_make_tmp("vmafexact-slurm-XXXXXX", nullptr);
      if (!made) throw std::runtime_error("cannot make a temporary folder");
      dir_ = made;
      g_free(made);
      // The jobs run `vmafexact` from PATH (sbatch gives them the test's
      // environment, GST_PLUGIN_PATH included): the build's.
      const std::string path = g_getenv("PATH") ? g_getenv("PATH") : "/usr/bin:/bin";
      g_setenv("PATH", (fs::path(kCliPath).parent_path().string() + ":" + path).c_str(), TRUE);
      const auto started = std::chrono::steady_clock::now();
      cluster_ = std::make_unique<SlurmCluster>(dir_ / "cluster", kNodeCpus, 60s);
      std::cerr << "slurm: the cluster came up in "
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
                << " s\n";
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    cluster_.reset();
    std::error_code ignored;
    if (!dir_.empty() && !g_getenv("VMAFEXACT_KEEP_SLURM_DIR")) fs::remove_all(dir_, ignored);
  }

 protected:
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_TRUE(cluster_);
  }
  void TearDown() override {
    if (HasFailure() && cluster_) std::cerr << "Slurm's logs:\n" << cluster_->logs() << "\n";
  }

  static const SlurmCluster& cluster() { return *cluster_; }

  // sbatch ARGS; the job's id.
  static std::string submit(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult result = cluster().command(argv);
    if (result.status != 0) throw std::runtime_error(result.describe(argv));
    return result.out.substr(0, result.out.find_first_of(";\n"));
  }
  // `scontrol show job` of a job, one line per array task, sorted by task.
  static std::vector<std::string> job_lines(const std::string& job_id) {
    const CommandResult result =
        cluster().command({"scontrol", "--oneliner", "show", "job", job_id});
    std::vector<std::string> lines = lines_of(result.out);
    std::sort(lines.begin(), lines.end(), [](const std::string& a, const std::string& b) {
      return std::stoi("0" + field(a, "ArrayTaskId")) < std::stoi("0" + field(b, "ArrayTaskId"));
    });
    return lines;
  }
  // The logs of a job's tasks (the scripts' --output in --chdir).
  static std::string task_logs(const fs::path& dir) {
    std::string text;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".out")
        text += "--- " + entry.path().filename().string() + ":\n" + read_text(entry.path());
    return text;
  }

  static fs::path dir_;
  static std::unique_ptr<SlurmCluster> cluster_;
  static std::string setup_error_, skip_reason_;
};

fs::path SlurmTest::dir_;
std::unique_ptr<SlurmCluster> SlurmTest::cluster_;
std::string SlurmTest::setup_error_, SlurmTest::skip_reason_;

// The cluster runs a job step on its node (srun: slurmctld, slurmd, munge and
// the step's I/O back to the client all work).
TEST_F(SlurmTest, SrunRunsACommandOnTheNode) {
  const std::vector<std::string> argv = {"srun", "--ntasks=1", "hostname"};
  const CommandResult result = cluster().command(argv);
  ASSERT_EQ(result.status, 0) << result.describe(argv);
  EXPECT_EQ(result.out, std::string(g_get_host_name()) + "\n") << result.describe(argv);
}

// Every #SBATCH line of both scripts reaches the job: each held (never run)
// job shows the scripts' name, CPUs, time limit, log file, open mode, requeue
// and, for the GPU one, the GPU.
TEST_F(SlurmTest, ScriptsOptionsReachTheJob) {
  const fs::path dir = dir_ / "held";
  fs::create_directories(dir);
  struct Expected {
    fs::path script;
    std::string name, gres;
  };
  for (const Expected& expected : {Expected{kCpuScript, "vmafexact-batch", ""},
                                   Expected{kGpuScript, "vmafexact-batch-gpu", "gres:gpu:1"}}) {
    SCOPED_TRACE(expected.script.filename().string());
    const std::string job = submit({"--hold", "--chdir=" + dir.string(), "--array=0-2%2",
                                    expected.script.string(), "manifest.csv", "out"});
    const std::vector<std::string> lines = job_lines(job);
    ASSERT_FALSE(lines.empty()) << job;
    const std::string& line = lines.front();
    EXPECT_EQ(field(line, "JobName"), expected.name) << line;
    EXPECT_EQ(field(line, "CPUs/Task"), "8") << line;
    EXPECT_EQ(field(line, "TimeLimit"), "12:00:00") << line;
    EXPECT_EQ(field(line, "Requeue"), "1") << line;
    EXPECT_EQ(field(line, "ArrayTaskThrottle"), "2") << line;
    // %A_%a, as scontrol shows it for an array not yet split into tasks.
    EXPECT_TRUE(
        field(line, "StdOut").starts_with((dir / (expected.name + "-" + job + "_")).string()))
        << line;
    EXPECT_EQ(field(line, "TresPerNode"), expected.gres) << line;
    cluster().command({"scancel", job});
    EXPECT_TRUE(cluster().wait_job_end(job, 20s));
  }
}

// sbatch --array=0-2%2 over six pairs: three tasks of two rows each, two at a
// time; every row's log equals a direct run's.
TEST_F(SlurmTest, ArrayScoresEveryRowAsADirectRun) {
  const fs::path media = dir_ / "small";
  fs::create_directories(media);
  std::vector<Row> rows;
  const std::vector<std::map<std::string, std::string>> options = {
      {}, {{"features", "psnr"}}, {}, {{"features", "float_ssim"}}, {{"frames", "5"}}, {}};
  for (unsigned i = 0; i < 6; ++i) {
    const std::string id = "pair" + std::to_string(i);
    write_y4m(media / (id + "_ref.y4m"), 8, i, 0);
    write_y4m(media / (id + "_dist.y4m"), 8, i, 6 + static_cast<int>(i) * 4);
    rows.push_back({id, id + "_ref.y4m", id + "_dist.y4m", options[i]});
  }
  write_manifest(media / "manifest.csv", rows);
  const fs::path out = dir_ / "small-out";

  const auto started = std::chrono::steady_clock::now();
  const std::string job = submit({"--chdir=" + media.string(), "--array=0-2%2", kCpuScript.string(),
                                  (media / "manifest.csv").string(), out.string()});
  ASSERT_TRUE(cluster().wait_job_end(job, 90s)) << "job " << job << " still queued after 90 s\n"
                                                << task_logs(media);
  std::cerr << "slurm: the array of 3 tasks over 6 rows took "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
            << " s\n";

  const std::vector<std::string> tasks = job_lines(job);
  ASSERT_EQ(tasks.size(), 3u) << task_logs(media);
  for (const std::string& task : tasks) {
    EXPECT_EQ(field(task, "JobState"), "COMPLETED") << task << "\n" << task_logs(media);
    EXPECT_EQ(field(task, "ExitCode"), "0:0") << task;
    const fs::path log =
        media / ("vmafexact-batch-" + job + "_" + field(task, "ArrayTaskId") + ".out");
    EXPECT_TRUE(fs::exists(log)) << log;
  }

  run_directly(rows, media, dir_ / "small-direct");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].id);
    const Json record = read_json(out / "rows" / (rows[i].id + ".json"));
    EXPECT_EQ(record.value("status", ""), "ok") << record.dump();
    EXPECT_EQ(record.value("attempt", 0), 1) << record.dump();
    // Row i is task i % 3's: the batch took its share from SLURM_ARRAY_TASK_*.
    EXPECT_EQ(record.value("shard", ""), std::to_string(i % 3) + "/3") << record.dump();
    EXPECT_TRUE(
        same_scores(out / (rows[i].id + ".json"), dir_ / "small-direct" / (rows[i].id + ".json")));
  }
}

// An array cancelled midway (its first task done, the second killed while it
// runs, the third never started), then submitted again the same way: the rows
// done are not scored again (their records and logs untouched), the others
// are, and all six logs equal direct runs.
TEST_F(SlurmTest, CancelledArraySubmittedAgainScoresOnlyTheMissingRows) {
  const fs::path media = dir_ / "long";
  fs::create_directories(media);
  // Task 0 (rows 0 and 3) scores a dozen frames per row; tasks 1 and 2, one
  // row at a time (--jobs 1, --threads 1), 2000 frames per row: seconds.
  write_y4m(media / "ref.y4m", 2000, 7, 0);
  write_y4m(media / "dist.y4m", 2000, 7, 12);
  const std::vector<Row> rows = {
      {"quick0", "ref.y4m", "dist.y4m", {{"frames", "12"}}},
      {"long1", "ref.y4m", "dist.y4m", {}},
      {"long2", "ref.y4m", "dist.y4m", {{"features", "psnr"}}},
      {"quick3", "ref.y4m", "dist.y4m", {{"frames", "12"}, {"features", "psnr"}}},
      {"long4", "ref.y4m", "dist.y4m", {{"model", "vmaf_v0.6.1neg"}}},
      {"long5", "ref.y4m", "dist.y4m", {{"features", "float_ssim"}}},
  };
  write_manifest(media / "manifest.csv", rows);
  const fs::path out = dir_ / "long-out";
  // One task at a time (%1): task 1 starts only once task 0 has ended.
  const std::vector<std::string> array = {"--chdir=" + media.string(),
                                          "--array=0-2%1",
                                          kCpuScript.string(),
                                          (media / "manifest.csv").string(),
                                          out.string(),
                                          "--jobs",
                                          "1",
                                          "--threads",
                                          "1"};
  const std::set<std::string> quick = {"quick0", "quick3"};

  const auto started = std::chrono::steady_clock::now();
  const std::string first = submit(array);
  // Cancelled once task 0's rows are done and task 1 scores its first row:
  // the batch takes the row's lock, DIR/rows/.long1.lock, as it starts it.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!(record_ok(out / "rows" / "quick0.json") && record_ok(out / "rows" / "quick3.json") &&
           fs::exists(out / "rows" / ".long1.lock"))) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "task 0's rows not done, or task 1's first row not started, 60 s after the "
           "submission\n"
        << task_logs(media);
    SystemProcess::pump(50ms);
  }
  const CommandResult cancel = cluster().command({"scancel", first});
  ASSERT_EQ(cancel.status, 0) << cancel.describe({"scancel", first});
  ASSERT_TRUE(cluster().wait_job_end(first, 30s)) << task_logs(media);
  const std::vector<std::string> cancelled = job_lines(first);
  ASSERT_EQ(cancelled.size(), 3u);
  EXPECT_EQ(field(cancelled[0], "JobState"), "COMPLETED") << cancelled[0];
  EXPECT_EQ(field(cancelled[1], "JobState"), "CANCELLED") << cancelled[1];
  EXPECT_EQ(field(cancelled[2], "JobState"), "CANCELLED") << cancelled[2];

  // What the first array left: the done rows' records and their logs' stamps.
  std::map<std::string, Json> done_records;
  std::map<std::string, FileStamp> done_logs;
  for (const Row& row : rows)
    if (record_ok(out / "rows" / (row.id + ".json"))) {
      done_records[row.id] = read_json(out / "rows" / (row.id + ".json"));
      done_logs[row.id] = stamp_of(out / (row.id + ".json"));
    }
  std::set<std::string> done;
  for (const auto& [id, record] : done_records) done.insert(id);
  // Killed midway: the quick rows done, the long ones not (a long row takes
  // seconds, the cancel came within a fraction of one of long1's start), and
  // no log of a row killed or never started.
  ASSERT_EQ(done, quick) << task_logs(media);
  for (const Row& row : rows) {
    if (!done.contains(row.id)) {
      EXPECT_FALSE(fs::exists(out / (row.id + ".json"))) << row.id << "\n" << task_logs(media);
    }
  }

  const std::string second = submit(array);
  ASSERT_TRUE(cluster().wait_job_end(second, 120s))
      << "job " << second << " still queued after 120 s\n"
      << task_logs(media);
  std::cerr << "slurm: submitted, cancelled, submitted again and done in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
            << " s\n";
  for (const std::string& task : job_lines(second)) {
    EXPECT_EQ(field(task, "JobState"), "COMPLETED") << task << "\n" << task_logs(media);
    EXPECT_EQ(field(task, "ExitCode"), "0:0") << task;
  }

  run_directly(rows, media, dir_ / "long-direct", {"--threads", "1"});
  for (const Row& row : rows) {
    SCOPED_TRACE(row.id);
    const fs::path record_path = out / "rows" / (row.id + ".json");
    ASSERT_TRUE(fs::exists(record_path)) << task_logs(media);
    const Json record = read_json(record_path);
    EXPECT_EQ(record.value("status", ""), "ok") << record.dump();
    if (done.contains(row.id)) {
      // Skipped: the record as the first array wrote it (attempt 1, its
      // start time, shard) and the very same log file, never rewritten.
      EXPECT_EQ(record, done_records.at(row.id));
      EXPECT_EQ(record.value("attempt", 0), 1);
      EXPECT_TRUE(stamp_of(out / (row.id + ".json")) == done_logs.at(row.id))
          << "the log of a row done before was written again";
    }
    EXPECT_TRUE(same_scores(out / (row.id + ".json"), dir_ / "long-direct" / (row.id + ".json")));
  }
}

}  // namespace
