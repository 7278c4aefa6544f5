// log-location that is not a plain file: a character device (as /dev/null),
// a FIFO and a symlink. The log is delivered through them and each stays what
// it was: a device or FIFO is written in place, never replaced by a regular
// file; a symlink's target is what is replaced.

#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/pipeline_end.h"
#include "../common/scratch_files.h"

namespace {

namespace fs = std::filesystem;

using vmafexact::test::FifoReader;
using vmafexact::test::file_type;

class LogTargets : public ::testing::Test {
 protected:
  std::vector<std::string> names() const { return scratch_.entries(); }

  const vmafexact::test::ScratchFolder scratch_{"vmafexact-log-targets"};
  const fs::path folder_ = scratch_.path();
};

// What a run ended with: empty at EOS; else the error's message and details.
using Outcome = vmafexact::test::PipelineEnd;

// Ten frames scored with PSNR, the log at `location`.
Outcome run_ten_frames(const fs::path& location) {
  const std::string description =
      "videotestsrc num-buffers=10 ! video/x-raw,format=I420,width=64,height=48 ! tee name=t "
      "t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink "
      "vmafexact name=v features=psnr model=\"\" log-location=\"" +
      location.string() + "\" ! fakesink";
  return vmafexact::test::run_to_end(description, 30 * GST_SECOND);
}

// "" at EOS, or the error's message.
std::string score_ten_frames(const fs::path& location) { return run_ten_frames(location).message; }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t frames_in(const std::string& log) {
  const auto json = nlohmann::json::parse(log, nullptr, false);
  if (json.is_discarded() || !json.contains("frames")) return 0;
  return json["frames"].size();
}

TEST_F(LogTargets, ACharacterDeviceStaysADevice) {
  const fs::path null = folder_ / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod not permitted here: " << std::strerror(errno);
  EXPECT_EQ(score_ten_frames(null), "");
  EXPECT_EQ(file_type(null), S_IFCHR);
  EXPECT_EQ(names(), std::vector<std::string>{"null"});
}

TEST_F(LogTargets, AFifosReaderGetsTheWholeLogAndItStaysAFifo) {
  const fs::path fifo = folder_ / "log.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader is there before the element writes; bounded: a hang fails the test.
  FifoReader reader(fifo, std::chrono::seconds(30));
  ASSERT_TRUE(reader.opened());
  const std::string error = score_ten_frames(fifo);
  const std::string log = reader.text();
  EXPECT_EQ(error, "");
  EXPECT_EQ(frames_in(log), 10u) << log;
  EXPECT_EQ(file_type(fifo), S_IFIFO);
  EXPECT_EQ(names(), std::vector<std::string>{"log.json"});
}

TEST_F(LogTargets, AFifoWithoutAReaderIsAnErrorNotAHang) {
  const fs::path fifo = folder_ / "log.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Not refused at start (a reader may come by end of stream); the write says why it failed.
  const Outcome failure = run_ten_frames(fifo);
  EXPECT_TRUE(contains(failure.message, "Could not write the score log to \"" + fifo.string() +
                                            "\": no process reads the FIFO"))
      << failure.message;
  EXPECT_TRUE(contains(failure.details, "Start the FIFO's reader (e.g. cat " + fifo.string()))
      << failure.details;
  EXPECT_EQ(file_type(fifo), S_IFIFO);
  EXPECT_EQ(names(), std::vector<std::string>{"log.json"});
}

TEST_F(LogTargets, ASymlinkStaysAndItsTargetHoldsTheLog) {
  std::ofstream(folder_ / "real.json") << "old";
  fs::create_symlink("real.json", folder_ / "link.json");
  EXPECT_EQ(score_ten_frames(folder_ / "link.json"), "");
  EXPECT_EQ(file_type(folder_ / "link.json"), S_IFLNK);
  EXPECT_EQ(frames_in(vmafexact::test::read_file(folder_ / "real.json")), 10u);
  EXPECT_EQ(names(), (std::vector<std::string>{"link.json", "real.json"}));
}

// Paths that cannot hold a log are refused at start, the message naming
// the cause and the details the fix for that kind of path.
TEST_F(LogTargets, AFolderIsRefusedAtStartWithAFileNameToUse) {
  const Outcome failure = run_ten_frames(folder_);
  EXPECT_TRUE(contains(failure.message, "log-location \"" + folder_.string() +
                                            "\" cannot be written: it is a folder"))
      << failure.message;
  EXPECT_TRUE(contains(failure.details, (folder_ / "scores.json").string())) << failure.details;
  EXPECT_TRUE(names().empty());
}

TEST_F(LogTargets, AMissingFolderIsRefusedAtStartNamingTheFolder) {
  const fs::path missing = folder_ / "missing";
  const Outcome failure = run_ten_frames(missing / "scores.json");
  EXPECT_TRUE(contains(failure.message,
                       "cannot be written: its folder \"" + missing.string() + "\" does not exist"))
      << failure.message;
  EXPECT_TRUE(contains(failure.details, "Create the folder \"" + missing.string() + "\""))
      << failure.details;
  EXPECT_TRUE(names().empty());
}

TEST_F(LogTargets, AReadOnlyFolderIsRefusedAtStartNamingTheFolder) {
  // Root writes into any folder of a writable file system: then a folder of
  // procfs, which root may not create files in either.
  fs::path read_only = folder_ / "read-only";
  if (::geteuid() != 0) {
    fs::create_directory(read_only);
    fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec);
  } else if (::access("/proc/sys", W_OK) != 0) {
    read_only = "/proc/sys";
  } else {
    GTEST_SKIP() << "no folder here that this user may not write";
  }
  const Outcome failure = run_ten_frames(read_only / "scores.json");
  if (::geteuid() != 0) fs::permissions(read_only, fs::perms::owner_all);  // for TearDown
  EXPECT_TRUE(
      contains(failure.message, "cannot be written: its folder \"" + read_only.string() + "\": "))
      << failure.message;
  EXPECT_TRUE(contains(failure.details, "Make the folder \"" + read_only.string() + "\" writable"))
      << failure.details;
}

TEST_F(LogTargets, ABlockDeviceIsRefusedAtStartAndLeftAlone) {
  const fs::path device = folder_ / "disk";
  if (::mknod(device.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0)
    GTEST_SKIP() << "mknod not permitted here: " << std::strerror(errno);
  const Outcome failure = run_ten_frames(device);
  EXPECT_TRUE(contains(failure.message, "log-location \"" + device.string() +
                                            "\" cannot be written: it is a block device"))
      << failure.message;
  EXPECT_TRUE(contains(failure.details, "a block device is never written")) << failure.details;
  EXPECT_FALSE(contains(failure.details, "disk/scores.json")) << failure.details;
  EXPECT_EQ(file_type(device), S_IFBLK);
}

}  // namespace
