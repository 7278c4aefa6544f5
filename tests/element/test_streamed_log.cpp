// gst::StreamedLog's rotated files against may_write, without a pipeline: the
// order in which a refusal and the element's stop meet is fixed here, where
// a pipeline reaches it only when a frame becomes final in the same
// aggregate call (PipelineFiles.ARotatedLogNameThatIsAnotherElementsFile...).

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "../../gst/streamed_log.h"

namespace {

namespace fs = std::filesystem;
using vmafexact::gst::LogRotation;
using vmafexact::gst::StreamedLog;

std::vector<std::string> entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    names.push_back(entry.path().filename().string());
  return names;
}

// A rotated name refused while scoring (add_frame's rotation), then what the
// element's stop does: the remaining frames and the last file. Nothing is
// written, and the refused name is not asked again with a suffix.
TEST(StreamedLogRefusal, AfterARefusedRotatedNameNothingIsWrittenUnderAnyName) {
  const fs::path folder =
      fs::temp_directory_path() / ("vmafexact-streamed-log-" + std::to_string(getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  const std::string refused = (folder / "cap-000000.json").string();
  std::vector<std::string> asked;
  StreamedLog::Options options;
  options.location = (folder / "cap-{index}.json").string();
  options.rotation.kind = LogRotation::Kind::kFrames;
  options.rotation.frames = 1;
  options.version = "test";
  options.may_write = [&](const std::string& path) {
    asked.push_back(path);
    return path != refused;  // another element's file
  };
  {
    StreamedLog log(std::move(options));
    const std::vector<std::string> names{"psnr_y"};
    const auto frame = [&](unsigned index) {
      return log.add_frame(index, {{"psnr_y", 40.0 + index}}, index * GST_SECOND, names,
                           std::chrono::milliseconds(index));
    };
    EXPECT_TRUE(frame(0));
    EXPECT_FALSE(frame(1));  // rotation: file 0 is cap-000000.json, refused
    EXPECT_TRUE(log.refused());
    EXPECT_EQ(log.failed_path(), refused);
    // The element's stop after the error: remaining frames, then the last file.
    EXPECT_FALSE(frame(2));
    EXPECT_FALSE(log.finish(3, names, {}, std::chrono::milliseconds(3)));
    EXPECT_TRUE(log.refused());
    EXPECT_EQ(log.files_written(), 0u);
  }
  EXPECT_EQ(asked, std::vector<std::string>{refused});
  EXPECT_EQ(entries(folder), std::vector<std::string>{});
  fs::remove_all(folder);
}

}  // namespace
