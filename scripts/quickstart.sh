#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running demo:
# installs the dependencies, builds vmafexact and scores a synthetic video.
#
# Usage: scripts/quickstart.sh [extra `meson setup` options]
# Environment: BUILD_DIR (default: <repo>/build)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
cd "$repo"

echo "==> installing dependencies"
scripts/install-deps.sh

echo "==> configuring $build_dir"
if [[ -f "$build_dir/build.ninja" ]]; then
  meson setup --reconfigure "$build_dir" "$@"
else
  meson setup "$build_dir" "$@"
fi

echo "==> building"
meson compile -C "$build_dir"

echo "==> demo: examples/demo.sh"
BUILD_DIR="$build_dir" examples/demo.sh

cat <<MSG

vmafexact is built: the plugin is $build_dir/gst/libgstvmafexact.so.
The element's reference:  GST_PLUGIN_PATH=$build_dir/gst gst-inspect-1.0 vmafexact
The test suite:           scripts/test.sh
Score two files:          $build_dir/tools/vmafexact REF DIST  (mp4, mkv, y4m, ...; docs/tool.md)
Score two raw files:      $build_dir/tools/vmafexact --size WxH --format yuv420p REF.yuv DIST.yuv
MSG
