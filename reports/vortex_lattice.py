"""The vortex lattice of the rotating quasi-2D ground state on each lattice, from `vortex_lattice_study`'s CSV files
in a device folder (vortex_lattice/: summary.csv, vortices.csv, density.csv, provenance.json; the report "Vortex
lattice" of make_all.py).

    vortex_lattice.py reports/data/<device> [--out DIR]

Writes vortex_lattice.{png,pdf} (per lattice: the density on the cells nearest z = 0, the vortices where the
detector's lines cross z = 0 inside R and beyond it, the Thomas–Fermi radius R in the rotating frame) and
vortex_lattice.md (the counts against Feynman's ΩR², each vortex's nearest-neighbour distance against the spacing
√(2π/(√3Ω)) of the triangular lattice of density Ω/π), vortex_lattice_radial.md (the count within r < fR against
Ω(fR)², f from 0.5 to 1) and vortex_lattice_edge.md (the counts of every lattice by radius against Feynman's and
against the density Sheehy and Radzihovsky derived for a condensate whose density falls to its edge).
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


EDGE_FRACTIONS = (0.5, 0.6, 0.7, 0.8)  # of R: well inside the radius where the edge-corrected density reaches 0


def log_factors(omega, radius):
    """ln(ℓ/ξ), the vortex's energy per unit of its density's curvature, bounded where its argument is defined only to
    a factor of order 1: ℓ from the Wigner–Seitz radius 1/√Ω to the triangular lattice's spacing √(2π/(√3Ω)); ξ the
    healing length 1/√(2μ₂) at the centre of the quasi-2D Thomas–Fermi profile of radius R (μ₂ = ½(1 − Ω²)R²)."""
    xi = 1.0 / np.sqrt((1.0 - omega**2) * radius**2)
    return np.log(1.0 / np.sqrt(omega) / xi), np.log(np.sqrt(2.0 * np.pi / (np.sqrt(3.0) * omega)) / xi)


def edge_corrected_count(omega_r2, log_factor, f):
    """The vortices within fR at Sheehy and Radzihovsky's density n_v = Ω/π + ln(ℓ/ξ) ∇² ln ρ / (4π) (Phys. Rev. A 70,
    063620, 2004) for the profile ρ ∝ 1 − r²/R², where ∇² ln ρ = −4R²/(R² − r²)²: Ω(fR)² − ln(ℓ/ξ) f²/(1 − f²)."""
    return omega_r2 * f**2 - log_factor * f**2 / (1.0 - f**2)


def edge_corrected_total(omega_r2, log_factor):
    """The same count out to where that density reaches 0, (1 − f²)² = ln(ℓ/ξ)/(ΩR²); and that f."""
    f2 = 1.0 - np.sqrt(log_factor / omega_r2)
    return omega_r2 * f2 - log_factor * f2 / (1.0 - f2), np.sqrt(f2)


def edge_table(summary, vortices):
    """Per radius, the range of the lattices' counts against Feynman's Ω(fR)² and the edge-corrected count for both
    ends of log_factors(); the last row all the vortices inside R against the edge-corrected total."""
    omega, radius = {float(s["omega"]) for s in summary.values()}, {float(s["tf_radius"]) for s in summary.values()}
    assert len(omega) == 1 and len(radius) == 1, "the lattices' condensates differ"
    omega, radius = omega.pop(), radius.pop()
    omega_r2, logs = omega * radius**2, log_factors(omega, radius)
    rho = {name: np.hypot(v[:, 0], v[:, 1]) for name, v in vortices.items()}

    def measured(f):
        counts = [int(np.sum(rho.get(name, np.zeros(0)) < f * radius)) for name in summary]
        return f"{min(counts)}–{max(counts)}"

    header = ["vortices", "measured (the lattices' least–most)", "Feynman Ω(fR)²",
              f"edge-corrected (ln(ℓ/ξ) = {logs[0]:.2f}–{logs[1]:.2f})"]
    body = [[f"r < {f:g} R", measured(f), f"{omega_r2 * f**2:.1f}",
             "–".join(f"{edge_corrected_count(omega_r2, log, f):.1f}" for log in reversed(logs))]
            for f in EDGE_FRACTIONS]
    totals = [edge_corrected_total(omega_r2, log) for log in reversed(logs)]
    body.append([f"all inside R (the corrected density reaches 0 at {totals[0][1]:.2f}–{totals[1][1]:.2f} R)",
                 measured(1.0), f"{omega_r2:.1f}", "–".join(f"{count:.1f}" for count, _ in totals)])
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
    save_table(result, out_dir, "vortex_lattice_edge", "The vortex lattice's count against the edge-corrected density",
               "Vortex lattice at the edge", edge_table(summary, vortices))
    result.notes.append("Vortices: where the detector's lines cross z = 0; in R: inside the Thomas–Fermi radius of the "
                        "rotating frame, beyond R: the rest inside the domain's inscribed circle. Feynman's count ΩR² "
                        "and spacing √(2π/(√3Ω)): the triangular lattice of density Ω/π. By radius: the vortices "
                        "within r < fR against Feynman's Ω(fR)², the density Ω/π over the disc. At the edge: the same "
                        "counts against Sheehy and Radzihovsky's density Ω/π + ln(ℓ/ξ) ∇² ln ρ / (4π) for "
                        "ρ ∝ 1 − r²/R², which falls short of Ω/π as the density falls to the edge, for ln(ℓ/ξ) "
                        "with ℓ from the Wigner–Seitz radius 1/√Ω to the lattice spacing and ξ the healing length "
                        "at the centre.")
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
