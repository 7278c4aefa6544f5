#!/usr/bin/env bash
# Installs, from Debian 12's own packages, everything needed to build vmafexact,
# run its tests (including generating the test fixtures with ffmpeg and python3)
# and run the examples. Idempotent: only missing packages are installed (nothing
# already there is upgraded), and when none is missing apt is not run at all, so
# CI reruns cost no time.
#
# Usage: scripts/install-deps.sh [fuzz]   (as root, or as a user with sudo)
#   fuzz  also clang and its libFuzzer runtime, for scripts/fuzz.sh
set -euo pipefail

packages=(
  # build
  meson ninja-build pkg-config g++
  # compiler cache: meson uses it when installed; CI reruns then compile only what changed
  ccache
  # meson asks dpkg-architecture for Debian's multiarch libdir (lib/x86_64-linux-gnu),
  # where `meson setup --prefix=/usr` must put the plugin for GStreamer to find it
  dpkg-dev
  # the Debian packages (debian/, scripts/package-test.sh): dpkg-buildpackage's helpers,
  # lintian, and debootstrap for the clean Debian 12 root they are installed into
  debhelper lintian debootstrap
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  nlohmann-json3-dev
  # vmafexactscale (gst/swscale_element.cpp): FFmpeg's scale filter's pictures through
  # Debian's own libswscale (FFmpeg 5.1), the same library the ffmpeg command runs
  libswscale-dev libavutil-dev
  # the plot and HTML report (tools/report): cairo draws, Pango sets the text
  libcairo2-dev libpango1.0-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the report tests: libxml2 reads the SVG and HTML back, headless Chromium renders the page
  libxml2-dev chromium
  # fixture generation (tests/): ffmpeg with libx264, python3
  ffmpeg python3
  # running pipelines (gst-launch-1.0, gst-inspect-1.0, videotestsrc, jpegenc, rawvideoparse, ...)
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  # decoders for what vmafexact (the tool) and decodebin read: H.264, HEVC, FFV1, ... (avdec_*)
  gstreamer1.0-libav
  ca-certificates
  # the Python examples (examples/python/, docs/python.md) and their tests: PyGObject
  # for /usr/bin/python3 and the typelibs of Gst and GstPbutils
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  # the BD-rate tests: an independent PCHIP BD-rate in NumPy/SciPy for /usr/bin/python3
  # (tests/tools/bd_rate_reference.py) that the C++ one must equal
  python3-numpy python3-scipy
  # live monitoring (tests/system/, deploy/): a real Prometheus scraping vmafexact-monitor
  # (prometheus; promtool checks the exposition and runs the rules' unit tests), amtool
  # (prometheus-alertmanager) checks the Alertmanager example, systemd-analyze (systemd)
  # verifies the service unit. Their services are not started (see policy-rc.d below).
  prometheus prometheus-alertmanager systemd
  # batch on Slurm (tests/system/test_slurm.cpp, suite slurm): the test starts its own
  # one-node cluster on the loopback (munged, slurmctld, slurmd, as root) and submits
  # the deploy/slurm/ job arrays with the clients (sbatch, squeue, scancel, srun);
  # the packages' own services are not started (policy-rc.d below)
  slurm-wlm slurmctld slurmd slurm-client munge
  # the Kubernetes manifests' offline check (deploy/tests/check_deploy.py) reads YAML
  python3-yaml
)
# ... and decodes them with kubectl: Debian's kubernetes-client (1.20), unless a
# kubectl is already there (a newer one from Kubernetes' own packages conflicts with it).
if ! command -v kubectl >/dev/null 2>&1; then
  packages+=(kubernetes-client)
fi
if [[ "${1:-}" == fuzz ]]; then
  packages+=(clang libclang-rt-14-dev)
fi

is_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

missing=()
for package in "${packages[@]}"; do
  is_installed "$package" || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages are already installed."
  exit 0
fi

echo "install-deps: installing ${missing[*]}"

if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: not root and sudo is not available; run this script as root." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Packages with a service (prometheus, prometheus-alertmanager) start it from their
# postinst unless policy-rc.d says no: in a container that would be a daemon on port
# 9090 outside any init, on a workstation one nobody asked for. The tests start their
# own on free ports. Where no policy exists, one that denies every start is put in
# place for this install and removed after it.
policy=/usr/sbin/policy-rc.d
if [[ ! -e "$policy" ]]; then
  printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts during its install\nexit 101\n' |
    "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done."
