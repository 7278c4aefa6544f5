// The process's CPU time, for the benches' "CPU ... s, ... cores busy".
#pragma once

#include <sys/resource.h>

namespace vmafexact::bench {

// The CPU time of the process so far, user and system, in seconds.
inline double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace vmafexact::bench
