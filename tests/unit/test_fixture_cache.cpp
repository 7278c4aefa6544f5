// The fixture cache (tests/common/fixtures.cpp): a generation whose files do not
// match SHA256SUMS names those files and the README, and is not repeated by the
// other test binaries of the same run. Runs against a stand-in generator in a
// temporary folder, never the real one.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "fixtures.h"

namespace {

namespace fs = std::filesystem;

// Sets (or unsets) an environment variable for the scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// A shared folder whose make_fixtures.sh writes good.yuv right and bad.yuv wrong
// (unless told otherwise) and counts its runs in the cache's runs.txt.
class FixtureCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: the cache remembers failures per folder within a process.
    root_ = fs::temp_directory_path() /
            ("vmafexact-fixture-cache-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "shared" / "fixtures");
    write_generator("b");
    // sha256 of "a" and of "a" again: bad.yuv must hold "a" to pass.
    write(root_ / "shared" / "fixtures" / "SHA256SUMS",
          "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  good.yuv\n"
          "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  bad.yuv\n");
    shared_.emplace("VMAFEXACT_SHARED_DIR", (root_ / "shared").string());
    cache_.emplace("VMAFEXACT_FIXTURE_CACHE", (root_ / "cache").string());
    ready_.emplace("VMAFEXACT_FIXTURE_YUV_DIR", std::nullopt);
  }
  void TearDown() override {
    ready_.reset();
    cache_.reset();
    shared_.reset();
    fs::remove_all(root_);
  }

  void write_generator(const std::string& bad_content) {
    write(root_ / "shared" / "fixtures" / "make_fixtures.sh",
          "set -e\nmkdir -p \"$1/yuv\"\necho run >>\"$1/runs.txt\"\n"
          "printf a >\"$1/yuv/good.yuv\"\nprintf " +
              bad_content + " >\"$1/yuv/bad.yuv\"\n");
  }

  int generator_runs() const {
    std::ifstream in(root_ / "cache" / "runs.txt");
    int runs = 0;
    for (std::string line; std::getline(in, line);) ++runs;
    return runs;
  }

  // fixture_yuv_dir()'s error, or "" when it returned.
  static std::string error_of_fixture_yuv_dir() {
    try {
      vmafexact::test::fixture_yuv_dir();
    } catch (const std::exception& error) {
      return error.what();
    }
    return "";
  }

  // Runs the check in a child process (a sibling of the other children, as the
  // test binaries of one `meson test` run are); true when it held.
  static bool in_child(const std::function<bool()>& check) {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(check() ? 0 : 1);
    int status = 0;
    if (child < 0 || ::waitpid(child, &status, 0) != child) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

  fs::path root_;
  std::optional<ScopedEnv> shared_, cache_, ready_;
};

TEST_F(FixtureCacheTest, MismatchNamesTheFilesAndTheReadme) {
  const std::string error = error_of_fixture_yuv_dir();
  EXPECT_NE(error.find("1 of 2 files differ (bad.yuv)"), std::string::npos) << error;
  EXPECT_NE(error.find((root_ / "shared" / "fixtures" / "README.md").string()), std::string::npos)
      << error;
  EXPECT_EQ(generator_runs(), 1);
}

TEST_F(FixtureCacheTest, GeneratorFailureQuotesItsLastLine) {
  write(root_ / "shared" / "fixtures" / "make_fixtures.sh",
        "echo 'make_fixtures.sh: this CPU lacks avx2' >&2\nexit 3\n");
  const std::string error = error_of_fixture_yuv_dir();
  EXPECT_NE(error.find("exited with status 3"), std::string::npos) << error;
  EXPECT_NE(error.find("this CPU lacks avx2"), std::string::npos) << error;
}

TEST_F(FixtureCacheTest, OtherBinariesOfTheSameRunDoNotGenerateAgain) {
  EXPECT_TRUE(in_child([] { return !error_of_fixture_yuv_dir().empty(); }));
  EXPECT_EQ(generator_runs(), 1);
  // A sibling process fails at once, with the same message.
  EXPECT_TRUE(in_child([] {
    const std::string error = error_of_fixture_yuv_dir();
    return error.find("(bad.yuv)") != std::string::npos &&
           error.find("remembered from an earlier attempt") != std::string::npos;
  }));
  EXPECT_EQ(generator_runs(), 1);
  // A process of another run (this one's parent differs) generates again, and
  // then remembers its own failure for its own later calls.
  EXPECT_NE(error_of_fixture_yuv_dir().find("(bad.yuv)"), std::string::npos);
  EXPECT_EQ(generator_runs(), 2);
  EXPECT_NE(error_of_fixture_yuv_dir().find("(bad.yuv)"), std::string::npos);
  EXPECT_EQ(generator_runs(), 2);
}

TEST_F(FixtureCacheTest, ChangedGeneratorTriesAgainAndSucceeds) {
  EXPECT_TRUE(in_child([] { return !error_of_fixture_yuv_dir().empty(); }));
  write_generator("a");
  EXPECT_TRUE(in_child([] { return error_of_fixture_yuv_dir().empty(); }));
  EXPECT_EQ(generator_runs(), 2);
  EXPECT_FALSE(fs::exists(root_ / "cache" / "generation-failed"));
  // Verified: the next call neither generates nor fails.
  EXPECT_EQ(vmafexact::test::fixture_yuv_dir(), root_ / "cache" / "yuv");
  EXPECT_EQ(generator_runs(), 2);
}

}  // namespace
