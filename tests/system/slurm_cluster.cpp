#include "slurm_cluster.h"

#include <glib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "../common/loopback.h"

extern char** environ;

namespace vmafexact::system_test {

namespace fs = std::filesystem;
using vmafexact::test::free_loopback_port;
using namespace std::chrono_literals;

namespace {

const std::vector<std::string> kPrograms = {"munged",  "slurmctld", "slurmd", "sbatch", "squeue",
                                            "scancel", "scontrol",  "sinfo",  "srun"};

// The variables through which a Slurm job (or a user's shell) would steer
// Slurm's clients, and the jobs sbatch starts, towards another cluster or
// other options: removed so that only SLURM_CONF speaks.
void clear_slurm_environment() {
  std::vector<std::string> names;
  for (char** entry = environ; *entry; ++entry) {
    const std::string variable = *entry;
    const std::string name = variable.substr(0, variable.find('='));
    for (const char* prefix :
         {"SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_", "SINFO_", "SCANCEL_", "SCONTROL_"})
      if (name.starts_with(prefix)) names.push_back(name);
  }
  for (const std::string& name : names) g_unsetenv(name.c_str());
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

// A key only this cluster's daemons and clients share.
void write_munge_key(const fs::path& path) {
  std::ifstream random("/dev/urandom", std::ios::binary);
  std::string key(1024, '\0');
  if (!random.read(key.data(), static_cast<std::streamsize>(key.size())))
    throw std::runtime_error("cannot read /dev/urandom for the munge key");
  write_file(path, key);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

std::string slurm_conf(const fs::path& dir, int controller_port, int node_port, int cpus) {
  const std::string d = dir.string();
  std::ostringstream conf;
  conf << "# Written by tests/system/slurm_cluster.cpp: one node on the loopback.\n"
       << "ClusterName=vmafexacttest\n"
       << "SlurmctldHost=localhost(127.0.0.1)\n"
       << "SlurmctldPort=" << controller_port << "\n"
       << "SlurmdPort=" << node_port << "\n"
       << "AuthType=auth/munge\n"
       << "CredType=cred/munge\n"
       << "AuthInfo=socket=" << d
       << "/munge/munge.socket\n"
       // The test runs as root (checked): the daemons and the jobs too.
       << "SlurmUser=root\nSlurmdUser=root\n"
       << "StateSaveLocation=" << d << "/state\n"
       << "SlurmdSpoolDir=" << d << "/spool\n"
       << "SlurmctldPidFile=" << d << "/slurmctld.pid\n"
       << "SlurmdPidFile=" << d << "/slurmd.pid\n"
       << "SlurmctldLogFile=" << d << "/slurmctld.log\n"
       << "SlurmdLogFile=" << d
       << "/slurmd.log\n"
       // No cgroups (a container may not delegate them): processes tracked by
       // their parents, not bound to CPUs, no accounting.
       << "ProctrackType=proctrack/linuxproc\n"
       << "TaskPlugin=task/none\n"
       << "JobAcctGatherType=jobacct_gather/none\n"
       << "AccountingStorageType=accounting_storage/none\n"
       << "JobCompType=jobcomp/none\n"
       << "MpiDefault=none\n"
       << "MailProg=/bin/true\n"
       // CPUs, not whole nodes, are given out: array tasks share the node.
       << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
       // The node as declared below, not as slurmd finds the machine.
       << "SlurmdParameters=config_overrides\n"
       << "GresTypes=gpu\n"
       << "ReturnToService=2\n"
       // SIGKILL 5 s after a cancelled job's SIGTERM (default 30 s).
       << "KillWait=5\n"
       // Ended jobs stay visible to scontrol for the whole test.
       << "MinJobAge=3600\n"
       << "NodeName=localhost NodeAddr=127.0.0.1 CPUs=" << cpus << " Gres=gpu:1 State=UNKNOWN\n"
       << "PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n";
  return conf.str();
}

std::string tail_of(const fs::path& path, std::size_t bytes = 4000) {
  const std::string text = read_text(path);
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

}  // namespace

std::string CommandResult::describe(const std::vector<std::string>& argv) const {
  std::string text;
  for (const std::string& argument : argv) text += (text.empty() ? "" : " ") + argument;
  return text + ": " + (status < 0 ? "timed out" : "exit " + std::to_string(status)) +
         "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
}

CommandResult run_command(const std::vector<std::string>& argv, const fs::path& dir,
                          std::chrono::seconds timeout) {
  static std::atomic<int> count = 0;
  const std::string stem = "command-" + std::to_string(++count);
  CommandResult result;
  SystemProcess process(argv, dir / (stem + ".err"), dir / (stem + ".out"));
  result.status = process.wait_exit(timeout).value_or(-1);
  result.out = process.output();
  result.err = process.error_output();
  return result;
}

std::string SlurmCluster::program_path(const std::string& program) {
  gchar* found = g_find_program_in_path(program.c_str());
  std::string path = found ? found : "";
  g_free(found);
  // The daemons live in /usr/sbin, which a user's PATH may lack.
  if (path.empty() && g_file_test(("/usr/sbin/" + program).c_str(), G_FILE_TEST_IS_EXECUTABLE))
    path = "/usr/sbin/" + program;
  return path;
}

std::vector<std::string> SlurmCluster::missing_programs() {
  std::vector<std::string> missing;
  for (const std::string& program : kPrograms)
    if (program_path(program).empty()) missing.push_back(program);
  return missing;
}

SlurmCluster::SlurmCluster(const fs::path& dir, int cpus, std::chrono::seconds timeout)
    : dir_(dir), config_(dir / "slurm.conf") {
  clear_slurm_environment();
  g_setenv("SLURM_CONF", config_.c_str(), TRUE);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // A port was free when chosen; another program may take it before the
  // daemon binds it: then it exits at once and the cluster starts again.
  std::string why;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    if (start(cpus, deadline, why)) return;
    const std::string log = logs();
    stop();
    const bool port_taken = log.find("Address already in use") != std::string::npos;
    if (!port_taken || std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("the test's Slurm did not come up: " + why + "\n" + log);
    }
  }
  throw std::runtime_error("the test's Slurm did not come up: " + why + "\n" + logs());
}

bool SlurmCluster::start(int cpus, std::chrono::steady_clock::time_point deadline,
                         std::string& why) {
  for (const char* sub : {"state", "spool", "munge"}) {
    fs::remove_all(dir_ / sub);
    fs::create_directories(dir_ / sub);
  }
  // munged wants its socket's folder searchable by all (clients run as any user).
  fs::permissions(dir_ / "munge", fs::perms::owner_all | fs::perms::group_read |
                                      fs::perms::group_exec | fs::perms::others_read |
                                      fs::perms::others_exec);
  const fs::path munge = dir_ / "munge";
  write_munge_key(munge / "munge.key");
  // --force: the key and socket live in a temporary folder, not /etc/munge and
  // /run/munge, whose ownership munged would otherwise insist on.
  munged_ = std::make_unique<SystemProcess>(
      std::vector<std::string>{program_path("munged"), "--foreground", "--force",
                               "--socket=" + (munge / "munge.socket").string(),
                               "--key-file=" + (munge / "munge.key").string(),
                               "--pid-file=" + (munge / "munged.pid").string(),
                               "--seed-file=" + (munge / "munged.seed").string(),
                               "--log-file=" + (munge / "munged.log").string()},
      dir_ / "munged.stderr");
  while (!fs::exists(munge / "munge.socket")) {
    if (!munged_->running() || std::chrono::steady_clock::now() >= deadline) {
      why = munged_->running() ? "munged made no socket" : "munged exited";
      return false;
    }
    SystemProcess::pump(20ms);
  }

  const int controller_port = free_loopback_port();
  int node_port = free_loopback_port();
  while (node_port == controller_port) node_port = free_loopback_port();
  write_file(config_, slurm_conf(dir_, controller_port, node_port, cpus));
  // A GPU with no device behind it: enough for sbatch to accept --gres=gpu:1.
  write_file(dir_ / "gres.conf", "NodeName=localhost Name=gpu File=/dev/null\n");
  fs::remove(dir_ / "slurmctld.log");
  fs::remove(dir_ / "slurmd.log");
  slurmctld_ = std::make_unique<SystemProcess>(
      std::vector<std::string>{program_path("slurmctld"), "-D", "-f", config_.string()},
      dir_ / "slurmctld.stderr");
  slurmd_ =
      std::make_unique<SystemProcess>(std::vector<std::string>{program_path("slurmd"), "-D", "-N",
                                                               "localhost", "-f", config_.string()},
                                      dir_ / "slurmd.stderr");

  // Up when the controller answers and has the node registered and idle.
  for (;;) {
    if (!slurmctld_->running() || !slurmd_->running()) {
      why = std::string(slurmctld_->running() ? "slurmd" : "slurmctld") + " exited";
      return false;
    }
    const CommandResult state = command({"sinfo", "--noheader", "--Node", "--format=%T"}, 10s);
    if (state.status == 0 && state.out == "idle\n") return true;
    if (std::chrono::steady_clock::now() >= deadline) {
      why = "the node is not idle in time (sinfo: " + state.out + state.err + ")";
      return false;
    }
    SystemProcess::pump(200ms);
  }
}

void SlurmCluster::stop() {
  slurmd_.reset();
  slurmctld_.reset();
  munged_.reset();
}

SlurmCluster::~SlurmCluster() {
  // The jobs' processes are not the daemons' children (slurmstepd detaches):
  // cancel them while slurmd can still kill them.
  if (slurmctld_ && slurmctld_->running()) {
    const std::vector<std::string> jobs = queued_jobs();
    if (!jobs.empty()) {
      std::vector<std::string> argv = {"scancel"};
      argv.insert(argv.end(), jobs.begin(), jobs.end());
      command(argv, 10s);
      const auto deadline = std::chrono::steady_clock::now() + 20s;
      while (!queued_jobs().empty() && std::chrono::steady_clock::now() < deadline)
        SystemProcess::pump(200ms);
    }
  }
  stop();
}

CommandResult SlurmCluster::command(const std::vector<std::string>& argv,
                                    std::chrono::seconds timeout) const {
  return run_command(argv, dir_, timeout);
}

std::vector<std::string> SlurmCluster::queued_jobs() const {
  const CommandResult queue = command({"squeue", "--noheader", "--format=%A"}, 10s);
  std::vector<std::string> jobs;
  std::istringstream lines(queue.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) jobs.push_back(line);
  return jobs;
}

bool SlurmCluster::wait_job_end(const std::string& job_id, std::chrono::seconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const CommandResult queue =
        command({"squeue", "--noheader", "--jobs=" + job_id, "--format=%i"}, 10s);
    // squeue names an ended job nowhere, or refuses it once it is forgotten.
    if ((queue.status == 0 && queue.out.empty()) ||
        queue.err.find("Invalid job id") != std::string::npos)
      return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    SystemProcess::pump(200ms);
  }
}

std::string SlurmCluster::logs() const {
  // A daemon's log file once it has opened it, what it printed before that otherwise.
  std::string text;
  for (const std::string daemon : {"munged", "slurmctld", "slurmd"}) {
    fs::path log = dir_ / (daemon + ".log");
    if (!fs::exists(log)) log = dir_ / (daemon + ".stderr");
    if (fs::exists(log)) text += "--- " + log.filename().string() + ":\n" + tail_of(log);
  }
  return text;
}

}  // namespace vmafexact::system_test
