"""The κ = 10 vortex split on each lattice (paper §5.1), from decgpe run's HDF5 output in DEVICE_FOLDER/physics/
(scripts/physics-run.sh): Fig 5 (error against time, convergence), the accuracy table with Table 1 (dual-edge
lengths) and Fig 6 (density on z = 0 at the split, azimuthal amplitudes).

    physics.py DEVICE_FOLDER [--out DIR]

accuracy_<lattice>.h5 is the lattice centred at 6e9 operations per time unit, refined_<lattice>_<ops>.h5 the same
at finer resolutions, placement_<lattice>.h5 the lattice shifted by −1/8 structure edge (the paper code's placement).
Each run stops at the split: the first diagnostics time at which E(t) = 1 − |⟨ψ₀|ψ(t)⟩| > 0.01. A run that ends
before E passes 0.01 (the reduced CPU cases of scripts/main.sh --reports) is labelled "no split by t = …" and
claims no fold.

Units are the paper's dimensionless ones (its eq. 2): lengths in a_ho = √(ħ/(m ω⊥)), time in 1/ω⊥, |ψ|² in a_ho⁻³
(∫|ψ|² d³r = 1), ψ and the RMSEs in a_ho^(−3/2).
"""

import re
from dataclasses import dataclass
from pathlib import Path

import matplotlib.tri as mtri
import numpy as np

from common import (decgpe, run_on_folder, LABELS, LATTICES, Rendered, footer, lattice_order, markdown_table, plt,
                    registry_entries, save_figure)

SPLIT = decgpe.results.SPLIT_ERROR  # the E(t) at which the runs stop: decgpe's split
RMSE_AT = 10.0  # the time at which the table compares RMSEs
# The paper's Table 1: data about the paper, not a list of lattices (one it lacks is tabled without a paper value).
PAPER_DUAL_EDGE = {"cubic": 1.0, "fcc": 1.09, "bcc": 0.80, "a15": 0.93, "c15": 0.68, "z": 0.99}
COLOURS = dict(zip(LATTICES, ("tab:gray", "tab:orange", "tab:blue", "tab:green", "tab:red", "tab:purple", "tab:brown",
                              "tab:pink", "tab:olive", "tab:cyan")))
RASTER, OVERSAMPLE = 300, 4  # Fig 6: pixels per panel side, interpolant samples per pixel side
NEAR_TIE = 2.0  # |c_m1| / |c_m2| below this: the split is labelled a near tie "m1/m2" rather than "m1-fold"
AMPLITUDE_FLOOR = 1e-8  # a_ho⁻¹: the azimuthal bar chart's axis starts here: symmetry leaves some |c_m| at round-off
RMSE_DEFINITION = ("RMSE(t), the paper's definition (volume-weighted): (∫|ψ(t) − ψ₀e^(−iμt)|² dV / V)^½ = "
                   "((N(0) + N(t) − 2 Re(e^(iμt)⟨ψ₀|ψ(t)⟩)) / V)^½, V the domain volume, N the norm; the paper's "
                   "(1/m Σ|Ψ − ψ|²)^½ for equal cell volumes. It compares with the exact phase e^(−iμt): once the "
                   "grid's μ_h − μ has turned the phase by π it reaches 2/√V (ψ anti-phase), whatever the vortex's "
                   "shape.")
PHASE_RMSE_DEFINITION = ("Phase-corrected RMSE(t) = min over a global phase φ of (∫|ψ(t) − e^(iφ)ψ₀|² dV / V)^½ = "
                         "((N(0) + N(t) − 2|⟨ψ₀|ψ(t)⟩|) / V)^½: the error in the vortex's shape; with the norm kept, "
                         "≈ (2E(t)/V)^½.")
UNITS = "Units: lengths in a_ho, t in 1/ω⊥, |ψ|² in a_ho⁻³, ψ and RMSE in a_ho^(−3/2) (the paper's eq. 2)."


def near_tie_note():
    return (f"Fold: the m ≥ 2 with the largest azimuthal amplitude |c_m| of the density change on z = 0 at the split; "
            f"where the strongest other m (not a multiple of it: those are its harmonics) is within a factor "
            f"{NEAR_TIE:g} (|c_m1|/|c_m2| < {NEAR_TIE:g}), a near tie \"m1/m2, ratio r\". A run that never split "
            "claims no fold.")


@dataclass
class Run:
    path: Path
    attrs: dict
    t: np.ndarray
    error: np.ndarray  # E(t) = 1 − |⟨ψ₀|ψ(t)⟩|
    rmse: np.ndarray  # the paper's definition (volume-weighted), against ψ₀e^(−iμt)
    rmse_phase: np.ndarray  # minimised over a global phase
    phase: np.ndarray  # arg(e^(iμt)⟨ψ₀|ψ(t)⟩), unwrapped: (μ − μ_h)t for a grid chemical potential μ_h
    split: float  # nan where E never passed SPLIT
    fold: int  # the dominant m ≥ 2
    runner_up: int  # the strongest m ≥ 2 that is not a multiple of `fold`
    ratio: float  # |c_fold| / |c_runner_up|
    amplitude: np.ndarray  # |c_m|, m = 0..12
    plane: dict  # x, y, density, initial_density of the cells near z = 0
    slab: float  # the thickness of that slab, |z| < slab/2: one structure edge along z

    def at(self, series, time):
        """A diagnostic series at `time`, interpolated; nan beyond the run."""
        return float(np.interp(time, self.t, series, right=np.nan))

    @property
    def ceiling(self):
        """The paper's RMSE for ψ = −ψ₀e^(−iμt) at unit norm: 2/√V."""
        return 2 / np.sqrt(self.attrs["domain_volume"])

    @property
    def split_happened(self):
        return bool(np.isfinite(self.split))

    @property
    def near_tie(self):
        return self.ratio < NEAR_TIE

    def phase_drift(self, until=RMSE_AT):
        """μ − μ_h: the slope of the overlap's phase over t ≤ `until` (least squares)."""
        early = self.t <= until
        return float(np.polyfit(self.t[early], self.phase[early], 1)[0]) if early.sum() > 1 else np.nan


def dominant_folds(amplitude):
    """(m1, m2, |c_m1|/|c_m2|): m1 the largest |c_m| over m ≥ 2 (as decgpe's fold), m2 the largest over the m ≥ 2 that
    are not multiples of m1 (a 3-fold pattern's m = 6 is its harmonic, not a rival)."""
    orders = range(2, len(amplitude))
    m1 = max(orders, key=lambda m: (amplitude[m], -m))
    m2 = max((m for m in orders if m % m1), key=lambda m: (amplitude[m], -m))
    return m1, m2, float(amplitude[m1] / amplitude[m2]) if amplitude[m2] > 0 else np.inf


def fold_label(run, word="-fold"):
    """What the split looks like: "3-fold", a near tie "4/3, ratio 1.13", or "no split by t = 10"."""
    if not run.split_happened:
        return f"no split by t = {run.t[-1]:.3g}"
    if run.near_tie:
        return f"{run.fold}/{run.runner_up}, ratio {run.ratio:.2f}"
    return f"{run.fold}{word}"


def ratio_text(run):
    if not run.split_happened:
        return "—"
    return f"{run.ratio:.3g}" if run.ratio < 1000 else "> 1000"


def load(path):
    r = decgpe.load(path)
    attrs = r.provenance
    t, norm, overlap = r.diagnostics["t"], r.diagnostics["norm"], r.diagnostics["overlap"]
    amplitude = r.analysis["azimuthal_amplitude"]
    plane = {name: r.analysis["plane"][name] for name in ("x", "y", "density", "initial_density")}
    error = 1 - np.abs(overlap)
    rotated = np.exp(1j * attrs["mu"] * t) * overlap  # e^(iμt)⟨ψ₀|ψ(t)⟩
    drift = norm[0] + norm - 2 * np.real(rotated)  # ∫|ψ − ψ₀e^(−iμt)|²
    shape = norm[0] + norm - 2 * np.abs(overlap)  # min over φ of ∫|ψ − e^(iφ)ψ₀|²
    rmse = np.sqrt(np.maximum(0, drift) / attrs["domain_volume"])
    rmse_phase = np.sqrt(np.maximum(0, shape) / attrs["domain_volume"])
    split = np.nan if r.analysis["split_t"] is None else r.analysis["split_t"]
    m1, m2, ratio = dominant_folds(amplitude)
    if r.analysis["fold"] not in (None, m1):  # None: no split, and no fold to check
        raise ValueError(f"{path}: /analysis fold {r.analysis['fold']} is not the largest |c_m|, m ≥ 2 (m = {m1})")
    return Run(Path(path), attrs, t, error, rmse, rmse_phase, np.unwrap(np.angle(rotated)), split, m1, m2, ratio,
               amplitude, plane, float(r.box[2]))


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
    return f"t = {run.split:.1f}" if run.split_happened else f"no split by t = {run.t[-1]:.3g}"


def positive(values):
    """Log axes: E(t) starts at 0 and, with the norm not exactly conserved, dips below it early on."""
    return np.where(values > 0, values, np.nan)


def error_figure(runs):
    fig, (err, rms, shape) = plt.subplots(1, 3, figsize=(17, 4.8), constrained_layout=True)
    for name, run in runs.items():
        colour = COLOURS[name]
        err.plot(run.t, positive(run.error), color=colour, linewidth=1,
                 label=f"{LABELS[name]} (split {split_text(run)})")
        rms.plot(run.t, positive(run.rmse), color=colour, linewidth=1, label=LABELS[name])
        shape.plot(run.t, positive(run.rmse_phase), color=colour, linewidth=1, label=LABELS[name])
        if run.split_happened:
            for ax, series in ((err, run.error), (rms, run.rmse), (shape, run.rmse_phase)):
                ax.plot(run.split, run.at(series, run.split), "o", color=colour, markersize=5)
    err.axhline(SPLIT, color="black", linestyle="--", linewidth=1, label=f"E = {SPLIT} (split)")
    err.set(yscale="log", ylim=(1e-6, 0.05), ylabel=r"$E(t) = 1 - |\langle\psi_0|\psi(t)\rangle|$",
            title="(a) error against the stationary vortex")
    ceilings = [run.ceiling for run in runs.values()]
    low, high = min(ceilings), max(ceilings)
    ceiling = f"{low:.3f}" if f"{low:.3f}" == f"{high:.3f}" else f"{low:.3f}–{high:.3f}"
    for name, run in runs.items():  # each lattice's own: V differs with its whole structures
        rms.axhline(run.ceiling, color=COLOURS[name], linestyle="--", linewidth=0.8)
    rms.plot([], [], color="0.4", linestyle="--", linewidth=0.8,
             label=f"2/√V, one line per lattice's V\n(its colour): {ceiling} (anti-phase)")
    for ax in (rms, shape):
        ax.axvline(RMSE_AT, color="black", linestyle=":", linewidth=1, label=f"t = {RMSE_AT:g} (table)")
        ax.set(yscale="log", ylim=(1e-5, 0.1), ylabel=r"RMSE(t)  ($a_{ho}^{-3/2}$)")
    rms.set_title("(b) RMSE, the paper's definition (volume-weighted):\n"
                  r"against $\psi_0\,e^{-i\mu t}$, a phase error once $(\mu_h - \mu)\,t$ grows", fontsize="medium")
    shape.set_title("(c) phase-corrected RMSE: against $e^{i\\varphi}\\psi_0$,\n"
                    "minimised over the global phase φ (the vortex's shape)", fontsize="medium")
    for ax in (err, rms, shape):
        ax.set_xlabel(r"t  ($1/\omega_\perp$)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    fig.suptitle(f"Vortex split per lattice, lattice centred, {nominal(next(iter(runs.values())))} operations per "
                 "time unit (• split)")
    return fig


def quiet_corner(ax, runs):
    """The legend's place: the upper or lower left or right corner of the axes whose quarter holds the fewest data
    points (log y), so that it covers no curve it can avoid."""
    (x0, x1), (y0, y1) = ax.get_xlim(), np.log10(ax.get_ylim())
    t = np.concatenate([run.t for run in runs])
    e = np.log10(np.concatenate([positive(run.error) for run in runs]))
    left, low = t < x0 + 0.5 * (x1 - x0), e < y0 + 0.5 * (y1 - y0)
    counts = {f"{v} {h}": int(np.sum((low == (v == "lower")) & (left == (h == "left")) & np.isfinite(e)))
              for v in ("upper", "lower") for h in ("left", "right")}
    return min(counts, key=lambda corner: (counts[corner], corner != "lower right"))


def convergence_figure(series):
    fig, axes = plt.subplots(1, len(series), figsize=(6 * len(series), 4.2), constrained_layout=True, squeeze=False)
    for ax, (name, runs) in zip(axes.flat, series.items()):
        shades = plt.cm.viridis(np.linspace(0, 0.8, len(runs)))
        for run, shade in zip(runs, shades):
            ax.plot(run.t, positive(run.error), color=shade, linewidth=1,
                    label=f"{ops(run.attrs['operations_per_time'])} ops/time, h = {run.attrs['h']:.3f} a_ho: "
                          f"split {split_text(run)}")
        ax.axhline(SPLIT, color="black", linestyle="--", linewidth=1, label=f"E = {SPLIT} (split)")
        ax.set(yscale="log", ylim=(1e-6, 0.05), xlabel=r"t  ($1/\omega_\perp$)",
               ylabel=r"$E(t) = 1 - |\langle\psi_0|\psi(t)\rangle|$", title=LABELS[name])
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small", loc=quiet_corner(ax, runs))
    resolutions = sorted({nominal(run) for runs in series.values() for run in runs}, key=float)
    fig.suptitle(f"Resolution: E(t) at {', '.join(resolutions)} operations per time unit")
    return fig


def plane_images(plane, radius):
    """|ψ|² and |ψ|² − |ψ₀|² on a RASTER² grid over [−radius, radius]², from the plane's scattered cells: linear
    interpolation on their Delaunay triangulation, evaluated OVERSAMPLE² times per pixel and averaged (each pixel the
    mean of the interpolant over its area). Binning cells into pixels made moiré where the lattice's rows beat
    against the pixel grid; the interpolant has no such pattern, and averaging over the pixel keeps the cells'
    own scale from aliasing. The slab |z| < half a structure holds cells at several heights over one x, y on some
    lattices: those are averaged into one vertex."""
    xy = np.round(np.column_stack([plane["x"], plane["y"]]), 9)
    unique, inverse = np.unique(xy, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.bincount(inverse)
    triangulation = mtri.Triangulation(unique[:, 0], unique[:, 1])
    n = RASTER * OVERSAMPLE
    step = 2 * radius / n
    grid = -radius + step * (np.arange(n) + 0.5)  # sample points at sub-pixel centres
    gx, gy = (a.ravel() for a in np.meshgrid(grid, grid))
    found = triangulation.get_trifinder()(gx, gy)
    inside = found >= 0
    corners = triangulation.triangles[found[inside]]  # (samples, 3)
    x, y = triangulation.x[corners], triangulation.y[corners]
    # barycentric coordinates of each sample in its triangle
    det = (y[:, 1] - y[:, 2]) * (x[:, 0] - x[:, 2]) + (x[:, 2] - x[:, 1]) * (y[:, 0] - y[:, 2])
    w0 = ((y[:, 1] - y[:, 2]) * (gx[inside] - x[:, 2]) + (x[:, 2] - x[:, 1]) * (gy[inside] - y[:, 2])) / det
    w1 = ((y[:, 2] - y[:, 0]) * (gx[inside] - x[:, 2]) + (x[:, 0] - x[:, 2]) * (gy[inside] - y[:, 2])) / det
    weights = np.column_stack([w0, w1, 1 - w0 - w1])

    def image(values):
        at_vertex = np.bincount(inverse, weights=values) / counts
        samples = np.full(n * n, np.nan)
        samples[inside] = (at_vertex[corners] * weights).sum(axis=1)
        return np.nanmean(samples.reshape(RASTER, OVERSAMPLE, RASTER, OVERSAMPLE), axis=(1, 3))

    return image(plane["density"]), image(plane["density"] - plane["initial_density"])


def view_radius(plane):
    """Half the side of the square shown: the condensate's radius at t = 0 (cells above 1% of the peak density) and
    a margin; outside, |ψ|² is nil."""
    inside = plane["initial_density"] > 0.01 * plane["initial_density"].max()
    return 1.1 * np.hypot(plane["x"][inside], plane["y"][inside]).max()


def density_figure(runs, placement):
    radius = max(view_radius(run.plane) for run in runs.values())
    extent = (-radius, radius, -radius, radius)
    images = {name: plane_images(run.plane, radius) for name, run in runs.items()}
    top = max(np.nanmax(density) for density, _ in images.values())
    change = max(np.nanmax(np.abs(delta)) for _, delta in images.values())
    fig, axes = plt.subplots(2, len(runs), figsize=(2.6 * len(runs) + 1.4, 6), sharex=True, sharey=True,
                             constrained_layout=True, squeeze=False)
    ticks = np.arange(-np.floor(radius / 2) * 2, radius, 2)
    for (name, run), (upper, lower) in zip(runs.items(), axes.T):
        density, delta = images[name]
        shown = upper.imshow(density, origin="lower", extent=extent, cmap="viridis", vmin=0, vmax=top,
                             interpolation="antialiased")
        diverging = lower.imshow(delta, origin="lower", extent=extent, cmap="RdBu_r", vmin=-change, vmax=change,
                                 interpolation="antialiased")
        upper.set_title(f"{LABELS[name]}: split {split_text(run)}\n{fold_label(run)}" if run.split_happened else
                        f"{LABELS[name]}: {fold_label(run)}\n(no fold)", fontsize="medium")
        for ax in (upper, lower):
            ax.set(xlim=(-radius, radius), ylim=(-radius, radius), aspect="equal", xticks=ticks, yticks=ticks)
        lower.set_xlabel(r"x  ($a_{ho}$)")
    axes[0, 0].set_ylabel(r"y  ($a_{ho}$)")
    axes[1, 0].set_ylabel(r"y  ($a_{ho}$)")
    when = "at the split" if all(run.split_happened for run in runs.values()) else "at the split (or the run's end)"
    fig.colorbar(shown, ax=axes[0], label=rf"$|\psi|^2$ {when}  ($a_{{ho}}^{{-3}}$)", shrink=0.9)
    fig.colorbar(diverging, ax=axes[1], label=r"$|\psi|^2 - |\psi_0|^2$  ($a_{ho}^{-3}$)", shrink=0.9)
    where = "shifted by −1/8 structure edge (the paper code's placement)" if placement else "lattice centred"
    fig.suptitle(f"Density on z = 0 {when}, {where}")
    return fig


def slab_amplitude(run):
    """|c_m| / d: the slab's sum divided by its thickness d (one structure edge), so that lattices whose structures
    differ in size compare: ≈ |∫∫ δρ(x, y, 0) e^(−imφ) dx dy| where δρ varies little across d."""
    return run.amplitude / run.slab


def slab_note(runs):
    thickness = {name: run.slab for name, run in runs.items()}
    thin, thick = min(thickness, key=thickness.get), max(thickness, key=thickness.get)
    return (f"|c_m| = |Σ|B_i| δρ_i e^(−imφ_i)| sums the cells of the slab |z| < d/2, d one structure edge: "
            f"{thickness[thin]:.3f} a_ho ({LABELS[thin]}) to {thickness[thick]:.3f} a_ho ({LABELS[thick]}), "
            f"{thickness[thick] / thickness[thin]:.1f}× apart; drawn divided by d so that heights compare across "
            "panels: ≈ |∫∫ δρ(x, y, 0) e^(−imφ) dx dy|, δρ = |ψ|² − |ψ₀|², where δρ varies little across d.")


def azimuthal_figure(runs, placed):
    cols = min(3, len(runs))
    rows = -(-len(runs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.7 * cols, 2.9 * rows), sharex=True, sharey=True,
                             constrained_layout=True, squeeze=False)
    m = np.arange(1, 13)
    top = 3 * max(slab_amplitude(run)[1:13].max() for run in [*runs.values(), *placed.values()])
    for ax, (name, run) in zip(axes.flat, runs.items()):
        other = placed.get(name)
        width = 0.4 if other else 0.8
        ax.bar(m - (width / 2 if other else 0), slab_amplitude(run)[1:13], width, color=COLOURS[name],
               label="lattice centred")
        if other:
            ax.bar(m + width / 2, slab_amplitude(other)[1:13], width, color="white", edgecolor=COLOURS[name],
                   hatch="///", label="placement −1/8 (shifted)")
        title = f"{LABELS[name]}: {fold_label(run)}" + (f"\nplacement: {fold_label(other)}" if other else "")
        ax.set_title(title, fontsize="medium")
        ax.set(yscale="log", xticks=m, ylim=(AMPLITUDE_FLOOR, top))
        ax.grid(True, axis="y", alpha=0.3)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("azimuthal order m")
    for ax in axes[:, 0]:
        ax.set_ylabel(r"$|c_m|\,/\,d$  ($a_{ho}^{-1}$)")
    axes.flat[0].legend(fontsize="small")
    when = "at the split" if all(run.split_happened for run in runs.values()) else "at the split (or the run's end)"
    fig.suptitle(f"Azimuthal amplitudes of the density change on z = 0 {when}")
    return fig


def accuracy_table(runs, placed):
    header = ["lattice", "h", "S (structures)", "cells", "ops per time unit", "split t", "fold",
              "amplitude ratio m1 : m2", f"RMSE(t = {RMSE_AT:g}), paper's", f"phase-corrected RMSE(t = {RMSE_AT:g})", "μ − μ_h",
              "mean dual edge", "dual edge / λ_eff", "μ", "placement split t", "placement fold"]
    rows = []
    for name, run in runs.items():
        a = run.attrs
        other = placed.get(name)
        rows.append([LABELS[name], f"{a['h']:.4f}", "×".join(map(str, a["structures"])), f"{a['cells']:,}",
                     ops(a["operations_per_time"]), fmt(run.split, ".2f"), fold_label(run), ratio_text(run),
                     fmt(run.at(run.rmse, RMSE_AT), ".2e"), fmt(run.at(run.rmse_phase, RMSE_AT), ".2e"),
                     fmt(run.phase_drift(), ".4f"), f"{a['dual_edge_mean']:.4f}",
                     f"{a['dual_edge_mean'] / a['effective_wavelength']:.1%}", f"{a['mu']:.3f}",
                     fmt(other.split, ".2f") if other else "—", fold_label(other) if other else "—"])
    return markdown_table(header, rows)


PLACEMENT = ("placement −1/8: the same run with the lattice shifted by −1/8 structure edge along each of x, y and z "
             "(the paper code's placement)")


def ranking_note(runs, placed):
    """Which lattices' split-time order changes when the lattice is shifted (placement_<lattice>.h5), with both sets
    of times; "" without placement runs."""
    both = [name for name in runs if name in placed and runs[name].split_happened and placed[name].split_happened]
    if len(both) < 2:
        return ""
    swapped = {name for a in both for b in both
               for name in (a, b) if (runs[a].split - runs[b].split) * (placed[a].split - placed[b].split) < 0}
    if not swapped:
        return (f"The split-time ranking of {', '.join(LABELS[n] for n in both)} is the same with the lattice shifted "
                "by −1/8 structure edge (placement_<lattice>.h5).")
    order = sorted(swapped, key=lambda n: -runs[n].split)
    names = ", ".join(LABELS[n] for n in order[:-1]) + f" and {LABELS[order[-1]]}"
    times = " / ".join(f"{runs[n].split:.1f}" for n in order)
    moved = " / ".join(f"{placed[n].split:.1f}" for n in order)
    return (f"The split-time ranking of {names} depends on the placement: they split at t = {times} with the lattice "
            f"centred, at {moved} with it shifted by −1/8 structure edge (placement_<lattice>.h5); the order of the "
            "others holds.")


def phase_note(runs):
    """How much of the paper's RMSE at RMSE_AT the global phase alone gives: (2(1 − cos φ)/V)^½ at unit norm."""
    shares = []
    for run in runs.values():
        phase, paper = run.at(run.phase, RMSE_AT), run.at(run.rmse, RMSE_AT)
        if np.isfinite(paper) and paper > 0:
            shares.append(np.sqrt(2 * (1 - np.cos(phase)) / run.attrs["domain_volume"]) / paper)
    if not shares:
        return ""
    drifts = [run.phase_drift() for run in runs.values()]
    sign = (" (positive on every lattice: the grid's chemical potential μ_h is below the continuum's)"
            if all(d > 0 for d in drifts) else "")
    return (f"μ − μ_h: the slope of φ(t) = arg(e^(iμt)⟨ψ₀|ψ(t)⟩) over t ≤ {RMSE_AT:g}{sign}. The global phase alone, (2(1 − cos φ({RMSE_AT:g}))/V)^½, gives "
            f"{min(shares):.1%}–{max(shares):.1%} of the paper's RMSE at t = {RMSE_AT:g}: that definition measures "
            "μ_h − μ; the phase-corrected RMSE measures the shape.")


# The shortest dual edge |E*| of each lattice's replicable structure, in structure edges (`decgpe list lattices
# --json`, the min over the faces' dual_edge_length of `decgpe lattice NAME --json`). Cubic, FCC and BCC have one
# dual-edge length; the HDF5 files record the mean and the largest, not the shortest.
SHORTEST_DUAL_EDGE = {name: entry["shortest_dual_edge"] for name, entry in registry_entries("lattices").items()}
PAPER_OPERATIONS = 6e9  # §5.1: Σ_i #J_i / Δt per time unit, equal on every lattice


def dual_edge_table(runs):
    cubic = runs["cubic"].attrs["dual_edge_mean"]
    header = ["lattice", "mean dual edge", "max dual edge", "relative to cubic (mean)", "shortest / cubic's",
              "max / cubic's", "paper (Table 1)", "ops per time unit"]
    rows = [[LABELS[name], f"{run.attrs['dual_edge_mean']:.4f}", f"{run.attrs['dual_edge_max']:.4f}",
             f"{run.attrs['dual_edge_mean'] / cubic:.2f}",
             f"{SHORTEST_DUAL_EDGE[name] * run.attrs['h'] / cubic:.2f}",
             f"{run.attrs['dual_edge_max'] / cubic:.2f}",
             f"{PAPER_DUAL_EDGE[name]:.2f}" if name in PAPER_DUAL_EDGE else "—",
             ops(run.attrs["operations_per_time"])]
            for name, run in runs.items()]
    return markdown_table(header, rows)


def table1_differences(runs):
    """Each difference between our Table 1 and the paper's, with the numbers that show it."""
    cubic = runs["cubic"].attrs["dual_edge_mean"]

    def rel(name, key="dual_edge_mean"):
        return runs[name].attrs[key] / cubic

    def shortest(name):
        return SHORTEST_DUAL_EDGE[name] * runs[name].attrs["h"] / cubic

    notes = []
    in_paper = [n for n in runs if n in PAPER_DUAL_EDGE]  # which statistic the paper used: its lattices tell
    uniform = [n for n in in_paper if np.isclose(runs[n].attrs["dual_edge_mean"], runs[n].attrs["dual_edge_max"])]
    spread = [n for n in in_paper if n not in uniform]
    statistics = {"shortest": shortest, "mean": rel, "largest": lambda n: rel(n, "dual_edge_max")}
    inside = all(shortest(n) <= PAPER_DUAL_EDGE[n] <= rel(n, "dual_edge_max") for n in spread)
    matching = [what for what, value in statistics.items()
                if all(abs(value(n) - PAPER_DUAL_EDGE[n]) <= 0.005 for n in spread)]
    notes.append(
        "**Which length.** The paper gives one number per lattice (its caption: \"the lengths of dual 1-cells\"; "
        "§5.1: \"distances of two adjacent dual 0-cells\") and does not say which statistic; ours is the mean |E*| "
        "over the structure's faces times h. On " + ", ".join(LABELS[n] for n in uniform) + " every dual edge has "
        "one length (mean = max), so there the statistic cannot matter."
        + (" On " + ", ".join(LABELS[n] for n in spread) + " the lengths spread: "
           + "; ".join(f"{LABELS[n]} {shortest(n):.2f}–{rel(n, 'dual_edge_max'):.2f} of cubic's (paper "
                       f"{PAPER_DUAL_EDGE[n]:.2f}, our mean {rel(n):.2f})" for n in spread) + ". "
           + ("Each of the paper's values lies inside our range; " if inside else "")
           + (f"our {' and '.join(matching)} give{'s' if len(matching) == 1 else ''} all of them."
              if matching else "no one statistic of ours (shortest, mean, largest) gives all of them.")
           if spread else ""))
    if "bcc" in runs:
        notes.append(f"**BCC** {rel('bcc'):.3f} against the paper's {PAPER_DUAL_EDGE['bcc']:.2f}: "
                     f"{abs(rel('bcc') / PAPER_DUAL_EDGE['bcc'] - 1):.1%} apart.")
    if "fcc" in runs and "fcc" in uniform:
        notes.append(f"**FCC** {rel('fcc'):.3f} against the paper's {PAPER_DUAL_EDGE['fcc']:.2f}: all FCC dual "
                     f"edges have one length, so the {PAPER_DUAL_EDGE['fcc'] / rel('fcc') - 1:.1%} is in the scale h "
                     "itself, more than the rounding below explains. The paper gives neither its FCC scale, cell "
                     "count nor Δt, so we cannot locate it.")
    excess = {n: run.attrs["operations_per_time"] / PAPER_OPERATIONS - 1 for n, run in runs.items()}
    low, high = min(excess, key=excess.get), max(excess, key=excess.get)
    notes.append(
        f"**Rounding to whole structures.** Our domain is whole replicable structures covering the eq. 15 cuboid, "
        f"and h the largest scale with at least {ops(PAPER_OPERATIONS)} operations per time unit "
        f"(Σ_i #J_i/Δt with #J_i = faces + 1 as in the paper's §4, Δt = 0.9 of eq. 11's bound without the density term; the paper's text gives no fraction): "
        f"the work is {excess[low]:.1%} ({LABELS[low]}) to {excess[high]:.1%} ({LABELS[high]}) above "
        f"{ops(PAPER_OPERATIONS)}. The work falls at least as h⁻³ (the cell count), so this shortens h by at most "
        f"{1 - (1 + excess[high]) ** (-1 / 3):.1%}, and a ratio by no more.")
    share = {n: run.attrs["dual_edge_mean"] / run.attrs["effective_wavelength"] for n, run in runs.items()}
    over = [n for n in runs if share[n] >= 0.05]
    notes.append(
        "**The 5% condition.** §5.1 also asks dual edges below 5% of the effective wavelength, which the paper does "
        "not define. With ours, λ_eff = 2π/(∫|∇ψ₀|²)^½ = "
        f"{next(iter(runs.values())).attrs['effective_wavelength']:.3f} a_ho, the mean dual edge at equal work is "
        f"{min(share.values()):.1%}–{max(share.values()):.1%} of it"
        + (" (5% or more on every lattice)" if len(over) == len(runs) else
           f" (5% or more on {', '.join(LABELS[n] for n in over)})" if over else "") +
        ": we keep equal work, the condition Table 1 is about.")
    return notes


def convergence_table(series):
    header = ["lattice", "ops per time unit", "h", "cells", "dt", "split t", "fold", f"E(t = {RMSE_AT:g})",
              f"RMSE(t = {RMSE_AT:g}), paper's", f"phase-corrected RMSE(t = {RMSE_AT:g})"]
    rows = [[LABELS[name], ops(run.attrs["operations_per_time"]), f"{run.attrs['h']:.4f}",
             f"{run.attrs['cells']:,}", f"{run.attrs['dt']:.3g}", fmt(run.split, ".2f"), fold_label(run),
             fmt(run.at(run.error, RMSE_AT), ".2e"), fmt(run.at(run.rmse, RMSE_AT), ".2e"),
             fmt(run.at(run.rmse_phase, RMSE_AT), ".2e")]
            for name, runs in series.items() for run in runs]
    return markdown_table(header, rows)


def write_table(result, out_dir, stem, title, table, note=""):
    path = Path(out_dir) / f"{stem}.md"
    path.write_text(f"# {title}\n\n{table}" + (f"\n{note}\n" if note else ""))
    result.files.append(path)
    result.tables.append(f"**{title}**\n\n{table}")


def render_error(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs, placed = load_set(folder, "accuracy"), load_set(folder, "placement")
    ranking = ranking_note(runs, placed)
    result = Rendered(inputs=[run.path for run in runs.values()])
    if ranking:  # the caption quotes their split times
        result.inputs += [placed[name].path for name in runs if name in placed]
    fig = error_figure(runs)
    ceilings = [run.ceiling for run in runs.values()]
    spread = max(ceilings) / min(ceilings) - 1
    footer(fig, device_dir, result.inputs, f"• split: the first diagnostics time with E > {SPLIT}. {UNITS}\n"
           + (f"{ranking}\n" if ranking else "") + f"(b) {RMSE_DEFINITION} Dashed: 2/√V at each lattice's own V "
           f"(its colour), {spread:.1%} apart at most.\n(c) {PHASE_RMSE_DEFINITION}")
    result.files += save_figure(fig, out_dir, "fig5-error")
    result.notes += [note for note in (ranking, f"(b) {RMSE_DEFINITION}", f"(c) {PHASE_RMSE_DEFINITION}", UNITS)
                     if note]
    refined = load_refined(folder)
    series = {name: sorted([runs[name], *refined[name]], key=lambda r: r.attrs["operations_per_time"])
              for name in lattice_order(refined) if name in runs}
    if not series:
        result.notes.append("No refined_<lattice>_<ops>.h5: no convergence figure.")
        return result
    inputs = [run.path for same_lattice in series.values() for run in same_lattice]
    result.inputs += [path for path in inputs if path not in result.inputs]
    fig = convergence_figure(series)
    footer(fig, device_dir, inputs, UNITS)
    result.files += save_figure(fig, out_dir, "fig5-convergence")
    write_table(result, out_dir, "fig5-convergence", "Split time against resolution", convergence_table(series),
                f"{RMSE_DEFINITION}\n\n{PHASE_RMSE_DEFINITION}\n\n{near_tie_note()}")
    return result


def render_accuracy(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs, placed = load_set(folder, "accuracy"), load_set(folder, "placement")
    result = Rendered(inputs=[run.path for run in [*runs.values(), *placed.values()]])
    notes = [f"Split: the first diagnostics time with E > {SPLIT}.", near_tie_note(), RMSE_DEFINITION,
             PHASE_RMSE_DEFINITION, phase_note(runs), "λ_eff: the effective wavelength, 2π/(∫|∇ψ₀|²)^½. Placement: "
             f"{PLACEMENT.split(': ', 1)[1]}.", ranking_note(runs, placed), UNITS]
    notes = [note for note in notes if note]
    write_table(result, out_dir, "accuracy", "Accuracy per lattice", accuracy_table(runs, placed),
                "\n\n".join(notes))
    result.notes += notes
    return result


def render_table1(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs = load_set(folder, "accuracy")
    result = Rendered(inputs=[run.path for run in runs.values()])
    if "cubic" not in runs:
        result.notes.append("No accuracy_cubic.h5: Table 1 is relative to the cubic grid.")
        return result
    what = ("Dual-edge lengths |E*| times h at equal work (operations per time unit), divided by the cubic grid's "
            "mean; lengths in a_ho. The paper's Table 1 beside ours.")
    differences = table1_differences(runs)
    write_table(result, out_dir, "table1-dual-edges", "Table 1: dual-edge lengths relative to cubic",
                dual_edge_table(runs), what + "\n\nWhere ours differs from the paper's:\n\n"
                + "\n".join(f"- {d}" for d in differences))
    result.notes += [what, "Where ours differs from the paper's:", *differences]
    return result


def render_density(device_dir, out_dir):
    folder = Path(device_dir) / "physics"
    runs, placed = load_set(folder, "accuracy"), load_set(folder, "placement")
    result = Rendered(inputs=[run.path for run in [*runs.values(), *placed.values()]])
    caption = ("|ψ|² of the cells within half a structure edge of z = 0; where that slab holds cells at several "
               "heights over the same (x, y), their values are averaged into one point. Interpolated linearly on "
               "the points' Delaunay triangulation and averaged over each pixel (no pixel binning, no moiré); "
               "texture at the cells' scale is in the cells' values. Colour scales shared by all lattices. " + UNITS)
    for stem, chosen, shifted in (("fig6-density-centred", runs, False), ("fig6-density-placement", placed, True)):
        if chosen:
            fig = density_figure(chosen, shifted)
            footer(fig, device_dir, [run.path for run in chosen.values()],
                   (f"{PLACEMENT[0].upper()}{PLACEMENT[1:]}.\n" if shifted else "") + f"{caption}\n{near_tie_note()}")
            result.files += save_figure(fig, out_dir, stem)
    if not placed:
        result.notes.append("No placement_<lattice>.h5: no placement figure.")
    fig = azimuthal_figure(runs, placed)
    hidden = sum(int((slab_amplitude(run)[1:13] < AMPLITUDE_FLOOR).sum())
                 for run in [*runs.values(), *placed.values()])
    footer(fig, device_dir, result.inputs, f"{slab_note({**placed, **runs})}\n"
           + (f"Hatched: {PLACEMENT}.\n" if placed else "")
           + f"{near_tie_note()}\n{hidden} amplitudes below the axis ({AMPLITUDE_FLOOR:g} a_ho⁻¹) are not drawn.")
    result.files += save_figure(fig, out_dir, "fig6-azimuthal")
    result.notes += [caption, slab_note({**placed, **runs}), near_tie_note()]
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render_error, render_accuracy, render_table1, render_density)
