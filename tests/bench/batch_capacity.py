#!/usr/bin/env python3
"""batch_capacity.py: how many pairs of 1080p H.264 titles one CPU core, one
host or one GPU scores per hour with `vmafexact batch` (docs/deploy.md,
"Capacity"). A benchmark that prints figures, not a test.

  make-media: writes into --work a 1080p24 H.264 pair made with ffmpeg
    (libx264) from a generated picture (testsrc2 with temporal noise, a film
    grain stand-in, so that every block is coded): ref.mp4, a mezzanine at
    --ref-rate (default 25 Mbit/s), and dist.mp4, an encode of ref.mp4 at
    --dist-rate (default 5 Mbit/s, VBV 1.5x), both High profile with B-frames,
    a key frame every 2 s. Nothing made here is committed.

  run: for each model and each --jobs J, a manifest of --rows rows (default
    2 J), every row the same pair under its own id, scored by
    `vmafexact batch MANIFEST --output-dir DIR --jobs J --threads T --force`
    (--runner batch), or by J direct runs at a time of what each batch row
    runs, `vmafexact REF DIST --json DIR/{id}.json --precision max --quiet
    --threads T` (--runner tool). Prints, per run: the frames scored (read
    back from every row's log), wall seconds, CPU seconds (user + system of
    the whole process tree, by wait4), frames per second, frames per CPU
    second, CPU milliseconds per frame pair, and pairs of ten-minute titles
    per hour, per core (by CPU time) and for the whole run (by wall time).
    A title is --title-seconds (600) at --fps (24): 14,400 frame pairs; the
    rows' start-up (discovery, probing, model loading) is counted in, spread
    over their few frames, so the extrapolation is a little conservative
    (--overhead also measures one row of --frames 1 alone).

    On a shared machine wall time says little: the CPU time per frame pair is
    the cost of a pair whatever else runs, and per core the figure to use.

  bundle DIR: packs what a bare host (no GStreamer, no FFmpeg, no compiler;
    the GPU machine) needs to run `run --bundle DIR`: the tool and plugin of a
    build, GStreamer's tools and the plugins the tool uses (uridecodebin,
    qtdemux, h264parse, avdec_h264, videoconvert, videorate, ...) with every
    library they load, taken from this machine, this script, and the media of
    --work. FFmpeg's libraries need dozens of encoders' and filters' libraries
    (x265, codec2, rsvg, flite, ICU, ...: 230 MB) that decoding H.264 never
    calls: they are replaced by stubs of the same names that define the same
    symbols (functions returning 0), so that the dynamic loader is satisfied.

Examples (the figures of docs/deploy.md):
  tests/bench/batch_capacity.py make-media
  tests/bench/batch_capacity.py run --jobs 1,2 --models vmaf_v0.6.1,vmaf_v1.0.16_3d0h --overhead
  tests/bench/batch_capacity.py bundle .capbundle    # then, on the GPU host:
  python3 .capbundle/batch_capacity.py run --bundle .capbundle --jobs 1,16 --rows 32
  python3 .capbundle/batch_capacity.py run --bundle .capbundle --backend cuda --jobs 1,16 --rows 32
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WIDTH, HEIGHT, FPS = 1920, 1080, 24
MULTIARCH = "/usr/lib/x86_64-linux-gnu"
# The GStreamer plugins the tool's pipelines use on H.264 in mp4 (and nvcodec,
# so that a GPU host shows which H.264 decoder decodebin would pick).
GST_PLUGINS = ("coreelements playback typefindfunctions isomp4 libav videoparsersbad "
               "videoconvertscale videorate rawparse app pbtypes nvcodec").split()
# FFmpeg's own libraries: loaded for real. Their other dependencies are stubbed.
FFMPEG_REAL = ("libavcodec.so", "libavformat.so", "libavutil.so", "libswresample.so", "libswscale.so")
FFMPEG_ALL = FFMPEG_REAL + ("libavfilter.so", "libpostproc.so", "libavdevice.so")
# Every image has these: never carried.
SYSTEM = re.compile(r"^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libresolv|ld-linux.*)\.so")


def log(message):
    print(f"batch_capacity: {message}", flush=True)


# ---------------------------------------------------------------------------
# make-media

def make_media(args):
    if not shutil.which("ffmpeg"):
        sys.exit("batch_capacity: ffmpeg with libx264 is needed to make the media")
    os.makedirs(args.work, exist_ok=True)
    ref, dist = os.path.join(args.work, "ref.mp4"), os.path.join(args.work, "dist.mp4")
    common = ["-c:v", "libx264", "-preset", "medium", "-profile:v", "high", "-pix_fmt", "yuv420p",
              "-g", str(2 * FPS), "-movflags", "+faststart", "-an"]
    source = f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS},noise=alls=4:allf=t"
    rate = args.ref_rate
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-t", str(args.seconds)]
                   + common + ["-b:v", f"{rate}M", "-maxrate", f"{rate * 1.2:g}M", "-bufsize", f"{rate * 2}M", ref],
                   check=True)
    rate = args.dist_rate
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", ref] + common
                   + ["-b:v", f"{rate}M", "-maxrate", f"{rate * 1.5:g}M", "-bufsize", f"{rate * 2}M", dist],
                   check=True)
    for path in (ref, dist):
        size = os.path.getsize(path)
        log(f"{path}: {size / 1e6:.1f} MB, {size * 8 / args.seconds / 1e6:.1f} Mbit/s, "
            f"{args.seconds * FPS} frames of {WIDTH}x{HEIGHT} at {FPS} fps")


# ---------------------------------------------------------------------------
# bundle

def needed(path):
    """The DT_NEEDED names of an ELF file."""
    output = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", output)


def resolve(name):
    for folder in (MULTIARCH, "/lib/x86_64-linux-gnu", "/usr/lib", "/lib"):
        candidate = os.path.join(folder, name)
        if os.path.exists(candidate):
            return candidate
    sys.exit(f"batch_capacity: cannot find the library {name}")


def is_ffmpeg(name):
    return name.startswith(FFMPEG_ALL)


def write_stub(library, target, work):
    """A shared library named as `library` (its SONAME) defining the same
    dynamic symbols with the same versions: functions that return 0, objects
    of the same size filled with zeros."""
    output = subprocess.run(["nm", "-D", "--defined-only", "-S", "--with-symbol-versions", library],
                            check=True, capture_output=True, text=True).stdout
    functions, objects, versions = [], [], {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 4:
            _, size, kind, symbol = fields
        elif len(fields) == 3:
            _, kind, symbol = fields
            size = "0"
        else:
            continue
        name, _, version = symbol.partition("@")
        default = version.startswith("@")
        version = version.lstrip("@")
        if version and not default:
            continue  # an older version of a symbol: importers name the default one
        if kind in "TtWiI":
            functions.append(name)
        elif kind in "DdBbRrVvG":
            objects.append((name, max(int(size, 16), 8)))
        else:
            continue
        if version:
            versions.setdefault(version, []).append(name)
    source = os.path.join(work, "stub.c")
    with open(source, "w") as out:
        for name in functions:
            out.write(f"long {name}(void) {{ return 0; }}\n")
        for name, size in objects:
            out.write(f"char {name}[{size}] __attribute__((aligned(16)));\n")
    command = ["cc", "-shared", "-fPIC", "-w", "-fno-builtin", "-o", target, source,
               f"-Wl,-soname,{os.path.basename(target)}"]
    if versions:
        script = os.path.join(work, "stub.map")
        with open(script, "w") as out:
            for version, names in versions.items():
                out.write(f"{version} {{ global: {'; '.join(names)}; }};\n")
            # A version node for the defined versions that hold no symbol here.
        command.append(f"-Wl,--version-script={script}")
    subprocess.run(command, check=True)


def make_bundle(args):
    build = args.build
    bundle = os.path.abspath(args.dir)
    tool = os.path.join(build, "tools", "vmafexact")
    plugin = os.path.join(build, "gst", "libgstvmafexact.so")
    for path in (tool, plugin):
        if not os.path.exists(path):
            sys.exit(f"batch_capacity: {path} is missing (meson compile -C BUILD tools/vmafexact gst/gstvmafexact)")
    for path in ("ref.mp4", "dist.mp4"):
        if not os.path.exists(os.path.join(args.work, path)):
            sys.exit(f"batch_capacity: {args.work}/{path} is missing: run make-media first")
    shutil.rmtree(bundle, ignore_errors=True)
    for folder in ("bin", "gst", "plugins", "lib", "media"):
        os.makedirs(os.path.join(bundle, folder))
    gst_dir = os.path.join(MULTIARCH, "gstreamer-1.0")
    scanner = os.path.join(MULTIARCH, "gstreamer1.0", "gstreamer-1.0", "gst-plugin-scanner")
    roots = {os.path.join(bundle, "bin", "vmafexact"): tool,
             os.path.join(bundle, "gst", "libgstvmafexact.so"): plugin,
             os.path.join(bundle, "bin", "gst-plugin-scanner"): scanner}
    for program in ("gst-launch-1.0", "gst-inspect-1.0"):
        roots[os.path.join(bundle, "bin", program)] = shutil.which(program) or f"/usr/bin/{program}"
    for name in GST_PLUGINS:
        roots[os.path.join(bundle, "plugins", f"libgst{name}.so")] = os.path.join(gst_dir, f"libgst{name}.so")
    for target, source in roots.items():
        subprocess.run(["strip", "-o", target, source], check=True)
    # The libraries: every DT_NEEDED name from the roots down, but below
    # FFmpeg's libraries only FFmpeg's own real ones; the rest become stubs.
    real, stubs = set(), set()
    pending = [(source, False) for source in roots.values()]
    seen = set()
    while pending:
        path, below_ffmpeg = pending.pop()
        for name in needed(path):
            if SYSTEM.match(name):
                continue
            if below_ffmpeg and not name.startswith(FFMPEG_REAL):
                stubs.add(name)
                continue
            if is_ffmpeg(name) and not name.startswith(FFMPEG_REAL):
                stubs.add(name)  # libavfilter, libpostproc: not used for decoding
                continue
            real.add(name)
            if name not in seen:
                seen.add(name)
                pending.append((resolve(name), is_ffmpeg(name)))
    stubs -= real
    for name in sorted(real):
        subprocess.run(["strip", "-o", os.path.join(bundle, "lib", name), resolve(name)], check=True)
    with tempfile.TemporaryDirectory() as work:
        for name in sorted(stubs):
            write_stub(resolve(name), os.path.join(bundle, "lib", name), work)
    for name in ("ref.mp4", "dist.mp4"):
        shutil.copy(os.path.join(args.work, name), os.path.join(bundle, "media", name))
    shutil.copy(os.path.abspath(__file__), os.path.join(bundle, "batch_capacity.py"))
    if args.xz:
        # Smaller to carry (the GPU machine's carry is 64 MiB): unpacked by run.
        folders = ["bin", "gst", "plugins", "lib"]
        subprocess.run(f"tar -C '{bundle}' -cf - {' '.join(folders)} | xz -T0 -6 > '{bundle}/files.tar.xz'",
                       shell=True, check=True)
        for folder in folders:
            shutil.rmtree(os.path.join(bundle, folder))
    size = sum(os.path.getsize(os.path.join(folder, name))
               for folder, _, names in os.walk(bundle) for name in names)
    log(f"{bundle}: {len(real)} libraries, {len(stubs)} stubs, {size / 2**20:.1f} MiB")
    exclude = subprocess.run(["git", "-C", REPO, "rev-parse", "--git-path", "info/exclude"],
                             capture_output=True, text=True).stdout.strip()
    if exclude and bundle.startswith(REPO + os.sep):
        entry = "/" + os.path.relpath(bundle, REPO) + "/"
        exclude = os.path.join(REPO, exclude) if not os.path.isabs(exclude) else exclude
        lines = open(exclude).read().splitlines() if os.path.exists(exclude) else []
        if entry not in lines:
            with open(exclude, "a") as out:
                out.write(entry + "\n")
            log(f"added {entry} to {exclude}")


def bundle_environment(bundle):
    """The environment of the tool run from a bundle made by make_bundle."""
    bundle = os.path.abspath(bundle)
    packed = os.path.join(bundle, "files.tar.xz")
    if os.path.exists(packed) and not os.path.exists(os.path.join(bundle, "bin")):
        subprocess.run(["tar", "-C", bundle, "-xJf", packed], check=True)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(bundle, "lib") + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    # The CUDA driver of the host (/usr/local/nvidia/lib64 on the GPU machine).
    for folder in ("/usr/local/nvidia/lib64", "/usr/local/cuda/lib64"):
        if os.path.isdir(folder):
            env["LD_LIBRARY_PATH"] += ":" + folder
    env["GST_PLUGIN_SYSTEM_PATH"] = os.path.join(bundle, "plugins")
    env["GST_PLUGIN_PATH"] = os.path.join(bundle, "gst")
    env["GST_PLUGIN_SCANNER"] = os.path.join(bundle, "bin", "gst-plugin-scanner")
    env["GST_REGISTRY"] = os.path.join(tempfile.gettempdir(), "batch-capacity-registry.bin")
    env["PATH"] = os.path.join(bundle, "bin") + ":" + env.get("PATH", "")
    return env


# ---------------------------------------------------------------------------
# run

def frames_in_log(path):
    with open(path) as log_file:
        data = json.load(log_file)
    frames = data.get("frames", [])
    pooled = data.get("pooled_metrics", {})
    vmaf = next((value.get("mean") for key, value in pooled.items() if key.startswith("vmaf")), None)
    return len(frames), vmaf


def wait_rusage(process):
    """Waits for a child; returns (exit status, CPU seconds of it and every
    descendant it waited for)."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


def tool_options(args, model):
    options = ["--threads", str(args.threads), "--model", model]
    if args.backend != "auto":
        options += ["--backend", args.backend]
    return options


def has_batch(tool, env):
    probe = subprocess.run([tool, "batch", "--help"], capture_output=True, text=True, env=env)
    return probe.returncode == 0 and "--output-dir" in probe.stdout + probe.stderr


def run_rows(args, tool, env, model, jobs, rows, out, ref, dist, extra=()):
    """Scores `rows` rows, `jobs` at a time; returns (wall, cpu, statuses)."""
    ids = [f"title{index:03d}" for index in range(rows)]
    options = tool_options(args, model) + list(extra)
    if args.runner == "batch":
        manifest = os.path.join(out, "manifest.csv")
        with open(manifest, "w") as out_file:
            out_file.write("id,ref,dist\n")
            for row_id in ids:
                out_file.write(f"{row_id},{ref},{dist}\n")
        command = [tool, "batch", manifest, "--output-dir", out, "--jobs", str(jobs), "--force",
                   "--quiet"] + options
        start = time.monotonic()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        status, cpu = wait_rusage(process)
        return time.monotonic() - start, cpu, {"batch": status}
    running, statuses, cpu = {}, {}, 0.0
    start = time.monotonic()
    queue = list(ids)
    while queue or running:
        while queue and len(running) < jobs:
            row_id = queue.pop(0)
            command = [tool, ref, dist, "--json", os.path.join(out, f"{row_id}.json"),
                       "--precision", "max", "--quiet"] + options
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
            running[process.pid] = (row_id, process)
        pid, status, usage = os.wait4(-1, 0)
        if pid in running:
            row_id, _ = running.pop(pid)
            statuses[row_id] = os.waitstatus_to_exitcode(status)
            cpu += usage.ru_utime + usage.ru_stime
    return time.monotonic() - start, cpu, statuses


def describe_host(env, ref):
    """The CPU, the GPU and the H.264 decoder that uridecodebin picks here."""
    model = ""
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    log(f"host: {os.cpu_count()} CPUs, {model}")
    if shutil.which("nvidia-smi"):
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
        log(f"GPU: {gpu}")
    for element in ("avdec_h264", "nvh264dec"):
        inspect = subprocess.run(["gst-inspect-1.0", element], capture_output=True, text=True, env=env)
        rank = re.search(r"Rank\s+(.*)", inspect.stdout)
        log(f"{element}: " + (rank.group(1).strip() if rank else "not available"))
    launch = subprocess.run(["gst-launch-1.0", "-v", "uridecodebin", f"uri=file://{ref}", "!",
                             "fakesink", "num-buffers=1"], capture_output=True, text=True, env=env)
    decoders = sorted(set(re.findall(r"/(\w*dec\w*_h264|nvh264\w*|avdec_h264)[:-]", launch.stdout)))
    log(f"uridecodebin decodes {os.path.basename(ref)} with: {', '.join(decoders) or 'unknown'}")


def decode_cost(env, paths, frames):
    """CPU seconds per frame pair of decoding both inputs alone (gst-launch-1.0
    uridecodebin ! fakesink, the tool's decoders), and the wall seconds."""
    cpu, start = 0.0, time.monotonic()
    for path in paths:
        process = subprocess.Popen(["gst-launch-1.0", "-q", "uridecodebin", f"uri=file://{path}", "!",
                                    "fakesink", "sync=false"], env=env, stdout=subprocess.DEVNULL)
        status, seconds = wait_rusage(process)
        if status != 0:
            log(f"decoding {path} failed (exit {status})")
        cpu += seconds
    return cpu / frames, time.monotonic() - start


def measure(args):
    env = bundle_environment(args.bundle) if args.bundle else dict(os.environ)
    if args.bundle:
        tool = os.path.join(os.path.abspath(args.bundle), "bin", "vmafexact")
        work = args.work if args.work_given else os.path.join(os.path.abspath(args.bundle), "media")
    else:
        tool = args.vmafexact or os.path.join(args.build, "tools", "vmafexact")
        env.setdefault("GST_PLUGIN_PATH", args.plugin_path or os.path.join(args.build, "gst"))
        work = args.work
    ref, dist = os.path.abspath(os.path.join(work, "ref.mp4")), os.path.abspath(os.path.join(work, "dist.mp4"))
    for path in (tool, ref, dist):
        if not os.path.exists(path):
            sys.exit(f"batch_capacity: {path} is missing (make-media, or --build / --bundle)")
    if args.runner == "auto":
        args.runner = "batch" if has_batch(tool, env) else "tool"
    describe_host(env, ref)
    title_frames = round(args.title_seconds * args.fps)
    cpus = len(os.sched_getaffinity(0))
    log(f"{tool}; runner {args.runner}; backend {args.backend}; threads per row {args.threads}; "
        f"{cpus} CPUs usable; a title: {args.title_seconds:g} s at {args.fps:g} fps = {title_frames} frame pairs")
    header = (f"{'model':<20} {'jobs':>4} {'rows':>4} {'frames':>7} {'wall s':>7} {'CPU s':>7} "
              f"{'fps':>7} {'f/CPUs':>7} {'CPU ms/f':>8} {'titles/h/core':>13} {'titles/h (wall)':>15}  vmaf")
    results = []
    if args.overhead:
        # The frames of the pair, from one scored row (below) or the media's length.
        per_pair, wall = decode_cost(env, (ref, dist), round(args.media_frames))
        log(f"decoding both inputs alone ({round(args.media_frames)} frames each, uridecodebin ! fakesink): "
            f"{1000 * per_pair:.1f} ms CPU per frame pair, {wall:.1f} s wall")
    for model in args.models.split(","):
        if args.overhead:
            with tempfile.TemporaryDirectory(prefix="batch-capacity-") as out:
                saved = args.runner
                args.runner = "tool"
                wall, cpu, statuses = run_rows(args, tool, env, model, 1, 1, out, ref, dist, ["--frames", "1"])
                args.runner = saved
                log(f"{model}: one row of --frames 1 alone (start-up and one pair): {wall:.2f} s wall, "
                    f"{cpu:.2f} s CPU, exit {list(statuses.values())}")
        for jobs in [int(value) for value in args.jobs.split(",")]:
            rows = args.rows or 2 * jobs
            with tempfile.TemporaryDirectory(prefix="batch-capacity-") as out:
                wall, cpu, statuses = run_rows(args, tool, env, model, jobs, rows, out, ref, dist)
                frames, vmaf, missing, log_bytes = 0, None, 0, 0
                for index in range(rows):
                    path = os.path.join(out, f"title{index:03d}.json")
                    if not os.path.exists(path):
                        missing += 1
                        continue
                    count, score = frames_in_log(path)
                    frames += count
                    log_bytes += os.path.getsize(path)
                    vmaf = score if vmaf is None else vmaf
            bad = {key: value for key, value in statuses.items() if value != 0}
            if bad or missing:
                log(f"{model} jobs {jobs}: FAILED rows (exit codes {bad}, {missing} logs missing)")
                results.append(False)
                continue
            per_frame_cpu = cpu / frames
            line = (f"{model:<20} {jobs:>4} {rows:>4} {frames:>7} {wall:>7.1f} {cpu:>7.1f} "
                    f"{frames / wall:>7.1f} {frames / cpu:>7.1f} {1000 * per_frame_cpu:>8.1f} "
                    f"{3600 / (per_frame_cpu * title_frames):>13.2f} "
                    f"{3600 * frames / wall / title_frames:>15.2f}  {vmaf:.3f}")
            print(header if not results else "", end="\n" if not results else "")
            print(line, flush=True)
            if jobs == int(args.jobs.split(",")[0]):
                log(f"{model}: the logs (--precision max) hold {log_bytes / frames:.0f} bytes per frame "
                    f"({log_bytes / frames * title_frames / 1e6:.1f} MB a title)")
            results.append(True)
    return 0 if all(results) else 1


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--work", default="/tmp/vmafexact-batch-capacity", help="the media's folder")
    parser.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(REPO, "build")),
                        help="meson build directory (tools/vmafexact, gst/); default build/")
    sub = parser.add_subparsers(dest="command", required=True)
    media = sub.add_parser("make-media", help="make the H.264 pair with ffmpeg")
    media.add_argument("--seconds", type=float, default=8, help="length of the pair (default 8)")
    media.add_argument("--ref-rate", type=float, default=25, help="the mezzanine's Mbit/s (default 25)")
    media.add_argument("--dist-rate", type=float, default=5, help="the encode's Mbit/s (default 5)")
    bundle = sub.add_parser("bundle", help="pack the tool, GStreamer and the media for a bare host")
    bundle.add_argument("dir")
    bundle.add_argument("--xz", action="store_true", help="pack the programs and libraries into DIR/files.tar.xz")
    run = sub.add_parser("run", help="score manifests and print the figures")
    run.add_argument("--bundle", help="run the tool of a bundle (its media unless --work is given)")
    run.add_argument("--vmafexact", help="the vmafexact program (default BUILD/tools/vmafexact)")
    run.add_argument("--plugin-path", help="GST_PLUGIN_PATH (default BUILD/gst)")
    run.add_argument("--models", default="vmaf_v0.6.1", help="comma-separated (default vmaf_v0.6.1)")
    run.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    run.add_argument("--jobs", default="1", help="rows side by side, comma-separated runs (default 1)")
    run.add_argument("--rows", type=int, default=0, help="rows per run (default 2 x jobs)")
    run.add_argument("--threads", type=int, default=1, help="scoring threads per row (default 1)")
    run.add_argument("--runner", default="auto", choices=("auto", "batch", "tool"),
                     help="vmafexact batch, or direct runs of the tool (default: batch where it exists)")
    run.add_argument("--overhead", action="store_true",
                     help="also time one row of --frames 1, and decoding the pair alone")
    run.add_argument("--media-frames", type=float, default=8 * FPS,
                     help="frames in each input, for --overhead's decoding cost (default 192)")
    run.add_argument("--title-seconds", type=float, default=600, help="a title's length (default 600)")
    run.add_argument("--fps", type=float, default=24, help="a title's frame rate (default 24)")
    args = parser.parse_args()
    args.work_given = "--work" in sys.argv
    return args


def main():
    args = parse_arguments()
    if args.command == "make-media":
        make_media(args)
        return 0
    if args.command == "bundle":
        make_bundle(args)
        return 0
    return measure(args)


if __name__ == "__main__":
    sys.exit(main())
