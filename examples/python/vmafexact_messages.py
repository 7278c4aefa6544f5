"""vmafexact's bus messages as plain Python values, with PyGObject alone.

The vmafexact element posts element messages (docs/element.md, "Messages"):
``vmafexact-frame``, ``vmafexact-window``, ``vmafexact-alert`` and
``vmafexact-summary``. This module turns their GstStructure into dicts, lists,
ints, floats, strings and bools, so that the rest of a program never touches
GObject types, and writes them as JSON.

It works with PyGObject as Debian 12 ships it (python3-gi 3.42, GStreamer 1.22,
no gst-python overrides), where:

- a ``Gst.Structure`` is not subscriptable (``s["vmaf"]`` raises TypeError)
  and has no ``keys()``: fields are walked with ``n_fields()`` and
  ``nth_field_name()``;
- the typed getters return tuples (``s.get_uint64("index")`` is
  ``(True, value=0)``): ``get_value()`` returns the plain value instead;
- ``get_value()`` raises TypeError ("unknown type GstValueList") for lists,
  arrays, fractions and ranges, and so does ``Structure.foreach()`` as soon as it
  meets one: lists and arrays are read with ``get_list()``/``get_array()``, and
  anything else not representable comes back as GStreamer's serialization of
  the field (a string such as ``"(fraction)30/1"``);
- a nested structure (the summary's per-score ``pooled``, the window's
  per-score ``window``) comes back as a ``Gst.Structure``: it becomes a dict.

It also works where gst-python's overrides (python3-gst-1.0) are installed;
they convert lists inside lists too, which otherwise come back as text.

Values: uint64 fields (``index``, frame counts) are Python ints, exact to the
last bit; doubles are Python floats, the element's bits; inf and NaN stay
floats in the dicts. In JSON (``dumps``), a float is written with Python's
``repr``, the shortest text that reads back as the same double, and a
non-finite float is written ``null``, as the element's JSON logs and
``vmafexact-monitor --jsonl`` write it.

Use:

    import vmafexact_messages as vm
    ...
    def on_message(bus, message):
        entry = vm.message_to_dict(message)   # None for other messages
        if entry and entry["message"] == "vmafexact-frame":
            print(entry["fields"]["index"], entry["fields"].get("vmaf"))
        if entry:
            print(vm.dumps(entry))
"""

import json
import math
import warnings

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

# The element messages vmafexact posts.
MESSAGE_NAMES = (
    "vmafexact-frame",
    "vmafexact-window",
    "vmafexact-alert",
    "vmafexact-summary",
)

# Fields of those messages that hold a GstClockTime; an unknown time
# (GST_CLOCK_TIME_NONE) becomes None in message_to_dict().
TIME_FIELDS = frozenset(
    {
        "pts",
        "running-time",
        "stream-time",
        "duration",
        "window-start",
        "window-end",
        "stalled-for",
    }
)


def _type_named(name):
    """The GType of that name, or None where it is not registered."""
    try:
        gtype = GObject.type_from_name(name)
    except (RuntimeError, TypeError):
        return None
    return gtype if gtype and gtype.name == name else None


def _serialized_field(structure, name):
    """GStreamer's text for one field, e.g. '(fraction)30/1'."""
    single = structure.copy()
    for index in reversed(range(single.n_fields())):
        other = single.nth_field_name(index)
        if other != name:
            single.remove_field(other)
    text = single.to_string()
    prefix = single.get_name() + ", " + name + "="
    if text.startswith(prefix):
        text = text[len(prefix) :]
    return text[:-1] if text.endswith(";") else text


def _plain(value, structure, name):
    """A value from get_value() or a list item, as a plain Python value."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Gst.Structure):
        return structure_to_dict(value)
    if isinstance(value, Gst.Caps):
        return value.to_string()
    # gst-python's overrides: Gst.ValueList and Gst.ValueArray hold .array.
    items = getattr(value, "array", None)
    if isinstance(items, list):
        return [_plain(item, structure, name) for item in items]
    return _serialized_field(structure, name)


def _value_array(array, structure, name):
    """A GValueArray from get_list()/get_array() as a list."""
    items = []
    with warnings.catch_warnings():
        # GValueArray is deprecated in GLib, but it is what these getters return.
        warnings.simplefilter("ignore", DeprecationWarning)
        for index in range(array.n_values):
            try:
                item = array.get_nth(index)
            except TypeError:
                # A list inside a list: PyGObject cannot convert the inner one.
                return _serialized_field(structure, name)
            items.append(_plain(item, structure, name))
    return items


def field_value(structure, name):
    """One field of a Gst.Structure as a plain Python value."""
    gtype = structure.get_field_type(name)
    if gtype == _type_named("GstValueList"):
        found, array = structure.get_list(name)
        return _value_array(array, structure, name) if found else None
    if gtype == _type_named("GstValueArray"):
        found, array = structure.get_array(name)
        return _value_array(array, structure, name) if found else None
    try:
        value = structure.get_value(name)
    except TypeError:
        return _serialized_field(structure, name)
    return _plain(value, structure, name)


def structure_to_dict(structure):
    """Every field of a Gst.Structure, in its order, as plain Python values.

    Nested structures become dicts, lists and arrays become lists; uint64
    fields stay exact ints (GST_CLOCK_TIME_NONE too: message_to_dict() turns
    unknown times into None).
    """
    names = [structure.nth_field_name(index) for index in range(structure.n_fields())]
    return {name: field_value(structure, name) for name in names}


def message_to_dict(message):
    """A vmafexact element message as {"message": NAME, "fields": {...}}.

    None for any other message. In "fields", an unknown time
    (GST_CLOCK_TIME_NONE in pts, running-time, ...) is None.
    """
    if message.type != Gst.MessageType.ELEMENT:
        return None
    structure = message.get_structure()
    if structure is None or structure.get_name() not in MESSAGE_NAMES:
        return None
    fields = structure_to_dict(structure)
    for name in TIME_FIELDS.intersection(fields):
        if fields[name] == Gst.CLOCK_TIME_NONE:
            fields[name] = None
    return {"message": structure.get_name(), "fields": fields}


def json_ready(value):
    """A copy with every non-finite float replaced by None (JSON's null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    return value


def dumps(value, **options):
    """Strict JSON (no NaN or Infinity literals) of a value from this module."""
    return json.dumps(json_ready(value), allow_nan=False, **options)
