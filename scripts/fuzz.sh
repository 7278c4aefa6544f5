#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets (tests/fuzz/) with clang, ASan and
# UBSan into build-fuzz/, and fuzzes each for a fixed time, starting from its
# seed corpus (tests/fuzz/corpus/<target>/). New inputs go to
# build-fuzz/corpus/<target>/ (not the source tree); crashes to
# build-fuzz/crashes/<target>/. A crash found is fixed and its input copied into
# tests/fuzz/corpus/<target>/, where the unit suite replays it from then on.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET ...]
#   targets: model_json libsvm_text model_list feature_list monitor_spec monitor_http monitor_config caps y4m report_log manifest
#   (default: all)
# Environment: FUZZ_JOBS  targets fuzzed at once (default: 1)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
seconds="${1:-60}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(model_json libsvm_text model_list feature_list monitor_spec monitor_http monitor_config caps y4m report_log manifest)
jobs="${FUZZ_JOBS:-1}"

scripts/install-deps.sh fuzz  # clang and libFuzzer; nothing when they are there
if [[ ! -f build-fuzz/build.ninja ]]; then
  CXX=clang++ CC=clang meson setup build-fuzz -Dfuzzing=true -Dtests=enabled -Dcuda=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
    -Dcpp_args=-fsanitize=fuzzer-no-link
fi
meson compile -C build-fuzz $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}")

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
# glib's start-up block and the like (tests/lsan.supp, as scripts/sanitize.sh):
# the caps target starts GStreamer, which leaves them at exit.
export LSAN_OPTIONS=suppressions=$repo/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fuzz_one() {
  local target=$1
  mkdir -p "build-fuzz/corpus/$target" "build-fuzz/crashes/$target"
  # -rss_limit_mb: a model file may ask for up to its 64 MiB cap and a little more.
  local status=0
  build-fuzz/tests/fuzz/"fuzz-$target" -max_total_time="$seconds" -rss_limit_mb=4096 \
    -max_len=65536 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/crashes/$target/" \
    "build-fuzz/corpus/$target" "tests/fuzz/corpus/$target" \
    >"build-fuzz/fuzz-$target.log" 2>&1 || status=$?
  echo "fuzz.sh: $target: exit $status, $(grep -E '^stat::number_of_executed_units' "build-fuzz/fuzz-$target.log" | awk '{print $2}') executions in ${seconds} s (log build-fuzz/fuzz-$target.log)"
  return $status
}
failed=0
running=0
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
