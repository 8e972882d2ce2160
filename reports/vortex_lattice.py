"""The vortex lattice of the rotating quasi-2D ground state on each lattice, from `vortex_lattice_study`'s CSV files
(reports/data/vortex_lattice/: summary.csv, vortices.csv, density.csv, provenance.json).

    vortex_lattice.py FOLDER [--out DIR]

Writes vortex_lattice.{png,pdf} (per lattice: the density on the cells nearest z = 0, the vortices where the
detector's lines cross z = 0 inside R and beyond it, the Thomas–Fermi radius R in the rotating frame) and
vortex_lattice.md (the counts against Feynman's ΩR², each vortex's nearest-neighbour distance against the spacing
√(2π/(√3Ω)) of the triangular lattice of density Ω/π).
"""

import argparse
import csv
import json
from pathlib import Path

import numpy as np

from common import LABELS, markdown_table, plt, save_figure


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load(folder):
    summary = {r["lattice"]: r for r in rows(folder / "summary.csv")}
    vortices, density = {}, {}
    for r in rows(folder / "vortices.csv"):
        vortices.setdefault(r["lattice"], []).append((float(r["x"]), float(r["y"]), int(r["charge"])))
    for r in rows(folder / "density.csv"):
        density.setdefault(r["lattice"], []).append((float(r["x"]), float(r["y"]), float(r["rho"])))
    return summary, {k: np.array(v) for k, v in vortices.items()}, {k: np.array(v) for k, v in density.items()}


def figure(summary, vortices, density, provenance):
    names = list(summary)
    columns = 4
    fig, axes = plt.subplots((len(names) + columns - 1) // columns, columns, figsize=(3.2 * columns, 6.6),
                             squeeze=False)
    for ax, name in zip(axes.flat, names):
        s, d = summary[name], density[name]
        radius = float(s["tf_radius"])
        ax.tripcolor(d[:, 0], d[:, 1], d[:, 2], shading="gouraud", cmap="Blues")
        v = vortices.get(name, np.zeros((0, 3)))
        inside = np.hypot(v[:, 0], v[:, 1]) < radius
        ax.plot(v[inside, 0], v[inside, 1], "o", ms=3.5, color="crimson")
        ax.plot(v[~inside, 0], v[~inside, 1], "o", ms=3.5, mfc="none", color="darkorange")
        ax.add_patch(plt.Circle((0, 0), radius, fill=False, ls="--", lw=0.8, color="k"))
        ax.set_title(f"{LABELS.get(name, name)}: {s['count']} + {s['beyond_radius']} vortices "
                     f"(ΩR² = {float(s['feynman_count']):.1f})", fontsize="small")
        ax.set_aspect("equal")
        reach = np.abs(d[:, :2]).max()
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.tick_params(labelsize="x-small")
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    first = summary[names[0]]
    fig.suptitle(f"Rotating ground state, Ω = {first['omega']}, g = {first['g']}, λ = {first['lambda']}, mean cell "
                 f"spacing {first['spacing']}: density at z ≈ 0, vortices inside R (red) and beyond it (open), "
                 "Thomas–Fermi radius R (dashed)",
                 fontsize="small")
    fig.text(0.01, 0.005, f"{provenance['command']} at {provenance['git_commit'][:10]}, {provenance['date']}, "
             f"{provenance['device']}", fontsize="xx-small")
    return fig


def table(summary):
    header = ["lattice", "h", "cells", "R_TF", "ΩR²", "seeded", "vortices in R", "beyond R",
              "nearest (mean, min–max)", "Feynman spacing", "iterations", "residual"]
    body = [[LABELS.get(name, name), s["h"], s["cells"], s["tf_radius"], f"{float(s['feynman_count']):.1f}",
             s["seeded"], s["count"], s["beyond_radius"],
             f"{s['nearest_mean']} ({s['nearest_min']}–{s['nearest_max']})", s["feynman_spacing"],
             s["iterations"], s["residual"]] for name, s in summary.items()]
    return markdown_table(header, body)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    summary, vortices, density = load(args.folder)
    provenance = json.loads((args.folder / "provenance.json").read_text())
    for path in save_figure(figure(summary, vortices, density, provenance), args.out, "vortex_lattice"):
        print(path)
    (args.out / "vortex_lattice.md").write_text("# The vortex lattice per lattice\n\n" + table(summary))
    print(args.out / "vortex_lattice.md")


if __name__ == "__main__":
    main()
