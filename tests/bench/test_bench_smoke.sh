#!/bin/sh
# The benchmark programs still run and print their figures (docs/benchmarks.md),
# on a few small frames: this checks what they print, never how fast anything
# ran. Arguments: vmafexact-bench, vmafexact-gst-bench, scripts/cpu-bench.sh,
# the build folder (cpu-bench.sh's BUILD_DIR).
set -eu
bench=$1 gst_bench=$2 cpu_bench=$3 build_dir=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "bench-smoke: $*" >&2; exit 1; }

# Two 176x144 4:2:0 clips of 4 frames of noise.
frame_bytes=$((176 * 144 * 3 / 2))
head -c $((4 * frame_bytes)) /dev/urandom >"$work/ref.yuv"
head -c $((4 * frame_bytes)) /dev/urandom >"$work/dist.yuv"

# NAME PATTERN COMMAND...: the command succeeds and prints a line matching
# PATTERN (its figure in fps).
expect_fps() {
  name=$1 pattern=$2
  shift 2
  out=$("$@") || fail "$name exited $?"
  echo "$out"
  echo "$out" | grep -Eq "$pattern" || fail "$name printed no fps"
}
# PROGRAM: a count that is not a number is a usage error (exit 2), not an abort.
expect_usage_error() {
  rc=0
  "$1" --frames 12x >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "$(basename "$1") --frames 12x exited $rc, not 2"
}

# vmafexact-bench: synthetic frames and raw files.
expect_fps vmafexact-bench 'cpu.* [0-9.]+ fps' "$bench" --backend cpu --size 176x144 --frames 3 --warmup 1 --threads 2
expect_fps "vmafexact-bench --yuv" ' [0-9.]+ fps' "$bench" --size 176x144 --frames 4 --warmup 0 --threads 1 \
  --yuv "$work/ref.yuv" "$work/dist.yuv"
echo "$out" | grep -Eq 'CPU [0-9.]+ s, [0-9.]+ cores busy' || fail "vmafexact-bench printed no CPU time"
expect_usage_error "$bench"

# vmafexact-gst-bench over the files' frames in memory.
expect_fps vmafexact-gst-bench ' [0-9.]+ fps' "$gst_bench" --yuv "$work/ref.yuv" "$work/dist.yuv" \
  --size 176x144 --frames 8 --threads 2
echo "$out" | grep -Eq 'CPU [0-9.]+ s, [0-9.]+ cores busy' || fail "vmafexact-gst-bench printed no CPU time"
expect_usage_error "$gst_bench"

# cpu-bench.sh: one row per thread count, every fps a number, every ratio
# (the four of fps and the two of CPU time) a median with its range.
out=$(BUILD_DIR="$build_dir" REF="$work/ref.yuv" DIST="$work/dist.yuv" SIZE=176x144 FRAMES=6 \
  REPEAT=2 bash "$cpu_bench" 1 2) || fail "cpu-bench.sh exited $?"
echo "$out"
rows=$(echo "$out" | grep -Ec '^\| [12] \| ([0-9.]+ \| ){4}([0-9.]+ \([0-9.]+-[0-9.]+\) \| ){4}[0-9.]+ \([0-9.]+-[0-9.]+\) \|$' || true)
[ "$rows" -eq 2 ] || fail "cpu-bench.sh printed $rows complete rows, not 2"
# A run that fails stops cpu-bench.sh with its error instead of a row of
# figures made of nothing.
if BUILD_DIR="$build_dir" REF="$work/ref.yuv" DIST="$work/dist.yuv" SIZE=176x144 FRAMES=2 \
  REPEAT=1 MODEL=no-such-model bash "$cpu_bench" 1 >"$work/failed.out" 2>&1; then
  cat "$work/failed.out"
  fail "cpu-bench.sh went on after a failed run"
fi
grep -q "no-such-model" "$work/failed.out" || fail "cpu-bench.sh did not pass on the run's error"
echo "bench-smoke: OK"
