#include "support/open_files.h"

#include <glib.h>
#include <sys/resource.h>

#include <cstdint>

namespace vmafexact::tools {

std::size_t open_descriptors() {
  GDir* dir = g_dir_open("/proc/self/fd", 0, nullptr);
  if (!dir) return 0;
  std::size_t count = 0;
  while (g_dir_read_name(dir)) ++count;
  g_dir_close(dir);
  return count > 0 ? count - 1 : 0;  // less the directory's own
}

std::size_t open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return static_cast<std::size_t>(limit.rlim_cur);
}

}  // namespace vmafexact::tools
