#!/usr/bin/env bash
# Scores two raw (headerless, tightly packed) .yuv files with vmafexact (the
# element's default model, vmaf_v0.6.1, plus the extra features below) and
# writes libvmaf's log with every bit (log-precision=max). Pictures must be at
# least 33x33 for VMAF.
#
# Usage: examples/score_files.sh REF.yuv DIST.yuv WIDTH HEIGHT [FORMAT] [FRAMERATE] [LOG]
#   FORMAT     default i420. GStreamer names (i420, yv12, y42b, y444, nv12, nv21,
#              nv16, nv61, nv24, gray8, i420_10le, i420_12le, i422_10le,
#              i422_12le, y444_10le, y444_12le, y444_16le, p010_10le, p012_le,
#              p016_le, gray16_le) or ffmpeg's pix_fmt names (yuv420p,
#              yuv422p10le, ...).
#   FRAMERATE  default 24/1 (only sets timestamps; every frame is scored)
#   LOG        default out.json; .xml or .csv select those layouts
# Environment:
#   BUILD_DIR  meson build directory (default: <repo>/build)
#   FEATURES   the element's features property: extra features besides the
#              model's inputs (default psnr; adm, motion, vif, psnr with
#              libvmaf's options, e.g. psnr,adm=adm_enhn_gain_limit=1.0)
#   VERBOSE=1  also print every frame's scores
#
# Why the layout is spelled out: rawvideoparse assumes GStreamer's default
# layout, whose rows are padded (the luma stride is rounded up to 4 bytes).
# Files written by ffmpeg or libvmaf's tools are tightly packed, so for widths
# that are not a multiple of 4 (or 8 for chroma) the default layout reads the
# wrong bytes. The strides, offsets and frame size are computed here instead.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
  exit "${1:-1}"
}
(($# >= 4 && $# <= 7)) || usage
[[ "$1" == -h || "$1" == --help ]] && usage 0

ref=$1 dist=$2 width=$3 height=$4
format=${5:-i420} framerate=${6:-24/1} log=${7:-out.json}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
export GST_PLUGIN_PATH="$build_dir/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

die() { echo "score_files: $*" >&2; exit 1; }

[[ "$width" =~ ^[1-9][0-9]*$ && "$height" =~ ^[1-9][0-9]*$ ]] || die "bad size ${width}x${height}"
[[ -r "$ref" ]] || die "cannot read $ref"
[[ -r "$dist" ]] || die "cannot read $dist"
gst-inspect-1.0 vmafexact >/dev/null 2>&1 ||
  die "the vmafexact plugin is not in $build_dir/gst; run: meson setup build && meson compile -C build"

# Normalise the format name: ffmpeg names first, then GStreamer's spelling in
# rawvideoparse's enum (lower case, '-' for '_').
format=${format,,}
case "$format" in
  yuv420p) format=i420 ;;        yuv422p) format=y42b ;;        yuv444p) format=y444 ;;
  yuv420p10le) format=i420_10le ;; yuv420p12le) format=i420_12le ;;
  yuv422p10le) format=i422_10le ;; yuv422p12le) format=i422_12le ;;
  yuv444p10le) format=y444_10le ;; yuv444p12le) format=y444_12le ;;
  yuv444p16le) format=y444_16le ;; gray) format=gray8 ;; gray16le) format=gray16_le ;;
  p010le) format=p010_10le ;;    p012le) format=p012_le ;;     p016le) format=p016_le ;;
esac
format=${format//-/_}

# Layout: bytes per sample, chroma subsampling (horizontal, vertical) and
# whether the chroma is planar (3 planes), semi-planar (2) or absent (gray).
case "$format" in
  i420 | yv12)                     bytes=1 sub_x=1 sub_y=1 kind=planar ;;
  y42b)                            bytes=1 sub_x=1 sub_y=0 kind=planar ;;
  y444)                            bytes=1 sub_x=0 sub_y=0 kind=planar ;;
  i420_10le | i420_12le)           bytes=2 sub_x=1 sub_y=1 kind=planar ;;
  i422_10le | i422_12le)           bytes=2 sub_x=1 sub_y=0 kind=planar ;;
  y444_10le | y444_12le | y444_16le) bytes=2 sub_x=0 sub_y=0 kind=planar ;;
  nv12 | nv21)                     bytes=1 sub_x=1 sub_y=1 kind=semi ;;
  nv16 | nv61)                     bytes=1 sub_x=1 sub_y=0 kind=semi ;;
  nv24)                            bytes=1 sub_x=0 sub_y=0 kind=semi ;;
  p010_10le | p012_le | p016_le)   bytes=2 sub_x=1 sub_y=1 kind=semi ;;
  gray8)                           bytes=1 kind=gray ;;
  gray16_le)                       bytes=2 kind=gray ;;
  *) die "unsupported format '$format' (see --help)" ;;
esac

# GStreamer (like ffmpeg) rounds chroma sizes up for odd luma sizes; vmafexact
# itself scores libvmaf's rounded-down chroma region.
luma_stride=$((width * bytes))
luma_size=$((luma_stride * height))
if [[ $kind == gray ]]; then
  strides="<$luma_stride>" offsets="<0>" frame_size=$luma_size
else
  chroma_w=$(((width + sub_x) >> sub_x)) chroma_h=$(((height + sub_y) >> sub_y))
  if [[ $kind == planar ]]; then
    chroma_stride=$((chroma_w * bytes))
    chroma_size=$((chroma_stride * chroma_h))
    strides="<$luma_stride,$chroma_stride,$chroma_stride>"
    offsets="<0,$luma_size,$((luma_size + chroma_size))>"
    frame_size=$((luma_size + 2 * chroma_size))
  else
    chroma_stride=$((2 * chroma_w * bytes))
    strides="<$luma_stride,$chroma_stride>"
    offsets="<0,$luma_size>"
    frame_size=$((luma_size + chroma_stride * chroma_h))
  fi
fi
gst_format=${format//_/-}

for file in "$ref" "$dist"; do
  size=$(stat -c %s "$file")
  if ((size % frame_size)); then
    echo "score_files: warning: $file holds $size bytes, not a whole number of" \
      "${frame_size}-byte ${width}x${height} $format frames; the last partial frame is dropped" >&2
  fi
done

case "$log" in
  *.xml) log_format=xml ;;
  *.csv) log_format=csv ;;
  *) log_format=json ;;
esac

parse="rawvideoparse width=$width height=$height format=$gst_format framerate=$framerate"
parse+=" plane-strides=$strides plane-offsets=$offsets frame-size=$frame_size"
frame_message=false
[[ "${VERBOSE:-0}" == 1 ]] && frame_message=true

echo "scoring $ref vs $dist (${width}x${height} $format, $frame_size bytes a frame)"
set +e
# shellcheck disable=SC2086  # $parse is a list of gst-launch arguments
gst-launch-1.0 -m \
  filesrc location="$ref" ! $parse ! v.ref_sink \
  filesrc location="$dist" ! $parse ! v.dist_sink \
  vmafexact name=v features="${FEATURES:-psnr}" frame-message=$frame_message \
    log-location="$log" log-format=$log_format log-precision=max \
  ! fakesink \
  2>&1 | awk -f "$here/format-messages.awk"
status=("${PIPESTATUS[@]}")
set -e
((status[0] == 0)) || die "gst-launch-1.0 failed (exit status ${status[0]})"
echo "log ($log_format, log-precision=max) written to $log"
