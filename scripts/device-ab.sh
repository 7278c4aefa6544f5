#!/usr/bin/env bash
# device-ab.sh: the resident CUDA figures of two versions side by side on the
# GPU machine (docs/benchmarks.md, "CUDA"): vmafexact-bench built here at BASE
# (a commit) and from BUILD_DIR (the working tree's build), both packed into
# OUT (default .devab, a few MB: stripped and xz-compressed) with run.sh,
# which runs them in turns on the device, ROUNDS rounds (default 2), so that
# a drift of the machine moves both alike:
#
#   scripts/device-ab.sh 0e9fc27        # here, after `ninja -C build tests/vmafexact-bench`
#   bash .devab/run.sh                  # on the device, carrying .devab
#
# Each turn prints frames per second of the default model at 1920x1080 and
# 3840x2160, VIF alone at 1920x1080 and VMAF v1 at 1920x1080 (CASES="..."
# in run.sh's environment replaces them: one vmafexact-bench argument list per
# line). The bench programs link CUDA statically: nothing else is needed there.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base=${1:?usage: scripts/device-ab.sh BASE_COMMIT (see the top of this script)}
build_dir="${BUILD_DIR:-$repo/build}"
out="${OUT:-$repo/.devab}"
new_bench="$build_dir/tests/vmafexact-bench"
[[ -x $new_bench ]] || { echo "device-ab: $new_bench not built (ninja -C $build_dir tests/vmafexact-bench)" >&2; exit 1; }
git -C "$repo" rev-parse --verify --quiet "$base^{commit}" > /dev/null ||
  { echo "device-ab: $base is not a commit of this repository" >&2; exit 1; }

# shellcheck source=scripts/ccache-env.sh
source "$repo/scripts/ccache-env.sh"
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/base" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$repo" worktree add --detach --quiet "$work/base" "$base"
# The same compile lines as a checkout of its own: ccache finds the objects of
# earlier builds of the same sources.
export CCACHE_BASEDIR="$work/base" CCACHE_NOHASHDIR=true
meson setup "$work/base/build" "$work/base" -Dtests=enabled -Dcuda=enabled > "$work/setup.log" 2>&1 ||
  { tail -20 "$work/setup.log" >&2; exit 1; }
ninja -C "$work/base/build" tests/vmafexact-bench > "$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
strip -o "$out/vmafexact-bench-base" "$work/base/build/tests/vmafexact-bench"
strip -o "$out/vmafexact-bench-new" "$new_bench"
xz -T0 -6 "$out/vmafexact-bench-base" "$out/vmafexact-bench-new"
cat > "$out/run.sh" <<EOF
#!/usr/bin/env bash
# Made by scripts/device-ab.sh: base = $(git -C "$repo" rev-parse --short "$base"), new = the build of
# $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . 2>/dev/null || echo " with uncommitted changes").
EOF
cat >> "$out/run.sh" <<'EOF'
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in base new; do xz -dc "$here/vmafexact-bench-$v.xz" > "$work/$v" && chmod +x "$work/$v"; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cases=${CASES:-"--size 1920x1080 --frames 2500 --warmup 50
--size 3840x2160 --frames 700 --warmup 30
--size 1920x1080 --frames 2500 --warmup 50 --model '' --features vif
--size 1920x1080 --frames 1500 --warmup 30 --model vmaf_v1.0.16_3d0h"}
for round in $(seq "${ROUNDS:-2}"); do
  while IFS= read -r arguments; do
    [[ -n $arguments ]] || continue
    for v in base new; do
      # shellcheck disable=SC2086  # one argument list per line, split on purpose
      line=$(eval "\"$work/$v\" --backend cuda $arguments" 2>&1 | grep -m1 ' fps') ||
        line="FAILED ($arguments)"
      echo "round $round $v: $line"
    done
  done <<< "$cases"
done
EOF
chmod +x "$out/run.sh"
echo "device-ab: $(du -sh "$out" | cut -f1) in $out; on the device: bash ${out#"$repo"/}/run.sh"
