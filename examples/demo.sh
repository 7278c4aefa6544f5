#!/usr/bin/env bash
# Scores a JPEG-compressed copy of a synthetic test video against the original
# and prints one line per frame and the pooled summary. Needs no input files.
#
# Usage: examples/demo.sh [LOG_FILE]
#   LOG_FILE         also write libvmaf's JSON log there (log-precision=max)
# Environment:
#   BUILD_DIR        meson build directory (default: <repo>/build); the plugin is
#                    loaded from $BUILD_DIR/gst through GST_PLUGIN_PATH
#   NUM_BUFFERS      frames to score (default 48)
#   JPEG_QUALITY     jpegenc quality of the distorted branch, 0-100 (default 25)
#   FEATURES         extra features besides the VMAF model's (default psnr)
#   KEYS             scores to print (default "vmaf psnr_y"; "" prints all)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
export GST_PLUGIN_PATH="$build_dir/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

if ! gst-inspect-1.0 vmafexact >/dev/null 2>&1; then
  echo "demo: the vmafexact plugin is not in $build_dir/gst; build it first:" >&2
  echo "  meson setup build && meson compile -C build   (or scripts/quickstart.sh)" >&2
  exit 1
fi

log_props=()
if (($# > 0)); then
  log_props=(log-location="$1" log-format=json log-precision=max)
fi

caps="video/x-raw,format=I420,width=640,height=360,framerate=24/1"

# videotestsrc -> tee -> reference                      -> vmafexact.ref_sink
#                     -> JPEG at low quality -> decoded -> vmafexact.dist_sink
# vmafexact passes the distorted frames on to fakesink.
set +e
gst-launch-1.0 -m \
  videotestsrc pattern=smpte horizontal-speed=4 num-buffers="${NUM_BUFFERS:-48}" ! "$caps" \
  ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! jpegenc quality="${JPEG_QUALITY:-25}" ! jpegdec ! videoconvert \
     ! video/x-raw,format=I420 ! v.dist_sink \
  vmafexact name=v features="${FEATURES:-psnr}" "${log_props[@]}" ! fakesink \
  2>&1 | awk -v keys="${KEYS-vmaf psnr_y}" -f "$here/format-messages.awk"
status=("${PIPESTATUS[@]}")
set -e
if ((status[0] != 0)); then
  echo "demo: gst-launch-1.0 failed (exit status ${status[0]})" >&2
  exit "${status[0]}"
fi
if (($# > 0)); then echo "log written to $1"; fi
