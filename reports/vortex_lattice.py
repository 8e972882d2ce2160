"""The vortex lattice of the rotating quasi-2D ground state on each lattice, from `vortex_lattice_study`'s CSV files
in a device folder (vortex_lattice/: summary.csv, vortices.csv, density.csv, provenance.json; the report "Vortex
lattice" of make_all.py).

    vortex_lattice.py reports/data/<device> [--out DIR]

Writes vortex_lattice.{png,pdf} (per lattice: the density on the cells nearest z = 0, the vortices where the
detector's lines cross z = 0 inside R and beyond it, the Thomas–Fermi radius R in the rotating frame) and
vortex_lattice.md (the counts against Feynman's ΩR², each vortex's nearest-neighbour distance against the spacing
√(2π/(√3Ω)) of the triangular lattice of density Ω/π) and vortex_lattice_radial.md (the count within r < fR against
Ω(fR)², f from 0.5 to 1).
"""

import csv
from pathlib import Path

import numpy as np

from common import LABELS, Rendered, footer, markdown_table, plt, run_on_folder, save_figure, save_table

FOLDER = "vortex_lattice"  # in a device folder
FILES = tuple(f"{FOLDER}/{name}.csv" for name in ("summary", "vortices", "density"))


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


def figure(summary, vortices, density):
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
    return fig


def table(summary):
    header = ["lattice", "h", "cells", "R_TF", "ΩR²", "seeded", "vortices in R", "beyond R",
              "nearest (mean, min–max)", "Feynman spacing", "iterations", "residual"]
    body = [[LABELS.get(name, name), s["h"], s["cells"], s["tf_radius"], f"{float(s['feynman_count']):.1f}",
             s["seeded"], s["count"], s["beyond_radius"],
             f"{s['nearest_mean']} ({s['nearest_min']}–{s['nearest_max']})", s["feynman_spacing"],
             s["iterations"], s["residual"]] for name, s in summary.items()]
    return markdown_table(header, body)


FRACTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # of R: the discs the radial count is taken in


def radial_table(summary, vortices):
    """Per lattice, the vortices within r < fR against Feynman's Ω(fR)² for each f of FRACTIONS: where the density
    Ω/π holds and where the rim falls short of it."""
    header = ["lattice"] + [f"r < {f:g} R" for f in FRACTIONS]
    body = []
    for name, s in summary.items():
        radius, omega = float(s["tf_radius"]), float(s["omega"])
        v = vortices.get(name, np.zeros((0, 3)))
        rho = np.hypot(v[:, 0], v[:, 1])
        body.append([LABELS.get(name, name)] + [f"{int(np.sum(rho < f * radius))} of {omega * (f * radius) ** 2:.1f}"
                                                 for f in FRACTIONS])
    return markdown_table(header, body)


def render(device_dir, out_dir):
    folder = Path(device_dir) / FOLDER
    summary, vortices, density = load(folder)
    result = Rendered(inputs=[Path(device_dir) / name for name in FILES])
    fig = figure(summary, vortices, density)
    footer(fig, device_dir, result.inputs)
    result.files += save_figure(fig, out_dir, "vortex_lattice")
    save_table(result, out_dir, "vortex_lattice", "The vortex lattice per lattice", "Vortex lattice", table(summary))
    save_table(result, out_dir, "vortex_lattice_radial", "The vortex lattice's count by radius",
               "Vortex lattice by radius", radial_table(summary, vortices))
    result.notes.append("Vortices: where the detector's lines cross z = 0; in R: inside the Thomas–Fermi radius of the "
                        "rotating frame, beyond R: the rest inside the domain's inscribed circle. Feynman's count ΩR² "
                        "and spacing √(2π/(√3Ω)): the triangular lattice of density Ω/π. By radius: the vortices "
                        "within r < fR against Feynman's Ω(fR)², the density Ω/π over the disc.")
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
