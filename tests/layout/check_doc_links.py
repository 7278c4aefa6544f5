#!/usr/bin/env python3
"""Every relative link of the project's Markdown (README.md, docs/, the folders'
README.md and the other top-level .md files) names a file that exists and, where
it has one, an anchor that one of that file's headings makes (GitHub's rule:
lower case, punctuation other than '-' and '_' dropped, spaces to '-', a
repeated heading suffixed -1, -2, ...). Links to the web and to anchors in the
same file are checked too, the latter against the file's own headings.

Usage: check_doc_links.py REPOSITORY_ROOT
"""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(root):
    found = []
    for name in sorted(os.listdir(root)):
        if name.endswith(".md"):
            found.append(os.path.join(root, name))
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if folder.startswith(".") or folder in ("build", "subprojects") or not os.path.isdir(path):
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "build")
            for name in sorted(filenames):
                if name.endswith(".md"):
                    found.append(os.path.join(dirpath, name))
    return found


def lines_outside_code(path):
    with open(path, encoding="utf-8") as file:
        fenced = False
        for number, line in enumerate(file, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


def anchors(path):
    seen = {}
    result = set()
    for _, line in lines_outside_code(path):
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        text = re.sub(r"`", "", match.group(2)).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def main():
    root = os.path.abspath(sys.argv[1])
    cache = {}
    problems = []
    files = markdown_files(root)
    for path in files:
        for number, line in lines_outside_code(path):
            # Inline code spans hold examples, not links.
            for match in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
                target = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                    continue
                file_part, _, anchor = target.partition("#")
                where = f"{os.path.relpath(path, root)}:{number}"
                linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(linked):
                    problems.append(f"{where}: {target}: no such file")
                    continue
                if anchor and linked.endswith(".md"):
                    if linked not in cache:
                        cache[linked] = anchors(linked)
                    if anchor not in cache[linked]:
                        problems.append(f"{where}: {target}: {os.path.relpath(linked, root)} has no heading "
                                        f"with the anchor #{anchor}")
    for problem in problems:
        print(problem)
    print(f"check_doc_links: {len(files)} Markdown files, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
