#!/usr/bin/env bash
# cpu-bench.sh: the CPU figures of docs/benchmarks.md ("CPU: the element, the
# scorer and libvmaf"): for each thread count, frames per second of
#   - libvmaf's `vmaf` tool (when VMAF names one), the whole process;
#   - the vmafexact element, the whole process: gst-launch-1.0 with
#     filesrc ! rawvideoparse on both inputs into vmafexact (no log, no frame
#     messages) and fakesink;
#   - the same without a parser: filesrc blocksize=<one frame> and the caps
#     (no timestamps: the element pairs in arrival order). rawvideoparse copies
#     every frame into a new buffer; this column shows the element's cost
#     without that copy;
#   - the element over frames held in memory (vmafexact-gst-bench --yuv: two
#     appsrcs replay the same frames, timed from PLAYING to EOS): the element's
#     own cost, without the files' reading, the parser or the process's start;
#   - the scorer alone (vmafexact-bench --yuv on the same frames, all of them
#     held in memory, steady state);
# and the ratios element / vmaf, element / scorer, element without a parser /
# scorer and element in memory / scorer; then CPU time rather than time: the
# element's over frames in memory (the element's own cost) and the element's
# whole process (user and system: the scorer, the parsers' and the files'
# threads, the start and the end), each over the scorer's own over its timed
# frames: what the element and its pipeline cost beside the scorer, whatever
# the cores left idle. The tools take turns, REPEAT turns:
# each fps figure is the median of its REPEAT runs, each ratio the median of
# the REPEAT ratios of one turn's runs, their range beside it (a host whose
# speed drifts moves the runs of one turn alike). Prints a Markdown table.
#
# Usage: scripts/cpu-bench.sh [THREADS ...]          (default: 1 2)
# Environment:
#   VMAF       libvmaf's vmaf tool to compare with (e.g. a build of upstream
#              libvmaf's tools/vmaf); without it the vmaf column is left out
#   REF DIST   two raw 8-bit 4:2:0 files to score (default: fixture b, 1920x1080,
#              from the test fixture cache: run the conformance suite once first)
#   SIZE       their size (default 1920x1080)
#   FRAMES     frames per run (default 100: the inputs are repeated to this length)
#   REPEAT     runs per figure (default 3)
#   MODEL      the model (default vmaf_v0.6.1)
#   BUILD_DIR  meson build directory with the tests built (default <repo>/build)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
threads_list=("$@")
((${#threads_list[@]})) || threads_list=(1 2)
frames=${FRAMES:-100} repeat=${REPEAT:-3} model=${MODEL:-vmaf_v0.6.1} size=${SIZE:-1920x1080}
width=${size%x*} height=${size#*x}
fixtures="${VMAFEXACT_FIXTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafexact/fixtures}/yuv"
ref=${REF:-$fixtures/b_1920x1080_420p8_ref.yuv}
dist=${DIST:-$fixtures/b_1920x1080_420p8_dis_x264crf28.yuv}
bench="$build_dir/tests/vmafexact-bench"
gst_bench="$build_dir/tests/vmafexact-gst-bench"
for file in "$ref" "$dist" "$bench" "$gst_bench"; do
  [[ -f $file ]] || { echo "cpu-bench: $file not found (see the usage at the top of this script)" >&2; exit 1; }
done
[[ -z ${VMAF:-} || -x $VMAF ]] || { echo "cpu-bench: VMAF=$VMAF is not an executable" >&2; exit 1; }
export GST_PLUGIN_PATH="$build_dir/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The inputs repeated (or cut) to FRAMES frames.
frame_bytes=$((width * height * 3 / 2))
make_input() {
  local from=$1 to=$2 have
  have=$(($(stat -c %s "$from") / frame_bytes))
  ((have > 0)) || { echo "cpu-bench: $from holds no ${size} 4:2:0 frame" >&2; exit 1; }
  : >"$to"
  for ((n = 0; n < frames; n += have)); do cat "$from" >>"$to"; done
  truncate -s $((frames * frame_bytes)) "$to"
}
make_input "$ref" "$work/ref.yuv"
make_input "$dist" "$work/dist.yuv"

# Runs the command; prints its wall time and its CPU time (user and system,
# its children's included), in seconds.
timed() {
  local TIMEFORMAT='%R %U %S' timing
  timing=$({ time "$@" >/dev/null 2>"$work/stderr"; } 2>&1) || { cat "$work/stderr" >&2; exit 1; }
  awk '{ printf "%s %.6f\n", $1, $2 + $3 }' <<<"$timing"
}
seconds_of() { timed "$@" | awk '{ print $1 }'; }  # the wall time alone
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The ratios of two arrays' runs of the same turn (the arrays named): their
# median, then their range when there are several ("0.93 (0.90-0.95)"); a
# turn whose second figure is 0 (a time below the clock's grain) is left out,
# and "-" printed when every turn is.
turn_ratios() {
  local -n over=$1 under=$2
  local r ratios
  ratios=$(for r in "${!over[@]}"; do
    awk -v a="${over[r]}" -v b="${under[r]}" 'BEGIN { if (b > 0) printf "%.6f\n", a / b }'
  done | sort -g)
  [[ -n $ratios ]] || { printf -- '-'; return; }
  printf '%s\n' "$ratios" | median | awk '{ printf "%.2f", $1 }'
  (($(wc -l <<<"$ratios") < 2)) ||
    printf ' (%.2f-%.2f)' "$(head -1 <<<"$ratios")" "$(tail -1 <<<"$ratios")"
}
fps_of_seconds() { awk -v n="$frames" '{ printf "%.1f\n", n / $1 }'; }
# The fps and the CPU seconds in a bench's output, "FPS CPU": the number before
# "fps" ("...: 105.5 fps, ..." or "...: 111.0 fps (...)") and the one after "CPU"
# ("...; CPU 4.24 s, 1.94 cores busy"), as both benches print them.
fps_and_cpu() {
  awk '{ for (i = 1; i < NF; ++i) {
           if (fps == "" && $(i+1) ~ /^fps,?$/) fps = $i
           if (cpu == "" && $i == "CPU") cpu = $(i+1)
         } }
       END { print fps, cpu }'
}

element() {
  local t=$1 parse="rawvideoparse width=$width height=$height format=i420 framerate=25/1"
  gst-launch-1.0 -q filesrc location="$work/ref.yuv" ! $parse ! v.ref_sink \
    filesrc location="$work/dist.yuv" ! $parse ! v.dist_sink \
    vmafexact name=v model="$model" threads="$t" frame-message=false ! fakesink
}
element_no_parser() {
  local t=$1 caps="video/x-raw,format=I420,width=$width,height=$height,framerate=25/1"
  gst-launch-1.0 -q filesrc location="$work/ref.yuv" blocksize=$frame_bytes ! "$caps" ! v.ref_sink \
    filesrc location="$work/dist.yuv" blocksize=$frame_bytes ! "$caps" ! v.dist_sink \
    vmafexact name=v model="$model" threads="$t" frame-message=false ! fakesink
}
element_in_memory() {  # prints its fps and its CPU seconds
  "$gst_bench" --yuv "$work/ref.yuv" "$work/dist.yuv" --size "$size" --frames "$frames" \
    --threads "$1" --model "$model" | fps_and_cpu
}
libvmaf() {
  "$VMAF" -r "$work/ref.yuv" -d "$work/dist.yuv" -w "$width" -h "$height" -p 420 -b 8 \
    --threads "$1" --model version="$model" -q -o "$work/vmaf.xml"
}
scorer_run() {  # prints its fps and its CPU seconds
  "$bench" --yuv "$work/ref.yuv" "$work/dist.yuv" --size "$size" --frames "$frames" \
    --distinct "$frames" --warmup 0 --threads "$1" --model "$model" | fps_and_cpu
}

echo "cpu-bench: $model, $size, $frames frames, median of $repeat runs, $(nproc) CPUs:" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo
if [[ -n ${VMAF:-} ]]; then
  echo "| threads | vmaf tool fps | element fps | element, no parser fps | element, in memory fps | scorer alone fps | element / vmaf | element / scorer | no parser / scorer | in memory / scorer | in memory CPU / scorer CPU | element CPU / scorer CPU |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
else
  echo "| threads | element fps | element, no parser fps | element, in memory fps | scorer alone fps | element / scorer | no parser / scorer | in memory / scorer | in memory CPU / scorer CPU | element CPU / scorer CPU |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
fi
for t in "${threads_list[@]}"; do
  # The tools take turns, run after run, so that a host whose speed drifts
  # (shared machines) slows all of them alike.
  element_runs=() element_cpu_runs=() bare_runs=() memory_runs=() memory_cpu_runs=()
  scorer_runs=() scorer_cpu_runs=() vmaf_runs=()
  for ((r = 0; r < repeat; ++r)); do
    # (read from a here-string, not a process substitution, so that a failed
    # run stops the script)
    timing=$(timed element "$t")
    read -r wall cpu <<<"$timing"
    element_runs+=("$(fps_of_seconds <<<"$wall")")
    element_cpu_runs+=("$cpu")
    bare_runs+=("$(seconds_of element_no_parser "$t" | fps_of_seconds)")
    timing=$(element_in_memory "$t")
    read -r fps cpu <<<"$timing"
    memory_runs+=("$fps")
    memory_cpu_runs+=("$cpu")
    timing=$(scorer_run "$t")
    read -r fps cpu <<<"$timing"
    scorer_runs+=("$fps")
    scorer_cpu_runs+=("$cpu")
    [[ -z ${VMAF:-} ]] || vmaf_runs+=("$(seconds_of libvmaf "$t" | fps_of_seconds)")
  done
  element_fps=$(printf '%s\n' "${element_runs[@]}" | median)
  bare_fps=$(printf '%s\n' "${bare_runs[@]}" | median)
  memory_fps=$(printf '%s\n' "${memory_runs[@]}" | median)
  scorer=$(printf '%s\n' "${scorer_runs[@]}" | median)
  to_scorer=$(turn_ratios element_runs scorer_runs)
  bare_to_scorer=$(turn_ratios bare_runs scorer_runs)
  memory_to_scorer=$(turn_ratios memory_runs scorer_runs)
  memory_cpu_to_scorer=$(turn_ratios memory_cpu_runs scorer_cpu_runs)
  cpu_to_scorer=$(turn_ratios element_cpu_runs scorer_cpu_runs)
  if [[ -n ${VMAF:-} ]]; then
    vmaf_fps=$(printf '%s\n' "${vmaf_runs[@]}" | median)
    to_vmaf=$(turn_ratios element_runs vmaf_runs)
    echo "| $t | $vmaf_fps | $element_fps | $bare_fps | $memory_fps | $scorer | **$to_vmaf** | $to_scorer | $bare_to_scorer | $memory_to_scorer | $memory_cpu_to_scorer | $cpu_to_scorer |"
  else
    echo "| $t | $element_fps | $bare_fps | $memory_fps | $scorer | $to_scorer | $bare_to_scorer | $memory_to_scorer | $memory_cpu_to_scorer | $cpu_to_scorer |"
  fi
done
