#!/usr/bin/env bash
# The test command: configures the build if needed, compiles, and runs the whole
# test suite. Installs nothing (see scripts/install-deps.sh for that).
#
# Usage: scripts/test.sh [extra `meson test` arguments, e.g. --suite unit or -v]
# Environment:
#   BUILD_DIR                meson build directory (default: <repo>/build)
#   VMAFEXACT_FIXTURE_CACHE  where test fixtures are generated and kept
#                            (default: ~/.cache/vmafexact/fixtures)
#   VMAFEXACT_SHARED_DIR     a folder holding fixtures/ (generator, SHA256SUMS,
#                            libvmaf references in fixtures/ref) to use instead
#                            of the repository's own tests/fixtures
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
cd "$repo"
# shellcheck source=scripts/ccache-env.sh
source scripts/ccache-env.sh

if [[ ! -f "$build_dir/build.ninja" ]]; then
  # Where nvcc is installed the CUDA backend must build (CI has nvcc and no
  # GPU: its code compiles and its tests skip), so a detection failure is an
  # error rather than a build without CUDA.
  cuda=()
  if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
    cuda=(-Dcuda=enabled)
  fi
  meson setup "$build_dir" -Dtests=enabled "${cuda[@]}"
fi
meson compile -C "$build_dir"
# The first run generates the fixtures (under a minute on two cores) into the cache.
meson test -C "$build_dir" --print-errorlogs "$@"
