// A program that a system test runs beside itself (Prometheus, vmafexact-monitor):
// the tools' tests' ChildProcess (its stdout and stderr in files, its exit awaited
// with a timeout, killed by its destructor and, through PR_SET_PDEATHSIG, when
// the test process dies first).
#pragma once

#include "../tools/child_process.h"

namespace vmafexact::system_test {

using test::GObjectPtr;
using test::read_text;
using SystemProcess = test::ChildProcess;

}  // namespace vmafexact::system_test
