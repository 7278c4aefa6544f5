#!/usr/bin/env bash
# device-fixtures.sh OUTDIR [FRAMES] [LARGE_FRAMES]: a small copy of the test
# fixtures for a GPU machine without ffmpeg (or one that can receive only a few
# tens of MiB): the reference logs, and the first FRAMES frames (default 3) of
# each .yuv, LARGE_FRAMES (default 1; 0 leaves them out) of the 1280x720 and
# 1920x1080 ones. Point the tests at it with
#   VMAFEXACT_SHARED_DIR=OUTDIR/shared VMAFEXACT_FIXTURE_YUV_DIR=OUTDIR/yuv
# The references come from the repository's tests/fixtures (or from
# $VMAFEXACT_SHARED_DIR/fixtures when set), the frames from the fixture cache,
# which is generated first when the tests have not made it yet.
set -euo pipefail
out=${1:?usage: device-fixtures.sh OUTDIR [FRAMES]}
frames=${2:-3}
large_frames=${3:-1}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${VMAFEXACT_SHARED_DIR:-$repo/tests}"
cache="${VMAFEXACT_FIXTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafexact/fixtures}"
# The fixture cache as the tests make it (tests/common/fixtures.cpp): generated
# and checked against SHA256SUMS when not yet verified, under the tests' lock.
sums="$shared/fixtures/SHA256SUMS"
if ! cmp -s "$cache/verified.sha256sums" "$sums"; then
  mkdir -p "$cache"
  (
    flock 9
    if ! cmp -s "$cache/verified.sha256sums" "$sums"; then
      rm -f "$cache/verified.sha256sums"
      echo "device-fixtures: generating the fixtures into $cache (under a minute)" >&2
      env -u MALLOC_PERTURB_ bash "$shared/fixtures/make_fixtures.sh" "$cache" > "$cache/make_fixtures.log" 2>&1 ||
        { echo "device-fixtures: make_fixtures.sh failed, see $cache/make_fixtures.log" >&2; exit 1; }
      (cd "$cache/yuv" && sha256sum --quiet -c "$sums") > "$cache/sha256sum-check.log" 2>&1 ||
        { echo "device-fixtures: the generated fixtures differ from $sums, see $cache/sha256sum-check.log" \
            "and tests/fixtures/README.md (Reproducibility)" >&2; exit 1; }
      cp "$sums" "$cache/verified.sha256sums"
    fi
  ) 9> "$cache/.lock"
fi
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
