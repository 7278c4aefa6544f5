#include "batch.h"

#include <dirent.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <list>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "errors.h"
#include "manifest.h"
#include "options.h"
#include "output/output_file.h"
#include "support/handles.h"
#include "support/open_files.h"
#include "support/unique_fd.h"
#include "support/regular_file.h"

namespace vmafexact::cli {
namespace {

using Json = nlohmann::ordered_json;
using tools::GCharPtr;
using tools::open_descriptors;
using tools::open_file_limit;

// The tool options a batch gives every row (a row's own column wins) are the
// manifest's option columns (manifest.h): one list for both.
bool is_flag(const std::string& name) { return manifest_column_is_flag(name); }

constexpr const char* kSummary =
    "Scores every row of MANIFEST (CSV with a header id,ref,dist[,options...], or JSON\n"
    "Lines with the same keys), or one task's share of it, each row as its own run of\n"
    "vmafexact (rows of one reference several to a run, see --group), side by side;\n"
    "writes DIR/{id}.json (the row's log) and DIR/rows/{id}.json (its record). A rerun\n"
    "skips the rows already done and retries the failed ones.";

constexpr const char* kDescription =
    "Share of a job array: --shard I/N, else Slurm's SLURM_ARRAY_TASK_ID (with\n"
    "SLURM_ARRAY_TASK_MIN/_MAX/_STEP/_COUNT), else a Kubernetes Indexed Job's\n"
    "JOB_COMPLETION_INDEX with VMAFEXACT_SHARD_COUNT; otherwise every row.\n"
    "Side by side: the CPUs this process may use are the fewest of its affinity, the\n"
    "cgroup's CPU quota and SLURM_CPUS_PER_TASK. By default half as many rows as CPUs run\n"
    "at once (rounded up; with --backend cuda one per CPU), never more than there are rows\n"
    "to score, each with CPUs / rows threads.\n"
    "Rows of one reference with the same options are scored by one run of vmafexact, REF\n"
    "decoded once, up to --group N of them (default: 8 with --backend cuda, whose start-up\n"
    "takes seconds per run; otherwise 1, each row alone); each row's log equals its run\n"
    "alone. Should that run fail, each of its rows is scored again alone.\n"
    "\n"
    "Examples:\n"
    "  vmafexact batch pairs.csv --output-dir out\n"
    "  vmafexact batch pairs.csv --output-dir out --shard 3/10 --model vmaf_4k_v0.6.1\n"
    "  vmafexact batch pairs.jsonl --output-dir out --backend cuda --gpus 0,1\n"
    "  vmafexact batch pairs.csv --output-dir out --list   # what is done\n"
    "  vmafexact merge out                                 # the summary\n"
    "\n"
    "Exit codes: 0 every row selected is done; 1 a bad option or manifest; 5 the output\n"
    "folder cannot be written; 6 a row failed or is being scored by another batch;\n"
    "130 (143) interrupted by SIGINT (SIGTERM): the rows running are stopped without\n"
    "outputs and are scored again by the next run.\n"
    "\n"
    "Full reference: docs/tool.md, \"Batch\".";

using tools::UniqueFd;

// ISO 8601 UTC with milliseconds (rows are seconds long).
std::string now_iso8601() {
  GDateTime* now = g_date_time_new_now_utc();
  GCharPtr text(g_date_time_format(now, "%Y-%m-%dT%H:%M:%S"));
  char milliseconds[16];
  std::snprintf(milliseconds, sizeof milliseconds, ".%03dZ",
                g_date_time_get_microsecond(now) / 1000);
  g_date_time_unref(now);
  return text.get() + std::string(milliseconds);
}

std::string join_path(const std::string& folder, const std::string& name) {
  GCharPtr path(g_build_filename(folder.c_str(), name.c_str(), nullptr));
  return path.get();
}

bool is_regular_file(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// A regular file's text, or with `tail` its last `limit` bytes. Never blocks
// on a FIFO or reads a device (a record or log replaced by one), never reads
// past `limit`: nullopt for those, a file too long, or one that cannot be read.
std::optional<std::string> read_text(const std::string& path, std::size_t limit = 1 << 20,
                                     bool tail = false) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat status {};
  if (!fd || ::fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode)) return std::nullopt;
  off_t at = 0;
  if (tail && status.st_size > static_cast<off_t>(limit))
    at = status.st_size - static_cast<off_t>(limit);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t count = ::pread(fd.get(), buffer, sizeof buffer, at);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return std::nullopt;
    if (count == 0) break;
    text.append(buffer, static_cast<std::size_t>(count));
    at += count;
    if (text.size() > limit) {
      if (!tail) return std::nullopt;
      text.erase(0, text.size() - limit);  // grew while read
    }
  }
  return text;
}

// "1 row", "3 rows".
std::string count_of(std::size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// --- The CPUs this process may use ------------------------------------------

// The cgroup's CPU quota in CPUs (cgroup v2 cpu.max, v1 cfs_quota_us /
// cfs_period_us) on the way from this process's cgroup up to the root, the
// smallest; nullopt without a limit.
std::optional<double> cgroup_cpu_limit() {
  std::optional<double> limit;
  auto consider = [&](double quota, double period) {
    if (quota > 0 && period > 0) limit = std::min(limit.value_or(quota / period), quota / period);
  };
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    // "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1).
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    const bool v2 = controllers.empty();
    std::string root;
    if (v2) {
      root = "/sys/fs/cgroup";
    } else {
      bool cpu = false;
      for (std::string_view name : {"cpu", "cpu,cpuacct", "cpuacct,cpu"})
        if (controllers == name) cpu = true;
      if (!cpu) continue;
      root = is_regular_file("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us")
                 ? "/sys/fs/cgroup/cpu,cpuacct"
                 : "/sys/fs/cgroup/cpu";
    }
    // In a container the cgroup namespace shows "/" while the files are the
    // container's: the walk below reads them too.
    for (;;) {
      const std::string folder = path == "/" ? root : root + path;
      if (v2) {
        if (auto text = read_text(folder + "/cpu.max")) {
          std::istringstream fields(*text);
          std::string quota;
          double period = 0;
          fields >> quota >> period;
          if (quota != "max") consider(std::atof(quota.c_str()), period);
        }
      } else {
        const auto quota = read_text(folder + "/cpu.cfs_quota_us");
        const auto period = read_text(folder + "/cpu.cfs_period_us");
        if (quota && period) consider(std::atof(quota->c_str()), std::atof(period->c_str()));
      }
      if (path.empty() || path == "/") break;
      const auto slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
  }
  return limit;
}

struct Cpus {
  int usable = 1;
  std::string why;  // "4 CPUs (affinity 16, cgroup quota 4)"
};

Cpus usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  int affinity = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  if (affinity <= 0) affinity = static_cast<int>(g_get_num_processors());
  Cpus cpus{affinity, "affinity " + std::to_string(affinity)};
  if (const auto quota = cgroup_cpu_limit()) {
    const int whole = std::max(1, static_cast<int>(std::ceil(*quota - 1e-9)));
    cpus.why += ", cgroup quota " + std::to_string(whole);
    cpus.usable = std::min(cpus.usable, whole);
  }
  if (const char* slurm = std::getenv("SLURM_CPUS_PER_TASK")) {
    guint64 count = 0;
    if (g_ascii_string_to_unsigned(slurm, 10, 1, 100000, &count, nullptr)) {
      cpus.why += ", SLURM_CPUS_PER_TASK " + std::to_string(count);
      cpus.usable = std::min(cpus.usable, static_cast<int>(count));
    }
  }
  cpus.why = count_of(static_cast<std::size_t>(cpus.usable), "CPU") + " (" + cpus.why + ")";
  return cpus;
}

// --gpus, else CUDA_VISIBLE_DEVICES, else the driver's list; empty: none known.
std::vector<std::string> find_gpus(const gchar* listed) {
  auto split = [](const std::string& text) {
    std::vector<std::string> names;
    for (const std::string& name : split_names(text)) names.push_back(name);
    return names;
  };
  if (listed) return split(listed);
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible && *visible)
    return split(visible);
  std::vector<std::string> gpus;
  if (GDir* folder = g_dir_open("/proc/driver/nvidia/gpus", 0, nullptr)) {
    int count = 0;
    while (g_dir_read_name(folder)) ++count;
    g_dir_close(folder);
    for (int i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
  }
  return gpus;
}

// --- Rows ---------------------------------------------------------------------

// A --model list with each relative model file made absolute against `base`
// (a manifest's folder, or the current one): entries "path=FILE", or a name
// holding '/' or ending in .json, as the element tells files from built-in
// versions; built-in names and the ':' options stay as they are.
std::string resolve_model_files(const std::string& list, const std::string& base) {
  std::string resolved;
  gchar** entries = g_strsplit(list.c_str(), ",", -1);
  for (gchar** entry = entries; *entry; ++entry) {
    std::string text = trim(*entry);
    const auto colon = text.find(':');
    std::string head = text.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : text.substr(colon);
    std::string prefix;
    bool is_file = false;
    if (head.rfind("path=", 0) == 0) {
      prefix = "path=";
      head.erase(0, 5);
      is_file = true;
    } else if (head.rfind("version=", 0) != 0) {
      is_file = head.find('/') != std::string::npos ||
                (head.size() > 5 && head.compare(head.size() - 5, 5, ".json") == 0);
    }
    if (is_file && !head.empty() && !g_path_is_absolute(head.c_str())) {
      GCharPtr absolute(
          g_canonicalize_filename(head.c_str(), base.empty() ? nullptr : base.c_str()));
      text = prefix + absolute.get() + rest;
    }
    resolved += (entry == entries ? "" : ",") + text;
  }
  g_strfreev(entries);
  return resolved;
}

// The options a row runs with, in order: --precision max, the batch's, the
// row's own (each replacing an earlier one of the same name).
using OptionList = std::vector<std::pair<std::string, std::string>>;

OptionList effective_options(const OptionList& batch_wide, const ManifestRow& row,
                             const std::string& manifest_folder) {
  OptionList options = {{"precision", "max"}};
  auto set = [&](const std::string& name, const std::string& value) {
    for (auto& [known, old] : options)
      if (known == name) {
        old = value;
        return;
      }
    options.emplace_back(name, value);
  };
  for (const auto& [name, value] : batch_wide) set(name, value);
  for (const auto& [name, value] : row.options)
    set(name, name == "model" ? resolve_model_files(value, manifest_folder) : value);
  return options;
}

std::string option_value(const OptionList& options, const std::string& name,
                         const std::string& fallback = "") {
  for (const auto& [known, value] : options)
    if (known == name) return value;
  return fallback;
}

// A path the tool cannot take for an option.
std::string as_argument(const std::string& path) {
  return !path.empty() && path[0] == '-' ? "./" + path : path;
}

// The tool's command line for DISTs of one reference: a row's (one DIST), or
// a group's, whose ids `names` gives (--names: {name} in `log` is each id).
std::vector<std::string> tool_arguments(const OptionList& options, const std::string& log,
                                        int threads, const std::string& ref,
                                        const std::vector<std::string>& dists,
                                        const std::string& names = "") {
  std::vector<std::string> arguments = {"vmafexact", "--json", log};
  if (!names.empty()) arguments.insert(arguments.end(), {"--names", names});
  arguments.insert(arguments.end(), {"--quiet", "--threads", std::to_string(threads)});
  for (const auto& [name, value] : options) {
    if (is_flag(name)) {
      if (value != "false") arguments.push_back("--" + name);
    } else {
      arguments.push_back("--" + name + "=" + value);
    }
  }
  arguments.push_back(as_argument(ref));
  for (const std::string& dist : dists) arguments.push_back(as_argument(dist));
  return arguments;
}

std::string absolute(const std::string& path) {
  GCharPtr canonical(g_canonicalize_filename(path.c_str(), nullptr));
  return canonical.get();
}

// What a row's scores depend on: the tool's version, the inputs and the
// options (not the threads or the GPU: the same bits with any).
std::string fingerprint_of(const ManifestRow& row, const OptionList& options) {
  std::vector<std::string> lines;
  for (const auto& [name, value] : options)
    if (!(is_flag(name) && value == "false")) lines.push_back(name + "=" + value);
  std::sort(lines.begin(), lines.end());
  std::string text =
      version_text() + "\nref=" + absolute(row.ref) + "\ndist=" + absolute(row.dist) + "\n";
  for (const std::string& line : lines) text += line + "\n";
  GCharPtr digest(g_compute_checksum_for_string(G_CHECKSUM_SHA256, text.c_str(), -1));
  return digest.get();
}

std::string quoted_command(const std::vector<std::string>& arguments) {
  std::string line;
  for (const std::string& argument : arguments) {
    const bool plain = !argument.empty() && argument.find_first_not_of(
                                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                                "WXYZ0123456789-_./=:,+@%") == std::string::npos;
    GCharPtr quoted(plain ? g_strdup(argument.c_str()) : g_shell_quote(argument.c_str()));
    line += (line.empty() ? "" : " ") + std::string(quoted.get());
  }
  return line;
}

// The row's record as a previous run left it.
struct Record {
  bool present = false;
  std::string status;
  std::string fingerprint;
  int attempt = 0;
  int exit_code = 0;
  std::string error;
};

// `key` of a record when it is an integer within [low, high]; nullopt for
// another type or a value out of range (a float's conversion to int would be
// undefined there).
std::optional<int> small_integer(const Json& json, const char* key, int low, int high) {
  const auto found = json.find(key);
  if (found == json.end() || !found->is_number_integer()) return std::nullopt;
  if (found->is_number_unsigned())
    return found->get<unsigned long long>() <= static_cast<unsigned long long>(high)
               ? std::optional<int>(static_cast<int>(found->get<unsigned long long>()))
               : std::nullopt;
  const long long value = found->get<long long>();
  if (value < low || value > high) return std::nullopt;
  return static_cast<int>(value);
}

Record read_record(const std::string& path) {
  Record record;
  std::string why;
  const auto text = tools::read_regular_file(path, 1 << 20, why);
  if (!text) return record;
  try {
    const Json json = Json::parse(*text);
    record.present = true;
    record.status = json.value("status", "");
    record.fingerprint = json.value("fingerprint", "");
    // Numbers edited by hand or corrupt (2147483647, 1e300, -5): an attempt
    // count restarts at 1 rather than overflowing attempt + 1.
    record.attempt = small_integer(json, "attempt", 0, 1'000'000'000).value_or(0);
    record.exit_code = small_integer(json, "exit_code", -1, 255).value_or(-1);
    record.error = json.value("error", "");
  } catch (const std::exception&) {
    // A record that cannot be read counts as none: the row runs again.
    record = Record{};
    record.present = true;
  }
  return record;
}

// The pooled mean of the main score (the first model's: `vmaf` unless named
// with :name=KEY) from the log's pooled_metrics.
std::optional<std::pair<std::string, double>> main_score_mean(const std::string& log_path,
                                                              const OptionList& options) {
  const std::string models = option_value(options, "model", "vmaf_v0.6.1");
  std::string first = models.substr(0, models.find(','));
  if (trim(first).empty()) return std::nullopt;
  std::string key = "vmaf";
  if (const auto name = first.find(":name="); name != std::string::npos)
    key = first.substr(name + 6, first.find(':', name + 6) - (name + 6));
  // pooled_metrics is near the end of the log (a long title's log is large).
  const auto text = read_text(log_path, 1 << 20, true);
  if (!text) return std::nullopt;
  const auto at = text->rfind("\"pooled_metrics\"");
  if (at == std::string::npos) return std::nullopt;
  const auto open = text->find('{', at);
  if (open == std::string::npos) return std::nullopt;
  // The block ends at its matching brace (metric names hold no braces).
  int depth = 0;
  std::size_t close = open;
  for (; close < text->size(); ++close) {
    if ((*text)[close] == '{') ++depth;
    if ((*text)[close] == '}' && --depth == 0) break;
  }
  try {
    const Json pooled = Json::parse(text->substr(open, close - open + 1));
    if (pooled.contains(key) && pooled[key].contains("mean") && pooled[key]["mean"].is_number())
      return std::pair(key, pooled[key]["mean"].get<double>());
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The last lines a child wrote on standard error.
std::string last_lines(const std::string& text, std::size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!trim(line).empty()) lines.push_back(line);
  const std::size_t from = lines.size() > count ? lines.size() - count : 0;
  std::string tail;
  for (std::size_t i = from; i < lines.size(); ++i) tail += (tail.empty() ? "" : "\n") + lines[i];
  return tail;
}

// The line of an error that says what went wrong: the tool's last
// "vmafexact: ..." line that is not a warning.
std::string headline(const std::string& error) {
  std::istringstream in(error);
  std::string line, best;
  while (std::getline(in, line))
    if (line.rfind("vmafexact: ", 0) == 0 && line.rfind("vmafexact: warning", 0) != 0) best = line;
  if (!best.empty()) return best.substr(11);
  return error.substr(0, error.find('\n'));
}

// Lock of one row among batch processes (flock: local filesystems and NFS).
UniqueFd lock_row(const std::string& lock_path, bool create, bool* busy) {
  *busy = false;
  UniqueFd fd(::open(lock_path.c_str(),
                     O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (create ? O_CREAT : 0), 0666));
  if (!fd) return fd;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    *busy = errno == EWOULDBLOCK;
    fd.reset();
  }
  return fd;
}

// In the child, between fork and exec (async-signal-safe calls only): dies
// with the batch (SIGQUIT: no outputs), in a process group of its own (a
// terminal's Ctrl-C reaches the batch, which stops the rows), every signal
// at its default and none blocked (a batch started with `&` from a script
// has SIGINT and SIGQUIT ignored, which exec would pass on, leaving a row
// deaf to the batch's SIGQUIT). No core file: a row stopped by SIGQUIT
// before it has its handler would otherwise leave one per row.
extern "C" void prepare_child(gpointer parent) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int signal = 1; signal < NSIG; ++signal)
    if (signal != SIGKILL && signal != SIGSTOP) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct rlimit no_core {};
  if (::getrlimit(RLIMIT_CORE, &no_core) == 0) {
    no_core.rlim_cur = 0;
    ::setrlimit(RLIMIT_CORE, &no_core);
  }
  ::prctl(PR_SET_PDEATHSIG, SIGQUIT);
  if (::getppid() != static_cast<pid_t>(GPOINTER_TO_INT(parent))) ::_exit(128 + SIGQUIT);
  ::setpgid(0, 0);
}

// --- Open files -------------------------------------------------------------

// What the batch holds per running row (measured, GLib 2.74): the row's lock,
// the read end of its stderr pipe and the pidfd of its child watch; starting
// a row takes 3 more for a moment (the pipe's write end, GLib's report pipe).
// The row's own process counts against its own limit (below).
constexpr std::size_t kFilesPerRow = 3;
constexpr std::size_t kFilesToStartARow = 3;
// A record being written (its temporary file), a record or log being read.
constexpr std::size_t kFilesSpare = 4;
// A row's process inherits the batch's limit: what it holds at most
// (measured: 20 to 25 with two H.264 inputs), with room to spare.
constexpr std::size_t kFilesOfARowProcess = 64;
// A process scoring rows of one reference: each DIST beyond the first adds
// its decoder's (about ten for an H.264 input), with room to spare.
constexpr std::size_t kFilesPerGroupedRow = 16;

// Raises the soft limit on open files toward the hard one, as far as `needed`
// (not beyond: the rows inherit it, and a few programs slow down with a huge
// one). Returns the hard limit.
std::size_t raise_open_file_limit(std::size_t needed) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return SIZE_MAX;
  const rlim_t wanted = std::min<rlim_t>(limit.rlim_max, static_cast<rlim_t>(needed));
  if (wanted > limit.rlim_cur) {
    limit.rlim_cur = wanted;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_max == RLIM_INFINITY ? SIZE_MAX : static_cast<std::size_t>(limit.rlim_max);
}

// --- The batch --------------------------------------------------------------

struct Settings {
  std::string manifest_path;
  std::string output_dir;
  Shard shard;
  int jobs = 0;
  int threads = 0;
  std::vector<std::string> gpus;
  bool force = false;
  bool list = false;
  bool quiet = false;
  double row_timeout = 0;  // seconds; 0: a row may run as long as it takes
  int group = 0;           // --group: most rows of one reference per process; 0: default
  OptionList batch_wide;
};

class Batch {
 public:
  Batch(Settings settings, Manifest manifest)
      : settings_(std::move(settings)), manifest_(std::move(manifest)) {}
  int run();

 private:
  struct Planned {
    const ManifestRow* row;
    OptionList options;
    std::string fingerprint;
  };
  // A row of a running process.
  struct Member {
    const Planned* planned;
    UniqueFd lock;
    int attempt = 1;
    std::string destination;  // log_destination() at the start
    std::string staging;      // staging_path(destination)
  };
  // One process of the tool: a row, or rows of one reference (--group).
  struct Running {
    Batch* batch;
    std::vector<Member> members;
    GPid pid = 0;
    UniqueFd stderr_fd;
    guint stderr_source = 0;
    std::string stderr_tail;
    bool exited = false;
    bool stderr_closed = false;
    int wait_status = 0;
    int gpu = -1;
    int attempt = 1;
    std::string started;
    gint64 started_us = 0;
    std::string command_line;
    guint timeout_source = 0;  // --row-timeout's timer, then the SIGKILL's
    bool timed_out = false;
  };
  // What waits to run: one row, or rows of one reference scored by one
  // process (each then with the same options, its log at DIR/{id}.json).
  using Item = std::vector<const Planned*>;

  std::string log_path(const ManifestRow& row) const {
    return join_path(settings_.output_dir, row.id + ".json");
  }
  // Where the row's log goes: DIR/{id}.json, or, when that is a symlink to
  // a regular file of this user, the link's final target (replaced, the link
  // kept, as every output of the project). A link to anything else (a
  // device, a FIFO, another user's file, nothing) is replaced, never written
  // through.
  std::string log_destination(const ManifestRow& row) const {
    const std::string path = log_path(row);
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return path;
    try {
      const output::OutputTarget target = output::resolve_output(path);
      struct stat status {};
      if (target.kind == output::OutputTarget::Kind::kFile &&
          ::stat(target.resolved.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
          status.st_uid == ::geteuid())
        return target.resolved;
    } catch (const std::exception&) {
      // A symlink loop or an unreadable folder: the link is replaced.
    }
    return path;
  }
  // The log while it is written, for a log_destination(): in its folder, so
  // that putting it in place is a rename on one filesystem (rows/ or the
  // destination's folder may be symlinks to another one: EXDEV).
  static std::string staging_path(const std::string& destination) {
    GCharPtr folder(g_path_get_dirname(destination.c_str()));
    GCharPtr name(g_path_get_basename(destination.c_str()));
    return join_path(folder.get(), "." + std::string(name.get()) + ".partial");
  }
  // Where staging logs were before issue 44 (rows/), removed as leftovers.
  std::string old_staging_path(const ManifestRow& row) const {
    return join_path(rows_dir_, "." + row.id + ".partial.json");
  }
  std::string record_path(const ManifestRow& row) const {
    return join_path(rows_dir_, row.id + ".json");
  }
  std::string lock_path(const ManifestRow& row) const {
    return join_path(rows_dir_, "." + row.id + ".lock");
  }
  bool is_done(const Planned& planned, const Record& record) const {
    return record.status == "ok" && record.fingerprint == planned.fingerprint &&
           is_regular_file(log_path(*planned.row));
  }

  void check_output_dir();
  void remove_leftovers();
  int list();
  void print(const std::string& line) const {
    if (!settings_.quiet) std::fprintf(stderr, "batch: %s\n", line.c_str());
  }
  std::string counter() {
    return "[" + std::to_string(++ended_) + "/" + std::to_string(to_score_) + "] ";
  }

  // "a, b, c": the rows' ids.
  static std::string ids_of(const std::vector<Member>& members) {
    std::string ids;
    for (const Member& member : members) ids += (ids.empty() ? "" : ", ") + member.planned->row->id;
    return ids;
  }
  // A process's rows back at the front of the queue, in their order, each to
  // be scored alone next.
  void requeue_alone(const std::vector<Member>& members) {
    for (auto member = members.rbegin(); member != members.rend(); ++member)
      queue_.push_front({member->planned});
  }
  std::size_t group_limit(const Planned& planned, int jobs) const;
  bool groupable(const Planned& planned) const;
  void form_groups(const std::vector<const Planned*>& rows);
  void launch_more();
  bool room_for(std::size_t rows) const;
  bool launch(const Item& item);
  void finish(Running& running);
  void finish_row(Member& member, const Running& running, int exit_code, bool ok,
                  std::string error);
  void write_record(const Member& member, const Running& running, int exit_code,
                    const std::string& status, const std::string& error);
  void interrupt(int signal);
  void quit_when_idle();

  static gboolean on_sigint(gpointer self) {
    static_cast<Batch*>(self)->interrupt(SIGINT);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_sigterm(gpointer self) {
    static_cast<Batch*>(self)->interrupt(SIGTERM);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_sighup(gpointer self) {
    static_cast<Batch*>(self)->interrupt(SIGHUP);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_stderr(gint fd, GIOCondition, gpointer data);
  static gboolean on_row_timeout(gpointer data);
  static gboolean on_row_kill(gpointer data);
  static void on_child_exit(GPid pid, gint wait_status, gpointer data);

  Settings settings_;
  Manifest manifest_;
  std::string rows_dir_;
  std::vector<Planned> planned_;  // the shard's rows
  std::deque<Item> queue_;
  std::list<std::unique_ptr<Running>> running_;
  std::size_t rows_running_ = 0;  // of running_'s processes; --jobs counts rows
  std::vector<int> gpu_load_;
  std::string shard_text_;
  std::string host_;
  tools::LoopPtr loop_{g_main_loop_new(nullptr, FALSE)};
  int signal_ = 0;
  std::size_t to_score_ = 0, ended_ = 0;
  std::size_t ok_ = 0, failed_ = 0, done_before_ = 0, elsewhere_ = 0;
};

void Batch::check_output_dir() {
  const std::string& dir = settings_.output_dir;
  struct stat status {};
  const bool exists = ::stat(dir.c_str(), &status) == 0;
  if (exists) {
    for (const Planned& planned : planned_)
      for (const std::string* input : {&planned.row->ref, &planned.row->dist}) {
        struct stat input_status {};
        if (::stat(input->c_str(), &input_status) == 0 && input_status.st_dev == status.st_dev &&
            input_status.st_ino == status.st_ino)
          throw CliError(
              kExitOutput,
              "--output-dir " + dir + " is the input " + *input + " of row " + planned.row->id,
              "Give a folder for the outputs, e.g. --output-dir scores.");
      }
    if (!S_ISDIR(status.st_mode))
      throw CliError(kExitOutput, "--output-dir " + dir + " is not a folder",
                     "Give a folder (created if missing), e.g. --output-dir scores.");
  }
  for (const std::string& folder : {dir, rows_dir_})
    if (g_mkdir_with_parents(folder.c_str(), 0777) != 0)
      throw CliError(kExitOutput,
                     "cannot create the output folder " + folder + ": " + g_strerror(errno),
                     "Give a folder this user may create and write.");
  for (const std::string& folder : {dir, rows_dir_})
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
      throw CliError(kExitOutput,
                     "cannot write in the output folder " + folder + ": " + g_strerror(errno),
                     "Give a folder this user may write.");
}

// What a run killed outright (kill -9, a node lost) left: the tools'
// temporary files (".NAME.vmafexact.HOST.PID.XXXXXX") of this host's
// processes that are gone, and the staging logs of rows no batch holds.
void Batch::remove_leftovers() {
  std::string host(256, '\0');
  if (gethostname(host.data(), host.size() - 1) != 0 || host[0] == '\0') host = "localhost";
  host.resize(std::strlen(host.c_str()));
  std::replace(host.begin(), host.end(), '/', '_');
  const std::string marker = ".vmafexact." + host.substr(0, 64) + ".";
  for (const std::string& folder : {settings_.output_dir, rows_dir_}) {
    DIR* directory = ::opendir(folder.c_str());
    if (!directory) continue;
    std::vector<std::string> stale;
    while (const dirent* entry = ::readdir(directory)) {
      const std::string name = entry->d_name;
      if (name.empty() || name[0] != '.') continue;
      const auto at = name.rfind(marker);
      if (at == std::string::npos) continue;
      const std::string rest = name.substr(at + marker.size());
      const auto dot = rest.find('.');
      if (dot == 0 || dot == std::string::npos || dot > 10 || rest.size() - dot - 1 != 6) continue;
      if (rest.substr(0, dot).find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = static_cast<pid_t>(std::atol(rest.substr(0, dot).c_str()));
      if (pid <= 0 || pid == getpid()) continue;
      if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
      stale.push_back(name);
    }
    ::closedir(directory);
    for (const std::string& name : stale) ::unlink(join_path(folder, name).c_str());
  }
  for (const Planned& planned : planned_) {
    const std::string stagings[] = {staging_path(log_destination(*planned.row)),
                                    old_staging_path(*planned.row)};
    if (!g_file_test(stagings[0].c_str(), G_FILE_TEST_EXISTS) &&
        !g_file_test(stagings[1].c_str(), G_FILE_TEST_EXISTS))
      continue;
    bool busy = false;
    UniqueFd lock = lock_row(lock_path(*planned.row), true, &busy);
    if (lock)
      for (const std::string& staging : stagings) ::unlink(staging.c_str());
  }
}

int Batch::list() {
  std::size_t done = 0;
  for (const Planned& planned : planned_) {
    const ManifestRow& row = *planned.row;
    const Record record = read_record(record_path(row));
    bool busy = false;
    UniqueFd probe = lock_row(lock_path(row), false, &busy);
    std::string state;
    if (busy) {
      state = "being scored elsewhere";
    } else if (is_done(planned, record)) {
      state = "done";
      ++done;
    } else if (record.status == "ok") {
      state = "outdated (scored with other options, tool or inputs, or its log is gone)";
    } else if (record.status == "failed") {
      state = "failed (attempt " + std::to_string(record.attempt) + ", exit " +
              std::to_string(record.exit_code) + ": " + headline(record.error) + ")";
    } else {
      state = "not run";
    }
    std::printf("%s\t%s\n", row.id.c_str(), state.c_str());
  }
  std::fflush(stdout);
  print(count_of(planned_.size(), "row") +
        (settings_.shard.count > 1 ? " in shard " + shard_text_ : "") + ", " +
        std::to_string(done) + " done");
  return kExitOk;
}

int Batch::run() {
  shard_text_ = std::to_string(settings_.shard.index) + "/" + std::to_string(settings_.shard.count);
  rows_dir_ = join_path(settings_.output_dir, "rows");
  host_ = g_get_host_name();
  // A model file in a row's `model` cell is relative to the manifest, as
  // its ref and dist are.
  GCharPtr folder(g_path_get_dirname(manifest_.path.c_str()));
  GCharPtr manifest_folder_path(g_canonicalize_filename(folder.get(), nullptr));
  const std::string manifest_folder = manifest_folder_path.get();
  for (const ManifestRow& row : manifest_.rows) {
    if (!in_shard(row, settings_.shard)) continue;
    OptionList options = effective_options(settings_.batch_wide, row, manifest_folder);
    std::string fingerprint = fingerprint_of(row, options);
    planned_.push_back({&row, std::move(options), std::move(fingerprint)});
  }

  // Every row's command line is checked here, as its run would, so that a
  // bad option stops the batch before anything runs (once per set of options
  // and kinds of input).
  std::set<std::string> checked;
  for (const Planned& planned : planned_) {
    const ManifestRow& row = *planned.row;
    std::vector<std::string> arguments =
        tool_arguments(planned.options, "check.json", 1, row.ref, {row.dist});
    std::string key;
    for (std::size_t i = 0; i + 2 < arguments.size(); ++i) key += arguments[i] + '\n';
    for (const std::string* path : {&row.ref, &row.dist}) {
      const auto dot = path->find_last_of("./");
      key += (dot != std::string::npos && (*path)[dot] == '.') ? path->substr(dot) : "";
      key += '\n';
    }
    if (!checked.insert(key).second) continue;
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    try {
      parse_options(static_cast<int>(argv.size() - 1), argv.data());
    } catch (const CliError& error) {
      throw CliError(
          kExitUsage,
          manifest_.path + ":" + std::to_string(row.line) + ": row " + row.id + ": " + error.what(),
          "Fix the row's columns or the batch's options (vmafexact batch --help).");
    }
  }

  if (settings_.list) return list();
  check_output_dir();
  remove_leftovers();

  std::vector<const Planned*> rows;
  for (const Planned& planned : planned_) {
    if (!settings_.force && is_done(planned, read_record(record_path(*planned.row)))) {
      ++done_before_;
      continue;
    }
    rows.push_back(&planned);
  }
  to_score_ = rows.size();

  // Side by side: the default shares the CPUs (and GPUs) among the rows.
  const Cpus cpus = usable_cpus();
  const bool cuda = option_value(settings_.batch_wide, "backend") == "cuda";
  int jobs = settings_.jobs;
  if (jobs == 0) {
    // With CUDA the rows' CPU decoders set the pace, not the GPU (an H100
    // with 16 CPUs: 375 pairs a second at one row per CPU, 231 at two rows
    // per GPU; docs/deploy.md, Capacity): one row per CPU.
    jobs = cuda ? cpus.usable : (cpus.usable + 1) / 2;
    jobs = std::max(1, std::min<int>(jobs, static_cast<int>(std::max<std::size_t>(to_score_, 1))));
  }
  // Open files: every running row holds a few of the batch's descriptors.
  // Past the limit, rows would fail one by one with EMFILE: the limit is
  // raised toward the hard one, and what still does not fit runs fewer at once.
  if (to_score_ > 0) {
    // A process of several rows holds fewer of the batch's descriptors than
    // as many processes of one row, but more of its own.
    std::size_t largest_group = 1;
    for (const Planned* planned : rows) largest_group = std::max(largest_group, group_limit(*planned, jobs));
    const std::size_t base = open_descriptors() + kFilesToStartARow + kFilesSpare;
    const std::size_t needed = base + kFilesPerRow * static_cast<std::size_t>(jobs);
    const std::size_t hard = raise_open_file_limit(
        std::max(needed, kFilesOfARowProcess + kFilesPerGroupedRow * (largest_group - 1)));
    const std::size_t limit = open_file_limit();
    if (limit < needed) {
      const std::size_t fit = limit > base ? (limit - base) / kFilesPerRow : 0;
      const std::string limits =
          "the open-file limit is " + std::to_string(limit) +
          (hard == limit ? " (hard limit)" : " (hard limit " + std::to_string(hard) + ")");
      if (fit == 0)
        throw CliError(kExitUsage,
                       "cannot run a row: " + limits + ", the batch needs " +
                           std::to_string(base + kFilesPerRow) + " open files for one",
                       "Raise the limit, e.g. ulimit -n 1024 (as root, or in "
                       "/etc/security/limits.conf), before vmafexact batch.");
      std::fprintf(stderr,
                   "batch: %d rows at once need %zu open files but %s: running %zu at once; "
                   "raise it (ulimit -n %zu) or give fewer --jobs\n",
                   jobs, needed, limits.c_str(), fit, needed);
      jobs = static_cast<int>(fit);
    }
  }
  settings_.jobs = jobs;
  if (settings_.threads == 0) settings_.threads = std::max(1, cpus.usable / jobs);
  gpu_load_.assign(settings_.gpus.size(), 0);
  form_groups(rows);

  std::string plan = manifest_.path + ": " + count_of(planned_.size(), "row");
  if (settings_.shard.count > 1)
    plan += " in shard " + shard_text_ +
            (settings_.shard.source.empty() || settings_.shard.source == "--shard"
                 ? ""
                 : " (" + settings_.shard.source + ")");
  plan += ", " + std::to_string(done_before_) + " already done, " + std::to_string(to_score_) +
          " to score";
  if (to_score_ > 0) {
    plan += ", " + std::to_string(jobs) + " at once with " +
            count_of(static_cast<std::size_t>(settings_.threads), "thread") + " each";
    std::size_t up_to = 0;
    for (const Item& item : queue_)
      if (item.size() > 1) up_to = std::max(up_to, group_limit(*item.front(), jobs));
    if (up_to > 1)
      plan += ", rows of one reference scored together up to " + std::to_string(up_to) +
              " per process";
    plan += "; " + cpus.why;
    if (cuda && !settings_.gpus.empty()) {
      std::string gpus;
      for (const std::string& gpu : settings_.gpus) gpus += (gpus.empty() ? "" : ",") + gpu;
      plan += "; GPUs " + gpus;
    }
  }
  print(plan);

  if (to_score_ > 0) {
    const guint sigint = g_unix_signal_add(SIGINT, on_sigint, this);
    const guint sigterm = g_unix_signal_add(SIGTERM, on_sigterm, this);
    // Under nohup SIGHUP stays ignored: a closed terminal does not stop the batch.
    struct sigaction hangup {};
    ::sigaction(SIGHUP, nullptr, &hangup);
    const guint sighup =
        hangup.sa_handler == SIG_IGN ? 0 : g_unix_signal_add(SIGHUP, on_sighup, this);
    launch_more();
    if (!running_.empty()) g_main_loop_run(loop_.get());
    if (sighup) g_source_remove(sighup);
    g_source_remove(sigterm);
    g_source_remove(sigint);
  }

  if (signal_ != 0) {
    print("interrupted: " + std::to_string(ok_) + " ok, " + std::to_string(failed_) +
          " failed; the rows stopped are scored by the next run");
    return 128 + signal_;
  }
  std::string closing = "done: " + std::to_string(ok_) + " ok, " + std::to_string(failed_) +
                        " failed, " + std::to_string(done_before_) + " already done";
  if (elsewhere_ > 0) closing += ", " + std::to_string(elsewhere_) + " being scored elsewhere";
  closing += "; records in " + rows_dir_;
  print(closing);
  return failed_ > 0 || elsewhere_ > 0 ? kExitBatchFailed : kExitOk;
}

// Rows of one reference per process by default with --backend cuda: each
// process pays nvcodec's start-up (seconds). The help texts say 8 too.
constexpr std::size_t kCudaRowsPerProcess = 8;

// The most rows with `planned` in one process: --group N, else
// kCudaRowsPerProcess for a row scored with --backend cuda, else 1 (each row
// its own process); never more than `jobs` rows at once.
std::size_t Batch::group_limit(const Planned& planned, int jobs) const {
  const bool cuda = option_value(planned.options, "backend") == "cuda";
  const std::size_t limit = settings_.group > 0 ? static_cast<std::size_t>(settings_.group)
                            : cuda              ? kCudaRowsPerProcess
                                                : 1;
  return std::min(limit, static_cast<std::size_t>(jobs));
}

// Whether a row may share a process with others of its reference: its log
// goes to DIR/{id}.json itself (the process names each log DIR/.{id}.json.partial
// by --names; a log linked elsewhere is staged beside its target), and the
// tool's run of several DISTs scores it as a run of it alone would (a raw
// REF without a frame rate takes the first DIST's: not so).
bool Batch::groupable(const Planned& planned) const {
  const ManifestRow& row = *planned.row;
  if (settings_.output_dir.find("{name}") != std::string::npos) return false;
  if (log_destination(row) != log_path(row)) return false;
  const bool raw_ref =
      has_raw_extension(row.ref) || !option_value(planned.options, "ref-size").empty();
  const bool rate_given = !option_value(planned.options, "framerate").empty() ||
                          !option_value(planned.options, "ref-framerate").empty();
  return !raw_ref || rate_given;
}

// The queue: the rows in order, those of one reference (the same file, as
// the fingerprint names it) and the same options gathered, up to their
// limit and never more than --jobs, into an item at the first one's place.
void Batch::form_groups(const std::vector<const Planned*>& rows) {
  std::vector<bool> taken(rows.size(), false);
  std::vector<std::string> refs;
  for (const Planned* planned : rows) refs.push_back(absolute(planned->row->ref));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (taken[i]) continue;
    Item item = {rows[i]};
    taken[i] = true;
    const std::size_t limit = group_limit(*rows[i], settings_.jobs);
    if (limit > 1 && groupable(*rows[i]))
      for (std::size_t j = i + 1; j < rows.size() && item.size() < limit; ++j)
        if (!taken[j] && refs[j] == refs[i] && rows[j]->options == rows[i]->options &&
            groupable(*rows[j])) {
          item.push_back(rows[j]);
          taken[j] = true;
        }
    queue_.push_back(std::move(item));
  }
}

// --jobs counts rows: an item of k rows waits until k places are free (or
// nothing runs), in the queue's order.
void Batch::launch_more() {
  while (signal_ == 0 && !queue_.empty()) {
    const std::size_t rows = queue_.front().size();
    if (!running_.empty() && rows_running_ + rows > static_cast<std::size_t>(settings_.jobs)) break;
    if (!room_for(rows)) break;
    const Item item = std::move(queue_.front());
    queue_.pop_front();
    launch(item);
  }
  quit_when_idle();
}

// Whether another process's descriptors (its rows' locks among them) fit
// under the open-file limit now (the estimate made at the start may be
// short: GLib or a library may hold more); when not, the item waits for one
// to end instead of failing with EMFILE.
bool Batch::room_for(std::size_t rows) const {
  if (running_.empty()) return true;
  return open_descriptors() + kFilesPerRow + (rows - 1) + kFilesToStartARow + kFilesSpare <=
         open_file_limit();
}

void Batch::quit_when_idle() {
  if (running_.empty() && (signal_ != 0 || queue_.empty())) g_main_loop_quit(loop_.get());
}

bool Batch::launch(const Item& item) {
  auto running = std::make_unique<Running>();
  running->batch = this;
  // Each row locked (another batch may hold it) and read again under the
  // lock (another batch may have scored it meanwhile): those left run.
  for (const Planned* planned : item) {
    const ManifestRow& row = *planned->row;
    Member member{planned, UniqueFd(), 1, {}, {}};
    bool busy = false;
    member.lock = lock_row(lock_path(row), true, &busy);
    if (!member.lock) {
      const int cause = errno;
      if (busy) {
        ++elsewhere_;
        std::fprintf(stderr, "batch: %s%s: being scored elsewhere (another batch holds %s)\n",
                     counter().c_str(), row.id.c_str(), lock_path(row).c_str());
      } else {
        ++failed_;
        std::fprintf(stderr, "batch: %s%s: FAILED: cannot lock %s: %s\n", counter().c_str(),
                     row.id.c_str(), lock_path(row).c_str(), g_strerror(cause));
      }
      continue;
    }
    const Record previous = read_record(record_path(row));
    if (!settings_.force && is_done(*planned, previous)) {
      ++done_before_;
      print(counter() + row.id + ": already done (by another batch meanwhile)");
      continue;
    }
    member.attempt = previous.present ? previous.attempt + 1 : 1;
    member.destination = log_destination(row);
    member.staging = staging_path(member.destination);
    running->members.push_back(std::move(member));
  }
  if (running->members.empty()) return false;

  std::vector<std::string> arguments;
  const Planned& first = *running->members.front().planned;
  if (running->members.size() == 1) {
    arguments = tool_arguments(first.options, running->members.front().staging, settings_.threads,
                               first.row->ref, {first.row->dist});
  } else {
    // Each row's log staged where its run alone stages it: DIR/.{id}.json.partial.
    GCharPtr folder(g_path_get_dirname(running->members.front().staging.c_str()));
    const std::string pattern = join_path(folder.get(), ".{name}.json.partial");
    std::vector<std::string> dists;
    std::string names;
    for (const Member& member : running->members) {
      dists.push_back(member.planned->row->dist);
      names += (names.empty() ? "" : ",") + member.planned->row->id;
      // Checked when the queue was made; should a log have become a symlink
      // since, it is staged elsewhere: each row alone, next.
      if (expand_name(pattern, member.planned->row->id) != member.staging) {
        requeue_alone(running->members);
        return false;
      }
    }
    arguments =
        tool_arguments(first.options, pattern, settings_.threads, first.row->ref, dists, names);
  }
  for (const Member& member : running->members) ::unlink(member.staging.c_str());
  running->command_line = quoted_command(arguments);
  std::vector<const gchar*> argv = {"/proc/self/exe"};
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  argv.push_back(nullptr);
  gchar** environment = g_get_environ();
  if (option_value(first.options, "backend") == "cuda" && !gpu_load_.empty()) {
    // The least busy GPU, the first of those on a tie: round-robin while rows
    // take as long as each other. A process of several rows is on one GPU.
    running->gpu =
        static_cast<int>(std::min_element(gpu_load_.begin(), gpu_load_.end()) - gpu_load_.begin());
    environment = g_environ_setenv(environment, "CUDA_VISIBLE_DEVICES",
                                   settings_.gpus[running->gpu].c_str(), TRUE);
  }
  running->started = now_iso8601();
  running->started_us = g_get_monotonic_time();
  GError* error = nullptr;
  gint stderr_fd = -1;
  const gboolean spawned = g_spawn_async_with_pipes_and_fds(
      nullptr, argv.data(), environment,
      static_cast<GSpawnFlags>(G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_FILE_AND_ARGV_ZERO |
                               G_SPAWN_STDIN_FROM_DEV_NULL | G_SPAWN_STDOUT_TO_DEV_NULL),
      prepare_child, GINT_TO_POINTER(getpid()), -1, -1, -1, nullptr, nullptr, 0, &running->pid,
      nullptr, nullptr, &stderr_fd, &error);
  g_strfreev(environment);
  if (!spawned) {
    const std::string message = error ? error->message : "unknown error";
    g_clear_error(&error);
    if (running->members.size() > 1) {
      // As a group that fails: each row alone, next.
      print("rows " + ids_of(running->members) + " scored together failed (cannot start " +
            "vmafexact: " + message + "); scoring each alone");
      requeue_alone(running->members);
      return false;
    }
    const Member& member = running->members.front();
    try {
      write_record(member, *running, -1, "failed", "cannot start vmafexact: " + message);
    } catch (const std::exception&) {
      // Reported below; no exception may cross GLib's callbacks.
    }
    ++failed_;
    std::fprintf(stderr, "batch: %s%s: FAILED: cannot start vmafexact: %s\n", counter().c_str(),
                 member.planned->row->id.c_str(), message.c_str());
    return false;
  }
  running->stderr_fd = UniqueFd(stderr_fd);
  g_unix_set_fd_nonblocking(stderr_fd, TRUE, nullptr);
  const std::size_t rows = running->members.size();
  if (running->gpu >= 0) gpu_load_[running->gpu] += static_cast<int>(rows);
  rows_running_ += rows;
  Running* raw = running.get();
  running_.push_back(std::move(running));
  raw->stderr_source = g_unix_fd_add(
      stderr_fd, static_cast<GIOCondition>(G_IO_IN | G_IO_HUP | G_IO_ERR), on_stderr, raw);
  g_child_watch_add(raw->pid, on_child_exit, raw);
  // A process of several rows has their time together.
  if (settings_.row_timeout > 0)
    raw->timeout_source =
        g_timeout_add(static_cast<guint>(std::min(
                          settings_.row_timeout * static_cast<double>(rows) * 1000.0, 4.0e9)),
                      on_row_timeout, raw);
  return true;
}

// --row-timeout: a row that runs too long (a stuck input, a decoder that
// hangs) is stopped as an interrupt stops it, without outputs, and recorded
// failed; the others go on. One that does not stop in 10 s is killed.
gboolean Batch::on_row_timeout(gpointer data) {
  auto* running = static_cast<Running*>(data);
  running->timed_out = true;
  if (!running->exited) ::kill(running->pid, SIGQUIT);
  running->timeout_source = g_timeout_add_seconds(10, on_row_kill, running);
  return G_SOURCE_REMOVE;
}

gboolean Batch::on_row_kill(gpointer data) {
  auto* running = static_cast<Running*>(data);
  running->timeout_source = 0;
  if (!running->exited) ::kill(running->pid, SIGKILL);
  return G_SOURCE_REMOVE;
}

gboolean Batch::on_stderr(gint fd, GIOCondition, gpointer data) {
  auto* running = static_cast<Running*>(data);
  char buffer[4096];
  for (;;) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count > 0) {
      running->stderr_tail.append(buffer, static_cast<std::size_t>(count));
      // Only the end is kept: what a failed run said last.
      if (running->stderr_tail.size() > 32768)
        running->stderr_tail.erase(0, running->stderr_tail.size() - 16384);
      continue;
    }
    if (count < 0 && errno == EINTR) continue;
    if (count < 0 && errno == EAGAIN) return G_SOURCE_CONTINUE;
    break;  // end of file, or an error: the child is gone
  }
  running->stderr_closed = true;
  running->stderr_source = 0;
  running->stderr_fd.reset();
  if (running->exited) running->batch->finish(*running);
  return G_SOURCE_REMOVE;
}

void Batch::on_child_exit(GPid, gint wait_status, gpointer data) {
  auto* running = static_cast<Running*>(data);
  running->exited = true;
  running->wait_status = wait_status;
  g_spawn_close_pid(running->pid);
  if (running->stderr_closed) running->batch->finish(*running);
}

void Batch::write_record(const Member& member, const Running& running, int exit_code,
                         const std::string& status, const std::string& error) {
  const Planned& planned = *member.planned;
  const ManifestRow& row = *planned.row;
  Json options = Json::object();
  for (const auto& [name, value] : planned.options) options[name] = value;
  Json extra = Json::object();
  for (const auto& [name, value] : row.extra) extra[name] = value;
  // The other rows its process scored (--group).
  Json scored_with = Json::array();
  for (const Member& other : running.members)
    if (&other != &member) scored_with.push_back(other.planned->row->id);
  const double seconds =
      std::round(static_cast<double>(g_get_monotonic_time() - running.started_us) / 1000.0) /
      1000.0;
  Json record = {{"id", row.id},
                 {"line", row.line},
                 {"ref", row.ref},
                 {"dist", row.dist},
                 {"options", options},
                 {"extra", extra},
                 {"status", status},
                 {"exit_code", exit_code},
                 {"error", error},
                 {"log", row.id + ".json"},
                 {"started", running.started},
                 {"finished", now_iso8601()},
                 {"seconds", running.started_us ? seconds : 0.0},
                 {"host", host_},
                 {"shard", shard_text_},
                 {"attempt", member.attempt},
                 {"fingerprint", planned.fingerprint},
                 {"threads", settings_.threads},
                 {"gpu", running.gpu >= 0 ? Json(settings_.gpus[running.gpu]) : Json(nullptr)},
                 {"scored_with", scored_with},
                 {"command_line", running.command_line}};
  // The batch's own folder: whatever is at the record's name that is not a
  // regular file (a FIFO, a link to a device) is replaced, not written into.
  struct stat existing {};
  if (::lstat(record_path(row).c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) &&
      !S_ISDIR(existing.st_mode))
    ::unlink(record_path(row).c_str());
  output::write_output(record_path(row), record.dump(2) + "\n");
}

void Batch::finish(Running& running) {
  const std::size_t rows = running.members.size();
  if (running.gpu >= 0) gpu_load_[running.gpu] -= static_cast<int>(rows);
  rows_running_ -= rows;
  if (running.timeout_source) g_source_remove(running.timeout_source);
  running.timeout_source = 0;
  const int status = running.wait_status;
  const int exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                        : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                              : -1;
  // What went wrong, when the process did not end well.
  std::string failure;
  if (running.timed_out) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", settings_.row_timeout * static_cast<double>(rows));
    failure = std::string("vmafexact: stopped after --row-timeout ") + limit + " s" +
              (rows > 1 ? " (" + std::to_string(rows) + " rows' time)" : "") +
              ": the row ran longer (a stalled input or a hung decoder?)";
  } else {
    failure = last_lines(running.stderr_tail, 10);
    if (WIFSIGNALED(status))
      failure = "vmafexact: killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                g_strsignal(WTERMSIG(status)) + ")" + (failure.empty() ? "" : "\n" + failure);
    else if (exit_code == 0)
      failure = "vmafexact: the run ended without writing its log";
    else if (failure.empty())
      failure = "vmafexact: exit code " + std::to_string(exit_code) + " without a message";
  }
  bool every_log = exit_code == 0;
  for (const Member& member : running.members)
    every_log = every_log && is_regular_file(member.staging);
  // A process of several rows that failed tells nothing of each: its rows
  // are scored again each alone, so that a bad DIST fails only its own row,
  // with its own error (an interrupt leaves them to the next run).
  if (rows > 1 && !every_log) {
    for (const Member& member : running.members) ::unlink(member.staging.c_str());
    if (signal_ == 0) {
      print("rows " + ids_of(running.members) + " scored together failed (exit " +
            std::to_string(exit_code) + ": " + headline(failure) + "); scoring each alone");
      requeue_alone(running.members);
    }
  } else {
    for (Member& member : running.members)
      finish_row(member, running, exit_code, every_log, every_log ? "" : failure);
  }
  running.members.clear();  // the locks released
  running_.remove_if([&](const std::unique_ptr<Running>& item) { return item.get() == &running; });
  launch_more();
}

// A row of a process that ended: its log put in place and its record written
// (none for a row stopped by the interrupt: the next run scores it).
void Batch::finish_row(Member& member, const Running& running, int exit_code, bool ok,
                       std::string error) {
  const Planned& planned = *member.planned;
  const ManifestRow& row = *planned.row;
  if (ok && ::rename(member.staging.c_str(), member.destination.c_str()) != 0) {
    ok = false;
    error = "cannot put the log in place as " + log_path(row) + ": " + g_strerror(errno);
  }
  if (!ok) ::unlink(member.staging.c_str());
  if (!ok && signal_ != 0) return;
  try {
    write_record(member, running, exit_code, ok ? "ok" : "failed", error);
  } catch (const std::exception& failure) {
    ok = false;
    error = failure.what();
  }
  const double seconds =
      static_cast<double>(g_get_monotonic_time() - running.started_us) / G_USEC_PER_SEC;
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.1f s", seconds);
  if (ok) {
    ++ok_;
    std::string line = counter() + row.id + ": ok";
    if (const auto mean = main_score_mean(log_path(row), planned.options)) {
      char score[48];
      std::snprintf(score, sizeof score, " %.2f", mean->second);
      line += ", " + mean->first + score;
    }
    print(line + " in " + duration);
  } else {
    ++failed_;
    std::fprintf(stderr, "batch: %s%s: FAILED (exit %d): %s\n", counter().c_str(), row.id.c_str(),
                 exit_code, headline(error).c_str());
  }
}

void Batch::interrupt(int signal) {
  if (signal_ == 0) {
    signal_ = signal;
    print("interrupted: stopping the " + count_of(rows_running_, "row") +
          " running, without outputs (interrupt again to kill them)");
    for (const auto& running : running_)
      if (!running->exited) ::kill(running->pid, SIGQUIT);
  } else {
    for (const auto& running : running_)
      if (!running->exited) ::kill(running->pid, SIGKILL);
  }
  quit_when_idle();
}

// GOptionContext writes into these; each owned here.
struct RawArguments {
  gchar* output_dir = nullptr;
  gchar* shard = nullptr;
  gint jobs = 0;
  gint threads = 0;
  gchar* gpus = nullptr;
  gchar* row_timeout = nullptr;
  gchar* group = nullptr;
  gboolean force = FALSE;
  gboolean list = FALSE;
  gboolean quiet = FALSE;
  gchar** files = nullptr;
  std::vector<gchar*> values = std::vector<gchar*>(manifest_option_columns().size(), nullptr);
  std::vector<gboolean> flags = std::vector<gboolean>(manifest_option_columns().size(), FALSE);
  ~RawArguments() {
    g_free(output_dir);
    g_free(shard);
    g_free(gpus);
    g_free(row_timeout);
    g_free(group);
    g_strfreev(files);
    for (gchar* value : values) g_free(value);
  }
};

}  // namespace

int batch_command(int argc, char** argv) {
  RawArguments raw;
  std::vector<GOptionEntry> entries = {
      {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &raw.output_dir,
       "Write each row's log as DIR/{id}.json and its record as DIR/rows/{id}.json (required; "
       "created with its parents)",
       "DIR"},
      {"shard", 0, 0, G_OPTION_ARG_STRING, &raw.shard,
       "Score only the rows whose position modulo N is I (0 <= I < N); default: the "
       "scheduler's task index, else every row",
       "I/N"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &raw.jobs,
       "Rows scored at once (default: half the usable CPUs, rounded up; with --backend cuda, one "
       "per CPU)",
       "N"},
      {"threads", 0, 0, G_OPTION_ARG_INT, &raw.threads,
       "Threads of each row (default: the usable CPUs divided by the rows at once)", "N"},
      {"gpus", 0, 0, G_OPTION_ARG_STRING, &raw.gpus,
       "GPUs shared out among the rows with --backend cuda, as CUDA_VISIBLE_DEVICES names them "
       "(default: CUDA_VISIBLE_DEVICES, else every GPU)",
       "LIST"},
      {"group", 0, 0, G_OPTION_ARG_STRING, &raw.group,
       "Score up to N rows of one reference (and the same options) in one run of vmafexact, "
       "REF decoded once; each counts as a row for --jobs (default: 8 with --backend cuda, else "
       "1: each row alone)",
       "N"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &raw.force, "Score every row again, even those done",
       nullptr},
      {"list", 0, 0, G_OPTION_ARG_NONE, &raw.list,
       "Print the selected rows and whether each is done; run nothing", nullptr},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &raw.quiet, "Print only the rows that fail (and errors)",
       nullptr},
      {"row-timeout", 0, 0, G_OPTION_ARG_STRING, &raw.row_timeout,
       "Stop a row that runs longer than TIME ([[hh:]mm:]ss) and record it failed (default: no "
       "limit)",
       "TIME"},
  };
  const std::vector<std::string>& columns = manifest_option_columns();
  std::vector<std::string> helps;
  for (const std::string& column : columns)
    helps.push_back("vmafexact --" + column + " for every row; a row's own column wins" +
                    (column == "precision" ? " (default in a batch: max)" : ""));
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (is_flag(columns[i]))
      entries.push_back(
          {columns[i].c_str(), 0, 0, G_OPTION_ARG_NONE, &raw.flags[i], helps[i].c_str(), nullptr});
    else
      entries.push_back({columns[i].c_str(), 0, 0, G_OPTION_ARG_STRING, &raw.values[i],
                         helps[i].c_str(), "VALUE"});
  }
  entries.push_back(
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.files, nullptr, "MANIFEST"});
  entries.push_back({});

  parse_subcommand_options("batch", kSummary, kDescription, entries.data(), argc, argv);

  Settings settings;
  std::vector<std::string> files;
  for (gchar** file = raw.files; file && *file; ++file) files.emplace_back(*file);
  for (const std::string& file : files)
    if (file.size() > 1 && file[0] == '-')
      throw CliError(kExitUsage, "batch: unknown option " + file,
                     "Run vmafexact batch --help for the options.");
  if (files.size() != 1)
    throw CliError(kExitUsage,
                   files.empty() ? "batch: give the manifest"
                                 : "batch: give one manifest, not " + std::to_string(files.size()),
                   "Usage: vmafexact batch MANIFEST --output-dir DIR [OPTIONS].");
  if (!raw.output_dir || !*raw.output_dir)
    throw CliError(kExitUsage, "batch: give --output-dir DIR",
                   "The rows' logs and records go there, e.g. --output-dir scores.");
  if (raw.jobs < 0 || raw.jobs > 1024)
    throw CliError(kExitUsage, "--jobs " + std::to_string(raw.jobs) + ": out of range",
                   "Write 1 to 1024 rows at once (or leave it out for the default).");
  if (raw.threads < 0 || raw.threads > 256)
    throw CliError(kExitUsage, "--threads " + std::to_string(raw.threads) + ": out of range",
                   "Write 1 to 256 threads per row (or leave it out for the default).");
  if (raw.group) {
    gint64 group = 0;
    const bool number =
        g_ascii_string_to_signed(raw.group, 10, G_MININT64, G_MAXINT64, &group, nullptr);
    if (!number || group < 1 || group > 64)
      throw CliError(
          kExitUsage,
          std::string("--group ") + raw.group + (number ? ": out of range" : ": not a number"),
          "Write 1 to 64 rows per run of vmafexact (1: each row alone), or leave it "
          "out for the default.");
    settings.group = static_cast<int>(group);
  }
  settings.manifest_path = files[0];
  settings.output_dir = raw.output_dir;
  settings.jobs = raw.jobs;
  settings.threads = raw.threads;
  settings.force = raw.force;
  settings.list = raw.list;
  settings.quiet = raw.quiet;
  if (raw.row_timeout) {
    const std::optional<double> seconds = parse_time(raw.row_timeout);
    if (!seconds || *seconds <= 0 || *seconds > 366.0 * 86400)
      throw CliError(kExitUsage, std::string("--row-timeout '") + raw.row_timeout + "': not a time",
                     "Write seconds or [[hh:]mm:]ss, e.g. --row-timeout 2:00:00 (at most a year).");
    settings.row_timeout = *seconds;
  }
  if (raw.gpus && split_names(raw.gpus).empty())
    throw CliError(kExitUsage, std::string("--gpus '") + raw.gpus + "': no GPU named",
                   "Write the GPUs as CUDA_VISIBLE_DEVICES names them, e.g. --gpus 0,1.");
  settings.gpus = find_gpus(raw.gpus);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (raw.flags[i])
      settings.batch_wide.emplace_back(columns[i], "true");
    else if (raw.values[i])
      // A model file given to the batch is relative to the current folder;
      // made absolute, it reads the same in every row.
      settings.batch_wide.emplace_back(columns[i], columns[i] == "model"
                                                       ? resolve_model_files(raw.values[i], "")
                                                       : std::string(raw.values[i]));
  }

  if (raw.shard) {
    settings.shard = parse_shard(raw.shard);
    settings.shard.source = "--shard";
  } else if (auto shard =
                 shard_from_environment([](const char* name) { return std::getenv(name); })) {
    settings.shard = *shard;
  }

  Manifest manifest = read_manifest(settings.manifest_path);
  Batch batch(std::move(settings), std::move(manifest));
  return batch.run();
}

}  // namespace vmafexact::cli
