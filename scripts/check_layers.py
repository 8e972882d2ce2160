#!/usr/bin/env python3
"""The folders are libraries stacked in one order; no file includes one from a folder above its own.

    scripts/check_layers.py [ROOT]     exit 1, listing each upward include, when there is one

Order, bottom first: build_info (the build's version and commit), lattices, solvers, analysis, hdf5, setup, io,
runner, cli.

Inside solvers/, the parts stack too (SOLVERS_ORDER, bottom first): the core (the files directly in solvers/ that
are not named below: grid, problem, the kernel set, the reduction policy, the error types, the memory a run needs),
the schemes, the backends cpu/ and cuda/ side by side (neither includes the other), the backend registry, the
scale-out (a slab backend wraps a registered one), and on top the drivers (integrator, stability_watch, stationary_state), which
step a scheme on a backend.
"""
import re
import sys
from pathlib import Path

ORDER = ("build_info", "lattices", "solvers", "analysis", "hdf5", "setup", "io", "runner", "cli")
INCLUDE = re.compile(r'^\s*#\s*include\s+"(([a-z0-9_]+)/[^"]+)"', re.M)
SOURCES = (".hpp", ".cpp", ".cu", ".cuh")

SOLVERS_ORDER = (("core",), ("schemes",), ("cpu", "cuda"), ("registry",), ("scaleout",), ("driver",))
SOLVERS_FILES = {"backend_registry": "registry", "integrator": "driver", "stability_watch": "driver",
                 "stationary_state": "driver"}


def solvers_part(path):
    """The part of solvers/ that `path` (relative to solvers/) belongs to."""
    parts = Path(path).parts
    if len(parts) > 1:
        return parts[0]
    return SOLVERS_FILES.get(Path(path).stem, "core")


def solvers_violation(source, included):
    """Why a file of solvers/ may not include another of solvers/ (paths relative to solvers/), or None."""
    level = {part: k for k, peers in enumerate(SOLVERS_ORDER) for part in peers}
    mine, theirs = solvers_part(source), solvers_part(included)
    if level[theirs] > level[mine]:
        return f"solvers/{theirs} is above solvers/{mine} ({' < '.join('|'.join(p) for p in SOLVERS_ORDER)})"
    if level[theirs] == level[mine] and theirs != mine:
        return f"solvers/{theirs} and solvers/{mine} are side by side"
    return None


def upward_includes(root):
    """(file, included path, why) for every include of a folder above the file's own."""
    rank = {folder: k for k, folder in enumerate(ORDER)}
    found = []
    for folder in ORDER:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SOURCES:
                continue
            for included, top in INCLUDE.findall(path.read_text(encoding="utf-8")):
                if top in rank and rank[top] > rank[folder]:
                    found.append((path.relative_to(root), included, f"from a folder above its own ({' < '.join(ORDER)})"))
                elif folder == "solvers" and top == "solvers":
                    why = solvers_violation(path.relative_to(root / folder), Path(included).relative_to(top))
                    if why:
                        found.append((path.relative_to(root), included, why))
    return found


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    found = upward_includes(root)
    for path, included, why in found:
        print(f"{path} includes {included}: {why}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
