// Open-file accounting shared by the programs that size their work to the
// descriptors left (the batch's --jobs, the monitor's connections).
#pragma once

#include <cstddef>

namespace vmafexact::tools {

// The descriptors this process has open now (0 where /proc is not mounted).
std::size_t open_descriptors();

// The soft limit on open files (RLIMIT_NOFILE); SIZE_MAX when unlimited or
// unknown.
std::size_t open_file_limit();

}  // namespace vmafexact::tools
