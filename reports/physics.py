"""The κ = 10 vortex split on each lattice (paper §5.1), from decgpe run's HDF5 output in DEVICE_FOLDER/physics/
(scripts/physics-run.sh): Fig 5 (error against time, convergence), the accuracy table with Table 1 (dual-edge
lengths) and Fig 6 (density on z = 0 at the split, azimuthal amplitudes).

    physics.py DEVICE_FOLDER [--out DIR]

accuracy_<lattice>.h5 is the lattice centred at 6e9 operations per time unit, refined_<lattice>_<ops>.h5 the same
at finer resolutions, placement_<lattice>.h5 the lattice shifted by −1/8 structure edge (the paper code's placement).
Each run stops at the split: the first diagnostics time at which E(t) = 1 − |⟨ψ₀|ψ(t)⟩| > 0.01.
"""

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common import decgpe, run_on_folder, LABELS, LATTICES, Rendered, footer, lattice_order, markdown_table, plt, save_figure

SPLIT = 0.01  # the E(t) at which the runs stop
RMSE_AT = 10.0  # the time at which the table compares RMSEs
PAPER_DUAL_EDGE = {"cubic": 1.0, "fcc": 1.09, "bcc": 0.80, "a15": 0.93, "c15": 0.68, "z": 0.99}  # paper, Table 1
COLOURS = dict(zip(LATTICES, ("tab:gray", "tab:orange", "tab:blue", "tab:green", "tab:red", "tab:purple")))
PIXELS = 160
AMPLITUDE_FLOOR = 1e-8  # the azimuthal bar chart's axis starts here: symmetry leaves some |c_m| at round-off
RMSE_DEFINITION = ("RMSE(t) = (∫|ψ(t) − ψ₀e^(−iμt)|² dV / V)^½ = ((N(0) + N(t) − 2 Re(e^(iμt)⟨ψ₀|ψ(t)⟩)) / V)^½, "
                   "V the domain volume, N the norm: the paper's (1/m Σ|Ψ − ψ|²)^½ for equal cell volumes.")


@dataclass
class Run:
    path: Path
    attrs: dict
    t: np.ndarray
    error: np.ndarray  # E(t) = 1 − |⟨ψ₀|ψ(t)⟩|
    rmse: np.ndarray
    split: float  # nan where E never passed SPLIT
    fold: int
    amplitude: np.ndarray  # |c_m|, m = 0..12
    plane: dict  # x, y, density, initial_density of the cells near z = 0

    def at(self, series, time):
        """A diagnostic series at `time`, interpolated; nan beyond the run."""
        return float(np.interp(time, self.t, series, right=np.nan))


def load(path):
    r = decgpe.load(path)
    attrs = r.provenance
    t, norm, overlap = r.diagnostics["t"], r.diagnostics["norm"], r.diagnostics["overlap"]
    fold, amplitude = r.analysis["fold"], r.analysis["azimuthal_amplitude"]
    plane = {name: r.analysis["plane"][name] for name in ("x", "y", "density", "initial_density")}
    error = 1 - np.abs(overlap)
    drift = norm[0] + norm - 2 * np.real(np.exp(1j * attrs["mu"] * t) * overlap)  # ∫|ψ − ψ₀e^(−iμt)|²
    rmse = np.sqrt(np.maximum(0, drift) / attrs["domain_volume"])
    passed = np.flatnonzero(error > SPLIT)
    split = t[passed[0]] if passed.size else np.nan
    return Run(Path(path), attrs, t, error, rmse, split, fold, amplitude, plane)


def load_set(folder, prefix):
    """{lattice: Run} of folder/<prefix>_<lattice>.h5, in the usual lattice order."""
    runs = {path.stem[len(prefix) + 1:]: path for path in Path(folder).glob(f"{prefix}_*.h5")}
    return {name: load(runs[name]) for name in lattice_order(n for n in runs if n in LATTICES)}


def load_refined(folder):
    """{lattice: [Run, ...]} of refined_<lattice>_<ops>.h5."""
    found = {}
    for path in Path(folder).glob("refined_*.h5"):
        lattice = re.fullmatch(r"refined_(\w+?)_[\d.e+]+", path.stem)[1]
        found.setdefault(lattice, []).append(load(path))
    return found


def ops(value, digits=3):
    """Operations per time unit as the case files write them: 6e9, 1.2e10."""
    return f"{value:.{digits}g}".replace("e+0", "e").replace("e+", "e")


def nominal(run):
    """The case file's operations per time unit: the run's own is a few % above, its domain being whole structures."""
    return ops(run.attrs["operations_per_time"], 2)


def fmt(value, form):
    return "—" if np.isnan(value) else format(value, form)


def split_text(run):
    return f"t = {run.split:.1f}" if np.isfinite(run.split) else f"no split by t = {run.t[-1]:.0f}"


def positive(values):
    """Log axes: E(t) starts at 0 and, with the norm not exactly conserved, dips below it early on."""
    return np.where(values > 0, values, np.nan)


def error_figure(runs):
    fig, (err, rms) = plt.subplots(1, 2, figsize=(12, 4.4), constrained_layout=True)
    for name, run in runs.items():
        colour = COLOURS[name]
        err.plot(run.t, positive(run.error), color=colour, linewidth=1,
                 label=f"{LABELS[name]} (split {split_text(run)})")
        rms.plot(run.t, positive(run.rmse), color=colour, linewidth=1, label=LABELS[name])
        if np.isfinite(run.split):
            for ax, series in ((err, run.error), (rms, run.rmse)):
                ax.plot(run.split, run.at(series, run.split), "o", color=colour, markersize=5)
    err.axhline(SPLIT, color="black", linestyle="--", linewidth=1, label=f"E = {SPLIT} (split)")
    err.set(yscale="log", ylim=(1e-6, 0.05), xlabel="t", ylabel=r"$E(t) = 1 - |\langle\psi_0|\psi(t)\rangle|$",
            title="(a) error against the stationary vortex (• split)")
    rms.axvline(RMSE_AT, color="black", linestyle=":", linewidth=1, label=f"t = {RMSE_AT:g} (table)")
    rms.set(yscale="log", ylim=(1e-5, 0.1), xlabel="t", ylabel="RMSE(t)",
            title=r"(b) RMSE against $\psi_0\,e^{-i\mu t}$ (• split)")
    for ax in (err, rms):
        ax.grid(True, which="major", alpha=0.3)
    err.legend(fontsize="small", loc="lower right")
    rms.legend(fontsize="small", loc="lower right")
    fig.suptitle(f"Vortex split per lattice, lattice centred, {nominal(next(iter(runs.values())))} operations per "
                 "time unit")
    return fig


def convergence_figure(series):
    fig, axes = plt.subplots(1, len(series), figsize=(6 * len(series), 4.2), constrained_layout=True, squeeze=False)
    for ax, (name, runs) in zip(axes.flat, series.items()):
        shades = plt.cm.viridis(np.linspace(0, 0.8, len(runs)))
        for run, shade in zip(runs, shades):
            ax.plot(run.t, positive(run.error), color=shade, linewidth=1,
                    label=f"{ops(run.attrs['operations_per_time'])} ops/time, h = {run.attrs['h']:.3f}: "
                          f"split {split_text(run)}")
        ax.axhline(SPLIT, color="black", linestyle="--", linewidth=1)
        ax.set(yscale="log", ylim=(1e-6, 0.05), xlabel="t", ylabel=r"$E(t) = 1 - |\langle\psi_0|\psi(t)\rangle|$",
               title=LABELS[name])
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    resolutions = sorted({nominal(run) for runs in series.values() for run in runs}, key=float)
    fig.suptitle(f"Resolution: E(t) at {', '.join(resolutions)} operations per time unit")
    return fig


def pixel_image(x, y, values, extent):
    """Mean of the cells' values per pixel; a pixel no cell centre falls in takes the mean of its filled
    4-neighbours, repeatedly, so the image shows the nearest cells' values rather than holes."""
    x0, x1, y0, y1 = extent
    ix = np.clip(((x - x0) / (x1 - x0) * PIXELS).astype(int), 0, PIXELS - 1)
    iy = np.clip(((y - y0) / (y1 - y0) * PIXELS).astype(int), 0, PIXELS - 1)
    sums, counts = np.zeros((PIXELS, PIXELS)), np.zeros((PIXELS, PIXELS))
    np.add.at(sums, (iy, ix), values)
    np.add.at(counts, (iy, ix), 1)
    image = np.divide(sums, counts, out=np.full_like(sums, np.nan), where=counts > 0)
    while np.isnan(image).any():
        padded = np.pad(image, 1, constant_values=np.nan)
        near = np.stack([padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]])
        found = np.isfinite(near).sum(axis=0)
        image = np.where(np.isnan(image) & (found > 0), np.nansum(near, axis=0) / np.maximum(found, 1), image)
    return image


def view_radius(plane):
    """Half the side of the square shown: the condensate's radius at t = 0 (cells above 1% of the peak density) and
    a margin; outside, |ψ|² is nil."""
    inside = plane["initial_density"] > 0.01 * plane["initial_density"].max()
    return 1.1 * np.hypot(plane["x"][inside], plane["y"][inside]).max()


def density_figure(runs, placement):
    radius = max(view_radius(run.plane) for run in runs.values())
    extent = (-radius, radius, -radius, radius)
    images = {name: (pixel_image(run.plane["x"], run.plane["y"], run.plane["density"], extent),
                     pixel_image(run.plane["x"], run.plane["y"], run.plane["density"] - run.plane["initial_density"],
                                 extent)) for name, run in runs.items()}
    top = max(density.max() for density, _ in images.values())
    change = max(np.abs(delta).max() for _, delta in images.values())
    fig, axes = plt.subplots(2, len(runs), figsize=(2.6 * len(runs) + 1, 6), sharex=True, sharey=True,
                             constrained_layout=True, squeeze=False)
    ticks = np.arange(-np.floor(radius / 2) * 2, radius, 2)
    for (name, run), (upper, lower) in zip(runs.items(), axes.T):
        density, delta = images[name]
        shown = upper.imshow(density, origin="lower", extent=extent, cmap="viridis", vmin=0, vmax=top)
        diverging = lower.imshow(delta, origin="lower", extent=extent, cmap="RdBu_r", vmin=-change, vmax=change)
        upper.set_title(f"{LABELS[name]}: split {split_text(run)}\n{run.fold}-fold", fontsize="medium")
        lower.set(xlabel="x", xticks=ticks, yticks=ticks)
    axes[0, 0].set_ylabel("y")
    axes[1, 0].set_ylabel("y")
    fig.colorbar(shown, ax=axes[0], label="|ψ|² at the split", shrink=0.9)
    fig.colorbar(diverging, ax=axes[1], label="|ψ|² − |ψ₀|²", shrink=0.9)
    where = "shifted by −1/8 structure edge (the paper code's placement)" if placement else "lattice centred"
    fig.suptitle(f"Density on z = 0 at the split, {where}")
    return fig


def azimuthal_figure(runs, placed):
    fig, axes = plt.subplots(2, 3, figsize=(11, 5.6), sharex=True, sharey=True, constrained_layout=True)
    m = np.arange(1, 13)
    top = 3 * max(run.amplitude[1:13].max() for run in [*runs.values(), *placed.values()])
    for ax, (name, run) in zip(axes.flat, runs.items()):
        other = placed.get(name)
        width = 0.4 if other else 0.8
        ax.bar(m - (width / 2 if other else 0), run.amplitude[1:13], width, color=COLOURS[name], label="centred")
        if other:
            ax.bar(m + width / 2, other.amplitude[1:13], width, color="white", edgecolor=COLOURS[name], hatch="///",
                   label="placement −1/8")
        folds = f"{run.fold}-fold" + (f" (placement: {other.fold}-fold)" if other else "")
        ax.set_title(f"{LABELS[name]}: {folds}", fontsize="medium")
        ax.set(yscale="log", xticks=m, ylim=(AMPLITUDE_FLOOR, top))
        ax.grid(True, axis="y", alpha=0.3)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("azimuthal order m")
    for ax in axes[:, 0]:
        ax.set_ylabel("|c_m|")
    axes.flat[0].legend(fontsize="small")
    fig.suptitle("Azimuthal amplitudes of the density change on z = 0 at the split")
    return fig


def accuracy_table(runs, placed):
    header = ["lattice", "h", "S (structures)", "cells", "ops per time unit", "split t", "fold",
              f"RMSE(t = {RMSE_AT:g})", "mean dual edge", "dual edge / λ_eff", "μ", "placement split t",
              "placement fold"]
    rows = []
    for name, run in runs.items():
        a = run.attrs
        other = placed.get(name)
        rows.append([LABELS[name], f"{a['h']:.4f}", "×".join(map(str, a["structures"])), f"{a['cells']:,}",
                     ops(a["operations_per_time"]), fmt(run.split, ".2f"), run.fold,
                     fmt(run.at(run.rmse, RMSE_AT), ".2e"), f"{a['dual_edge_mean']:.4f}",
                     f"{a['dual_edge_mean'] / a['effective_wavelength']:.1%}", f"{a['mu']:.3f}",
                     fmt(other.split, ".2f") if other else "—", other.fold if other else "—"])
    return markdown_table(header, rows)


def dual_edge_table(runs):
    cubic = runs["cubic"].attrs["dual_edge_mean"]
    header = ["lattice", "mean dual edge", "max dual edge", "relative to cubic", "paper (Table 1)"]
    rows = [[LABELS[name], f"{run.attrs['dual_edge_mean']:.4f}", f"{run.attrs['dual_edge_max']:.4f}",
             f"{run.attrs['dual_edge_mean'] / cubic:.2f}", f"{PAPER_DUAL_EDGE[name]:.2f}"]
            for name, run in runs.items()]
    return markdown_table(header, rows)


def convergence_table(series):
    header = ["lattice", "ops per time unit", "h", "cells", "dt", "split t", "fold", f"E(t = {RMSE_AT:g})",
              f"RMSE(t = {RMSE_AT:g})"]
    rows = [[LABELS[name], ops(run.attrs["operations_per_time"]), f"{run.attrs['h']:.4f}",
             f"{run.attrs['cells']:,}", f"{run.attrs['dt']:.3g}", fmt(run.split, ".2f"), run.fold,
             fmt(run.at(run.error, RMSE_AT), ".2e"), fmt(run.at(run.rmse, RMSE_AT), ".2e")]
            for name, runs in series.items() for run in runs]
    return markdown_table(header, rows)


def write_table(result, out_dir, stem, title, table, note=""):
    path = Path(out_dir) / f"{stem}.md"
    path.write_text(f"# {title}\n\n{table}" + (f"\n{note}\n" if note else ""))
    result.files.append(path)
    result.tables.append(f"**{title}**\n\n{table}")


def render_error(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs = load_set(folder, "accuracy")
    result = Rendered(inputs=[run.path for run in runs.values()])
    fig = error_figure(runs)
    footer(fig, device_dir, result.inputs, f"• split: the first diagnostics time with E > {SPLIT}.\n{RMSE_DEFINITION}")
    result.files += save_figure(fig, out_dir, "fig5-error")
    result.notes.append(RMSE_DEFINITION)
    refined = load_refined(folder)
    series = {name: sorted([runs[name], *refined[name]], key=lambda r: r.attrs["operations_per_time"])
              for name in lattice_order(refined) if name in runs}
    if not series:
        result.notes.append("No refined_<lattice>_<ops>.h5: no convergence figure.")
        return result
    inputs = [run.path for same_lattice in series.values() for run in same_lattice]
    result.inputs += [path for path in inputs if path not in result.inputs]
    fig = convergence_figure(series)
    footer(fig, device_dir, inputs)
    result.files += save_figure(fig, out_dir, "fig5-convergence")
    write_table(result, out_dir, "fig5-convergence", "Split time against resolution", convergence_table(series),
                RMSE_DEFINITION)
    return result


def render_tables(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs, placed = load_set(folder, "accuracy"), load_set(folder, "placement")
    result = Rendered(inputs=[run.path for run in [*runs.values(), *placed.values()]])
    write_table(result, out_dir, "accuracy", "Accuracy per lattice", accuracy_table(runs, placed),
                f"Split: first diagnostics time with E > {SPLIT}. {RMSE_DEFINITION} λ_eff: the effective "
                "wavelength; the paper asks dual edges below 5% of it. Placement: the same run with the lattice "
                "shifted by −1/8 structure edge.")
    result.notes.append(f"{RMSE_DEFINITION} Placement columns: lattice shifted by −1/8 structure edge.")
    if "cubic" in runs:
        write_table(result, out_dir, "table1-dual-edges", "Table 1: dual-edge lengths relative to cubic",
                    dual_edge_table(runs), "Mean |E*| over the faces of the replicable structure, times h, at "
                    "equal work (operations per time unit), divided by the cubic grid's.")
        result.notes.append("Table 1: mean |E*| over the structure's faces times h, divided by the cubic grid's, "
                            "beside the paper's values.")
    return result


def render_density(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs, placed = load_set(folder, "accuracy"), load_set(folder, "placement")
    result = Rendered(inputs=[run.path for run in [*runs.values(), *placed.values()]])
    caption = (f"|ψ|² of the cells within half a structure of z = 0, averaged per pixel ({PIXELS}×{PIXELS} over the "
               "condensate); pixels no cell centre falls in are filled from their nearest filled neighbours. "
               "Colour scales shared by all lattices.")
    for stem, chosen, shifted in (("fig6-density-centred", runs, False), ("fig6-density-placement", placed, True)):
        if chosen:
            fig = density_figure(chosen, shifted)
            footer(fig, device_dir, [run.path for run in chosen.values()], caption)
            result.files += save_figure(fig, out_dir, stem)
    if not placed:
        result.notes.append("No placement_<lattice>.h5: no placement figure.")
    fig = azimuthal_figure(runs, placed)
    hidden = sum(int((run.amplitude[1:13] < AMPLITUDE_FLOOR).sum()) for run in [*runs.values(), *placed.values()])
    footer(fig, device_dir, result.inputs, "|c_m|: azimuthal Fourier amplitudes of |ψ|² − |ψ₀|² on z = 0; the fold "
           f"is the dominant m ≥ 2. {hidden} amplitudes below the axis ({AMPLITUDE_FLOOR:g}) are not drawn.")
    result.files += save_figure(fig, out_dir, "fig6-azimuthal")
    result.notes.append(caption)
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render_error, render_tables, render_density)
