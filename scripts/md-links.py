#!/usr/bin/env python3
"""Checks the links between the repository's Markdown files: every relative link names a file that
exists, and every `#anchor` names a heading of its target (GitHub's slugs).

Usage: scripts/md-links.py [--allow-missing PATH]... [FILE.md ...]
Without files it checks README.md, ARCHITECTURE.md and every .md under docs/. Links inside code
blocks and inline code are not links. --allow-missing names a file that may be absent (one that
another change adds); links to it are not checked. Prints one line per broken link and exits 1
when there is one.
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose_lines(text):
    """(line number, line) outside fenced code blocks, inline code removed."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, re.sub(r"`[^`]*`", "``", line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    """Every anchor of a Markdown file (duplicates numbered as GitHub numbers them)."""
    if path not in cache:
        seen, found = {}, set()
        fence = None
        for line in open(path, encoding="utf-8").read().split("\n"):
            stripped = line.lstrip()
            if fence is None and stripped.startswith("```"):
                fence = "```"
                continue
            if fence is not None:
                if stripped.startswith(fence):
                    fence = None
                continue
            match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if match:
                base = slug(match.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        cache[path] = found
    return cache[path]


def main(arguments):
    allowed, files = set(), []
    iterator = iter(arguments)
    for argument in iterator:
        if argument == "--allow-missing":
            allowed.add(os.path.normpath(os.path.join(ROOT, next(iterator))))
        elif argument in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            files.append(os.path.abspath(argument))
    if not files:
        files = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "ARCHITECTURE.md")]
        for directory, _, names in os.walk(os.path.join(ROOT, "docs")):
            files += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".md")]
    broken = 0
    for path in files:
        for number, line in prose_lines(open(path, encoding="utf-8").read()):
            for match in LINK.finditer(line):
                target = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = f"{os.path.relpath(path, ROOT)}:{number}"
                if resolved in allowed:
                    continue
                if not os.path.exists(resolved):
                    print(f"{where}: {target}: no such file")
                    broken += 1
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    print(f"{where}: {target}: no heading with the anchor #{anchor}")
                    broken += 1
    print(f"{len(files)} files checked, {broken} broken links", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
