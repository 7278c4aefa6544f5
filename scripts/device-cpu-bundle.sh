#!/usr/bin/env bash
# device-cpu-bundle.sh [BUNDLE]: packs what the GPU machine's host CPU needs for
# the CPU figures of docs/benchmarks.md ("CPU: 16 cores"): vmafexact-bench,
# vmafexact-gst-bench and the plugin of the build (stripped, laid out as a build folder), fixture b
# (1920x1080, 20 frames, xz), scripts/cpu-bench.sh and scripts/device-check.sh,
# and, when VMAF names libvmaf's vmaf tool (a static build, as libvmaf's meson
# build makes it), that tool, to run beside them. Default BUNDLE: .devcpu
# (git-ignored). Then, with GStreamer carried as .devicegst, on the device:
#   CHECKS=cpu bash BUNDLE/device-check.sh        (carry: BUNDLE and .devicegst)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build}"
bundle="${1:-$repo/.devcpu}"
cache="${VMAFEXACT_FIXTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafexact/fixtures}/yuv"
rm -rf "$bundle"
mkdir -p "$bundle/tests" "$bundle/gst" "$bundle/fx"
strip -o "$bundle/tests/vmafexact-bench" "$build/tests/vmafexact-bench"
strip -o "$bundle/tests/vmafexact-gst-bench" "$build/tests/vmafexact-gst-bench"
strip -o "$bundle/gst/libgstvmafexact.so" "$build/gst/libgstvmafexact.so"
for file in b_1920x1080_420p8_ref.yuv b_1920x1080_420p8_dis_x264crf28.yuv; do
  [[ -f $cache/$file ]] || { echo "device-cpu-bundle: $cache/$file missing: run the tests once first" >&2; exit 1; }
  xz -T0 -6 -c "$cache/$file" > "$bundle/fx/$file.xz"
done
if [[ -n ${VMAF:-} ]]; then
  if ldd "$VMAF" | grep -q libvmaf; then
    echo "device-cpu-bundle: $VMAF links libvmaf dynamically; give a static build" >&2
    exit 1
  fi
  strip -o "$bundle/vmaf" "$VMAF"
fi
cp "$repo/scripts/cpu-bench.sh" "$repo/scripts/device-check.sh" "$bundle/"
exclude="$(git -C "$repo" rev-parse --git-common-dir)/info/exclude"
grep -qx '/.devcpu/' "$exclude" 2>/dev/null || echo '/.devcpu/' >> "$exclude"
du -sh "$bundle"
