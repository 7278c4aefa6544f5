// `vmafexact batch` and `vmafexact merge` (tools/vmafexact/batch.cpp,
// merge.cpp) against what a hostile user or a cluster does to an output
// folder and to the processes: files of the wrong kind where records and logs
// go, a batch killed by a launcher that ignores SIGQUIT. Each case once hung
// or lost a row; each test runs the tool as a program on small videos made
// here with ffmpeg.

#include <fcntl.h>
#include <glib.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../common/build_paths.h"
#include "child_process.h"

using vmafexact::test::kCliPath;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using vmafexact::test::ChildProcess;
using vmafexact::test::read_text;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The processes `pid`'s main thread started.
std::vector<pid_t> children_of(const std::string& pid) {
  std::istringstream list(read_text("/proc/" + pid + "/task/" + pid + "/children"));
  std::vector<pid_t> children;
  for (pid_t child = 0; list >> child;) children.push_back(child);
  return children;
}

// Whether `pid` runs the tool on a row: exec'd, not the batch between fork and exec.
bool runs_a_row(pid_t pid) {
  return read_text("/proc/" + std::to_string(pid) + "/cmdline").find("--json") != std::string::npos;
}

class BatchHostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = fs::temp_directory_path() / ("vmafexact-batch-hostile-" + std::to_string(getpid()));
    fs::create_directories(folder_);
    const std::string ff = "ffmpeg -nostdin -loglevel error -y ";
    const std::string f = folder_.string() + "/";
    const std::vector<std::string> commands = {
        // 10 frames of 160x90 and an H.264 encode of them: a row of a second.
        ff + "-f lavfi -i testsrc2=size=160x90:rate=24 -frames:v 10 -pix_fmt yuv420p " + f +
            "ref.y4m",
        ff + "-i " + f + "ref.y4m -c:v libx264 -preset fast -crf 38 -pix_fmt yuv420p " + f +
            "d1.mp4",
        // Ten seconds: a row that is still running when the batch is killed.
        ff + "-f lavfi -i testsrc2=size=320x180:rate=24 -frames:v 240 -c:v libx264 -preset fast " +
            "-crf 18 -pix_fmt yuv420p " + f + "long_ref.mp4",
        ff + "-i " + f + "long_ref.mp4 -c:v libx264 -preset fast -crf 40 " + f + "long_dist.mp4",
    };
    for (const std::string& command : commands)
      ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static void TearDownTestSuite() { fs::remove_all(folder_); }

  void SetUp() override {
    work_ = folder_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(work_);
    fs::create_directories(work_);
    out_ = work_ / "out";
  }

  // A CSV manifest beside the inputs (relative paths resolve there).
  fs::path manifest(const std::string& text) {
    const fs::path path =
        folder_ /
        (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".csv");
    write_text(path, text);
    return path;
  }

  // Runs the tool with `args`; the exit status, or nothing when it ran past
  // `timeout` (then it is killed).
  std::optional<int> run_tool(const std::vector<std::string>& args, const std::string& name,
                              std::chrono::seconds timeout, std::string* stderr_text = nullptr) {
    std::vector<std::string> argv = {kCliPath};
    argv.insert(argv.end(), args.begin(), args.end());
    ChildProcess tool(argv, work_ / (name + ".err"), work_ / (name + ".out"));
    const auto status = tool.wait_exit(timeout);
    if (stderr_text) *stderr_text = tool.error_output();
    return status;
  }

  static fs::path folder_;
  fs::path work_, out_;
};
fs::path BatchHostile::folder_;

constexpr std::chrono::seconds kNoHang(60);

// A FIFO where a row's record goes (left by a user or another program) is
// not a record: --list and a run neither block on it nor read it; the run
// scores the row and its record replaces the FIFO.
TEST_F(BatchHostile, FifoAsRecordNeitherHangsListNorRun) {
  const fs::path pairs = manifest("id,ref,dist\nr0,ref.y4m,d1.mp4\n");
  fs::create_directories(out_ / "rows");
  ASSERT_EQ(::mkfifo((out_ / "rows" / "r0.json").c_str(), 0644), 0);

  std::string error;
  auto status = run_tool({"batch", pairs.string(), "--output-dir", out_.string(), "--list"}, "list",
                         kNoHang, &error);
  ASSERT_TRUE(status.has_value()) << "batch --list blocked on the FIFO DIR/rows/r0.json";
  EXPECT_EQ(*status, 0) << error;
  EXPECT_NE(read_text(work_ / "list.out").find("r0\t"), std::string::npos);

  status = run_tool({"batch", pairs.string(), "--output-dir", out_.string(), "--jobs", "1"}, "run",
                    std::chrono::seconds(120), &error);
  ASSERT_TRUE(status.has_value()) << "batch blocked on the FIFO DIR/rows/r0.json";
  EXPECT_EQ(*status, 0) << error;
  ASSERT_TRUE(fs::is_regular_file(out_ / "rows" / "r0.json"));
  EXPECT_EQ(Json::parse(read_text(out_ / "rows" / "r0.json")).at("status"), "ok");
}

// A FIFO where merge reads a record or an ok row's log: that row is failed,
// the merge ends and writes the summary.
TEST_F(BatchHostile, FifoAsRecordOrLogDoesNotHangMerge) {
  const fs::path pairs = manifest("id,ref,dist\nr0,ref.y4m,d1.mp4\nr1,ref.y4m,d1.mp4\n");
  std::string error;
  auto status = run_tool({"batch", pairs.string(), "--output-dir", out_.string(), "--jobs", "2"},
                         "batch", std::chrono::seconds(120), &error);
  ASSERT_EQ(status, 0) << error;

  for (const fs::path& fifo : {fs::path("r1.json"), fs::path("rows") / "r1.json"}) {
    SCOPED_TRACE(fifo.string());
    const fs::path dir = work_ / ("merge-" + fifo.parent_path().string() + "fifo");
    fs::copy(out_, dir, fs::copy_options::recursive);
    fs::remove(dir / fifo);
    ASSERT_EQ(::mkfifo((dir / fifo).c_str(), 0644), 0);
    status = run_tool({"merge", dir.string()}, "merge", kNoHang, &error);
    ASSERT_TRUE(status.has_value()) << "merge blocked on the FIFO " << (dir / fifo);
    EXPECT_EQ(*status, 6) << error;
    const Json summary = Json::parse(read_text(dir / "summary.json"));
    ASSERT_EQ(summary.at("rows").size(), 2u);
    EXPECT_EQ(summary["rows"][0]["status"], "ok");
    EXPECT_EQ(summary["rows"][1]["status"], "failed");
  }
}

// A batch started with SIGQUIT ignored (any `vmafexact batch ... &` in a
// shell script: background jobs get SIGINT and SIGQUIT ignored) killed
// outright: its row dies with it (PR_SET_PDEATHSIG) even before the tool has
// its SIGQUIT handler, instead of scoring on as an orphan and leaving its log.
TEST_F(BatchHostile, RowDiesWithBatchEvenWhenSigquitIgnored) {
  const fs::path pairs = manifest("id,ref,dist\nl1,long_ref.mp4,long_dist.mp4\n");
  // The row, orphaned, becomes this process's child: its end is awaited here.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  struct SubreaperOff {
    ~SubreaperOff() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } subreaper_off;

  pid_t row = 0;
  {
    ChildProcess batch(
        {"/bin/sh", "-c", "trap '' QUIT; exec \"$0\" \"$@\"", kCliPath, "batch", pairs.string(),
         "--output-dir", out_.string(), "--jobs", "1", "--threads", "1"},
        work_ / "batch.err");
    // Killed as soon as the row's tool has started (exec'd): it is then
    // still setting up, before any handler of its own.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (batch.running() && std::chrono::steady_clock::now() < deadline) {
      const std::vector<pid_t> rows = children_of(batch.pid());
      if (!rows.empty() && runs_a_row(rows.front())) {
        row = rows.front();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_GT(row, 0) << batch.error_output();
    batch.send_signal(SIGKILL);
    ASSERT_TRUE(batch.wait_exit(std::chrono::seconds(30)).has_value());
  }

  int wait_status = 0;
  pid_t ended = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((ended = ::waitpid(row, &wait_status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (ended == 0) ::kill(row, SIGKILL), ::waitpid(row, &wait_status, 0);
  ASSERT_EQ(ended, row) << "the row outlived its killed batch by two minutes";
  EXPECT_FALSE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)
      << "the row scored on to the end after its batch was killed";
  EXPECT_FALSE(fs::exists(out_ / ".l1.json.partial")) << "the orphaned row left its log";
  EXPECT_FALSE(fs::exists(out_ / "rows" / ".l1.partial.json")) << "the orphaned row left its log";
  EXPECT_FALSE(fs::exists(out_ / "l1.json"));
}


// A record whose attempt count is out of range (edited by hand, or corrupt):
// the row runs again and counts from a sane number, without the overflow
// of attempt + 1 (undefined behaviour, a UBSan abort).
TEST_F(BatchHostile, RecordWithAttemptOutOfRangeIsRetried) {
  const fs::path pairs = manifest("id,ref,dist\nr0,ref.y4m,d1.mp4\n");
  for (const std::string attempt : {"2147483647", "1e300", "-5"}) {
    SCOPED_TRACE("attempt " + attempt);
    fs::remove_all(out_);
    fs::create_directories(out_ / "rows");
    write_text(out_ / "rows" / "r0.json",
               R"({"id": "r0", "status": "failed", "error": "x", "exit_code": )" + attempt +
                   R"(, "attempt": )" + attempt + "}\n");
    // --list shows the record without trusting its numbers either.
    std::string listed;
    const auto list_status =
        run_tool({"batch", pairs.string(), "--output-dir", out_.string(), "--list"}, "list",
                 std::chrono::seconds(60), &listed);
    ASSERT_TRUE(list_status.has_value());
    EXPECT_EQ(*list_status, 0) << listed;
    std::string error;
    const auto status =
        run_tool({"batch", pairs.string(), "--output-dir", out_.string(), "--jobs", "1"}, "run",
                 std::chrono::seconds(120), &error);
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(*status, 0) << error;
    const Json record = Json::parse(read_text(out_ / "rows" / "r0.json"));
    EXPECT_EQ(record.at("status"), "ok");
    ASSERT_TRUE(record.at("attempt").is_number_integer()) << record.dump();
    EXPECT_GE(record["attempt"].get<long long>(), 1) << record.dump();
  }
}

// The hidden files a batch left in `folder`: staging logs and temporary files.
std::vector<std::string> leftovers_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".partial") != std::string::npos || name.find(".vmafexact.") != std::string::npos)
      names.push_back(name);
  }
  return names;
}

// rows/ a symlink into another filesystem (a scratch disk, a tmpfs): each
// row's log is staged beside its final name, so putting it in place is a
// rename on one filesystem (before issue 44 it was staged in rows/ and every
// row failed with EXDEV, "Invalid cross-device link"). A log that is a
// symlink to the user's regular file on that other filesystem keeps its
// link and its target gets the log; one to a device is replaced, the
// device untouched.
TEST_F(BatchHostile, RowsFolderOnAnotherFilesystemStillPutsLogsInPlace) {
  const fs::path shm_root = "/dev/shm";
  // Two filesystems, as `stat -f` tells them apart: another device, or another type.
  struct stat shm_status {};
  struct stat work_status {};
  struct statfs shm_fs {};
  struct statfs work_fs {};
  if (::stat(shm_root.c_str(), &shm_status) != 0 || ::stat(work_.c_str(), &work_status) != 0 ||
      ::statfs(shm_root.c_str(), &shm_fs) != 0 || ::statfs(work_.c_str(), &work_fs) != 0 ||
      (shm_status.st_dev == work_status.st_dev && shm_fs.f_type == work_fs.f_type))
    GTEST_SKIP() << "/dev/shm and " << work_ << " are not two filesystems (stat -f)";
  const fs::path shm = shm_root / ("vmafexact-batch-hostile-" + std::to_string(getpid()));
  fs::remove_all(shm);
  fs::create_directories(shm / "rows");
  struct RemoveShm {
    fs::path path;
    ~RemoveShm() { fs::remove_all(path); }
  } remove_shm{shm};

  const fs::path pairs =
      manifest("id,ref,dist\nr0,ref.y4m,d1.mp4\nr1,ref.y4m,d1.mp4\nr2,ref.y4m,d1.mp4\n");
  fs::create_directories(out_);
  fs::create_directory_symlink(shm / "rows", out_ / "rows");
  write_text(shm / "r1-target.json", "the user's previous log\n");
  fs::create_symlink(shm / "r1-target.json", out_ / "r1.json");
  fs::create_symlink("/dev/null", out_ / "r2.json");

  std::string error;
  const auto status = run_tool(
      {"batch", pairs.string(), "--output-dir", out_.string(), "--jobs", "3", "--threads", "1"},
      "batch", std::chrono::seconds(120), &error);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0) << error;
  EXPECT_EQ(error.find("cross-device"), std::string::npos) << error;
  for (const std::string id : {"r0", "r1", "r2"}) {
    SCOPED_TRACE(id);
    const Json record = Json::parse(read_text(shm / "rows" / (id + ".json")));
    EXPECT_EQ(record.at("status"), "ok") << record.dump(2);
    const Json log = Json::parse(read_text(out_ / (id + ".json")));  // whole: it parses
    EXPECT_EQ(log.at("frames").size(), 10u);
  }
  EXPECT_TRUE(fs::is_symlink(out_ / "r1.json")) << "the user's link was replaced";
  EXPECT_EQ(Json::parse(read_text(shm / "r1-target.json")).at("frames").size(), 10u);
  EXPECT_FALSE(fs::is_symlink(out_ / "r2.json")) << "a link to a device was written through";
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out_ / "r2.json")));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(leftovers_in(out_), std::vector<std::string>{});
  EXPECT_EQ(leftovers_in(shm), std::vector<std::string>{});
  EXPECT_EQ(leftovers_in(shm / "rows"), std::vector<std::string>{});
}

// More rows at once than the open-file limit allows: the soft limit is
// raised toward the hard one; what still does not fit runs fewer rows at
// once, saying so in one line naming the limit and the fix; below what one
// row needs, the batch refuses before anything runs. Never a row failed with
// EMFILE (before issue 44 most rows of each case failed "Too many open files").
TEST_F(BatchHostile, JobsBeyondTheOpenFileLimitRunFewerAtOnce) {
  // Row ids r0..r7.
  std::vector<std::string> ids;
  for (char digit = '0'; digit < '8'; ++digit) ids.push_back(std::string{'r', digit});
  std::string rows = "id,ref,dist\n";
  for (const std::string& id : ids) rows += id + ",ref.y4m,d1.mp4\n";
  const fs::path pairs = manifest(rows);
  // `ulimit -S -n SOFT; ulimit -H -n HARD` in a shell that then becomes the batch.
  auto run_under = [&](int soft, int hard, const std::string& name, std::string* error) {
    fs::remove_all(out_);
    const std::string limits = "ulimit -S -n " + std::to_string(soft) + " && ulimit -H -n " +
                               std::to_string(hard) + " && exec \"$0\" \"$@\"";
    const std::vector<std::string> argv = {
        "/bin/sh",      "-c",          limits,   kCliPath, "batch",     pairs.string(),
        "--output-dir", out_.string(), "--jobs", "8",      "--threads", "1"};
    ChildProcess batch(argv, work_ / (name + ".err"));
    const auto status = batch.wait_exit(std::chrono::seconds(120));
    *error = batch.error_output();
    return status;
  };
  auto expect_every_row_ok = [&](const std::string& error) {
    EXPECT_EQ(error.find("Too many open files"), std::string::npos) << error;
    for (const std::string& id : ids) {
      const fs::path record = out_ / "rows" / (id + ".json");
      ASSERT_TRUE(fs::is_regular_file(record)) << record << "\n" << error;
      EXPECT_EQ(Json::parse(read_text(record)).at("status"), "ok") << read_text(record);
    }
  };
  std::string error;

  // Hard limit too low for 8: fewer at once, one line saying why.
  auto status = run_under(24, 24, "clamped", &error);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0) << error;
  EXPECT_NE(error.find("open-file limit is 24"), std::string::npos) << error;
  EXPECT_NE(error.find("ulimit -n"), std::string::npos) << error;
  EXPECT_EQ(error.find("8 at once"), std::string::npos) << error;
  expect_every_row_ok(error);

  // Soft limit low, hard limit high: raised, all 8 at once, nothing to say.
  status = run_under(20, 4096, "raised", &error);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0) << error;
  EXPECT_NE(error.find("8 at once"), std::string::npos) << error;
  EXPECT_EQ(error.find("open-file limit"), std::string::npos) << error;
  expect_every_row_ok(error);

  // Not even one row fits: refused before anything runs.
  status = run_under(12, 12, "refused", &error);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 1) << error;
  EXPECT_NE(error.find("open-file limit is 12"), std::string::npos) << error;
  EXPECT_NE(error.find("ulimit -n"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(out_ / "rows" / "r0.json"));
}

}  // namespace
