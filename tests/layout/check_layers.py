#!/usr/bin/env python3
"""The project's layers, checked from the sources' #include lines.

    metrics/  <  cuda/  <  scoring/  <  gst/  <  tools/, examples/

A file may include only from its own layer and the layers below it (and the
build's vmafexact_config.h). Inside a layer, the code is in units (a .h and
its .cpp); the units' includes must form no cycle, and inside gst/ only the
element itself (gstvmafexact.cpp, plugin.cpp) includes gstvmafexact.h: its
parts (settings, session, reporter, ...) sit below it. No file includes itself
through others (a cycle of files); in the glue layers (scoring/, gst/) no two
units (a .h and its .cpp) need each other either.

Usage: check_layers.py REPO_ROOT    (exit 1 and one line per finding)
"""
import os
import re
import sys

LAYERS = ["metrics", "cuda", "scoring", "gst", "tools", "examples"]
# Where `#include "x"` is looked for besides the including file's folder: each
# layer's include roots, as the meson files give them.
ROOTS = {
    "metrics": ["metrics"],
    "cuda": ["cuda"],
    "scoring": ["scoring"],
    "gst": ["gst"],
    "tools": ["tools", "tools/monitor"],
    "examples": ["examples"],
}
GENERATED = {"vmafexact_config.h"}
UNIT_LAYERS = {"scoring", "gst"}
SOURCE = re.compile(r"\.(h|hpp|cpp|cu|cuh|inc)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    return path.split("/", 1)[0]


def sources(root):
    for layer in LAYERS:
        for folder, _, names in os.walk(os.path.join(root, layer)):
            for name in sorted(names):
                if SOURCE.search(name):
                    yield os.path.relpath(os.path.join(folder, name), root)


def resolve(root, including, name):
    """Every file `#include "name"` in `including` may mean: its own folder
    first (as the compiler looks), else each layer's roots."""
    own = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if os.path.isfile(os.path.join(root, own)):
        return [own]
    found = []
    for layer in LAYERS:
        for base in ROOTS[layer]:
            candidate = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(os.path.join(root, candidate)):
                found.append(candidate)
    return found


def unit_of(path):
    return os.path.splitext(path)[0]


def cycles(graph):
    """The strongly connected components of more than one unit (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    unit_graph = {}
    file_graph = {}
    for path in sources(root):
        layer = layer_of(path)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            names = INCLUDE.findall(text.read())
        for name in names:
            if name in GENERATED:
                continue
            targets = resolve(root, path, name)
            if not targets:
                continue  # a system or dependency's header
            allowed = [t for t in targets if LAYERS.index(layer_of(t)) <= LAYERS.index(layer)]
            if not allowed:
                problems.append(f"{path}: includes \"{name}\" from {layer_of(targets[0])}/, a layer "
                                f"above {layer}/ (layers: {' < '.join(LAYERS)}): move what it needs "
                                f"down, or the including code up")
                continue
            target = allowed[0]
            if layer == "gst" and os.path.basename(target) == "gstvmafexact.h" and \
                    os.path.basename(path) not in ("gstvmafexact.cpp", "gstvmafexact.h", "plugin.cpp"):
                problems.append(f"{path}: includes gstvmafexact.h: the element's parts sit below the "
                                f"element; give it what it needs from the part instead")
            file_graph.setdefault(path, set()).add(target)
            if layer in UNIT_LAYERS and layer_of(target) == layer and unit_of(target) != unit_of(path):
                unit_graph.setdefault(unit_of(path), set()).add(unit_of(target))
    for component in cycles(file_graph):
        problems.append("include cycle between files: " + " <-> ".join(component))
    for component in cycles(unit_graph):
        problems.append("units that need each other: " + " <-> ".join(component) +
                        ": move what both need into a part below them")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"check_layers: {' < '.join(LAYERS)}: no include upward, no cycle")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
