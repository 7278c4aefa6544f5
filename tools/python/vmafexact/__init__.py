"""Scores videos with vmafexact from Python: libvmaf 3.2.0's VMAF, bit for bit.

    import vmafexact
    result = vmafexact.score("ref.mp4", "dist.mp4", features="psnr")
    print(result.pooled["vmaf"]["mean"], result.frames[0]["vmaf"])

    for result in vmafexact.compare("ref.mp4", ["crf23.mp4", "crf28.mp4"]):
        print(result.name, result.pooled["vmaf"]["mean"])

The module runs the `vmafexact` command-line tool (docs/tool.md) with the
options given here mapped one to one onto its own, and reads back what the tool
wrote: libvmaf's JSON log at full precision (every score the same double as the
tool's) and the element's summary. So the module and the tool give one answer
from one pipeline: the same decoding, the same scaling (FFmpeg's bicubic
through libswscale by default), the same pairing of frames. Standard library
only. The full reference is docs/python.md.

The tool is the one `meson install` put beside this module (recorded at build
time in _config.py); the environment variable VMAFEXACT_TOOL names another
(a build tree's build/tools/vmafexact, for example).
"""

import json as _json
import os
import re
import signal
import subprocess
import tempfile
import threading

try:
    from . import _config
except ImportError:  # the source tree's copy: no build-time configuration
    _config = None

__all__ = ["Error", "Result", "score", "compare", "tool_path", "command_line", "OPTIONS"]

__version__ = getattr(_config, "VERSION", "unknown")

# Keyword arguments of score() and compare() and the tool's option for each, in
# the order the tool's --help lists them. The kind says how a value is written:
#   "text"  the value as text (str(value)); a list or tuple is joined with commas
#   "flag"  True gives the option alone, False or None nothing
#   "align" True or "auto" gives --align auto, False or "off" --align off
OPTIONS = {
    # Raw (.yuv) inputs.
    "size": ("--size", "text"),
    "ref_size": ("--ref-size", "text"),
    "dist_size": ("--dist-size", "text"),
    "format": ("--format", "text"),
    "ref_format": ("--ref-format", "text"),
    "dist_format": ("--dist-format", "text"),
    "framerate": ("--framerate", "text"),
    "ref_framerate": ("--ref-framerate", "text"),
    "dist_framerate": ("--dist-framerate", "text"),
    # Lining up.
    "scale_method": ("--scale-method", "text"),
    "scale_flags": ("--scale-flags", "text"),
    "no_scale": ("--no-scale", "flag"),
    "no_rate_conversion": ("--no-rate-conversion", "flag"),
    "dist_delay": ("--dist-delay", "text"),
    "align": ("--align", "align"),
    "align_range": ("--align-range", "text"),
    "start": ("--start", "text"),
    "frames": ("--frames", "text"),
    "duration": ("--duration", "text"),
    # The element's properties.
    "model": ("--model", "text"),
    "features": ("--features", "text"),
    "backend": ("--backend", "text"),
    "threads": ("--threads", "text"),
    "subsample": ("--subsample", "text"),
    # Outputs the tool writes besides what the module reads.
    "json": ("--json", "text"),
    "xml": ("--xml", "text"),
    "csv": ("--csv", "text"),
    "sub": ("--sub", "text"),
    "plot": ("--plot", "text"),
    "html": ("--html", "text"),
    "plot_scores": ("--plot-scores", "text"),
    "worst_frames": ("--worst-frames", "text"),
    # Each DIST's name, for {name} and the report (default: the file names).
    "names": ("--names", "text"),
}

# The tool's exit code for a bad option (docs/tool.md, "Exit codes").
_EXIT_USAGE = 1

# "frame 120/480  25%  96.5 fps ..." (tools/vmafexact/progress.cpp).
_PROGRESS_LINE = re.compile(r"frame (\d+)(?:/(\d+))?")


class Error(Exception):
    """A run that failed: the tool's message and exit code.

    message    what the tool printed on standard error (its error and the
               fix), without the progress line; or the module's own message
    exit_code  the tool's exit code (docs/tool.md: 1 a bad option, 2 an input
               that cannot be read, 3 nothing to compare, 4 the pipeline or
               scoring failed, 5 an output cannot be written, 130 interrupted),
               or None when the tool did not run or its results could not be read
    command    the tool's command line as run (a list), or None
    """

    def __init__(self, message, exit_code=None, command=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = command

    def __str__(self):
        if self.exit_code is None:
            return self.message
        return f"vmafexact exited with code {self.exit_code}: {self.message}"


class OptionError(Error, TypeError):
    """An unknown option name or a value of the wrong kind (before any run)."""


class Result:
    """The scores of one distorted video against the reference.

    frames     one dict per scored frame, in order: "frameNum" (int) and every
               score (float, the log's double; None where the log has null,
               a score that is not finite)
    pooled     score name -> dict of its pooled figures over the frames: min,
               max, mean, harmonic_mean (libvmaf's), p1, p5, p50, low1_mean,
               low5_mean (the element's summary message, docs/element.md)
    aggregate  libvmaf's aggregate metrics (apsnr_y, ... with
               features="psnr=enable_apsnr=true"), name -> float or None
    summary    every field of the element's vmafexact-summary message:
               frames-scored, frames-unpaired, ..., provenance, the pooled
               figures (dicts) and the aggregates
    log        the JSON log the tool wrote, as a dict (libvmaf's layout,
               docs/log-formats.md, with "provenance")
    provenance the log's provenance (versions, models, backend, threads, and
               what the tool records about the run), a dict of strings
    ref, dist  the files scored; name: its names= entry, else dist's file name
               without its extension
    warnings   lines the tool printed on standard error (notes, warnings)
    """

    def __init__(self, ref, dist, log, summary, warnings, name=None):
        self.ref = ref
        self.dist = dist
        self.name = encode_name(dist) if name is None else name
        self.log = log
        self.summary = summary
        self.warnings = warnings
        self.provenance = log.get("provenance", {})
        self.frames = [
            {"frameNum": frame["frameNum"], **_scores(frame.get("metrics", {}))}
            for frame in log.get("frames", [])
        ]
        self.pooled = {
            name: _scores(figures) for name, figures in summary.items() if isinstance(figures, dict)
        }
        self.aggregate = _scores(log.get("aggregate_metrics", {}))

    def __repr__(self):
        vmaf = self.pooled.get("vmaf", {}).get("mean")
        mean = f", vmaf mean {vmaf!r}" if vmaf is not None else ""
        return f"<vmafexact.Result {self.dist!r}: {len(self.frames)} frames{mean}>"


def _scores(values):
    """A dict of scores with every number as a float (%.17g writes 100 as "100")."""
    return {name: None if value is None else float(value) for name, value in values.items()}


def encode_name(path):
    """DIST's `{name}` as the tool makes it: its file name without the extension."""
    name = os.path.basename(path.rstrip("/")) or path
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def tool_path():
    """The vmafexact tool this module runs: $VMAFEXACT_TOOL, else the installed one."""
    override = os.environ.get("VMAFEXACT_TOOL")
    if override:
        return override
    if _config is not None:
        return _config.TOOL
    return "vmafexact"  # looked up on PATH


def _option_arguments(options):
    arguments = []
    for key, value in options.items():
        if key not in OPTIONS:
            raise OptionError(
                f"unknown option {key}= (the options: {', '.join(sorted(OPTIONS))}; "
                "docs/python.md maps each to the tool's)"
            )
        if value is None:
            continue
        flag, kind = OPTIONS[key]
        if kind == "flag":
            if not isinstance(value, bool):
                raise OptionError(f"{key}= takes True or False, not {value!r}")
            if value:
                arguments.append(flag)
        elif kind == "align":
            text = ("auto" if value else "off") if isinstance(value, bool) else value
            if text not in ("auto", "off"):
                raise OptionError(f"align= takes True ('auto') or False ('off'), not {value!r}")
            arguments += [flag, text]
        else:
            if isinstance(value, os.PathLike):
                value = os.fspath(value)
            if isinstance(value, bool) or not isinstance(value, (str, int, float, list, tuple)):
                raise OptionError(f"{key}= takes a text, a number or a path, not {value!r}")
            if isinstance(value, (list, tuple)):
                value = ",".join(str(item) for item in value)
            arguments += [flag, str(value)]
    return arguments


def command_line(ref, dists, **options):
    """The tool's command line that score()/compare() run, without the module's
    own outputs (for logs, or to run it by hand)."""
    if isinstance(dists, (str, os.PathLike)):
        dists = [dists]
    return [tool_path(), *_option_arguments(options), "--", os.fspath(ref),
            *(os.fspath(dist) for dist in dists)]


def score(ref, dist, *, progress=None, **options):
    """Scores DIST against the reference REF; returns a Result.

    options are the tool's, with _ for - (docs/python.md has the table):
    model, features, scale_method, scale_flags, no_scale, no_rate_conversion,
    dist_delay, align, align_range, start, frames, duration, backend, threads,
    subsample, raw inputs (size, format, framerate, ref_*/dist_*), and the
    outputs json, xml, csv, sub, plot, html, plot_scores, worst_frames.
    progress: a callable progress(frames_done, frames_expected) called as the
    run goes (frames_expected None when not known). Raises vmafexact.Error.
    """
    return _run(ref, [dist], progress, options)[0]


def compare(ref, dists, *, progress=None, **options):
    """Scores every DIST against REF in one run (REF decoded once); returns one
    Result per DIST, in order. Output options (json=, ...) must hold {name},
    which the tool replaces by each DIST's name. Raises vmafexact.Error."""
    if isinstance(dists, (str, os.PathLike)):
        dists = [dists]
    dists = list(dists)
    if not dists:
        raise OptionError("compare() needs at least one distorted video")
    return _run(ref, dists, progress, options)


def _run(ref, dists, progress, options):
    if progress is not None and not callable(progress):
        raise OptionError(f"progress= takes a callable, not {progress!r}")
    base = command_line(ref, dists, **options)
    several = len(dists) > 1
    given = options.get("names")
    if given is None:
        names = [encode_name(os.fspath(dist)) for dist in dists]
    else:
        # As the tool reads --names (it checks them): comma-separated, blanks dropped.
        text = given if isinstance(given, str) else ",".join(str(name) for name in given)
        names = [name.strip() for name in text.split(",")]
    with tempfile.TemporaryDirectory(prefix="vmafexact-python-") as folder:
        # With several DISTs every output names its file with {name}; with one,
        # the module's own files have fixed names.
        pattern = os.path.join(folder, "{name}" if several else "scores")
        own = ["--jsonl", pattern + ".jsonl", "--precision", "max", "--quiet",
               "--progress" if progress else "--no-progress"]
        user_json = options.get("json")
        if isinstance(user_json, os.PathLike):
            user_json = os.fspath(user_json)
        if user_json is None:
            own += ["--json", pattern + ".json"]
        end_of_options = base.index("--")
        command = base[:end_of_options] + own + base[end_of_options:]
        warnings = _run_tool(command, progress)

        results = []
        for dist, name in zip(dists, names):
            own_path = pattern.replace("{name}", name)
            log_path = own_path + ".json" if user_json is None else \
                user_json.replace("{name}", name)
            log = _read_json(log_path, command)
            summary = _read_summary(own_path + ".jsonl", command)
            results.append(Result(os.fspath(ref), os.fspath(dist), log, summary, warnings,
                                  name if given is not None else None))
    return results


def _run_tool(command, progress):
    """Runs the tool to its end; returns its standard error's lines (no progress)."""
    try:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
    except OSError as error:
        raise Error(
            f"cannot run the vmafexact tool {command[0]}: {error.strerror}. Install the project "
            "(meson install) or set VMAFEXACT_TOOL to the tool's path (build/tools/vmafexact in "
            "a build tree).", None, command) from None
    reader = _ErrorReader(child, progress)
    thread = threading.Thread(target=reader.read, daemon=True)
    thread.start()
    try:
        thread.join()
        exit_code = child.wait()
    except BaseException:
        # KeyboardInterrupt and the like: the tool ends its streams on SIGTERM
        # and removes its temporary files; it gets a moment, then is killed.
        _stop(child)
        raise
    if reader.failure is not None:
        raise reader.failure  # the progress callback's own exception
    if exit_code != 0:
        message = "\n".join(reader.lines).strip() or "(no message)"
        if exit_code < 0:
            message = f"killed by {signal.Signals(-exit_code).name}. {message}"
        raise Error(message, exit_code, command)
    return reader.lines


def _stop(child):
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


class _ErrorReader:
    """Reads the tool's standard error to its end: lines are kept, progress
    redraws ("\\rframe 12/48 ...\\033[K", with --progress) go to the callback.
    An exception from the callback stops the tool and is kept in failure."""

    def __init__(self, child, progress):
        self.child = child
        self.progress = progress
        self.lines = []
        self.failure = None

    def read(self):
        pending = b""
        stream = self.child.stderr
        for chunk in iter(lambda: stream.read1(65536), b""):
            pending += chunk
            pieces = re.split(rb"[\r\n]", pending)
            pending = pieces.pop()
            for piece in pieces:
                self.take(piece)
        self.take(pending)
        stream.close()

    def take(self, piece):
        text = piece.decode("utf-8", "replace").replace("\033[K", "")
        if not text.strip():
            return
        match = _PROGRESS_LINE.match(text)
        if not match or " fps" not in text:
            self.lines.append(text)
            return
        if self.progress is None or self.failure is not None:
            return
        done, expected = match.groups()
        try:
            self.progress(int(done), int(expected) if expected else None)
        except BaseException as failure:  # noqa: B036 (handed to the caller's thread)
            self.failure = failure
            _stop(self.child)


def _read_json(path, command):
    try:
        with open(path, encoding="utf-8") as log:
            return _json.load(log)
    except (OSError, ValueError) as error:
        raise Error(f"cannot read the tool's JSON log {path}: {error}", None, command) from None


def _read_summary(path, command):
    """The fields of the last vmafexact-summary line of the tool's --jsonl file."""
    summary = None
    try:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                entry = _json.loads(line)
                if entry.get("message") == "vmafexact-summary":
                    summary = entry.get("fields", {})
    except (OSError, ValueError) as error:
        raise Error(f"cannot read the tool's JSON lines {path}: {error}", None, command) from None
    if summary is None:
        raise Error(f"the tool wrote no summary into {path}", None, command)
    return summary
