#!/usr/bin/env bash
# sanitize.sh: builds vmafexact with AddressSanitizer and UBSan into
# build-asan/ (CPU only) and runs the unit suite (with the fuzz corpora), the
# element suite (element, live and pipeline tests, among them issue 10's 1080p
# flushing seek with frames in flight), the monitor suite (vmafexact-monitor
# and its OpenMetrics endpoint), the cli suite (the vmafexact tool, its frame
# ranges), the align and bd-rate suites (--align auto, BD-rate and ladders) and
# the report suite (the plot, the HTML report, worst-frame pictures) and the batch
# suite (manifests, vmafexact batch and merge) there, less a selection of tests that
# only repeat covered paths on larger frames (below): any ASan or UBSan report
# fails the run. Only the programs those suites run are compiled. CI runs this
# after scripts/test.sh.
#
# Usage: scripts/sanitize.sh [--valgrind]
#   --valgrind  then also the element tests under valgrind, against the normal
#               build (leaks of our own objects are errors; slow, not in CI)
# Environment: BUILD_DIR_ASAN (default <repo>/build-asan)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
# shellcheck source=scripts/ccache-env.sh
source scripts/ccache-env.sh
suites=(unit element monitor cli align bd-rate report batch)
asan_dir="${BUILD_DIR_ASAN:-$repo/build-asan}"
# -g1 (after debugoptimized's -g): line tables only, which is all the reports
# need (every frame, inlined ones too, keeps its file:line); the compile is
# about a third shorter and the objects half the size. -Wno-maybe-uninitialized:
# under the sanitizers GCC 12 reports libstdc++'s own <regex> as maybe
# uninitialized in every file that includes it (154 lines of CI log, none
# ours); the release build keeps the warning.
[[ -f "$asan_dir/build.ninja" ]] || meson setup "$asan_dir" -Dtests=enabled -Dcuda=disabled \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
  "-Dcpp_args=['-g1', '-Wno-maybe-uninitialized']"
# The targets the chosen suites' tests run or depend on (the plugin, the tools).
mapfile -t targets < <(meson introspect "$asan_dir" --tests | python3 -c '
import json, sys
suites = {"vmafexact:" + name for name in sys.argv[1:]}
names = set()
for test in json.load(sys.stdin):
    if suites & set(test["suite"]):
        names.update(depend.split("@@")[1].rsplit("@", 1)[0] for depend in test["depends"])
print("\n".join(sorted(names)))' "${suites[@]}")
meson compile -C "$asan_dir" "${targets[@]}"
# The plugin is ASan-instrumented, so GStreamer must load it in the test process.
export GST_REGISTRY_FORK=no GST_REGISTRY="$asan_dir/gst-registry-asan.bin"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$repo/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Five flushing seeks at 1080p with frames in flight (the reproduction runs 2
# times by default).
export VMAFEXACT_SEEK_RUNS="${VMAFEXACT_SEEK_RUNS:-5}"
# A race the unsanitized run repeats 20 times (Cli.ACutMp4IsNamedAsUnreadable-
# EveryTime): three runs here, about a minute less.
export VMAFEXACT_RACE_RUNS="${VMAFEXACT_RACE_RUNS:-3}"
# A selection: the sanitizers look for memory and undefined-behaviour faults,
# so tests that only run code already run here on larger frames are left to
# scripts/test.sh (the whole suite, without sanitizers): the 1080p 8-bit
# fixture pairs through the element (a_ at 576x324 and c_ at 1080p 10-bit take
# the same paths) and VIF's bands on large frames (EveryDepthAndOption covers
# every path). About 90 s of the sanitized run's test time on two cores.
# SANITIZE_ALL=1 runs everything.
if [[ -z "${SANITIZE_ALL:-}" && -z "${GTEST_FILTER:-}" ]]; then
  export GTEST_FILTER='-SharedFixtures/Pipeline.LogEqualsLibvmafReference/b_1920x1080_*:VifBands.LargeFramesEqualSerial'
fi
# Twice meson's timeouts: everything runs slower under the sanitizers.
suite_args=()
for suite in "${suites[@]}"; do suite_args+=(--suite "$suite"); done
if ! meson test -C "$asan_dir" --no-rebuild "${suite_args[@]}" --print-errorlogs \
    --timeout-multiplier 2; then
  # LeakSanitizer's own tracer, which stops every thread for the leak check at
  # exit, now and then crashes ("Tracer caught signal 11", then "LeakSanitizer
  # has encountered a fatal error"): the check did not run, nothing was found.
  # A test whose only failure is that runs once more; any ASan, LSan or UBSan
  # report, or any other failure, fails the run as before.
  mapfile -t rerun < <(python3 - "$asan_dir/meson-logs/testlog.json" <<'PY'
import json, sys
tool_crash = "LeakSanitizer has encountered a fatal error"
findings = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer: detected", "runtime error:")
failed = [json.loads(line) for line in open(sys.argv[1])]
failed = [t for t in failed if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL")]
output = lambda t: (t.get("stdout") or "") + (t.get("stderr") or "")
if failed and all(tool_crash in output(t) and not any(f in output(t) for f in findings)
                  for t in failed):
    for t in failed:
        print(t["name"].split(" / ", 1)[1])
PY
  )
  ((${#rerun[@]})) || exit 1
  echo "sanitize: LeakSanitizer itself crashed in ${rerun[*]} (its tracer, not a finding); running once more"
  meson test -C "$asan_dir" --no-rebuild "${rerun[@]}" --print-errorlogs --timeout-multiplier 2
fi

if [[ "${1:-}" == --valgrind ]]; then
  [[ -f build/build.ninja ]] || meson setup build -Dtests=enabled
  meson compile -C build
  GST_PLUGIN_PATH=$repo/build/gst G_SLICE=always-malloc valgrind --leak-check=full \
    --suppressions="$repo/tests/valgrind.supp" \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite --error-exitcode=3 \
    build/tests/element-tests --gtest_filter='-Scale.*:*ScaleLikeFfmpeg*' 2>&1 | tail -20
  # Left out: the suites that load gst-libav, whose libhwy runs rdtscp in its
  # initializer; Debian 12's valgrind (3.19) cannot decode it and stops the
  # process with SIGILL. ASan runs them above.
fi
