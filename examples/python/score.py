#!/usr/bin/python3
"""Scores distorted video files against their reference with the vmafexact module.

    score.py REF DIST [DIST...] [--model LIST] [--features LIST]
             [--scale-method NAME] [--scale-flags FLAGS] [--dist-delay SECONDS]
             [--start TIME] [--frames N | --duration TIME] [--threads N]
             [--per-frame] [--json FILE]

A small example of the `vmafexact` Python module (docs/python.md): it runs the
vmafexact tool, so its scores are the tool's, from the same pipeline (FFmpeg's
bicubic scaling by default when the sizes differ). Prints one line per DIST:
its frames and pooled VMAF (every digit of the mean, as the tool's JSON log
holds it); --per-frame also prints each frame's scores as a JSON line;
--json FILE writes every frame, the pooled figures and the summary of each
DIST as one JSON document.

The module is found installed (meson install), else in this source tree
(tools/python); the tool is the installed one, or $VMAFEXACT_TOOL
(VMAFEXACT_TOOL=$PWD/build/tools/vmafexact in a build tree).

Exit status: 0 scored, 1 the tool failed (its message is printed), 2 a
malformed command line, 130 interrupted (Ctrl-C).
"""

import argparse
import json
import os
import sys

try:
    import vmafexact
except ImportError:  # not installed: the module of this source tree
    sys.path.insert(
        0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "python")
    )
    import vmafexact

PROGRAM = "score.py"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Score each DIST against REF with the vmafexact module; print the pooled "
        "VMAF of each.",
        epilog="Example: VMAFEXACT_TOOL=$PWD/build/tools/vmafexact examples/python/score.py "
        "ref.mp4 crf23.mp4 crf28.mp4 --features psnr. Exit status: 0 scored, 1 the tool "
        "failed, 2 bad command line.",
    )
    parser.add_argument("ref", metavar="REF", help="the reference video file")
    parser.add_argument("dists", metavar="DIST", nargs="+", help="a distorted video file")
    parser.add_argument("--model", help="VMAF models, as the tool's --model")
    parser.add_argument("--features", help="extra features, e.g. psnr or psnr,float_ssim")
    parser.add_argument("--scale-method", help="ffmpeg (default) or a videoscale method")
    parser.add_argument("--scale-flags", help="libswscale's flags (default bicubic)")
    parser.add_argument("--dist-delay", type=float, metavar="SECONDS",
                        help="DIST lags REF by SECONDS")
    parser.add_argument("--start", metavar="TIME", help="score from TIME of both inputs")
    parser.add_argument("--frames", type=int, metavar="N", help="score N frames")
    parser.add_argument("--duration", metavar="TIME", help="score TIME of video")
    parser.add_argument("--threads", type=int, metavar="N", help="CPU threads (0: one per core)")
    parser.add_argument("--per-frame", action="store_true",
                        help="also print each frame's scores as one JSON line")
    parser.add_argument("--json", metavar="FILE",
                        help="write every frame, the pooled figures and the summary of each DIST")
    return parser.parse_args(argv)


def show_progress(done, expected):
    """The tool's progress, redrawn in place on a terminal."""
    of = f"/{expected}" if expected else ""
    sys.stderr.write(f"\r{PROGRAM}: frame {done}{of}\033[K")
    sys.stderr.flush()


def main(argv):
    arguments = parse_arguments(argv)
    options = {
        name: getattr(arguments, name)
        for name in ("model", "features", "scale_method", "scale_flags", "dist_delay", "start",
                     "frames", "duration", "threads")
    }
    try:
        results = vmafexact.compare(
            arguments.ref, arguments.dists,
            progress=show_progress if sys.stderr.isatty() else None, **options)
    except vmafexact.Error as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        return 1
    except KeyboardInterrupt:  # the module has stopped the tool
        sys.stderr.write(f"\n{PROGRAM}: interrupted\n")
        return 130
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
    for result in results:
        for warning in result.warnings:
            sys.stderr.write(f"{warning}\n")
        if arguments.per_frame:
            for frame in result.frames:
                print(json.dumps({"dist": result.dist, **frame}, allow_nan=False))
        score = "vmaf" if "vmaf" in result.pooled else next(iter(result.pooled), None)
        line = f"{result.dist}: {len(result.frames)} frames"
        if score is not None:
            figures = result.pooled[score]
            # repr(): the shortest text that reads back as the same double.
            line += (f", {score} mean {figures['mean']!r} (harmonic mean "
                     f"{figures['harmonic_mean']:.6f}, min {figures['min']:.6f}, 1% low "
                     f"{figures['low1_mean']:.6f})")
        print(line)
    if arguments.json:
        document = [
            {"ref": result.ref, "dist": result.dist, "frames": result.frames,
             "pooled": result.pooled, "summary": result.summary}
            for result in results
        ]
        try:
            with open(arguments.json, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=1, allow_nan=False)
                out.write("\n")
        except OSError as error:
            sys.stderr.write(f"{PROGRAM}: --json {arguments.json}: {error.strerror}\n")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
