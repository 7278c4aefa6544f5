#!/usr/bin/env bash
# sanitize.sh: builds vmafexact with AddressSanitizer and UBSan into
# build-asan/ (CPU only) and runs the unit, element and pipeline tests there,
# then the element tests under valgrind (leaks of our own objects are errors).
# Slow (15-30 minutes on two cores); not part of CI.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
[[ -f build-asan/build.ninja ]] || meson setup build-asan -Dtests=enabled -Dcuda=disabled \
  -Db_sanitize=address,undefined -Dbuildtype=debugoptimized
meson compile -C build-asan
# The plugin is ASan-instrumented, so GStreamer must load it in the test process.
export GST_REGISTRY_FORK=no GST_REGISTRY=/tmp/vmafexact-asan-registry.bin
export ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$repo/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
meson test -C build-asan --suite unit --suite element --print-errorlogs
[[ -f build/build.ninja ]] || meson setup build -Dtests=enabled
meson compile -C build
GST_PLUGIN_PATH=$repo/build/gst G_SLICE=always-malloc valgrind --leak-check=full \
  --suppressions="$repo/tests/valgrind.supp" \
  --errors-for-leak-kinds=definite --show-leak-kinds=definite --error-exitcode=3 \
  build/tests/element-tests 2>&1 | tail -20
