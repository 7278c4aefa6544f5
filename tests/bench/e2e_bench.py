#!/usr/bin/env python3
"""e2e_bench.py: encoded files to scores on a GPU machine, as a user runs them
(docs/benchmarks.md, "End to end"). A benchmark that prints figures, not a test.

For each pair of scripts/nvdec-media.sh's bench clips (1920x1080 and 3840x2160,
H.264 and HEVC), frames per second of whole processes (frames scored / wall
seconds from the process's start to its exit, start-up included):
  - `vmafexact --backend cpu`: the CPU decodes (libav's avdec_h264/avdec_h265)
    and scores, on every host core (--threads 0);
  - `vmafexact --backend cuda`: NVDEC decodes (nvh264dec/nvh265dec), the GPU scores;
  - `vmafexact --backend cuda` and libvmaf's CUDA `vmaf` tool (--libvmaf) on the
    same frames decoded to raw .yuv beforehand (the decoding's time is not
    counted in these two columns: it is shown in its own column);
  - the start-up: the wall time of the same commands scoring 2 frames;
then several streams on one GPU: N `vmafexact --backend cuda` processes started
at once on the 1920x1080 H.264 pair (--streams, default 1,4,8), the sum of their
own fps and the frames of all over the wall time of all; and one process scoring
N encodes of one reference (--encodes, default 4,8: `vmafexact REF DIST1..DISTN`,
the reference decoded once, each DIST a link to the same distorted file; with
--backend cuda, or cpu when --backends has no cuda), the frames of all its pairs
over its wall time.

Each figure is the median of --repeat runs (default 3), the tools taking turns.
Each pair's pooled VMAF means are printed side by side: the CPU's and the
GPU's must be equal (the table says so), libvmaf's are close but not its bits.
Prints Markdown tables; --json FILE also writes every run's figures.

  tests/bench/e2e_bench.py --tool build/tools/vmafexact --media /tmp/nvdec-media \\
      --libvmaf /path/to/libvmaf-cuda/tools/vmaf
On the GPU machine scripts/device-check.sh runs it (CHECKS=e2e) from the bundle
of scripts/device-bundle.sh.
"""
import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PAIRS = [
    ("1920x1080 H.264", "h264_1080_ref_long.mp4", "h264_1080_dist_long.mp4", 1920, 1080),
    ("1920x1080 HEVC", "hevc_1080_ref_long.mkv", "hevc_1080_dist_long.mkv", 1920, 1080),
    ("3840x2160 H.264", "h264_2160_ref_long.mp4", "h264_2160_dist_long.mp4", 3840, 2160),
    ("3840x2160 HEVC", "hevc_2160_ref_long.mkv", "hevc_2160_dist_long.mkv", 3840, 2160),
]
STARTED = time.monotonic()


def log(message):
    print(f"e2e_bench: {message}", file=sys.stderr, flush=True)


def timed(command, timeout):
    """Runs command; returns (wall seconds, return code, the end of its output)."""
    start = time.monotonic()
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
        wall, rc, output = time.monotonic() - start, done.returncode, done.stdout
    except subprocess.TimeoutExpired as expired:
        wall, rc = time.monotonic() - start, 124
        output = (expired.stdout or b"").decode(errors="replace") if isinstance(expired.stdout, bytes) \
            else (expired.stdout or "")
        output += f"\n(timed out after {timeout} s)"
    return wall, rc, output[-2000:]


def read_log(path):
    """Frames scored, pooled VMAF mean and the decoders named in a JSON log."""
    try:
        with open(path) as file:
            scores = json.load(file)
    except (OSError, ValueError):
        return 0, None, ""
    frames = len(scores.get("frames", []))
    mean = scores.get("pooled_metrics", {}).get("vmaf", {}).get("mean")
    provenance = scores.get("provenance", {}) or {}
    decoders = sorted({str(value) for key, value in provenance.items() if "decoder" in key.lower()})
    return frames, mean, ", ".join(decoders)


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=0):
    return "-" if value is None else f"{value:.{digits}f}"


class Bench:
    def __init__(self, args):
        self.args = args
        self.runs = []  # every run, for --json
        self.failures = []

    def over_budget(self):
        return time.monotonic() - STARTED > self.args.budget

    def run(self, label, command, log_path):
        """One timed run of a scorer writing its JSON log to log_path."""
        if os.path.exists(log_path):
            os.remove(log_path)
        wall, rc, output = timed(command, self.args.timeout)
        frames, mean, decoders = read_log(log_path)
        record = {"label": label, "command": command, "wall_s": round(wall, 4), "rc": rc,
                  "frames": frames, "fps": frames / wall if rc == 0 and frames else None,
                  "vmaf_mean": mean, "decoders": decoders}
        if "problem during vmaf_cuda_state_init" in output:
            record["note"] = "libvmaf fell back to its CPU"
        if rc != 0 or not frames:
            record["output"] = output
            self.failures.append(f"{label}: rc {rc}, {frames} frames: {output.strip()[-400:]}")
            log(f"FAILED {label} (rc {rc}): {output.strip()[-400:]}")
        self.runs.append(record)
        return record

    def tool(self, backend, inputs, log_path, extra=()):
        return [self.args.tool, "--backend", backend, "--quiet", "--precision", "max", "--json", log_path,
                *extra, *inputs]

    def decode_raw(self, source, target):
        """Decodes source to tightly packed I420 with GStreamer (not timed in the figures)."""
        command = ["gst-launch-1.0", "-q", "uridecodebin", f"uri=file://{os.path.abspath(source)}", "!",
                   "videoconvert", "!", "video/x-raw,format=I420", "!", "filesink", f"location={target}"]
        wall, rc, output = timed(command, self.args.timeout)
        if rc != 0:
            self.failures.append(f"decoding {source} to raw: rc {rc}: {output.strip()[-400:]}")
        return wall if rc == 0 else None

    def pair(self, name, ref, dist, width, height):
        args, work = self.args, self.args.work
        row = {"pair": name}
        cpu_log, cuda_log = os.path.join(work, "cpu.json"), os.path.join(work, "cuda.json")
        files = [os.path.join(args.media, ref), os.path.join(args.media, dist)]
        # Start-up: the same commands on 2 frames.
        startup = {"cpu": [], "cuda": []}
        for _ in range(args.repeat):
            for backend in args.backends:
                record = self.run(f"{name} startup {backend}",
                                  self.tool(backend, files, cpu_log, ("--frames", "2")), cpu_log)
                startup[backend].append(record["wall_s"] if record["rc"] == 0 else None)
        row["startup_cpu_s"], row["startup_cuda_s"] = median(startup["cpu"]), median(startup["cuda"])
        # Files to scores, taking turns.
        fps = {"cpu": [], "cuda": []}
        walls = {"cpu": [], "cuda": []}
        for _ in range(args.repeat):
            for backend, path in (("cpu", cpu_log), ("cuda", cuda_log)):
                if backend not in args.backends:
                    continue
                record = self.run(f"{name} {backend}", self.tool(backend, files, path, ("--threads", str(args.threads))) if backend == "cpu"
                                  else self.tool(backend, files, path), path)
                fps[backend].append(record["fps"])
                walls[backend].append(record["wall_s"] if record["fps"] else None)
                row[f"frames_{backend}"], row[f"vmaf_{backend}"], row[f"decoders_{backend}"] = \
                    record["frames"], record["vmaf_mean"], record["decoders"]
        row["fps_cpu"], row["fps_cuda"] = median(fps["cpu"]), median(fps["cuda"])
        # After the start-up: the frames beyond the start-up run's two over the
        # time beyond its wall, the rate a long file tends to (the clips here
        # last seconds, where a process's start-up weighs heavily).
        for backend in ("cpu", "cuda"):
            wall, start, frames = median(walls[backend]), row[f"startup_{backend}_s"], row.get(f"frames_{backend}")
            row[f"fps_{backend}_after_startup"] = \
                (frames - 2) / (wall - start) if wall and start and frames and wall > start else None
        # The same frames decoded to raw beforehand: vmafexact's CUDA backend
        # (frames uploaded) and libvmaf's CUDA tool.
        if "cuda" not in args.backends:
            return row
        if self.over_budget():
            log(f"{name}: over --budget {args.budget} s, raw columns left out")
            return row
        raw = [os.path.join(work, "ref.yuv"), os.path.join(work, "dist.yuv")]
        decode_s = [self.decode_raw(source, target) for source, target in zip(files, raw)]
        row["decode_raw_s"] = None if None in decode_s else sum(decode_s)
        if row["decode_raw_s"] is not None:
            frame_bytes = width * height * 3 // 2
            row["frames_raw"] = os.path.getsize(raw[0]) // frame_bytes
            raw_fps, libvmaf_fps = [], []
            raw_log, libvmaf_log = os.path.join(work, "raw.json"), os.path.join(work, "libvmaf.json")
            for _ in range(args.repeat):
                record = self.run(f"{name} cuda raw", self.tool("cuda", raw, raw_log,
                                  ("--size", f"{width}x{height}", "--format", "i420")), raw_log)
                raw_fps.append(record["fps"])
                row["vmaf_raw"] = record["vmaf_mean"]
                if args.libvmaf:
                    # No --threads: with a thread pool libvmaf f85a8536 flushes
                    # motion_cuda twice at the end and exits 234 ("context could
                    # not be synchronized"; Netflix/vmaf pull requests 1538, 1553
                    # and 1583, open). Its CUDA path gains nothing from threads.
                    record = self.run(f"{name} libvmaf cuda", [
                        args.libvmaf, "-r", raw[0], "-d", raw[1], "-w", str(width), "-h", str(height),
                        "-p", "420", "-b", "8",
                        "--model", "version=vmaf_v0.6.1", "--json", "-o", libvmaf_log, "--quiet"],
                        libvmaf_log)
                    libvmaf_fps.append(record["fps"])
                    row["vmaf_libvmaf"] = record["vmaf_mean"]
                    if record.get("note"):
                        row["libvmaf_note"] = record["note"]
            row["fps_cuda_raw"], row["fps_libvmaf"] = median(raw_fps), median(libvmaf_fps)
        for path in raw:
            if os.path.exists(path):
                os.remove(path)
        return row

    def encodes(self, count, backend):
        """One vmafexact process scoring count encodes of the 1080p H.264 reference."""
        args = self.args
        name, ref, dist = PAIRS[0][0], PAIRS[0][1], PAIRS[0][2]
        folder = os.path.join(args.work, f"encodes{count}")
        os.makedirs(folder, exist_ok=True)
        extension = os.path.splitext(dist)[1]
        links = []
        for index in range(count):
            link = os.path.join(folder, f"encode{index}{extension}")
            if not os.path.lexists(link):
                os.symlink(os.path.abspath(os.path.join(args.media, dist)), link)
            links.append(link)
        logs = [os.path.join(folder, f"encode{index}.json") for index in range(count)]
        for path in logs:
            if os.path.exists(path):
                os.remove(path)
        command = self.tool(backend, [os.path.join(args.media, ref), *links], os.path.join(folder, "{name}.json"))
        if backend == "cpu":
            command[1:1] = ["--threads", str(args.threads)]
        wall, rc, output = timed(command, args.timeout)
        read = [read_log(path) for path in logs]
        frames = sum(frames for frames, _, _ in read)
        means = sorted({mean for _, mean, _ in read if mean is not None}, key=str)
        record = {"label": f"{name} {count} encodes in one process", "command": command,
                  "wall_s": round(wall, 4), "rc": rc, "frames": frames, "vmaf_means": means}
        if rc != 0 or any(f == 0 for f, _, _ in read):
            record["output"] = output
            self.failures.append(f"{record['label']}: rc {rc}, frames {[f for f, _, _ in read]}: "
                                 f"{output.strip()[-400:]}")
        self.runs.append(record)
        return {"encodes": count, "backend": backend, "rc": rc, "frames": frames, "wall_s": wall,
                "pair_fps": frames / wall if rc == 0 and frames else None, "vmaf_means": means}

    def streams(self, count):
        """count vmafexact --backend cuda processes at once on the 1080p H.264 pair."""
        args = self.args
        name, ref, dist = PAIRS[0][0], PAIRS[0][1], PAIRS[0][2]
        files = [os.path.join(args.media, ref), os.path.join(args.media, dist)]
        records = [None] * count
        def one(index):
            path = os.path.join(args.work, f"stream{index}.json")
            records[index] = self.run(f"{name} {count} streams #{index}", self.tool("cuda", files, path), path)
        threads = [threading.Thread(target=one, args=(index,)) for index in range(count)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - start
        ok = [record for record in records if record and record["fps"]]
        return {"streams": count, "ok": len(ok), "sum_fps": sum(r["fps"] for r in ok) if ok else None,
                "total_fps": sum(r["frames"] for r in ok) / wall if ok else None,
                "min_fps": min(r["fps"] for r in ok) if ok else None,
                "max_fps": max(r["fps"] for r in ok) if ok else None}


def describe_host(args):
    lines = []
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        lines.append(f"GPU: {gpu or 'none found'}")
    except (OSError, subprocess.TimeoutExpired):
        lines.append("GPU: nvidia-smi not found")
    lines.append(f"host: {os.cpu_count()} CPUs")
    present = []
    for element in ("nvh264dec", "nvh265dec", "avdec_h264", "avdec_h265", "qtdemux", "matroskademux"):
        rc = subprocess.run(["gst-inspect-1.0", "--exists", element], capture_output=True).returncode
        present.append(f"{element} {'yes' if rc == 0 else 'MISSING'}")
    lines.append("GStreamer elements: " + ", ".join(present))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True, help="the vmafexact tool")
    parser.add_argument("--media", required=True, help="scripts/nvdec-media.sh's folder")
    parser.add_argument("--libvmaf", help="libvmaf's vmaf tool built with CUDA (enable_cuda)")
    parser.add_argument("--work", help="folder for the raw frames and logs, kept (default: a new one in /tmp, removed at the end)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, median (default 3)")
    parser.add_argument("--threads", type=int, default=0, help="--threads of the CPU runs (default 0: all cores)")
    parser.add_argument("--streams", default="1,4,8", help="concurrent CUDA processes (default 1,4,8; '' none)")
    parser.add_argument("--encodes", default="4,8",
                        help="encodes of one reference scored by one process (default 4,8; '' none)")
    parser.add_argument("--backends", default="cpu,cuda",
                        help="cpu, cuda or both (default cpu,cuda; cpu alone leaves the GPU's columns and the streams out)")
    parser.add_argument("--pairs", default="all",
                        help="which pairs, by index in 1080-h264,1080-hevc,2160-h264,2160-hevc: e.g. 0,2 (default all)")
    parser.add_argument("--timeout", type=int, default=180, help="seconds one process may take (default 180)")
    parser.add_argument("--budget", type=int, default=420,
                        help="seconds after which the raw columns are left out (default 420)")
    parser.add_argument("--json", help="write every run's figures to this file")
    args = parser.parse_args()
    args.tool = os.path.abspath(args.tool)
    args.backends = [backend for backend in args.backends.split(",") if backend]
    if not args.backends or set(args.backends) - {"cpu", "cuda"}:
        parser.error("--backends takes cpu, cuda or cpu,cuda")
    pairs = PAIRS if args.pairs == "all" else [PAIRS[int(index)] for index in args.pairs.split(",")]
    missing = [f for pair in pairs for f in pair[1:3] if not os.path.exists(os.path.join(args.media, f))]
    if missing:
        sys.exit(f"e2e_bench: {args.media} lacks {', '.join(missing)}: make them with scripts/nvdec-media.sh")
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    else:
        # Its raw frames run to gigabytes at 2160p: a folder of our own goes
        # at exit, whichever way the run ends short of a kill.
        args.work = tempfile.mkdtemp(prefix="e2e_bench.")
        atexit.register(shutil.rmtree, args.work, True)
    work = args.work
    host = describe_host(args)
    for line in host:
        log(line)
    bench = Bench(args)
    # GStreamer's registry and the CUDA context's first start, not counted.
    first = [os.path.join(args.media, pairs[0][1]), os.path.join(args.media, pairs[0][2])]
    for backend in args.backends:
        timed(bench.tool(backend, first, os.path.join(work, "warm.json"), ("--frames", "2")), args.timeout)
    rows = []
    for pair in pairs:
        log(f"{pair[0]} ({time.monotonic() - STARTED:.0f} s in)")
        rows.append(bench.pair(*pair))
        # As it goes (standard error is not held back): figures survive a run cut short.
        log(f"{pair[0]}: " + ", ".join(f"{key} {fmt(value, 2) if isinstance(value, float) else value}"
                                       for key, value in rows[-1].items() if key != "pair"))
    stream_rows = []
    for count in [int(n) for n in args.streams.split(",") if n.strip() and "cuda" in args.backends]:
        if bench.over_budget():
            log(f"over --budget {args.budget} s: {count} streams left out")
            break
        log(f"{count} streams ({time.monotonic() - STARTED:.0f} s in)")
        stream_rows.append(bench.streams(count))
        log(f"{count} streams: sum {fmt(stream_rows[-1]['sum_fps'])} fps, all {fmt(stream_rows[-1]['total_fps'])} fps")
    encode_rows = []
    encodes_backend = "cuda" if "cuda" in args.backends else "cpu"
    for count in [int(n) for n in args.encodes.split(",") if n.strip()]:
        if bench.over_budget():
            log(f"over --budget {args.budget} s: {count} encodes left out")
            break
        log(f"{count} encodes in one process ({time.monotonic() - STARTED:.0f} s in)")
        encode_rows.append(bench.encodes(count, encodes_backend))
        log(f"{count} encodes: {fmt(encode_rows[-1]['pair_fps'])} pair frames per second")

    print("\n".join(f"- {line}" for line in host))
    print(f"- each figure: frames / wall seconds of the whole process, median of {args.repeat} runs;"
          f" CPU runs with --threads {args.threads} (0: every core)")
    print()
    print("| pair | frames | vmafexact CPU (CPU decode) | vmafexact CUDA (NVDEC) | CUDA / CPU "
          "| vmafexact CUDA, raw input | libvmaf CUDA, raw input | start-up CPU / CUDA (s) "
          "| after start-up CPU / CUDA (fps) "
          "| decode to raw (s, not counted) | VMAF mean CPU / CUDA / libvmaf |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        same = row.get("vmaf_cpu") is not None and row.get("vmaf_cpu") == row.get("vmaf_cuda")
        verdict = "equal" if same else "DIFFERENT" if len(args.backends) == 2 else "one backend"
        ratio = row["fps_cuda"] / row["fps_cpu"] if row.get("fps_cuda") and row.get("fps_cpu") else None
        libvmaf = fmt(row.get("fps_libvmaf"))
        if row.get("libvmaf_note"):
            libvmaf += f" ({row['libvmaf_note']})"
        print(f"| {row['pair']} | {row.get('frames_cuda') or row.get('frames_cpu')} "
              f"| {fmt(row.get('fps_cpu'))} | {fmt(row.get('fps_cuda'))} | {fmt(ratio, 2)} "
              f"| {fmt(row.get('fps_cuda_raw'))} | {libvmaf} "
              f"| {fmt(row.get('startup_cpu_s'), 2)} / {fmt(row.get('startup_cuda_s'), 2)} "
              f"| {fmt(row.get('fps_cpu_after_startup'))} / {fmt(row.get('fps_cuda_after_startup'))} "
              f"| {fmt(row.get('decode_raw_s'), 1)} "
              f"| {row.get('vmaf_cpu')} / {row.get('vmaf_cuda')} ({verdict})"
              f" / {row.get('vmaf_libvmaf', '-')} |")
    decoders = {(row["pair"], backend): row.get(f"decoders_{backend}") for row in rows for backend in ("cpu", "cuda")}
    if any(decoders.values()):
        print()
        for (pair, backend), names in decoders.items():
            print(f"- {pair}, --backend {backend}: decoded by {names or '(not in the provenance)'}")
    if stream_rows:
        print()
        print("| `vmafexact --backend cuda` processes at once (1920x1080 H.264) | sum of their fps "
              "| all frames / wall of all | slowest / fastest process (fps) |")
        print("| --- | --- | --- | --- |")
        for row in stream_rows:
            failed = "" if row["ok"] == row["streams"] else f" ({row['streams'] - row['ok']} FAILED)"
            print(f"| {row['streams']}{failed} | {fmt(row['sum_fps'])} | {fmt(row['total_fps'])} "
                  f"| {fmt(row['min_fps'])} / {fmt(row['max_fps'])} |")
    if encode_rows:
        single = rows[0].get(f"vmaf_{encodes_backend}") if rows and rows[0]["pair"] == PAIRS[0][0] else None
        print()
        print(f"| encodes of one reference in one `vmafexact --backend {encodes_backend}` run (1920x1080 H.264) "
              "| frames of all pairs | wall (s, start-up included) | pair frames per second | VMAF means |")
        print("| --- | --- | --- | --- | --- |")
        for row in encode_rows:
            means = ", ".join(str(mean) for mean in row["vmaf_means"]) or "-"
            if single is not None:
                means += " (equal to the single pair's)" if row["vmaf_means"] == [single] else " (DIFFERENT from the single pair's)"
            print(f"| {row['encodes']}{'' if row['rc'] == 0 else ' (FAILED)'} | {row['frames']} "
                  f"| {fmt(row['wall_s'], 2)} | {fmt(row['pair_fps'])} | {means} |")
    print(f"\n({time.monotonic() - STARTED:.0f} s in all)")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"host": host, "pairs": rows, "streams": stream_rows, "encodes": encode_rows,
                       "runs": bench.runs,
                       "failures": bench.failures}, out, indent=1)
    if bench.failures:
        print("\nFailures:\n" + "\n".join(f"- {failure}" for failure in bench.failures))
    mismatch = "cuda" in args.backends and "cpu" in args.backends and \
        any(row.get("vmaf_cpu") != row.get("vmaf_cuda") for row in rows)
    # Every encode is the same file: one pooled mean, the single pair's.
    single = rows[0].get(f"vmaf_{encodes_backend}") if rows and rows[0]["pair"] == PAIRS[0][0] else None
    mismatch = mismatch or any(len(row["vmaf_means"]) != 1 or (single is not None and row["vmaf_means"] != [single])
                               for row in encode_rows if row["rc"] == 0)
    return 1 if bench.failures or mismatch else 0


if __name__ == "__main__":
    sys.exit(main())
