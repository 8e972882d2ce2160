"""Fig 9 (strong and weak scaling over GPUs, with Amdahl's and Gustafson's laws) and Fig 10 (time units
integrated per second on CPU MPI ranks and on GPUs), from scripts/scaling-run.sh's CSV files
(kind,ranks,structures_z,cells,steps,dt,seconds): scaling_gpu.csv and, for Fig 10, scaling_cpu_mpi.csv.

    scaling.py DEVICE_FOLDER [--out DIR]

Any number of ranks plots; repeated (kind, ranks) rows are reduced to their median time, and the figures say how
many timings each point is (one, in the committed data: no spread to show). A kind needs its 1-rank row: every
ratio is taken against it. Each law has one parameter and passes through N = 1 by construction, so with two GPU
counts (1 and 2) p_t and p_w are solved exactly from the one other point, not fitted; from three GPU counts on they
are least-squares fits, and the figure and table say which. The laws are drawn over the measured GPU counts only: a
curve past them would be a prediction from as little as one timing, while p_t and p_w, printed beside the curves, are
what a prediction needs. How much p_t and p_w move with the data is shown: p_t from the CUDA-graphs-off rows as well,
and both over the times' recorded resolution (the CSV's decimals).
"""

import csv
import statistics
from pathlib import Path

import numpy as np

from common import run_on_folder, Rendered, footer, markdown_table, plt, read_json, save_figure

PAPER = {"p_t": 0.92, "p_w": 0.78}  # the paper's fitted parallel fractions


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def read_runs(paths):
    """{kind: {ranks: row}}, each row a dict of numbers with the median seconds of its repeats, how many timings that
    is, and the resolution the seconds were written with (half a unit of their last decimal)."""
    groups = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                groups.setdefault((row["kind"], int(row["ranks"])), []).append(row)
    runs = {}
    for (kind, ranks), rows in sorted(groups.items()):
        first = rows[0]
        runs.setdefault(kind, {})[ranks] = {
            "cells": int(first["cells"]), "steps": int(first["steps"]), "dt": float(first["dt"]),
            "seconds": statistics.median(float(r["seconds"]) for r in rows), "timings": len(rows),
            "resolution": 0.5 * 10.0 ** -min(decimals(r["seconds"]) for r in rows)}
    return runs


def speedup(runs, shift=0.0):
    """N, S_N = T_1/T_N; `shift` moves every T by that many times its resolution, T_1 one way and the others the
    other (+: the largest speedups the recorded digits allow, −: the smallest)."""
    n = np.array(sorted(runs))
    first = runs[1]["seconds"] + shift * runs[1]["resolution"]
    return n, np.array([first / (runs[k]["seconds"] - shift * runs[k]["resolution"]) if k != 1 else 1.0 for k in n])


def weak_ratio(runs, shift=0.0):
    """N, W_N/W_1 with W the cell-updates per second (cells · steps / T); `shift` as for speedup()."""
    rate = {k: r["cells"] * r["steps"] / (r["seconds"] + (shift if k == 1 else -shift) * r["resolution"])
            for k, r in runs.items()}
    n = np.array(sorted(runs))
    return n, np.array([rate[k] / rate[1] for k in n])


def fit_amdahl(n, s):
    """p_t of T_N/T_1 = (1 − p_t) + p_t/N, least squares (linear in p_t; with N = 1 and one other count, the exact
    solution 1 − T_N/T_1 = p_t (1 − 1/N))."""
    x = 1 - 1 / n
    return float(np.sum(x * (1 - 1 / s)) / np.sum(x * x))


def fit_gustafson(n, w):
    """p_w of W_N/W_1 = 1 − p_w + N p_w, least squares (exact with N = 1 and one other count)."""
    x = n - 1
    return float(np.sum(x * (w - 1)) / np.sum(x * x))


def method_text(counts):
    return (f"least squares over {counts} GPU counts" if counts >= 3 else
            f"solved exactly from {counts} GPU counts (one parameter through N = 1 and one other point: not a fit)")


def amdahl(p, n):
    return 1 / ((1 - p) + p / n)


def gustafson(p, n):
    return 1 - p + n * p


def time_units_per_second(runs):
    n = np.array(sorted(runs))
    return n, np.array([runs[k]["steps"] * runs[k]["dt"] / runs[k]["seconds"] for k in n])


def law(ax, function, p, top, colour, label, **style):
    """A one-parameter law as what it is, a curve in N from 1 to the largest measured count `top`, with small
    markers at the whole GPU counts it gives a value for."""
    curve = np.linspace(1, top, 200)
    whole = np.arange(1, top + 1)
    ax.plot(curve, function(p, curve), color=colour, label=label, **style)
    ax.plot(whole, function(p, whole), ".", color=colour, alpha=style.get("alpha", 1))


def law_label(name, symbol, p, counts):
    return (f"{name} fit, ${symbol}$ = {p:.3f}" if counts >= 3 else
            f"{name}'s law, ${symbol}$ = {p:.3f}\n(solved from 2 points, not fitted)")


def scaling_figure(runs, p_t, p_w, device):
    """Each panel spans its own measured GPU counts; its law and the paper's stop at the last count its law was
    solved or fitted from."""
    strong_counts = len(runs["gpu_strong"])
    weak_counts = len(runs.get("gpu_weak", {}))
    fig, (strong, weak) = plt.subplots(1, 2, figsize=(11, 4.6), constrained_layout=True)
    n, s = speedup(runs["gpu_strong"])
    top = int(n[-1])
    strong.plot([1, top], [1, top], color="black", linestyle=":", label="ideal $S_N = N$")
    law(strong, amdahl, p_t, top, "tab:blue", law_label("Amdahl", "p_t", p_t, strong_counts))
    law(strong, amdahl, PAPER["p_t"], top, "tab:blue", f"paper's fit, $p_t$ = {PAPER['p_t']}", linestyle="--",
        alpha=0.5)
    strong.plot(n, s, "o", color="tab:blue", markersize=8, label="measured, CUDA graphs on (default)")
    if "gpu_strong_no_graphs" in runs:
        n_off, s_off = speedup(runs["gpu_strong_no_graphs"])
        strong.plot(n_off, s_off, "s", color="tab:orange", markerfacecolor="none", markersize=11,
                    label="measured, CUDA graphs off")
        top = max(top, int(n_off[-1]))
    strong.set(xlabel="GPUs N", ylabel="speedup $S_N = T_1 / T_N$", title=f"(a) strong scaling, "
               f"{runs['gpu_strong'][1]['cells']:,} cells")
    frame(strong, top)
    if "gpu_weak" in runs:
        n, w = weak_ratio(runs["gpu_weak"])
        top = int(n[-1])
        weak.plot([1, top], [1, top], color="black", linestyle=":", label="ideal $W_N/W_1 = N$")
        law(weak, gustafson, p_w, top, "tab:green", law_label("Gustafson", "p_w", p_w, weak_counts))
        law(weak, gustafson, PAPER["p_w"], top, "tab:green", f"paper's fit, $p_w$ = {PAPER['p_w']}",
            linestyle="--", alpha=0.5)
        weak.plot(n, w, "o", color="tab:green", markersize=8, label="measured")
        weak.set_title(f"(b) weak scaling, {runs['gpu_weak'][1]['cells']:,} cells per GPU")
        frame(weak, top)
    weak.set(xlabel="GPUs N", ylabel="$W_N / W_1$ (W = cell-updates/s)")
    fig.suptitle(f"Scaling over GPUs ({device}): the laws over the measured GPU counts only")
    return fig


def frame(ax, top):
    """Axes from 1 to `top` GPUs, no further: nothing past the measured counts is drawn."""
    margin = 0.1 + 0.04 * (top - 1)  # points at the ends stay whole
    ax.set(xticks=range(1, top + 1), xlim=(1 - margin, top + margin), ylim=(1 - margin, top + margin))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")  # the lines rise to the upper right, below the ideal one


def timings_note(runs):
    """How many timings each point is; one everywhere: no repetitions, so no spread to show."""
    counts = sorted({r["timings"] for by_ranks in runs.values() for r in by_ranks.values()})
    if counts == [1]:
        return "Each point is a single timing (one run, no repetitions): the data hold no spread to show."
    return f"Each point is the median of {' to '.join(map(str, (counts[0], counts[-1])))} timings."


def sensitivity_note(runs, p_t, p_w):
    """How far p_t and p_w move: p_t from the graphs-off rows, both over the times' recorded resolution."""
    n, s = speedup(runs["gpu_strong"])
    two = len(n) == 2
    parts = []
    p_off = None
    if "gpu_strong_no_graphs" in runs and 1 in runs["gpu_strong_no_graphs"]:
        n_off, s_off = speedup(runs["gpu_strong_no_graphs"])
        p_off = fit_amdahl(n_off, s_off)
        parts.append(f"S_{n[-1]} = {s[-1]:.3f} gives p_t = {p_t:.3f}; CUDA graphs off, S_{n_off[-1]} = {s_off[-1]:.3f} "
                     f"gives {p_off:.3f}" if two else f"p_t = {p_t:.3f} with CUDA graphs on, {p_off:.3f} off")
    low, high = fit_amdahl(*speedup(runs["gpu_strong"], -1)), fit_amdahl(*speedup(runs["gpu_strong"], 1))
    resolution = runs["gpu_strong"][1]["resolution"] * 2
    text = f"Sensitivity: {'; '.join(parts)}" + ("; " if parts else "") + (
        f"the times' {resolution:g}-s recording alone spans p_t = {low:.3f}–{high:.3f}")
    if "gpu_weak" in runs:
        w_low = fit_gustafson(*weak_ratio(runs["gpu_weak"], -1))
        w_high = fit_gustafson(*weak_ratio(runs["gpu_weak"], 1))
        text += f", p_w = {w_low:.3f}–{w_high:.3f}"
    return text + "."


def steps_text(by_ranks):
    return " or ".join(map(str, sorted({r["steps"] for r in by_ranks.values()})))


def throughput_figure(runs, device):
    fig, ax = plt.subplots(figsize=(7.5, 4.6), constrained_layout=True)
    for kind, label, colour, marker in (("cpu_mpi", "CPU: MPI ranks (1 core each)", "tab:gray", "s"),
                                        ("gpu_strong", "GPUs", "tab:green", "o")):
        if kind in runs:
            ax.plot(*time_units_per_second(runs[kind]), marker=marker, color=colour,
                    label=f"{label}, {steps_text(runs[kind])} steps timed")
    ax.set(xscale="log", yscale="log", xlabel="ranks (CPU cores or GPUs)", ylabel="time units integrated per second",
           title=f"Integration rate, {runs['gpu_strong'][1]['cells']:,} cells ({device})")
    ax.set_xticks(sorted({k for kind in ("cpu_mpi", "gpu_strong") for k in runs.get(kind, {})}))
    ax.xaxis.set_major_formatter("{x:g}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def rate_note(runs):
    """The 1-GPU speedup over 1 CPU core and over the best CPU rank count."""
    _, gpu = time_units_per_second(runs["gpu_strong"])
    n, cpu = time_units_per_second(runs["cpu_mpi"])
    best = int(np.argmax(cpu))
    return (f"1 GPU integrates {gpu[0]:.3g} time units/s: {gpu[0] / cpu[0]:.0f}× one CPU core ({cpu[0]:.3g}) and "
            f"{gpu[0] / cpu[best]:.0f}× the best CPU count, {n[best]} MPI ranks ({cpu[best]:.3g}).")


def device_name(device_dir):
    record = Path(device_dir) / "provenance.json"
    return read_json(record).get("device", Path(device_dir).name).split(" (")[0] if record.exists() else \
        Path(device_dir).name


def render_scaling(device_dir, out_dir):
    path = Path(device_dir) / "scaling_gpu.csv"
    runs = {kind: by_ranks for kind, by_ranks in read_runs([path]).items() if kind.startswith("gpu_")}
    result = Rendered(inputs=[path])
    n, s = speedup(runs["gpu_strong"])
    p_t = fit_amdahl(n, s)
    p_w = fit_gustafson(*weak_ratio(runs["gpu_weak"])) if "gpu_weak" in runs else float("nan")
    fig = scaling_figure(runs, p_t, p_w, device_name(device_dir))
    weak_counts = len(runs.get("gpu_weak", {}))
    if weak_counts == len(n):
        fits = (f"Parallel fractions: Amdahl p_t = {p_t:.3f} (paper {PAPER['p_t']}), Gustafson p_w = {p_w:.3f} "
                f"(paper {PAPER['p_w']}); {method_text(len(n))}.")
    else:
        fits = (f"Parallel fractions: Amdahl p_t = {p_t:.3f} (paper {PAPER['p_t']}), {method_text(len(n))}; "
                f"Gustafson p_w = {p_w:.3f} (paper {PAPER['p_w']}), "
                + (f"{method_text(weak_counts)}." if weak_counts else "no weak-scaling rows."))
    sensitivity = sensitivity_note(runs, p_t, p_w)
    single = timings_note(runs)
    # on the figure, the method on a line of its own: the footer's lines wrap at the figure's width
    footer(fig, device_dir, result.inputs, f"{single}\n" + fits.replace("; solved", ".\nSolved").replace(
        "; least", ".\nLeast") + f"\n{sensitivity}")
    result.files += save_figure(fig, out_dir, "fig9-scaling")
    rows = []
    for kind, by_ranks in runs.items():
        ratio = dict(zip(*(weak_ratio(by_ranks) if kind == "gpu_weak" else speedup(by_ranks)))) if 1 in by_ranks \
            else {}
        for ranks, r in by_ranks.items():
            rows.append([kind, ranks, f"{r['cells']:,}", r["steps"], f"{r['seconds']:.2f}",
                         f"{ratio[ranks]:.3f}" if ranks in ratio else "—",
                         f"{r['steps'] * r['dt'] / r['seconds']:.3g}"])
    table = markdown_table(["kind", "ranks", "cells", "steps", "seconds", "S_N or W_N/W_1", "time units/s"], rows)
    table_path = Path(out_dir) / "fig9-scaling.md"
    table_path.write_text(f"# Scaling over GPUs\n\n{table}\n{single} {fits} {sensitivity}\n")
    result.files.append(table_path)
    result.tables.append(table)
    result.notes += [single, fits, sensitivity]
    return result


def render_rate(device_dir, out_dir):
    paths = [Path(device_dir) / name for name in ("scaling_cpu_mpi.csv", "scaling_gpu.csv")]
    runs = read_runs(paths)
    result = Rendered(inputs=paths)
    note = rate_note(runs)
    fig = throughput_figure(runs, device_name(device_dir))
    by_steps = {}
    for ranks, r in sorted(runs["cpu_mpi"].items()):
        by_steps.setdefault(r["steps"], []).append(str(ranks))
    cpu = " and ".join(f"{steps} steps at {', '.join(ranks)} rank{'s' if ranks != ['1'] else ''}"
                       for steps, ranks in sorted(by_steps.items()))
    steps = f"The CPU rows time only {cpu}; the GPU rows {steps_text(runs['gpu_strong'])} steps."
    single = timings_note({kind: runs[kind] for kind in ("cpu_mpi", "gpu_strong")})
    footer(fig, device_dir, paths, f"Time units per second = steps · dt / seconds.\n{single}\n{steps}\n{note}")
    result.files += save_figure(fig, out_dir, "fig10-rate")
    result.notes += [note, steps, single]
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render_scaling, render_rate)
