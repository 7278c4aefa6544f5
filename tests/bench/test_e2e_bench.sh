#!/bin/sh
# tests/bench/e2e_bench.py still runs against the tool and prints its table
# (docs/benchmarks.md, "End to end"), on its CPU columns and a tiny H.264 pair
# made here with ffmpeg (skipped without ffmpeg's libx264): this checks what it
# prints, never how fast anything ran. Arguments: e2e_bench.py, the vmafexact tool.
set -eu
e2e=$1 tool=$2
command -v ffmpeg >/dev/null 2>&1 || { echo "e2e-bench-smoke: no ffmpeg: skipped"; exit 77; }
ffmpeg -hide_banner -encoders 2>/dev/null | grep -q ' libx264 ' ||
  { echo "e2e-bench-smoke: ffmpeg has no libx264: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "e2e-bench-smoke: $*" >&2; exit 1; }
# The bench's own scratch folder (no --work) must not outlive it.
mkdir "$work/tmp"
export TMPDIR="$work/tmp"

# The bench's 1080p H.264 pair by name, 6 frames of 176x144.
for kind in ref dist; do
  ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=176x144:rate=24 -frames:v 6 \
    -c:v libx264 -preset veryfast -pix_fmt yuv420p -b:v 100k "$work/h264_1080_${kind}_long.mp4"
done
out=$(python3 "$e2e" --tool "$tool" --media "$work" --pairs 0 --repeat 1 --backends cpu --encodes 2 \
  --json "$work/e2e.json") || fail "e2e_bench.py exited $?"
echo "$out"
# The pair's row: 6 frames, a CPU figure in fps, the CPU's pooled VMAF mean.
# The rate after the start-up: a number, or - where the whole run took no
# longer than the 2-frame start-up run (6 tiny frames may well).
echo "$out" | grep -Eq '^\| 1920x1080 H\.264 \| 6 \| [0-9]+ \| - \| - \| - \| - \| [0-9.]+ / - \| ([0-9]+|-) / - \| - \| [0-9.]+ / None' ||
  fail "e2e_bench.py printed no complete row for the pair"
# Two encodes of the reference in one run: 12 frames, the pair's pooled mean.
echo "$out" | grep -Eq '^\| 2 \| 12 \| [0-9.]+ \| [0-9]+ \| [0-9.]+ \(equal to the single pair.s\) \|' ||
  fail "e2e_bench.py printed no row for two encodes in one run"
python3 -c 'import json, sys; runs = json.load(open(sys.argv[1]))["runs"]; sys.exit(not runs or any(r["rc"] for r in runs))' \
  "$work/e2e.json" || fail "e2e_bench.py's --json holds no runs or a failed one"
# Missing media: a clear message naming the script that makes them, exit 1.
if python3 "$e2e" --tool "$tool" --media "$work/none" --pairs 0 >"$work/missing.out" 2>&1; then
  fail "e2e_bench.py went on without its media"
fi
grep -q "nvdec-media.sh" "$work/missing.out" || fail "e2e_bench.py did not say how to make the media"
[ -z "$(ls -A "$work/tmp")" ] || fail "e2e_bench.py left $(ls "$work/tmp") in TMPDIR"
echo "e2e-bench-smoke: passed"
