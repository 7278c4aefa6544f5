#!/usr/bin/env bash
# Builds the Debian packages from the repository (debian/, dpkg-buildpackage -b),
# lints them, installs them into a clean Debian 12 root and runs what a user
# would, with no environment: gst-inspect-1.0 vmafexact (the package's name and
# origin), vmafexact --version, a tiny scoring run, the Python module.
#
# Usage: scripts/package-test.sh [--build-only]
#   --build-only  build and lint, install nothing (no root needed)
# Environment:
#   PACKAGE_OUT_DIR   where the .debs, .changes and .buildinfo go
#                     (default: <repo>/build-debian/debs)
#   PACKAGE_ROOT      the clean root, made once by debootstrap and kept for
#                     reruns (default: ~/.cache/vmafexact/debian12-root)
#   DEBIAN_MIRROR     debootstrap's and apt's mirror (default: http://deb.debian.org/debian)
#   DEB_BUILD_PROFILES=cuda  the CUDA build (docs/deploy.md)
#
# dpkg-buildpackage builds in the source folder and writes its results into the
# folder above it: the tracked and new (not ignored) files are copied to
# <repo>/build-debian/src, a fixed folder, so that ccache's keys do not change
# between runs, and nothing is written outside build-debian/. The root needs
# root (debootstrap, chroot, mount); without it the install part is skipped
# with exit 77 (meson's "skipped").
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$repo/build-debian"
out="${PACKAGE_OUT_DIR:-$work/debs}"
root="${PACKAGE_ROOT:-$HOME/.cache/vmafexact/debian12-root}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
build_only=false
[[ "${1:-}" == --build-only ]] && build_only=true
packages=(gstreamer1.0-vmafexact vmafexact python3-vmafexact)
version=$(sed -n '1s/^vmafexact (\([^)]*\)).*/\1/p' "$repo/debian/changelog")
start=$SECONDS
phase_start=$SECONDS
phase() {  # phase NAME: the seconds the phase before it took
  echo "package-test: $1 ($((SECONDS - phase_start)) s)"
  phase_start=$SECONDS
}

# --- Build ---------------------------------------------------------------------
src="$work/src"
rm -rf "$src" "$work"/*.deb "$work"/*.ddeb "$work"/*.changes "$work"/*.buildinfo
mkdir -p "$src" "$out"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' file; do [[ -e "$file" ]] && printf '%s\0' "$file"; done |
  tar --null -T - -cf -) | tar -xf - -C "$src"
# ccache: paths relative to the copy, and no -ffile-prefix-map naming the
# clone's folder (dpkg's fixfilepath), so a CI run in a new clone hits the
# objects of the last one. Two jobs (the CI machine's cores); no tests (the
# project's suites run from its own build), no -dbgsym packages.
export CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=true
export DEB_BUILD_MAINT_OPTIONS="${DEB_BUILD_MAINT_OPTIONS:-hardening=+all reproducible=-fixfilepath,-fixdebugpath}"
export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=2 nocheck noautodbgsym}"
builddeps=()
if [[ " ${DEB_BUILD_PROFILES:-} " == *" cuda "* ]] && ! dpkg-query -W nvidia-cuda-toolkit >/dev/null 2>&1; then
  builddeps=(-d)  # NVIDIA's toolkit in /usr/local/cuda: no package to check for
fi
(cd "$src" && dpkg-buildpackage -b -uc -us "${builddeps[@]}") >"$work/build.log" 2>&1 || {
  tail -40 "$work/build.log"
  echo "package-test: dpkg-buildpackage failed (whole log: $work/build.log)" >&2
  exit 1
}
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
changes=$(ls "$out"/*.changes)
phase "built $(cd "$out" && echo *.deb) in $out"

# --- Lint -------------------------------------------------------------------------
# Errors and warnings fail; the remaining remarks (info, pedantic) are printed,
# and docs/deploy.md says why each stays.
lintian --fail-on error,warning --display-info --pedantic "$changes" 2>&1 | tee "$work/lintian.txt" ||
  { echo "package-test: lintian found errors or warnings" >&2; exit 1; }
phase "lintian: $(grep -c '^[EWIP]: ' "$work/lintian.txt" || true) remark(s), no error or warning"

if $build_only; then
  echo "package-test: built and linted in $((SECONDS - start)) s (--build-only: not installed)"
  exit 0
fi
if ((EUID != 0)); then
  echo "package-test: installing into a clean root needs root (debootstrap, chroot): skipped"
  exit 77
fi

# --- The clean root ---------------------------------------------------------------
# A minimal Debian 12 made once and kept: apt installs the packages' dependencies
# into it on the first run; later runs install only the three packages, and
# purge them at the end, so the root stays clean but for the dependencies.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9  # one run at a time uses the root
if [[ ! -x "$root/usr/bin/apt-get" ]]; then
  rm -rf "$root.new"
  debootstrap --variant=minbase bookworm "$root.new" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log"
    echo "package-test: debootstrap failed (log: $work/debootstrap.log)" >&2
    rm -rf "$root.new"
    exit 1
  }
  rm -rf "$root"
  mv "$root.new" "$root"
  phase "debootstrap'd Debian 12 into $root"
fi
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
# No service starts in the root (the monitor's unit is not enabled anyway).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }
cleanup() {
  in_root dpkg --purge "${packages[@]}" >/dev/null 2>&1 || true
  rm -rf "$root/tmp/vmafexact-debs" "$root/tmp/vmafexact-score"
  mountpoint -q "$root/proc" && umount "$root/proc"
  return 0
}
trap cleanup EXIT
mount -t proc proc "$root/proc"

rm -rf "$root/tmp/vmafexact-debs"
mkdir -p "$root/tmp/vmafexact-debs"
cp "$out"/*.deb "$root/tmp/vmafexact-debs/"
debs=()
for deb in "$root"/tmp/vmafexact-debs/*.deb; do debs+=("/tmp/vmafexact-debs/${deb##*/}"); done
install_packages() {
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${debs[@]}" gstreamer1.0-tools >"$work/apt.log" 2>&1
}
# The package lists are fetched only when apt lacks what the packages need.
if ! install_packages; then
  if ! { in_root apt-get update >>"$work/apt.log" 2>&1 && install_packages; }; then
    tail -30 "$work/apt.log"
    echo "package-test: apt-get install of the packages failed (log: $work/apt.log)" >&2
    exit 1
  fi
fi
in_root apt-get clean
phase "installed in $root"

# --- Run them, with no environment ------------------------------------------------
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
bare() { chroot "$root" env -i PATH=/usr/bin:/bin "$@"; }
expect() {  # expect FILE TEXT: TEXT is part of a line of FILE
  grep -F -q -- "$2" "$1" || fail "$(basename "$1") lacks: $2"
}

plugin=/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvmafexact.so
for file in $plugin /usr/bin/vmafexact /usr/bin/vmafexact-monitor \
  /lib/systemd/system/vmafexact-monitor@.service \
  /usr/share/vmafexact/deploy/prometheus/prometheus.yml \
  /usr/lib/python3/dist-packages/vmafexact/__init__.py \
  /usr/share/doc/vmafexact/README.md /usr/share/doc/gstreamer1.0-vmafexact/README.md; do
  [[ -e "$root$file" ]] || fail "not installed: $file"
done

bare gst-inspect-1.0 vmafexact >"$work/inspect.txt" 2>&1 || fail "gst-inspect-1.0 vmafexact failed"
# /lib is /usr/lib in Debian 12 (merged /usr): GStreamer may name either.
grep -E -q "^  Filename +(/usr)?${plugin#/usr}\$" "$work/inspect.txt" ||
  fail "inspect.txt names another plugin file, not $plugin"
expect "$work/inspect.txt" "Version                  $version"
expect "$work/inspect.txt" "Binary package           vmafexact (Debian)"
expect "$work/inspect.txt" "Origin URL               file:///usr/share/doc/gstreamer1.0-vmafexact/README.md"
if grep -q -e "Unknown package origin" -e "built from source" "$work/inspect.txt"; then
  fail "the plugin's metadata is a source build's"
fi

bare vmafexact --version >"$work/version.txt" 2>&1 || fail "vmafexact --version failed"
expect "$work/version.txt" "$version"
bare vmafexact-monitor --version >"$work/monitor-version.txt" 2>&1 ||
  fail "vmafexact-monitor --version failed"

# A tiny scoring run: three 64x48 frames of noise (y4m) against themselves.
mkdir -p "$root/tmp/vmafexact-score"
{
  printf 'YUV4MPEG2 W64 H48 F25:1 Ip A1:1 C420jpeg\n'
  for _ in 1 2 3; do
    printf 'FRAME\n'
    head -c 4608 /dev/urandom
  done
} >"$root/tmp/vmafexact-score/ref.y4m"
bare sh -c 'cd /tmp/vmafexact-score && vmafexact --json out.json ref.y4m ref.y4m' \
  >"$work/score.txt" 2>&1 || fail "vmafexact ref.y4m ref.y4m failed"
bare python3 -c 'import json, sys
log = json.load(open("/tmp/vmafexact-score/out.json"))
frames, vmaf = len(log["frames"]), log["pooled_metrics"]["vmaf"]["mean"]
print("frames", frames, "vmaf", vmaf)
sys.exit(frames != 3 or not 0 <= vmaf <= 100)' >>"$work/score.txt" 2>&1 ||
  fail "the scoring run's log is not three frames with a VMAF score"
bare python3 -c 'import vmafexact
result = vmafexact.score("/tmp/vmafexact-score/ref.y4m", "/tmp/vmafexact-score/ref.y4m")
print("python", vmafexact.__file__, len(result.frames), result.pooled["vmaf"]["mean"])' \
  >>"$work/score.txt" 2>&1 || fail "the Python module's score() failed"
cat "$work/version.txt" "$work/score.txt"
phase "ran gst-inspect-1.0, vmafexact, vmafexact-monitor and the Python module"

if ((failures)); then
  echo "package-test: $failures check(s) failed (gst-inspect-1.0's output: $work/inspect.txt)"
  exit 1
fi
echo "package-test: every check passed in $((SECONDS - start)) s (packages: $out)"
