#!/usr/bin/env bash
# device-fixtures.sh OUTDIR [FRAMES] [LARGE_FRAMES]: a small copy of the test
# fixtures for a GPU machine without ffmpeg (or one that can receive only a few
# tens of MiB): the reference logs, and the first FRAMES frames (default 3) of
# each .yuv, LARGE_FRAMES (default 1; 0 leaves them out) of the 1280x720 and
# 1920x1080 ones. Point the tests at it with
#   VMAFEXACT_SHARED_DIR=OUTDIR/shared VMAFEXACT_FIXTURE_YUV_DIR=OUTDIR/yuv
# The references come from the repository's tests/fixtures (or from
# $VMAFEXACT_SHARED_DIR/fixtures when set), the frames from the fixture cache.
set -euo pipefail
out=${1:?usage: device-fixtures.sh OUTDIR [FRAMES]}
frames=${2:-3}
large_frames=${3:-1}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${VMAFEXACT_SHARED_DIR:-$repo/tests}"
cache="${VMAFEXACT_FIXTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafexact/fixtures}"
[[ -d "$cache/yuv" ]] || { echo "no fixtures in $cache: run the tests once first"; exit 1; }
mkdir -p "$out/yuv" "$out/shared/fixtures"
cp -r "$shared/fixtures/ref" "$out/shared/fixtures/"
# frame bytes from FIXTURES.txt: file | WxH | format | frames | bytes | sha
while IFS='|' read -r file size format count bytes _; do
  file=$(echo "$file" | xargs); count=$(echo "$count" | xargs); bytes=$(echo "$bytes" | xargs)
  [[ "$file" == *.yuv && "$file" != *vmafcli* ]] || continue
  frame_bytes=$((bytes / count))
  n=$frames
  [[ "$size" == *1920x1080* || "$size" == *1280x720* ]] && n=$large_frames
  [[ $n -gt 0 ]] || continue
  head -c $((frame_bytes * n)) "$cache/yuv/$file" > "$out/yuv/$file"
done < "$shared/fixtures/FIXTURES.txt"
du -sh "$out"
