#!/usr/bin/env bash
# live-memory.sh: runs vmafexact in a live pipeline for a while and samples its
# resident memory, to show that memory stays flat in a long run
# (docs/reliability.md). One live videotestsrc teed into both inputs, the
# distorted branch brightened (two independent live sources start at different
# running times and, at 1080p, more than half a frame apart: no frame would
# pair), windows, an alert and a rotated streamed log, as a monitoring station
# would run it.
#
# Usage: scripts/live-memory.sh [SECONDS] [WIDTHxHEIGHT] [FPS]
#   defaults: 3600 s, 1920x1080, 60 fps
# Environment:
#   BUILD_DIR   meson build directory (default: <repo>/build)
#   MODEL       the element's model (default: "" = features only)
#   FEATURES    the element's features (default: psnr)
#   SAMPLE      seconds between samples (default: 30)
#   OUTDIR      where the rotated logs and the samples go (default: a temporary folder)
# Prints one line per sample (seconds, RSS in KiB) and at the end the RSS after
# the first minute, the largest RSS after it, the growth, and the frames logged.
set -euo pipefail
seconds=${1:-3600} size=${2:-1920x1080} fps=${3:-60}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
export GST_PLUGIN_PATH="$build_dir/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
model=${MODEL-} features=${FEATURES:-psnr} sample=${SAMPLE:-30}
out=${OUTDIR:-$(mktemp -d)}
# gst-launch-1.0 takes a bare "model=" as naming the next word: an empty list is
# written with its quotes.
model_arg="model=${model:-\"\"}"
mkdir -p "$out"
width=${size%x*} height=${size#*x}
caps="video/x-raw,format=I420,width=$width,height=$height,framerate=$fps/1"
queue="queue max-size-buffers=4 max-size-bytes=0 max-size-time=0"
gst-launch-1.0 -m -e \
  videotestsrc is-live=true pattern=ball ! "$caps" ! tee name=t \
  t. ! $queue ! v.ref_sink \
  t. ! $queue ! videobalance brightness=0.05 ! v.dist_sink \
  vmafexact name=v "$model_arg" features="$features" frame-message=false \
    window=10s window-step=10s alert="psnr_y<20:for=2s" \
    log-location="$out/live-{index}.json" log-rotate=10m ! fakesink \
  > "$out/gst.log" 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true' EXIT
: > "$out/rss.txt"
start=$SECONDS
while ((SECONDS - start < seconds)) && kill -0 "$pid" 2>/dev/null; do
  sleep "$sample"
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null) || break
  echo "$((SECONDS - start)) $rss" | tee -a "$out/rss.txt"
done
kill -INT "$pid" 2>/dev/null || true
wait "$pid" || true
trap - EXIT
frames=$(cat "$out"/live-*.json 2>/dev/null | grep -c '"frameNum"' || true)
# The summary's counts (gst-launch -m prints the element messages).
count() { grep -o "vmafexact-summary.*" "$out/gst.log" | grep -o "$1=(guint64)[0-9]*" | head -1 | cut -d')' -f2; }
scored=$(count frames-scored) unpaired=$(count frames-unpaired) skipped=$(count frames-skipped-late)
awk -v frames="$frames" -v out="$out" -v scored="${scored:-?}" -v unpaired="${unpaired:-?}" \
  -v skipped="${skipped:-?}" '
  $1 >= 60 && !have { first = $2; have = 1 }
  $1 >= 60 { if ($2 > max) max = $2; last = $2 }
  END {
    if (!have) { print "live-memory: the run was shorter than a minute"; exit 1 }
    printf "live-memory: RSS %d KiB after the first minute, largest after it %d KiB, last %d KiB: growth %+d KiB; %d frames logged in %s; summary: %s pairs scored, %s skipped late, %s frames unpaired\n",
           first, max, last, max - first, frames, out, scored, skipped, unpaired
  }' "$out/rss.txt"
