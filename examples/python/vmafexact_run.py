"""Running a vmafexact pipeline from a script with PyGObject (monitor.py uses it;
score.py runs the vmafexact module instead, docs/python.md).

- check_element(): is the plugin on GStreamer's path? (a clear error if not)
- quote(): a value for a gst-launch-1.0 style description (parse_launch)
- set_property(): NAME=VALUE from a command line, read as gst-launch-1.0 reads it
- Runner: the bus and a GLib main loop; element messages as dicts (through
  vmafexact_messages), errors and warnings on stderr, SIGINT/SIGTERM sending EOS
  (the element then posts its summary, as with gst-launch-1.0 -e), a second
  signal stopping at once.
"""

import os
import signal
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstPbutils", "1.0")
except (ImportError, ValueError) as missing:
    # No PyGObject for this interpreter (a virtual environment, pyenv), or no
    # GStreamer typelibs.
    sys.stderr.write(
        f"{os.path.basename(sys.argv[0])}: {missing}. These examples need PyGObject and "
        "GStreamer's introspection data: on Debian 12 the packages python3-gi, "
        "gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-base-1.0 (scripts/install-deps.sh "
        f"installs them), for /usr/bin/python3 (this is {sys.executable}).\n"
    )
    sys.exit(1)
from gi.repository import GLib, GObject, Gst  # noqa: E402

import vmafexact_messages  # noqa: E402

# Exit statuses of the examples.
EXIT_OK = 0
EXIT_FAILED = 1  # a pipeline error, an input that cannot be read, an interrupted stop
EXIT_USAGE = 2  # a malformed command line (argparse's status too)


def check_element(program):
    """Exits with advice when GStreamer has no vmafexact element."""
    if Gst.ElementFactory.find("vmafexact") is None:
        sys.stderr.write(
            f"{program}: GStreamer has no 'vmafexact' element. Point GST_PLUGIN_PATH at the "
            "folder that holds libgstvmafexact.so (GST_PLUGIN_PATH=$PWD/build/gst in a build "
            "tree) or install the plugin (README.md, 'Installing').\n"
        )
        sys.exit(EXIT_FAILED)


def quote(text):
    """TEXT as one value of a pipeline description: quoted, \\ and " escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def set_property(element, assignment):
    """Sets NAME=VALUE on the element; raises ValueError naming the problem."""
    name, equals, text = assignment.partition("=")
    if not equals or not name:
        raise ValueError(f"--set takes NAME=VALUE (e.g. --set features=psnr), not '{assignment}'")
    spec = element.find_property(name)
    if spec is None or not spec.flags & GObject.ParamFlags.WRITABLE:
        names = sorted(
            other.name
            for other in element.list_properties()
            if other.flags & GObject.ParamFlags.WRITABLE and other.name not in ("name", "parent")
        )
        raise ValueError(
            f"--set {assignment}: {element.get_factory().get_name()} has no property '{name}' "
            f"(it has: {', '.join(names)})"
        )
    # Read the value as gst-launch-1.0 would, on a spare element: PyGObject
    # cannot call gst_value_deserialize(), and Gst.util_set_object_arg() keeps
    # the old value without a word when the text does not parse.
    try:
        Gst.parse_launch(f"{element.get_factory().get_name()} {name}={quote(text)}")
    except GLib.Error:
        raise ValueError(
            f"--set {assignment}: '{text}' is not a value of type {spec.value_type.name} "
            "for this property (gst-inspect-1.0 vmafexact lists the values)"
        ) from None
    Gst.util_set_object_arg(element, name, text)


class Runner:
    """Runs a pipeline to its end; on_entry gets each vmafexact message as a dict.

    SIGINT or SIGTERM sends EOS into the pipeline, so the element finishes
    (summary, log); if no EOS comes within eos_timeout seconds (0: wait
    forever), or at a second signal, the run stops without it (status 1).
    """

    def __init__(self, program, pipeline, on_entry, eos_timeout=10):
        self.program = program
        self.pipeline = pipeline
        self.on_entry = on_entry
        self.eos_timeout = eos_timeout
        self.status = EXIT_OK
        self.interrupted = False
        self.loop = GLib.MainLoop()

    def stop(self, status):
        self.status = max(self.status, status)
        self.loop.quit()

    def _on_message(self, _bus, message):
        kind = message.type
        if kind == Gst.MessageType.ELEMENT:
            entry = vmafexact_messages.message_to_dict(message)
            if entry is not None:
                try:
                    self.on_entry(entry)
                except BrokenPipeError:
                    self.stop(EXIT_FAILED)
        elif kind == Gst.MessageType.EOS:
            self.stop(EXIT_OK)
        elif kind in (Gst.MessageType.ERROR, Gst.MessageType.WARNING):
            is_error = kind == Gst.MessageType.ERROR
            # PyGObject returns the C out-parameters: (GLib.Error, debug text).
            error, debug = message.parse_error() if is_error else message.parse_warning()
            label = "ERROR" if is_error else "WARNING"
            sys.stderr.write(f"{label} from {message.src.get_name()}: {error.message}\n")
            if debug:
                sys.stderr.write(f"  {debug}\n")
            if is_error:
                self.stop(EXIT_FAILED)
        return True

    def _on_signal(self, signum, _frame):
        if self.interrupted:
            sys.stderr.write(f"{self.program}: stopped without the summary.\n")
            self.stop(EXIT_FAILED)
            return
        self.interrupted = True
        sys.stderr.write(
            f"{self.program}: {signal.Signals(signum).name}: ending the streams (again to stop "
            "at once).\n"
        )
        self.pipeline.send_event(Gst.Event.new_eos())
        if self.eos_timeout:
            GLib.timeout_add(int(self.eos_timeout * 1000), self._on_eos_timeout)

    def _on_eos_timeout(self):
        sys.stderr.write(
            f"{self.program}: no end of stream within {self.eos_timeout} s; stopped without "
            "the summary.\n"
        )
        self.stop(EXIT_FAILED)
        return False

    def run(self):
        """Plays the pipeline until EOS, an error or a signal; returns the exit status."""
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self._on_message)
        # Python's handlers: PyGObject's main loop wakes up for them.
        previous = {
            signum: signal.signal(signum, self._on_signal)
            for signum in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
                # The reason is an error message on the bus, read by the loop.
                GLib.timeout_add_seconds(5, lambda: self.stop(EXIT_FAILED))
                self.status = EXIT_FAILED
            self.loop.run()
        finally:
            self.pipeline.set_state(Gst.State.NULL)
            bus.remove_signal_watch()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        return self.status
