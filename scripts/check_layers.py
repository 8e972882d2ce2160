#!/usr/bin/env python3
"""The folders are libraries stacked in one order; no file includes one from a folder above its own.

    scripts/check_layers.py [ROOT]     exit 1, listing each upward include, when there is one

Order, bottom first: lattices, solvers, analysis, hdf5, setup, io, runner, cli. ALLOWED lists the upward includes still to be
removed (issue 30): cli/build_info.hpp, the build's version and commit, belongs in a library at the bottom, a move
that also touches bench/ and so waits for a GPU to run the performance gate on.
"""
import re
import sys
from pathlib import Path

ORDER = ("lattices", "solvers", "analysis", "hdf5", "setup", "io", "runner", "cli")
ALLOWED = {("io", "cli/build_info.hpp"), ("runner", "cli/build_info.hpp")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(([a-z0-9_]+)/[^"]+)"', re.M)


def upward_includes(root):
    """(file, included path) for every include of a folder above the file's own."""
    rank = {folder: k for k, folder in enumerate(ORDER)}
    found = []
    for folder in ORDER:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".hpp", ".cpp", ".cu", ".cuh"):
                continue
            for included, top in INCLUDE.findall(path.read_text(encoding="utf-8")):
                if top in rank and rank[top] > rank[folder] and (folder, included) not in ALLOWED:
                    found.append((path.relative_to(root), included))
    return found


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    found = upward_includes(root)
    for path, included in found:
        print(f"{path} includes {included}, from a folder above its own ({' < '.join(ORDER)})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
