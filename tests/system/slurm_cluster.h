// A one-node Slurm on the loopback, run by a test from Debian's packages
// (slurm-wlm, munge): munged on its own socket with a fresh key, slurmctld and
// slurmd in the foreground (children that die with the test), a slurm.conf
// written into a temporary folder that also holds their state, spool and logs.
// Slurm's client commands (sbatch, squeue, ...) find it through SLURM_CONF,
// which the cluster sets in the test's environment.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "system_process.h"

namespace vmafexact::system_test {

// What a program printed and how it ended.
struct CommandResult {
  int status = -1;  // the exit status; -1: still running at the timeout (then killed)
  std::string out, err;
  std::string describe(const std::vector<std::string>& argv) const;
};

// Runs `argv` (argv[0] from PATH or a path), its output in files under `dir`.
CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                          std::chrono::seconds timeout = std::chrono::seconds(30));

class SlurmCluster {
 public:
  // The programs the cluster needs that are not in PATH or /usr/sbin (empty: all there).
  static std::vector<std::string> missing_programs();
  // Where `program` is: PATH, else /usr/sbin; empty when in neither.
  static std::string program_path(const std::string& program);

  // Starts munged, slurmctld and slurmd in `dir` (created) and waits, at most
  // `timeout`, until the node is idle. The node declares at least `cpus` CPUs
  // and one GPU (a stand-in: no device) whatever the machine has, so that
  // job scripts asking for them are accepted; nothing binds or limits them.
  // Throws std::runtime_error with the daemons' logs when it does not come up.
  SlurmCluster(const std::filesystem::path& dir, int cpus, std::chrono::seconds timeout);
  // Cancels the jobs still queued or running, waits for them to end, then
  // stops slurmd, slurmctld and munged.
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& config() const { return config_; }
  // One of Slurm's client commands against this cluster.
  CommandResult command(const std::vector<std::string>& argv,
                        std::chrono::seconds timeout = std::chrono::seconds(30)) const;
  // The job ids of the cluster's jobs (array tasks included) still pending or running.
  std::vector<std::string> queued_jobs() const;
  // Waits until job `job_id` (every task of an array) has left the queue;
  // false at the timeout.
  bool wait_job_end(const std::string& job_id, std::chrono::seconds timeout) const;
  // The daemons' logs, for a failure's message.
  std::string logs() const;

 private:
  bool start(int cpus, std::chrono::steady_clock::time_point deadline, std::string& why);
  void stop();

  std::filesystem::path dir_, config_;
  std::unique_ptr<SystemProcess> munged_, slurmctld_, slurmd_;
};

}  // namespace vmafexact::system_test
