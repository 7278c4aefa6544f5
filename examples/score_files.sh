#!/usr/bin/env bash
# Scores two raw (headerless, tightly packed) .yuv files with vmafexact (the
# default model, vmaf_v0.6.1, plus the extra features below) and writes
# libvmaf's log with every bit (--precision max). Superseded by the vmafexact
# command-line tool, which it runs (docs/tool.md):
#   vmafexact --size WxH --format FORMAT --json LOG REF DIST
#
# Usage: examples/score_files.sh REF.yuv DIST.yuv WIDTH HEIGHT [FORMAT] [FRAMERATE] [LOG]
#   FORMAT     default i420: GStreamer's names (i420, nv12, i420_10le, p010_10le,
#              ...) or ffmpeg's pix_fmt names (yuv420p, yuv422p10le, ...);
#              vmafexact --help lists them.
#   FRAMERATE  default 24/1 (only sets timestamps; every frame is scored)
#   LOG        default out.json; .xml, .csv or .sub select those layouts
# Environment:
#   BUILD_DIR  meson build directory (default: <repo>/build)
#   FEATURES   the element's features property: extra features besides the
#              model's inputs (default psnr; e.g. psnr,adm=adm_enhn_gain_limit=1.0)
#   VERBOSE=1  also print every frame's scores, one JSON line each
#
# The tool gives rawvideoparse the packed layout (strides, plane offsets,
# frame size) that such files have; rawvideoparse's own default pads rows
# and would read the wrong bytes for widths that are not a multiple of 4.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
  exit "${1:-1}"
}
[[ "${1:-}" == -h || "${1:-}" == --help ]] && usage 0
(($# >= 4 && $# <= 7)) || usage

ref=$1 dist=$2 width=$3 height=$4
format=${5:-i420} framerate=${6:-24/1} log=${7:-out.json}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
tool="$build_dir/tools/vmafexact"
if [[ ! -x "$tool" ]]; then
  echo "score_files: $tool is not built; run: meson setup build && meson compile -C build" >&2
  exit 1
fi
export GST_PLUGIN_PATH="$build_dir/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

case "${log,,}" in
  *.xml) log_option=--xml ;;
  *.csv) log_option=--csv ;;
  *.sub) log_option=--sub ;;
  *) log_option=--json ;;
esac
verbose=()
[[ "${VERBOSE:-0}" == 1 ]] && verbose=(--jsonl -)

# --ref-size/--dist-size read both files as raw whatever their names.
exec "$tool" --ref-size "${width}x${height}" --dist-size "${width}x${height}" \
  --format "$format" --framerate "$framerate" --features "${FEATURES:-psnr}" \
  --precision max "$log_option" "$log" "${verbose[@]}" "$ref" "$dist"
