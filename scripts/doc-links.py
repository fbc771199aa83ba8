#!/usr/bin/env python3
"""The verdict of scripts/doc-links.sh: prints every broken DocC symbol link and exits 1 if there is one.

Arguments: the directory of symbol graphs (one subdirectory per module) and the directory of `docc
convert` diagnostics files (`<module>.json`, one per module).

DocC converts one module at a time, so it reports a link into another module as missing. Such a
link is accepted when it names a symbol of that module: its path, with or without the module's name
first and without DocC's disambiguation suffixes (`-swift.struct`, `-2kdx1`), is a symbol's path
there. Links into the toolchain's modules cannot be checked offline and are left alone; every
other unresolved or ambiguous link is an error.
"""

import json
import os
import re
import sys

TOOLCHAIN_MODULES = {"Swift", "Foundation", "FoundationEssentials", "Dispatch", "Synchronization", "Testing",
                     "Glibc", "_Concurrency", "XCTest"}
LINK_PROBLEM = re.compile(r"^'.*' (doesn't exist at|is ambiguous at) |fails to resolve")
DISAMBIGUATION = re.compile(r"-(swift\.[a-z.]+|[0-9a-z]{4,6})$")


def symbol_paths(graphs):
    """Every module's symbol paths (`Type/member(label:)`), by module name."""
    paths = {}
    for module in os.listdir(graphs):
        found = paths.setdefault(module, set())
        directory = os.path.join(graphs, module)
        for name in os.listdir(directory):
            with open(os.path.join(directory, name), encoding="utf-8") as file:
                graph = json.load(file)
            for symbol in graph.get("symbols", []):
                found.add("/".join(symbol["pathComponents"]))
    return paths


def link_text(source, start):
    """The ``…`` link of the doc comment in `source` that contains (line, column) `start`, or None."""
    try:
        with open(source, encoding="utf-8") as file:
            lines = file.read().split("\n")
    except OSError:
        return None
    line, column = start
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    for match in re.finditer(r"``([^`]+)``", text):
        if match.start() <= column - 1 <= match.end():
            return match.group(1)
    return None


def names_other_module_symbol(link, module, paths):
    """Whether `link` names a symbol of another module of the package, or points into the toolchain."""
    components = [DISAMBIGUATION.sub("", part) for part in link.strip("/").split("/")]
    if components[0] in TOOLCHAIN_MODULES:
        return True
    if components[0] in paths and components[0] != module:
        return "/".join(components[1:]) in paths[components[0]] or len(components) == 1
    joined = "/".join(components)
    return any(joined in found for name, found in paths.items() if name != module)


def main():
    graphs, diagnostics = sys.argv[1], sys.argv[2]
    paths = symbol_paths(graphs)
    broken = []
    for name in sorted(os.listdir(diagnostics)):
        if not name.endswith(".json"):
            continue
        module = name[: -len(".json")]
        with open(os.path.join(diagnostics, name), encoding="utf-8") as file:
            report = json.load(file)
        for diagnostic in report.get("diagnostics", []):
            summary = diagnostic.get("summary", "")
            if not LINK_PROBLEM.search(summary):
                continue
            source = diagnostic.get("source", "").removeprefix("file://")
            start = diagnostic.get("range", {}).get("start", {})
            position = (start.get("line", 0), start.get("column", 0))
            link = link_text(source, position)
            if link is not None and "doesn't exist" in summary and names_other_module_symbol(link, module, paths):
                continue
            where = os.path.relpath(source) if source else module
            broken.append(f"{where}:{position[0]}:{position[1]}: broken link ``{link or '?'}``: {summary}")
    for line in sorted(set(broken)):
        print(line)
    if broken:
        print(f"doc-links: {len(set(broken))} broken DocC symbol link(s)", file=sys.stderr)
        return 1
    print("doc-links: every DocC symbol link resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
