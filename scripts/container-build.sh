#!/usr/bin/env bash
# Builds the vmafexact container image from the project's .deb packages
# (deploy/container/Containerfile, or Containerfile.cuda with --cuda) with podman,
# then runs `vmafexact --version` and `gst-inspect-1.0 vmafexact` in it
# (docs/deploy.md, "The container"). Not part of CI: minutes, and a container engine.
#
# Usage: scripts/container-build.sh [--debs DIR] [--cuda] [--base IMAGE] [--tag NAME]
#                                   [--work DIR] [--save FILE] [--rebuild-base] [--base-only]
#   --debs DIR    the folder of the .debs (gstreamer1.0-vmafexact_*.deb and
#                 vmafexact_*.deb; default build-debian/debs/, where
#                 scripts/package-test.sh puts them; for --cuda, the
#                 DEB_BUILD_PROFILES=cuda build's)
#   --cuda        Containerfile.cuda; the default tag becomes vmafexact-cuda
#   --base IMAGE  a Debian 12 image to build FROM (e.g. docker.io/library/debian:bookworm-slim).
#                 Without it the base is made here, with no registry: debootstrap
#                 --variant=minbase bookworm from $DEBIAN_MIRROR (deb.debian.org by
#                 default) into WORK/rootfs, imported as localhost/vmafexact-base:bookworm
#                 (made once, reused; --rebuild-base makes it again; --base-only
#                 makes it and stops)
#   --tag NAME    the image's name (default vmafexact or vmafexact-cuda), tagged
#                 :VERSION (meson.build's) and :latest
#   --work DIR    scratch folder (default build-container/ in the repository, gitignored)
#   --save FILE   also write the image as an OCI archive (podman load -i FILE elsewhere)
# Environment:
#   CONTAINER_ISOLATION  podman build's --isolation (default chroot: the RUN steps need
#                        no OCI runtime, cgroups or user namespaces; "oci" for the usual)
#   PODMAN_RUN_OPTS      extra options for the test runs, e.g. on a host whose cgroups
#                        crun refuses, or whose hard limits are below podman's defaults:
#                        "--runtime runc --ulimit nofile=20000:20000 --ulimit nproc=1000:1000"
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
debs="$repo/build-debian/debs" cuda=0 base="" tag="" work="$repo/build-container" save="" rebuild_base=0
base_only=0
while (($#)); do
  case "$1" in
    --debs) debs=$2; shift 2 ;;
    --cuda) cuda=1; shift ;;
    --base) base=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --save) save=$2; shift 2 ;;
    --rebuild-base) rebuild_base=1; shift ;;
    --base-only) base_only=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "container-build: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "container-build: $*" >&2; exit 1; }
step() { echo "container-build: $* ($(date -u +%H:%M:%S))"; }

command -v podman >/dev/null || die "podman not found (Debian: apt-get install podman)"
shopt -s nullglob
plugin_debs=("$debs"/gstreamer1.0-vmafexact_*.deb)
tool_debs=("$debs"/vmafexact_*.deb)
((base_only || (${#plugin_debs[@]} == 1 && ${#tool_debs[@]} == 1))) ||
  die "$debs must hold one gstreamer1.0-vmafexact_*.deb and one vmafexact_*.deb (found ${#plugin_debs[@]} and ${#tool_debs[@]}): scripts/package-test.sh makes them, or give --debs DIR"
if ((cuda)); then
  containerfile=$repo/deploy/container/Containerfile.cuda
  tag=${tag:-vmafexact-cuda}
else
  containerfile=$repo/deploy/container/Containerfile
  tag=${tag:-vmafexact}
fi
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$repo/meson.build" | head -n 1)
isolation=${CONTAINER_ISOLATION:-chroot}
read -r -a run_opts <<<"${PODMAN_RUN_OPTS:-}"
mkdir -p "$work"

# The base image: given, or made from Debian's mirror.
if [[ -z "$base" ]]; then
  base=localhost/vmafexact-base:bookworm
  if ((rebuild_base)) || ! podman image exists "$base"; then
    command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap), or give --base IMAGE"
    ((EUID == 0)) || die "debootstrap needs root (or give --base IMAGE)"
    mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
    rootfs=$work/rootfs
    rm -rf "$rootfs"
    step "debootstrap --variant=minbase bookworm $rootfs $mirror"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
      die "debootstrap failed: see $work/debootstrap.log"
    # Updates and security fixes too, as Debian's own images have them.
    rm -f "$rootfs/etc/apt/sources.list"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    step "podman import $base"
    tar --numeric-owner -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
    rm -rf "$rootfs"
  else
    step "reusing $base (--rebuild-base makes it again)"
  fi
fi

((base_only)) && { step "done: $base"; exit 0; }

# The build context: the Containerfile and the two .debs, nothing else.
context=$work/context-$tag
rm -rf "$context"
mkdir -p "$context/debs"
cp "${plugin_debs[0]}" "${tool_debs[0]}" "$context/debs/"
cp "$containerfile" "$context/Containerfile"
step "podman build --isolation $isolation --build-arg BASE=$base -t $tag:$version ($(basename "$containerfile"))"
start=$SECONDS
podman build --isolation "$isolation" --build-arg "BASE=$base" -f "$context/Containerfile" \
  -t "$tag:$version" -t "$tag:latest" "$context"
step "built $tag:$version in $((SECONDS - start)) s, $(podman image inspect --format '{{.Size}}' "$tag:$version") bytes"

# The image runs: the tool, and GStreamer finds the plugin with no environment of ours.
step "podman run --rm ${run_opts[*]} $tag:$version --version"
podman run --rm "${run_opts[@]}" "$tag:$version" --version ||
  die "podman run failed (above). Where crun refuses this host's cgroups or rlimits, set PODMAN_RUN_OPTS (--help)"
step "podman run --rm ${run_opts[*]} --entrypoint gst-inspect-1.0 $tag:$version vmafexact"
inspect=$(podman run --rm "${run_opts[@]}" --entrypoint gst-inspect-1.0 "$tag:$version" vmafexact) ||
  die "gst-inspect-1.0 vmafexact failed in the image"
grep -E '^ *(Filename|Version|Source module|Binary package|Origin URL)' <<<"$inspect"
grep -q 'GstVmafExact' <<<"$inspect" || die "gst-inspect-1.0 vmafexact shows no GstVmafExact element"

if [[ -n "$save" ]]; then
  step "podman save --format oci-archive -o $save $tag:$version"
  podman save --format oci-archive -o "$save" "$tag:$version"
fi
step "done: $tag:$version"
