// A program run by a test (GSubprocess): its stdout and stderr in files, its
// exit awaited with a timeout, signals sent to it; killed if the test gives
// up on it. Shared by the suites that run the tools and examples as programs.
#pragma once

#include <gio/gio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace vmafexact::test {

template <typename T>
struct GObjectReleaser {
  void operator()(T* object) const {
    if (object) g_object_unref(object);
  }
};
template <typename T>
using GObjectPtr = std::unique_ptr<T, GObjectReleaser<T>>;

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ChildProcess {
 public:
  // argv[0] is the program. Its stderr goes to `stderr_path`, its stdout to
  // `stdout_path` (inherited when empty), each file replaced.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& stderr_path,
               const std::filesystem::path& stdout_path = {})
      : stderr_path_(stderr_path), stdout_path_(stdout_path) {
    // GSubprocess opens these files without truncating them: start them empty.
    std::filesystem::remove(stderr_path);
    if (!stdout_path.empty()) std::filesystem::remove(stdout_path);
    std::vector<const gchar*> args;
    for (const auto& argument : argv) args.push_back(argument.c_str());
    args.push_back(nullptr);
    GObjectPtr<GSubprocessLauncher> launcher(g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE));
    g_subprocess_launcher_set_stderr_file_path(launcher.get(), stderr_path.c_str());
    if (!stdout_path.empty())
      g_subprocess_launcher_set_stdout_file_path(launcher.get(), stdout_path.c_str());
    // It cannot outlive the test: the kernel kills it when the test process
    // dies first (a meson timeout, a crash); the destructor, on any other path.
    g_subprocess_launcher_set_child_setup(launcher.get(), die_with_parent, nullptr, nullptr);
    GError* error = nullptr;
    process_.reset(g_subprocess_launcher_spawnv(launcher.get(), args.data(), &error));
    if (!process_) {
      std::string message = error ? error->message : "?";
      g_clear_error(&error);
      throw std::runtime_error("could not start " + argv.at(0) + ": " + message);
    }
    g_subprocess_wait_async(process_.get(), nullptr, on_exit, &exited_);
  }
  ~ChildProcess() {
    if (!exited_) {
      g_subprocess_force_exit(process_.get());
      wait_exit(std::chrono::seconds(10));
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  std::string error_output() const { return read_text(stderr_path_); }
  std::string output() const { return stdout_path_.empty() ? "" : read_text(stdout_path_); }

  // The exit status (128 + the signal for a program killed by one), or nothing
  // if the program is still running at the timeout.
  std::optional<int> wait_exit(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exited_ && std::chrono::steady_clock::now() < deadline)
      pump(std::chrono::milliseconds(20));
    if (!exited_) return std::nullopt;
    if (!g_subprocess_get_if_exited(process_.get()))
      return 128 + g_subprocess_get_term_sig(process_.get());
    return g_subprocess_get_exit_status(process_.get());
  }

  bool running() const { return !exited_; }
  // The program's process id, for /proc/PID; empty once it has exited.
  std::string pid() const {
    const gchar* identifier = g_subprocess_get_identifier(process_.get());
    return identifier ? identifier : "";
  }
  void send_signal(int signal) { g_subprocess_send_signal(process_.get(), signal); }

  // Waits until a thread of the program sits in read() on each of `files`
  // (FIFOs a test never writes to); false at the timeout or its exit. An EOS
  // sent before a source starts reading is taken at once; after, it cannot
  // get through: tests of blocked streams wait here before signalling.
  bool wait_blocked_reading(const std::vector<std::filesystem::path>& files,
                            std::chrono::seconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline && running()) {
      if (files_being_read(files) == files.size()) return true;
      pump(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Runs the default main context (which reports the exit), then sleeps.
  static void pump(std::chrono::milliseconds pause) {
    while (g_main_context_iteration(nullptr, FALSE)) {
    }
    std::this_thread::sleep_for(pause);
  }

 private:
  // How many of `files` a thread is blocked reading, from
  // /proc/PID/task/TID/syscall ("NR ARG0 ...": read(2) and its descriptor).
  std::size_t files_being_read(const std::vector<std::filesystem::path>& files) const {
    namespace fs = std::filesystem;
    std::set<fs::path> being_read;
    std::error_code error;
    const fs::path process = fs::path("/proc") / pid();
    for (const auto& task : fs::directory_iterator(process / "task", error)) {
      std::ifstream syscall_file(task.path() / "syscall");
      long number = -1;
      std::string descriptor_hex;
      if (!(syscall_file >> number >> descriptor_hex) || number != SYS_read) continue;
      const long descriptor = std::strtol(descriptor_hex.c_str(), nullptr, 16);
      const fs::path target = fs::read_symlink(process / "fd" / std::to_string(descriptor), error);
      if (error) continue;
      for (const fs::path& file : files)
        if (target == file) being_read.insert(file);
    }
    return being_read.size();
  }

  // In the child, between fork and exec: async-signal-safe calls only.
  static void die_with_parent(gpointer) { prctl(PR_SET_PDEATHSIG, SIGKILL); }

  static void on_exit(GObject* process, GAsyncResult* result, gpointer exited) {
    g_subprocess_wait_finish(G_SUBPROCESS(process), result, nullptr);
    *static_cast<bool*>(exited) = true;
  }

  std::filesystem::path stderr_path_;
  std::filesystem::path stdout_path_;
  GObjectPtr<GSubprocess> process_;
  bool exited_ = false;
};

}  // namespace vmafexact::test
