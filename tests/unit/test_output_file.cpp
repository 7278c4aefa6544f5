// The shared output writer (metrics/output/output_file.h): what a path is
// decides how it is written. A regular file is replaced through a temporary
// file, a symlink's target is written, a device, FIFO or socket is written in
// place and stays what it was.

#include "output/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "scratch_files.h"

namespace {

namespace fs = std::filesystem;
using vmafexact::output::OutputFile;
using vmafexact::output::output_problem;
using vmafexact::output::OutputProblem;
using vmafexact::output::write_output;

using vmafexact::test::entry_names;
using vmafexact::test::file_type;
using vmafexact::test::read_file;

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const vmafexact::Error& error) {
    return error.what();
  }
  return "no error";
}

std::string host_name() {
  std::array<char, 256> text{};
  gethostname(text.data(), text.size() - 1);
  return text.data();
}

// Everything a FIFO's, pipe's or socket's reader gets until the writer closes
// it; a FIFO's reader opened before the writer, so that the writer finds one.
std::string read_all(int fd) { return vmafexact::test::read_to_end(fd, std::chrono::seconds(10)); }

class OutputFileTest : public ::testing::Test {
 protected:
  // Named after the test, as the errors quote the folder.
  const vmafexact::test::ScratchFolder scratch_{
      std::string("vmafexact-output-") +
      ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  const fs::path folder_ = scratch_.path();
};

TEST_F(OutputFileTest, ANewFileIsWrittenWithNothingLeftBeside) {
  const fs::path path = folder_ / "scores.json";
  write_output(path, "hello\n");
  EXPECT_EQ(read_file(path), "hello\n");
  EXPECT_EQ(entry_names(folder_), std::vector<std::string>{"scores.json"});
}

TEST_F(OutputFileTest, AnExistingFileIsReplacedAndKeepsItsMode) {
  const fs::path path = folder_ / "scores.csv";
  std::ofstream(path) << "old";
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  write_output(path, [](std::ostream& out) { out << "new, " << 42; });
  EXPECT_EQ(read_file(path), "new, 42");
  struct stat status {};
  ASSERT_EQ(::stat(path.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0640u);
  EXPECT_EQ(entry_names(folder_), std::vector<std::string>{"scores.csv"});
}

TEST_F(OutputFileTest, AnUncommittedFileLeavesThePreviousOneAndNoTemporary) {
  const fs::path path = folder_ / "scores.json";
  std::ofstream(path) << "previous";
  {
    OutputFile file(path);
    file.stream() << "half a log";
  }
  EXPECT_EQ(read_file(path), "previous");
  EXPECT_EQ(entry_names(folder_), std::vector<std::string>{"scores.json"});
}

TEST_F(OutputFileTest, ASymlinkChainStaysAndItsTargetIsReplaced) {
  std::ofstream(folder_ / "real.json") << "old";
  fs::create_symlink("real.json", folder_ / "middle.json");
  fs::create_symlink(folder_ / "middle.json", folder_ / "link.json");
  write_output(folder_ / "link.json", "through the links");
  EXPECT_EQ(file_type(folder_ / "link.json"), S_IFLNK);
  EXPECT_EQ(file_type(folder_ / "middle.json"), S_IFLNK);
  EXPECT_EQ(file_type(folder_ / "real.json"), S_IFREG);
  EXPECT_EQ(read_file(folder_ / "real.json"), "through the links");
  EXPECT_EQ(entry_names(folder_),
            (std::vector<std::string>{"link.json", "middle.json", "real.json"}));
}

TEST_F(OutputFileTest, ADanglingSymlinkGetsItsTargetCreated) {
  fs::create_directories(folder_ / "logs");
  fs::create_symlink("logs/new.json", folder_ / "link.json");
  write_output(folder_ / "link.json", "created");
  EXPECT_EQ(file_type(folder_ / "link.json"), S_IFLNK);
  EXPECT_EQ(read_file(folder_ / "logs" / "new.json"), "created");
  EXPECT_EQ(entry_names(folder_ / "logs"), std::vector<std::string>{"new.json"});
}

TEST_F(OutputFileTest, ACharacterDeviceIsWrittenInPlaceAndStaysADevice) {
  const fs::path null = folder_ / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod not permitted here: " << std::strerror(errno);
  EXPECT_FALSE(output_problem(null));
  write_output(null, std::string(200000, 'x'));
  EXPECT_EQ(file_type(null), S_IFCHR);
  EXPECT_EQ(entry_names(folder_), std::vector<std::string>{"null"});
  // A symlink to the device: the device is written, not replaced.
  fs::create_symlink(null, folder_ / "to-null");
  write_output(folder_ / "to-null", "x");
  EXPECT_EQ(file_type(null), S_IFCHR);
  EXPECT_EQ(file_type(folder_ / "to-null"), S_IFLNK);
}

TEST_F(OutputFileTest, AFifoWithAReaderReceivesEveryByteAndStaysAFifo) {
  const fs::path fifo = folder_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  // More than a pipe holds: the writer waits for the reader.
  std::string bytes;
  for (int i = 0; bytes.size() < 1000000; ++i) bytes += "line " + std::to_string(i) + "\n";
  auto writer = std::async(std::launch::async, [&] {
    return message_of([&] { write_output(fifo, bytes); });
  });
  EXPECT_EQ(read_all(reader), bytes);
  ::close(reader);
  EXPECT_EQ(writer.get(), "no error");
  EXPECT_EQ(file_type(fifo), S_IFIFO);
  EXPECT_EQ(entry_names(folder_), std::vector<std::string>{"pipe"});
}

TEST_F(OutputFileTest, AFifoWithoutAReaderIsAClearErrorNotAHang) {
  const fs::path fifo = folder_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Checked at start without opening it (a reader may come later).
  EXPECT_FALSE(output_problem(fifo));
  EXPECT_EQ(message_of([&] { write_output(fifo, "x"); }),
            "cannot write " + fifo.string() + ": no process reads the FIFO (start its reader first)");
  EXPECT_EQ(file_type(fifo), S_IFIFO);
}

TEST_F(OutputFileTest, AReaderThatGoesAwayIsAnErrorNotSigpipe) {
  const fs::path fifo = folder_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  OutputFile file(fifo);
  ::close(reader);
  EXPECT_EQ(message_of([&] { file.write("x"); }), "cannot write " + fifo.string() + ": " +
                                                       std::strerror(EPIPE));
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

TEST_F(OutputFileTest, ASocketIsWrittenInPlace) {
  const fs::path path = folder_ / "socket";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  write_output(path, "to the socket");  // small: the kernel holds it until accepted
  const int connection = ::accept(listener, nullptr, nullptr);
  ASSERT_GE(connection, 0);
  EXPECT_EQ(read_all(connection), "to the socket");
  ::close(connection);
  ::close(listener);
  EXPECT_EQ(file_type(path), S_IFSOCK);
}

// /dev/fd/N (bash's >(...)), /dev/stdout: written through the descriptor,
// whoever owns the pipe behind it.
TEST_F(OutputFileTest, ADescriptorsNameWritesThroughTheDescriptor) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  const std::string name = "/dev/fd/" + std::to_string(ends[1]);
  EXPECT_FALSE(output_problem(name));
  write_output(name, "through fd");
  ::close(ends[1]);
  EXPECT_EQ(read_all(ends[0]), "through fd");
  const std::string read_end = "/proc/self/fd/" + std::to_string(ends[0]);
  EXPECT_EQ(message_of([&] { write_output(read_end, "x"); }),
            "cannot write " + read_end + ": the descriptor is not open for writing");
  ::close(ends[0]);
}

TEST_F(OutputFileTest, AFolderOrABlockDeviceIsAnError) {
  EXPECT_EQ(message_of([&] { write_output(folder_, "x"); }),
            "cannot write " + folder_.string() + ": it is a folder");
  const auto problem = output_problem(folder_);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->kind, OutputProblem::Kind::kNotAFile);
  const fs::path block = folder_ / "block";
  if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0)
    GTEST_SKIP() << "mknod not permitted here: " << std::strerror(errno);
  EXPECT_EQ(message_of([&] { write_output(block, "x"); }),
            "cannot write " + block.string() + ": it is a block device, not a file");
  EXPECT_EQ(file_type(block), S_IFBLK);
}

TEST_F(OutputFileTest, TheCheckAtStartModifiesNothing) {
  const fs::path path = folder_ / "scores.json";
  EXPECT_FALSE(output_problem(path));
  EXPECT_TRUE(entry_names(folder_).empty());
  const auto missing = output_problem(folder_ / "no-such-folder" / "scores.json");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->kind, OutputProblem::Kind::kFolderMissing);
  EXPECT_EQ(missing->folder, (folder_ / "no-such-folder").string());
}

// In a child whose files may not grow past 4 KiB (as on a full disk): the
// error names the file asked for, not the temporary file, which is gone.
[[noreturn]] void write_on_a_full_disk(const fs::path& path) {
  std::ofstream(path) << "previous";
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
  const rlimit file_size{4096, 4096};
  if (::setrlimit(RLIMIT_FSIZE, &file_size) != 0) std::_Exit(2);
  const std::string message = message_of([&] { write_output(path, std::string(100000, 'x')); });
  const bool kept = read_file(path) == "previous";
  const auto files = entry_names(path.parent_path()).size();
  std::fprintf(stderr, "%s; previous %s; %zu file(s)\n", message.c_str(), kept ? "kept" : "LOST",
               files);
  std::fflush(stderr);
  fs::remove_all(path.parent_path());  // the child's own folder: its TearDown does not run
  std::_Exit(kept && files == 1 ? 0 : 1);
}

TEST_F(OutputFileTest, AFullDiskNamesTheTargetNotTheTemporaryFile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The child runs in a folder of its own (made by its own fixture).
  EXPECT_EXIT(
      write_on_a_full_disk(folder_ / "scores.json"), ::testing::ExitedWithCode(0),
      "cannot write /[^ ]*-AFullDiskNamesTheTargetNotTheTemporaryFile-[^ /]*/scores.json: " +
          std::string(std::strerror(EFBIG)) + "; previous kept; 1 file\\(s\\)");
}

TEST_F(OutputFileTest, ADeadProcesssTemporaryFileIsRemovedALiveOnesKept) {
  // A process that has ended: its pid is free (not reused this soon).
  const pid_t child = fork();
  if (child == 0) std::_Exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const std::string stem = ".scores.json.vmafexact." + host_name() + ".";
  const std::string dead = stem + std::to_string(child) + ".AbC123";
  const std::string live = stem + std::to_string(getppid()) + ".AbC123";
  const std::string other_host = ".scores.json.vmafexact.elsewhere." + std::to_string(child) + ".x";
  const std::string other_file = ".other.json.vmafexact." + host_name() + "." +
                                 std::to_string(child) + ".AbC123";
  for (const auto& name : {dead, live, other_host, other_file}) std::ofstream(folder_ / name);
  write_output(folder_ / "scores.json", "new");
  std::vector<std::string> kept = {live, other_file, other_host, "scores.json"};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(entry_names(folder_), kept);
}

}  // namespace
