"""Isotropy of the DEC Laplacian per lattice: the Bloch dispersion error λ₀(k)/|k|² − 1 over the sphere of
directions, λ₀(k) the lowest Bloch eigenvalue of the DEC Laplacian (−Δ) at wave vector k (the continuum's is |k|²),
from `decgpe isotropy`'s HDF5 output (isotropy/isotropy.h5 in a device folder: reports/data/cpu-2core-vm/).

    isotropy.py reports/data/<device> [--out DIR]

Writes isotropy.{png,pdf} (the error at |k|h_eff = 0.3 over the sphere, one panel per lattice, one colour scale) and
isotropy.md (mean and standard deviation over the directions at each |k|h_eff). h_eff = (structure volume / m_s)^(1/3),
the edge of a cube holding one cell: the same cell density on every lattice. The mean is the error every direction
shares; the standard deviation, the anisotropy.
"""

from pathlib import Path

import h5py
import numpy as np

from common import run_on_folder, LABELS, LATTICES, Rendered, footer, lattice_order, markdown_table, plt, save_figure, text

FILE = "isotropy/isotropy.h5"  # in a device folder
SHOWN_KH = 0.3
LAMBDA = ("λ₀(k): the lowest Bloch eigenvalue of the DEC Laplacian (−Δ) at wave vector k; the continuum's is |k|², so "
          "λ₀(k)/|k|² − 1 is the dispersion error in direction k/|k|.")
H_EFF = ("h_eff = (structure volume / m_s)^(1/3), the edge of a cube holding one cell: the same cell density on every "
         "lattice; |k|h_eff fixes |k| in cells.")


def caption(definition):
    """λ₀ and h_eff in the report's notation; the file's own definition only where it says something else."""
    known = definition.replace(" ", "").startswith("lambda0(k)/|k|^2-1") and "h_eff" in definition
    return f"{LAMBDA} {H_EFF}" + ("" if known or not definition else f" (isotropy.h5: {definition})")


def load(path):
    """{lattice: (directions [N, 3], {kh: error [N]})}."""
    found = {}
    with h5py.File(path, "r") as f:
        for name in lattice_order(n for n in f if n in LATTICES):
            group = f[name]
            errors = {float(d.attrs["kh"]): d[:] for key, d in group.items() if key.startswith("error_kh")}
            found[name] = (group["directions"][:], dict(sorted(errors.items())))
        definition = text(f.attrs.get("definition", ""))
    return found, definition


def sphere_figure(lattices, kh):
    values = [errors[kh] for _, errors in lattices.values()]
    low, high = min(v.min() for v in values), max(v.max() for v in values)
    cols = 3
    rows = -(-len(lattices) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 2.4 * rows + 0.6), squeeze=False,
                             subplot_kw={"projection": "mollweide"}, constrained_layout=True)
    for ax, (name, (directions, errors)) in zip(axes.flat, lattices.items()):
        x, y, z = directions.T
        # Mollweide (equal-area): longitude = azimuth, latitude = π/2 − polar angle
        points = ax.scatter(np.arctan2(y, x), np.arcsin(np.clip(z, -1, 1)), c=errors[kh], s=18, cmap="viridis",
                            vmin=low, vmax=high)
        ax.set_title(f"{LABELS[name]}: mean {errors[kh].mean():.2e}, s.d. {errors[kh].std():.1e}", fontsize="medium",
                     pad=10)
        ax.set_xticklabels([])
        ax.set_yticklabels([])
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(lattices):]:
        ax.set_visible(False)
    fig.colorbar(points, ax=axes, label=f"λ₀(k)/|k|² − 1 at |k|h_eff = {kh:g}", shrink=0.8)
    fig.suptitle(f"Dispersion error λ₀(k)/|k|² − 1 of the DEC Laplacian over the sphere of directions, "
                 f"|k|h_eff = {kh:g}")
    return fig


def render(device_dir, out_dir):
    path = Path(device_dir) / FILE
    lattices, definition = load(path)
    result = Rendered(inputs=[path])
    kh = min({k for _, errors in lattices.values() for k in errors}, key=lambda k: abs(k - SHOWN_KH))
    fig = sphere_figure(lattices, kh)
    count = len(next(iter(lattices.values()))[0])
    note = (f"Mollweide projection (equal-area): azimuth across (+x at the centre), elevation up (+z at the top), "
            f"grid every 30°/15°; {count} directions per lattice.\n{caption(definition)}")
    footer(fig, device_dir, result.inputs, note)
    result.files += save_figure(fig, out_dir, "isotropy")
    khs = sorted({k for _, errors in lattices.values() for k in errors})
    # no "|" in a Markdown table's header: kh_eff stands for |k|h_eff there
    header = ["lattice", *(f"{label}, kh_eff = {k:g}" for k in khs for label in ("mean", "s.d."))]
    rows = [[LABELS[name], *(f"{errors[k].mean():.3e}" if i == 0 else f"{errors[k].std():.2e}"
                             for k in khs for i in (0, 1))] for name, (_, errors) in lattices.items()]
    table = markdown_table(header, rows)
    table_path = Path(out_dir) / "isotropy.md"
    table_path.write_text(f"# Dispersion error λ₀(k)/|k|² − 1 over the sphere of directions\n\n{table}\n"
                          f"{caption(definition)} Mean and standard deviation (s.d.: the anisotropy) over the "
                          "directions; kh_eff: |k|h_eff.\n")
    result.files.append(table_path)
    result.tables.append(table)
    result.notes.append(f"{caption(definition)} s.d.: standard deviation over the directions, the anisotropy.")
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
