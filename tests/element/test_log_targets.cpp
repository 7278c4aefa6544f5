// log-location that is not a plain file: a character device (as /dev/null),
// a FIFO and a symlink. The log is delivered through them and each stays what
// it was: a device or FIFO is written in place, never replaced by a regular
// file; a symlink's target is what is replaced.

#include <fcntl.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

class LogTargets : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("vmafexact-log-targets-" + std::to_string(getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(folder_))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }

  fs::path folder_;
};

// Ten frames scored with PSNR, the log at `location`; "" at EOS, or the error.
std::string score_ten_frames(const fs::path& location) {
  const std::string description =
      "videotestsrc num-buffers=10 ! video/x-raw,format=I420,width=64,height=48 ! tee name=t "
      "t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink "
      "vmafexact name=v features=psnr model=\"\" log-location=\"" +
      location.string() + "\" ! fakesink";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  if (!pipeline || error) {
    std::string text = error ? error->message : "no pipeline";
    g_clear_error(&error);
    if (pipeline) gst_object_unref(pipeline);
    return text;
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, 30 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string failure;
  if (!message) {
    failure = "timeout";
  } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError* gerror = nullptr;
    gst_message_parse_error(message, &gerror, nullptr);
    failure = gerror->message;
    g_error_free(gerror);
  }
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return failure;
}

mode_t type_of(const fs::path& path) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) return 0;
  return status.st_mode & S_IFMT;
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
  EXPECT_EQ(type_of(null), S_IFCHR);
  EXPECT_EQ(names(), std::vector<std::string>{"null"});
}

TEST_F(LogTargets, AFifosReaderGetsTheWholeLogAndItStaysAFifo) {
  const fs::path fifo = folder_ / "log.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader is there before the element writes.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  auto run = std::async(std::launch::async, [&] { return score_ten_frames(fifo); });
  std::string log;
  std::array<char, 65536> buffer{};
  for (;;) {
    pollfd ready{reader, POLLIN, 0};
    if (::poll(&ready, 1, 30000) <= 0) break;  // bounded: a hang fails the test
    const ssize_t n = ::read(reader, buffer.data(), buffer.size());
    if (n > 0)
      log.append(buffer.data(), static_cast<std::size_t>(n));
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
      break;
  }
  ::close(reader);
  EXPECT_EQ(run.get(), "");
  EXPECT_EQ(frames_in(log), 10u) << log;
  EXPECT_EQ(type_of(fifo), S_IFIFO);
  EXPECT_EQ(names(), std::vector<std::string>{"log.json"});
}

TEST_F(LogTargets, AFifoWithoutAReaderIsAnErrorNotAHang) {
  const fs::path fifo = folder_ / "log.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string failure = score_ten_frames(fifo);
  EXPECT_NE(failure.find("Could not write the score log"), std::string::npos) << failure;
  EXPECT_EQ(type_of(fifo), S_IFIFO);
  EXPECT_EQ(names(), std::vector<std::string>{"log.json"});
}

TEST_F(LogTargets, ASymlinkStaysAndItsTargetHoldsTheLog) {
  std::ofstream(folder_ / "real.json") << "old";
  fs::create_symlink("real.json", folder_ / "link.json");
  EXPECT_EQ(score_ten_frames(folder_ / "link.json"), "");
  EXPECT_EQ(type_of(folder_ / "link.json"), S_IFLNK);
  std::ifstream in(folder_ / "real.json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(frames_in(text.str()), 10u);
  EXPECT_EQ(names(), (std::vector<std::string>{"link.json", "real.json"}));
}

}  // namespace
