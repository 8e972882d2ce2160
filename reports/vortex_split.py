"""The splitting study told by its vortex lines (issue 33, item 4), from scripts/vortex-split-run.sh's
DEVICE_FOLDER/vortex-split/vortex_split.h5 (scripts/vortex_split_extract.py): per lattice, the time of the first
separation (the results' event: a line of charge > 1 come apart, docs/cases.md "Vortex lines") against the split's
E = 1 − |⟨ψ₀|ψ⟩| > 0.01, and the arrangement of the lines at the split: how many, their charges, and of the lines
that thread z = 0 (their own crossings of it sum to a net flux; the closed loops and lines that come back carry none
and are counted, not placed) where they cross z = 0 (radius and azimuth about the axis) and the azimuthal order of
those crossings, S_m = |Σ flux e^{imφ}| / Σ |flux|.

    vortex_split.py DEVICE_FOLDER [--out DIR]

Writes vortex-split-times.md and vortex-split-arrangement.md (the tables), vortex-split-lines.{png,pdf} (the number of
lines, of crossings of z = 0 and of lines threading it against time, with E), vortex-split-order.{png,pdf} (S₃ and S₄
against time), vortex-split-crossings.{png,pdf} (the threading crossings at the split and the end seen from +z) and
vortex-split-3d.{png,pdf} (the threading lines at the split and the end in 3D, rendered by pvpython offscreen,
render_vortex_lines.py; skipped with a note where pvpython or Xvfb is missing).
"""

import collections
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from common import LABELS, LATTICES, Rendered, footer, markdown_table, plt, run_on_folder, save_figure, save_table
from decgpe import VortexLines

FILE = "vortex-split/vortex_split.h5"
MODES = range(2, 7)  # the azimuthal orders m whose strength among the crossings the table compares
THREE_FOLD = 0.8  # S₃ at which the threading lines' crossings are called 3-fold in the table (1: exactly 3-fold)
RENDERER = Path(__file__).resolve().parent / "render_vortex_lines.py"
ROLES = (("first", "start"), ("separation", "first separation"), ("split", "split: first sample with E > 0.01"),
         ("last", "end"))


@dataclass
class Run:
    lattice: str
    attrs: dict
    t: np.ndarray  # diagnostics times
    error: np.ndarray  # E = 1 − |⟨ψ₀|ψ⟩| at those times
    series: dict  # /vortex_lines/series of the results
    events: dict  # /vortex_lines/events: step, after_step, t, kind (1 separation, 2 reconnection)
    crossings: dict  # every sample's crossings of z = 0: step, line, x, y, flux
    samples: dict  # {step: VortexLines} of the samples kept whole

    def step_of(self, role):
        """The step of a kept sample ("first", "separation", "split", "last"), or None."""
        value = self.attrs.get(f"{role}_step")
        return None if value is None else int(value)

    @property
    def split_t(self):
        value = float(self.attrs["split_t"])
        return None if np.isnan(value) else value

    @property
    def separation(self):
        """The first separation event as {step, after_step, t}, or None."""
        first = np.flatnonzero(self.events["kind"] == 1)
        return None if not first.size else {k: self.events[k][first[0]] for k in ("step", "after_step", "t")}


def read_sample(group, step):
    return VortexLines(step=step, t=float(group.attrs["t"]), points=group["points"][()].reshape(-1, 3),
                       offsets=group["offsets"][()], charges=group["charges"][()],
                       closed=group["closed"][()].astype(bool), ends=group["ends"][()].reshape(-1, 2))


def load(path):
    """The runs of the file, in the registry's order of the crystals."""
    runs = []
    with h5py.File(path, "r") as f:
        for name in sorted(f, key=lambda n: LATTICES.index(n) if n in LATTICES else len(LATTICES)):
            g = f[name]
            arrays = {part: {k: g[part][k][()] for k in g[part]} for part in ("series", "events", "crossings")}
            samples = {int(s): read_sample(g["samples"][s], int(s)) for s in g["samples"]}
            runs.append(Run(name, dict(g.attrs), g["diagnostics/t"][()], g["diagnostics/error"][()], *arrays.values(),
                            samples))
    return runs


def azimuthal_order(x, y, flux):
    """(m, strength) of the strongest order m in MODES of the crossings, the lowest of a tie: |Σ flux e^{imφ}| /
    Σ |flux| over the crossings off the axis; (None, nan) without any."""
    off = np.hypot(x, y) > 1e-9
    if not off.any():
        return None, float("nan")
    phase = np.arctan2(y[off], x[off])
    strength = {m: abs(np.sum(flux[off] * np.exp(1j * m * phase))) / np.sum(np.abs(flux[off])) for m in MODES}
    top = max(strength.values())
    m = min(m for m, value in strength.items() if value > top - 1e-9)  # 3-fold points are 6-fold too: the lower
    return m, float(strength[m])


def threading(c):
    """The crossings of the lines that thread z = 0: those whose own crossings sum to a net flux (a closed loop, or
    a line that comes back to the side it left, sums to zero and is left out). They carry every sample's net flux."""
    if not len(c["line"]):
        return np.zeros(0, bool)
    lines, index = np.unique(c["line"], return_inverse=True)
    net = np.bincount(index.ravel(), weights=c["flux"], minlength=len(lines))
    return net[index.ravel()] != 0


def only(c, keep):
    return {name: np.asarray(values)[keep] for name, values in c.items()}


def net_crossings(c):
    """The crossings summed per point of z = 0 (a line passing down and up through one vertex on the plane counts
    zero there), those with a net flux kept: (x, y, flux)."""
    points, index = np.unique(np.round(np.stack([c["x"], c["y"]], axis=1), 9), axis=0, return_inverse=True)
    flux = np.bincount(index.ravel(), weights=c["flux"], minlength=len(points)).astype(np.int64)
    keep = flux != 0
    return points[keep, 0], points[keep, 1], flux[keep]


def arrangement(sample):
    """What a sample's lines are: their number and charges, their crossings of z = 0, the lines that thread z = 0
    (threading) with their charges and their net crossings per point, sorted by azimuth, with the strongest azimuthal
    order of those."""
    c = sample.crossings()
    through = threading(c)
    x, y, flux = net_crossings(only(c, through))
    order = np.argsort(np.arctan2(y, x), kind="stable")
    m, strength = azimuthal_order(x, y, flux)
    threads = np.unique(c["line"][through])
    return {"t": sample.t, "lines": len(sample.charges), "closed": int(sample.closed.sum()),
            "charges": collections.Counter(int(q) for q in sample.charges), "crossings": len(c["flux"]),
            "threads": threads, "thread_charges": collections.Counter(int(q) for q in sample.charges[threads]),
            "rho": np.hypot(x, y)[order], "phi": np.degrees(np.arctan2(y, x))[order], "flux": flux[order], "m": m,
            "strength": strength}


def order_history(r):
    """Per sample (in step order) from the stored crossings: t, the number of lines threading z = 0, and the
    strength |Σ flux e^{imφ}| / Σ |flux| of each m in MODES over their net crossings off the axis."""
    steps = np.unique(r.crossings["step"])
    t_of = dict(zip(r.series["step"].tolist(), r.series["t"].tolist()))
    history = {"t": [], "threads": [], **{m: [] for m in MODES}}
    for step in steps:
        c = only(r.crossings, r.crossings["step"] == step)
        through = threading(c)
        x, y, flux = net_crossings(only(c, through))
        off = np.hypot(x, y) > 1e-9
        phase, weight = np.arctan2(y[off], x[off]), flux[off]
        history["t"].append(t_of[int(step)])
        history["threads"].append(len(np.unique(c["line"][through])))
        for m in MODES:
            history[m].append(abs(np.sum(weight * np.exp(1j * m * phase))) / max(np.sum(np.abs(weight)), 1))
    return {k: np.asarray(v) for k, v in history.items()}


def held_from(t, values, level):
    """The first t from which values stay at or above level to the end, or None."""
    below = np.flatnonzero(np.asarray(values) < level)
    start = below[-1] + 1 if below.size else 0
    return float(t[start]) if start < len(t) else None


def charges_cell(counter):
    return ", ".join(f"{n} × {q}" for q, n in sorted(counter.items())) or "none"


def crossings_cell(a):
    """The net crossings as azimuth° (radius), with the flux where it is not +1 (−1: downwards)."""
    parts = [f"{round(phi)}° ({rho:.2f}" + (f", {flux:+d})" if flux != 1 else ")")
             for rho, phi, flux in zip(a["rho"], a["phi"], a["flux"])]
    return " ".join(parts) or "none"


def strengths(h, index):
    return f"{h[3][index]:.2f} / {h[4][index]:.2f}"


def first_at(t, values, level):
    reached = np.flatnonzero(np.asarray(values) >= level)
    return f"{t[reached[0]]:.2f}" if reached.size else "never"


def times_table(runs):
    rows = []
    for r in runs:
        sep, series, h = r.separation, r.series, order_history(r)
        split = f"{r.split_t:.2f}" if r.split_t is not None else "not reached"
        first = (f"{sep['t']:.2f} (after {float(series['t'][series['step'] == sep['after_step']][0]):.2f})"
                 if sep else f"none (largest charge {int(series['largest_charge'].max())})")
        before = int(np.sum((r.events["kind"] == 2) & (r.events["t"] <= (r.split_t or np.inf))))
        at_split = int(np.searchsorted(h["t"], r.split_t)) if r.split_t is not None else len(h["t"]) - 1
        rows.append([LABELS.get(r.lattice, r.lattice), f"{int(r.attrs['cells']):,}", f"{float(r.attrs['h']):.4g}",
                     f"{float(r.attrs['dt']):.4g}", int(r.attrs["vortex_lines_every"]), split, first,
                     f"{int(series['lines'][0])} ({int(series['largest_charge'][0])})", before,
                     f"{float(series['t'][-1]):.2f}", f"{float(r.error[-1]):.3f}", int(h["threads"][0]),
                     strengths(h, min(at_split, len(h["t"]) - 1)), strengths(h, -1),
                     first_at(h["t"], h[3], THREE_FOLD)])
    header = ["lattice", "cells", "h", "Δt", "lines every (steps)", "E > 0.01 at t", "first separation at t",
              "lines at t = 0 (largest charge)", "reconnections to the split", "end t", "E at the end",
              "lines threading z = 0 at t = 0", "S₃ / S₄ at the split", "S₃ / S₄ at the end",
              f"first t with S₃ ≥ {THREE_FOLD}"]
    note = ("\nThe lines are the condensate region's (docs/cases.md, \"Vortex lines\"); a ring of cells shows a winding of "
            "1 or 2 at most, so the κ = 10 vortex is a bundle of lines of charge 1–2 from t = 0: a *first "
            "separation* is a line of charge 2 come apart, which may happen long before the split (compare its time "
            "with E > 0.01). S_m = |Σ flux e^{imφ}| / Σ |flux| over the net crossings of z = 0 (summed "
            "per point, off the axis) of the lines that thread z = 0 (their own crossings sum to a net flux; the "
            "closed loops and the lines that come back are left out): 1 for crossings in m-fold symmetry; at the "
            "split: the first sample with E > 0.01.\n")
    return markdown_table(header, rows) + note


def arrangement_table(runs):
    rows = []
    for r in runs:
        kept = sorted({(r.step_of(role), label) for role, label in ROLES if r.step_of(role) is not None})
        for step, label in kept:  # in time order; a sample that is both is listed for each
            a = arrangement(r.samples[step])
            order = f"{a['m']} ({a['strength']:.2f})" if a["m"] else "—"
            rows.append([LABELS.get(r.lattice, r.lattice), label, f"{a['t']:.2f}", a["lines"], a["closed"],
                         charges_cell(a["charges"]), int(a["flux"].sum()), a["crossings"], len(a["threads"]),
                         charges_cell(a["thread_charges"]), len(a["flux"]), order, crossings_cell(a)])
    header = ["lattice", "sample", "t", "lines", "closed", "charges (lines × charge)", "net flux z = 0",
              "crossings", "lines threading z = 0", "their charges", "their net crossings", "order m (strength)",
              "their net crossings of z = 0: azimuth (radius, a_ho)"]
    note = ("\nEvery line of the condensate's region is counted in *lines*, *closed*, *charges* and *crossings*; the "
            "columns from *lines threading z = 0* on keep only the lines whose own crossings of z = 0 sum to a net "
            "flux, which carry all of the net flux (the closed loops and lines that come back to the side they left, "
            "most of them in the low-density caps of the condensate, are left out). Their crossings are summed per "
            "point; the order m is the strongest of |Σ flux e^{imφ}| / Σ |flux| over m = 2–6 (the lower of a tie).\n")
    return markdown_table(header, rows) + note


def panel_grid(count, polar=False):
    columns = 3
    rows = (count + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.8 * rows), squeeze=False,
                             subplot_kw={"projection": "polar"} if polar else {}, constrained_layout=True)
    for ax in axes.flat[count:]:
        ax.axis("off")
    return fig, list(axes.flat[:count])


def mark_times(ax, r):
    if r.split_t is not None:
        ax.axvline(r.split_t, color="k", ls="--", lw=0.8)
    if r.separation:
        ax.axvline(r.separation["t"], color="tab:red", ls=":", lw=1.2)


def lines_figure(runs, histories, device_dir, inputs):
    fig, axes = panel_grid(len(runs))
    for ax, r in zip(axes, runs):
        steps, counts = np.unique(r.crossings["step"], return_counts=True)
        crossing_count = dict(zip(steps.tolist(), counts.tolist()))
        h = histories[r.lattice]
        ax.step(r.series["t"], r.series["lines"], where="post", color="tab:blue")
        ax.step(r.series["t"], [crossing_count.get(int(s), 0) for s in r.series["step"]], where="post",
                color="tab:orange")
        ax.step(h["t"], h["threads"], where="post", color="tab:green")
        mark_times(ax, r)
        ax.set_yscale("log")
        ax.set(title=LABELS.get(r.lattice, r.lattice), xlabel="t (1/ω⊥)", ylabel="count")
        error = ax.twinx()
        error.semilogy(r.t, np.maximum(r.error, 1e-8), color="0.6", lw=0.8)
        error.set_ylabel("E = 1 − |⟨ψ₀|ψ⟩|", color="0.4", fontsize="small")
    key = [plt.Line2D([], [], color="tab:blue", label="lines"),
           plt.Line2D([], [], color="tab:orange", label="crossings of z = 0"),
           plt.Line2D([], [], color="tab:green", label="lines threading z = 0"),
           plt.Line2D([], [], color="k", ls="--", lw=0.8, label="E > 0.01"),
           plt.Line2D([], [], color="tab:red", ls=":", lw=1.2, label="first separation"),
           plt.Line2D([], [], color="0.6", lw=0.8, label="E (right)")]
    fig.legend(handles=key, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(key), fontsize="small")
    every = sorted({int(r.attrs["vortex_lines_every"]) for r in runs})
    footer(fig, device_dir, inputs, f"The vortex lines in the condensate's region, sampled every "
           f"{'/'.join(map(str, every))} steps, of cases/accuracy/<lattice>.toml: all of them, their crossings of "
           "z = 0, and the lines that thread z = 0 (their own crossings sum to a net flux; the closed loops and the "
           "lines that come back are the rest), with E on the right. A κ = 10 vortex is seen as lines of charge 1–2 "
           "(docs/cases.md); a first separation is a charge-2 line come apart.")
    return fig


def order_figure(runs, histories, device_dir, inputs):
    fig, axes = panel_grid(len(runs))
    for ax, r in zip(axes, runs):
        h = histories[r.lattice]
        for m, colour in ((3, "tab:green"), (4, "tab:purple")):
            ax.plot(h["t"], h[m], color=colour, lw=0.8)
        mark_times(ax, r)
        ax.set(title=LABELS.get(r.lattice, r.lattice), xlabel="t (1/ω⊥)", ylabel="S_m", ylim=(0, 1.02))
    key = [plt.Line2D([], [], color="tab:green", label="S₃"), plt.Line2D([], [], color="tab:purple", label="S₄"),
           plt.Line2D([], [], color="k", ls="--", lw=0.8, label="E > 0.01"),
           plt.Line2D([], [], color="tab:red", ls=":", lw=1.2, label="first separation")]
    fig.legend(handles=key, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(key), fontsize="small")
    footer(fig, device_dir, inputs, "The 3-fold and 4-fold order of the lines at every sample: S_m = |Σ flux e^{imφ}| "
           "/ Σ |flux| over the net crossings of z = 0 (summed per point, off the axis) of the lines that thread "
           "z = 0 (1: the crossings are m-fold symmetric).")
    return fig


def crossings_figure(runs, device_dir, inputs):
    fig, axes = panel_grid(len(runs), polar=True)
    for ax, r in zip(axes, runs):
        title = LABELS.get(r.lattice, r.lattice)
        for role, filled in (("split", True), ("last", False)):
            if r.step_of(role) is None or (role == "last" and r.step_of("last") == r.step_of("split")):
                continue
            a = arrangement(r.samples[r.step_of(role)])
            colours = np.where(a["flux"] > 0, "tab:blue", "tab:red")
            ax.scatter(np.radians(a["phi"]), a["rho"], s=30 * np.abs(a["flux"]), facecolors=colours if filled
                       else "none", edgecolors=colours, linewidths=0.8)
            title += f"\n{'split' if filled else 'end'} t = {a['t']:.2f}: {len(a['flux'])} net" + (
                f", m = {a['m']} ({a['strength']:.2f})" if a["m"] else "")
        ax.set_title(title, fontsize="small")
        ax.tick_params(labelsize="x-small")
    footer(fig, device_dir, inputs, "Where the lines that thread z = 0 cross it (the closed loops and the lines that "
           "come back left out), summed per point (net crossings), seen from +z, at "
           "the first sample with E > 0.01 (filled) and the last (open): upwards blue, downwards red, the area ∝ the "
           "charge; m is the strongest order of |Σ flux e^{imφ}| / Σ |flux| over m = 2–6.")
    return fig


def write_vtk(sample, path):
    """The lines as legacy VTK polylines (a closed line's first point again at its end) with cell data charge."""
    cells = [list(range(a, b)) + ([a] if closed else []) for a, b, closed in
             zip(sample.offsets[:-1], sample.offsets[1:], sample.closed)]
    lines = [f"# vtk DataFile Version 3.0\nvortex lines t = {sample.t}\nASCII\nDATASET POLYDATA",
             f"POINTS {len(sample.points)} double", *(" ".join(f"{v:.9g}" for v in p) for p in sample.points),
             f"LINES {len(cells)} {sum(len(c) + 1 for c in cells)}",
             *(" ".join(map(str, [len(c), *c])) for c in cells),
             f"CELL_DATA {len(cells)}", "SCALARS charge int 1", "LOOKUP_TABLE default",
             *(str(int(q)) for q in sample.charges)]
    Path(path).write_text("\n".join(lines) + "\n")


class Display:
    """An X display for pvpython: $DISPLAY where set, else a private Xvfb that names its display once it listens
    (as verify/viz/viz_test.sh starts one); None where neither is there."""

    def __enter__(self):
        self.server = None
        if os.environ.get("DISPLAY"):
            return os.environ["DISPLAY"]
        if not shutil.which("Xvfb"):
            return None
        read, write = os.pipe()
        self.server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-noreset", "-screen",
                                        "0", "1280x1024x24"], pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as named:
            display = named.readline().strip()
        return f":{display}" if display else None

    def __exit__(self, *exc):
        if self.server:
            self.server.terminate()
            self.server.wait()


def threading_lines(sample):
    """The sample's lines that thread z = 0 (threading), as a VortexLines of their own."""
    c = sample.crossings()
    keep = np.unique(c["line"][threading(c)])
    counts = np.diff(sample.offsets)[keep]
    points = [sample.points[sample.offsets[k]:sample.offsets[k + 1]] for k in keep]
    return VortexLines(step=sample.step, t=sample.t, points=np.concatenate(points) if points else np.zeros((0, 3)),
                       offsets=np.concatenate([[0], np.cumsum(counts)]), charges=sample.charges[keep],
                       closed=sample.closed[keep], ends=sample.ends[keep])


def render_3d(runs, device_dir, out_dir, result):
    """The lines that thread z = 0 at the split and at the end of every lattice in 3D (pvpython), a row of panels
    each; a note where that cannot be done."""
    pvpython = shutil.which("pvpython")
    if not pvpython:
        result.notes.append("vortex-split-3d skipped: no pvpython (scripts/install-deps.sh installs ParaView)")
        return
    chosen = [(r, role, r.samples[r.step_of(role)]) for role in ("split", "last") for r in runs
              if r.step_of(role) is not None]
    shown = {(r.lattice, role): threading_lines(sample) for r, role, sample in chosen}
    reach = float(np.ceil(max(np.abs(s.points).max(initial=1.0) for s in shown.values())))
    with tempfile.TemporaryDirectory() as work, Display() as display:
        if display is None:
            result.notes.append("vortex-split-3d skipped: no X display and no Xvfb for pvpython")
            return
        pairs = []
        for (lattice, role), lines in shown.items():
            write_vtk(lines, f"{work}/{lattice}-{role}.vtk")
            pairs += [f"{work}/{lattice}-{role}.vtk", f"{work}/{lattice}-{role}.png"]
        done = subprocess.run([pvpython, str(RENDERER), str(reach), "600", *pairs], capture_output=True, text=True,
                              env={**os.environ, "DISPLAY": display})
        if done.returncode != 0:
            raise RuntimeError(f"render_vortex_lines.py failed: {(done.stdout + done.stderr).strip()[-500:]}")
        fig, axes = panel_grid(len(chosen))
        for ax, (r, role, sample) in zip(axes, chosen):
            ax.imshow(plt.imread(f"{work}/{r.lattice}-{role}.png"))
            lines = shown[(r.lattice, role)]
            ax.set_title(f"{LABELS.get(r.lattice, r.lattice)}, {'split' if role == 'split' else 'end'} "
                         f"t = {sample.t:.2f}: {len(lines.charges)} of {len(sample.charges)} lines thread z = 0",
                         fontsize="small")
            ax.axis("off")
    footer(fig, device_dir, result.inputs, f"The vortex lines that thread z = 0 (their own crossings of z = 0 sum to "
           f"a net flux; the closed loops and the lines that come back, counted in the titles, are not drawn) at the "
           f"first sample with E > 0.01 (split) and at the last (end, E > 0.1), in the box ±{reach:g} a_ho, seen from "
           f"(2.2, −3, 1.6): charge 1 blue, 2 red (ParaView, pvpython offscreen).")
    result.files += save_figure(fig, out_dir, "vortex-split-3d")


def render(device_dir, out_dir):
    path = Path(device_dir) / FILE
    runs = load(path)
    result = Rendered(inputs=[path])
    histories = {r.lattice: order_history(r) for r in runs}
    result.files += save_figure(lines_figure(runs, histories, device_dir, result.inputs), out_dir,
                                "vortex-split-lines")
    result.files += save_figure(order_figure(runs, histories, device_dir, result.inputs), out_dir,
                                "vortex-split-order")
    result.files += save_figure(crossings_figure(runs, device_dir, result.inputs), out_dir, "vortex-split-crossings")
    render_3d(runs, device_dir, out_dir, result)
    save_table(result, out_dir, "vortex-split-times", "The split per lattice: E against the lines' first separation",
               "Split times", times_table(runs))
    save_table(result, out_dir, "vortex-split-arrangement", "The lines at the start, the first separation, the split and the end",
               "Lines at the split", arrangement_table(runs))
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with vortex-split/vortex_split.h5)")
