#!/usr/bin/env bash
# device-e2e-tools.sh OUTDIR: builds, here (Debian 12), the two things the GPU
# machine's end-to-end bench needs beside the project (docs/benchmarks.md, "End
# to end"), into OUTDIR (outside the repository; nothing of it is committed):
#
#   OUTDIR/ffmpeg: FFmpeg 5.1 (Debian 12's version and ABI) with only the H.264,
#     HEVC and VP9 decoders and parsers, libswscale and an empty libavfilter.
#     Debian's libgstlibav.so loads it as it loads Debian's own libraries, so
#     avdec_h264/avdec_h265 decode on the device's CPU (5.6 MB, where Debian's
#     FFmpeg and its dependencies weigh 230 MB). Source: FFMPEG_TARBALL, else
#     `apt-get source ffmpeg` (with a private source list in OUTDIR/apt).
#     Pass it to scripts/device-bundle.sh as FFMPEG_PREFIX=OUTDIR/ffmpeg.
#   OUTDIR/libvmaf-cuda/libvmaf/build/tools/vmaf: libvmaf's vmaf tool with its
#     CUDA backend (-Denable_cuda=true), static, device code for sm_90 only
#     (H100, H200; upstream's list compiles for six targets, sm_75 to sm_120),
#     from VMAF_SRC (a checkout of Netflix/vmaf or its git directory; HEAD).
#     It needs nv-codec-headers newer than Debian 12's (libffmpeg-nvenc-dev
#     11.1.5.2) and than the GitHub mirror's 13.0.19.1: libvmaf calls seven
#     driver functions through ffnvcodec's loader that these lack
#     (cuCtxGetStreamPriorityRange, cuCtxSynchronize, cuLaunchHostFunc,
#     cuMemFreeHost, cuMemFreeAsync, cuMemHostAlloc, cuStreamCreateWithPriority).
#     NVCODEC_SRC (an nv-codec-headers tree or git directory) is installed into
#     OUTDIR/nvcodec and the missing declarations are added to that copy.
#     Pass the tool to scripts/device-bundle.sh as VMAF_CUDA=....
# Either part is skipped when its result is already there (FORCE=1 rebuilds).
# Needs: gcc, nasm, meson, ninja, xxd, CUDA's nvcc (PATH or /usr/local/cuda/bin).
set -euo pipefail
out=$(mkdir -p "${1:?usage: device-e2e-tools.sh OUTDIR}" && cd "$1" && pwd)
jobs=${JOBS:-2}
export PATH="$PATH:/usr/local/cuda/bin"

# --- FFmpeg with the decoders only -------------------------------------------
if [[ -n ${FORCE:-} || ! -e $out/ffmpeg/lib/libavcodec.so.59 ]]; then
  command -v nasm >/dev/null || { echo "device-e2e-tools: nasm is missing (apt-get install nasm): without it FFmpeg's decoders lose their SIMD code" >&2; exit 1; }
  tarball=${FFMPEG_TARBALL:-}
  if [[ -z $tarball ]]; then
    # Debian's own source package, through apt with a source list of our own.
    apt_dir=$out/apt
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/src"
    printf 'deb-src http://deb.debian.org/debian bookworm main\ndeb-src http://deb.debian.org/debian-security bookworm-security main\n' > "$apt_dir/sources.list"
    apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
                 -o "Dir::State::Lists=$apt_dir/lists")
    apt-get "${apt_options[@]}" update -qq
    (cd "$apt_dir/src" && apt-get "${apt_options[@]}" source --download-only -qq ffmpeg)
    tarball=$(ls "$apt_dir"/src/ffmpeg_5.1*.orig.tar.xz | tail -1)
  fi
  rm -rf "$out/ffmpeg-src" "$out/ffmpeg"
  mkdir -p "$out/ffmpeg-src"
  tar -C "$out/ffmpeg-src" --strip-components=1 -xf "$tarball"
  grep -q '^#define LIBAVCODEC_VERSION_MAJOR  *59' "$out/ffmpeg-src/libavcodec/version_major.h" ||
    { echo "device-e2e-tools: $tarball is not FFmpeg 5.1 (libavcodec 59), the ABI of Debian 12's gst-libav" >&2; exit 1; }
  (cd "$out/ffmpeg-src" &&
    ./configure --prefix="$out/ffmpeg" --enable-shared --disable-static --disable-programs \
      --disable-doc --disable-autodetect --disable-everything --enable-decoder=h264,hevc,vp9 \
      --enable-parser=h264,hevc,vp9 --disable-swresample --disable-postproc --disable-network \
      --disable-debug > "$out/ffmpeg-configure.log" &&
    make -j"$jobs" install > "$out/ffmpeg-make.log" 2>&1) ||
    { echo "device-e2e-tools: FFmpeg's build failed: $out/ffmpeg-configure.log, $out/ffmpeg-make.log" >&2; exit 1; }
fi
echo "FFMPEG_PREFIX=$out/ffmpeg ($(du -shcL "$out"/ffmpeg/lib/lib*.so.[0-9]* | tail -1 | cut -f1))"

# --- libvmaf's vmaf tool with CUDA -------------------------------------------
vmaf_tool=$out/libvmaf-cuda/libvmaf/build/tools/vmaf
if [[ -n ${FORCE:-} || ! -x $vmaf_tool ]]; then
  command -v nvcc >/dev/null || { echo "device-e2e-tools: nvcc is missing (CUDA toolkit)" >&2; exit 1; }
  [[ -n ${VMAF_SRC:-} ]] || { echo "device-e2e-tools: set VMAF_SRC to a checkout of Netflix/vmaf or its git directory" >&2; exit 1; }
  [[ -n ${NVCODEC_SRC:-} ]] || { echo "device-e2e-tools: set NVCODEC_SRC to an nv-codec-headers tree or its git directory" >&2; exit 1; }
  rm -rf "$out/libvmaf-cuda" "$out/nvcodec-src" "$out/nvcodec"
  mkdir -p "$out/libvmaf-cuda" "$out/nvcodec-src"
  # a source tree or a git directory (bare mirrors too)
  export_tree() { # export_tree SRC DEST PATH...
    local src=$1 dest=$2; shift 2
    if [[ -d $src/.git || ! -d $src/objects ]]; then
      for path in "$@"; do cp -r "$src/$path" "$dest/"; done
    else
      git --git-dir="$src" archive HEAD "$@" | tar -x -C "$dest"
    fi
  }
  export_tree "$VMAF_SRC" "$out/libvmaf-cuda" libvmaf model
  if [[ -d $NVCODEC_SRC/objects ]]; then
    git --git-dir="$NVCODEC_SRC" archive HEAD | tar -x -C "$out/nvcodec-src"
  else
    cp -r "$NVCODEC_SRC"/. "$out/nvcodec-src/"
  fi
  make -C "$out/nvcodec-src" PREFIX="$out/nvcodec" install > /dev/null
  headers=$out/nvcodec/include/ffnvcodec
  # The driver functions libvmaf calls through CudaFunctions that these headers lack.
  python3 - "$headers" <<'PY'
import re, sys
folder = sys.argv[1]
wanted = {
    "cuCtxGetStreamPriorityRange": "int *leastPriority, int *greatestPriority",
    "cuCtxSynchronize": "void",
    "cuLaunchHostFunc": "CUstream hStream, CUhostFn *fn, void *userData",
    "cuMemFreeHost": "void *p",
    "cuMemFreeAsync": "CUdeviceptr dptr, CUstream hStream",
    "cuMemHostAlloc": "void **pp, size_t bytesize, unsigned int Flags",
    "cuStreamCreateWithPriority": "CUstream *phStream, unsigned int flags, int priority",
}
loader_path, cuda_path = f"{folder}/dynlink_loader.h", f"{folder}/dynlink_cuda.h"
loader, cuda = open(loader_path).read(), open(cuda_path).read()
missing = [name for name in wanted if f"LOAD_SYMBOL({name}," not in loader]
anchor_type = "typedef CUresult CUDAAPI tcuStreamCreate(CUstream *phStream, unsigned int flags);"
anchor_member = "    tcuStreamCreate *cuStreamCreate;"
anchor_load = '    LOAD_SYMBOL(cuStreamCreate, tcuStreamCreate, "cuStreamCreate");'
for anchor, text in ((anchor_type, cuda), (anchor_member, loader), (anchor_load, loader)):
    if anchor not in text:
        sys.exit(f"device-e2e-tools: {anchor!r} not found in nv-codec-headers: patch them by hand")
types = "".join(f"\ntypedef CUresult CUDAAPI t{name}({wanted[name]});" for name in missing)
if missing and "CUhostFn" not in cuda:
    types = "\ntypedef void CUDAAPI CUhostFn(void *userData);" + types
cuda = cuda.replace(anchor_type, anchor_type + types, 1)
loader = loader.replace(anchor_member, anchor_member + "".join(f"\n    t{n} *{n};" for n in missing), 1)
loader = loader.replace(anchor_load, anchor_load + "".join(f'\n    LOAD_SYMBOL({n}, t{n}, "{n}");' for n in missing), 1)
open(cuda_path, "w").write(cuda)
open(loader_path, "w").write(loader)
print("nv-codec-headers: added " + (", ".join(missing) or "nothing"))
PY
  # Device code for sm_90 only (upstream also builds sm_75, 80, 100, 120).
  python3 - "$out/libvmaf-cuda/libvmaf/src/meson.build" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "    message('CUDA gencode = @0@'.format(gencode))"
if anchor not in text:
    sys.exit("device-e2e-tools: libvmaf's src/meson.build has no gencode message: set the architectures by hand")
text = text.replace(anchor, "    if get_option('enable_nvcc')\n"
                    "        gencode = ['--fatbin', '-gencode=arch=compute_90,code=sm_90']\n"
                    "    endif\n" + anchor, 1)
open(path, "w").write(text)
PY
  # libvmaf's nvcc commands name include folders relative to a build folder
  # inside libvmaf/ (-I ../src), so it must be libvmaf/build. CPATH reaches
  # nvcc's and gcc's preprocessors alike.
  (cd "$out/libvmaf-cuda/libvmaf" &&
    CPATH="$out/nvcodec/include" meson setup build --buildtype=release -Ddefault_library=static \
      -Denable_cuda=true -Denable_float=true -Denable_tests=false -Denable_docs=false \
      -Dbuilt_in_models=true -Denable_asm="$(command -v nasm >/dev/null && echo true || echo false)" \
      > "$out/libvmaf-cuda-setup.log" &&
    CPATH="$out/nvcodec/include" ninja -j"$jobs" -C build tools/vmaf > "$out/libvmaf-cuda-ninja.log" 2>&1) ||
    { echo "device-e2e-tools: libvmaf's CUDA build failed: $out/libvmaf-cuda-setup.log, $out/libvmaf-cuda-ninja.log" >&2; exit 1; }
fi
if ldd "$vmaf_tool" | grep -q 'libvmaf\|libcuda\|not found'; then
  echo "device-e2e-tools: $vmaf_tool links libvmaf or CUDA dynamically" >&2; exit 1
fi
echo "VMAF_CUDA=$vmaf_tool ($("$vmaf_tool" --version 2>&1), links: $(ldd "$vmaf_tool" | awk '{print $1}' | tr '\n' ' '))"
