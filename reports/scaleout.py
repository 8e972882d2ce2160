"""Deep halos: the time of a run's steps on MPI ranks for each halo depth k (slices per side, exchanged every k
stencil kernels), from scaleout/halo-depth.csv (ranks,halo_depth,structures_z,cells,steps,seconds,repetition).
Repeats are reduced to their median; the spread is (max − min)/median."""

import csv
import statistics
from pathlib import Path

import matplotlib.pyplot as plt

from common import Rendered, footer, markdown_table, run_on_folder, save_figure, save_table

FILES = "scaleout/halo-depth.csv"


def read_depth_runs(path):
    """{(ranks, cells, steps): {k: [seconds, ...]}} from a halo-depth CSV."""
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["ranks"]), int(row["cells"]), int(row["steps"]))
            runs.setdefault(key, {}).setdefault(int(row["halo_depth"]), []).append(float(row["seconds"]))
    return runs


def summary(times):
    """median, spread (max − min)/median, count."""
    median = statistics.median(times)
    return median, (max(times) - min(times)) / median, len(times)


def depth_rows(runs):
    rows = []
    for (ranks, cells, steps), by_depth in sorted(runs.items()):
        base = statistics.median(by_depth[1]) if 1 in by_depth else None
        for k, times in sorted(by_depth.items()):
            median, spread, count = summary(times)
            rows.append([ranks, f"{cells:,}", steps, k, f"{median:.3f}", f"{100 * spread:.0f}%", count,
                         f"{cells * steps / median / 1e6:.1f}",
                         f"{median / base:.3f}" if base else "—"])
    return rows


HEADER = ["ranks", "cells", "steps", "k", "median s", "spread", "timings", "M cell-updates/s", "time / time at k = 1"]


def render(device_dir, out_dir):
    path = Path(device_dir) / FILES
    runs = read_depth_runs(path)
    result = Rendered(inputs=[path])
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for (ranks, cells, steps), by_depth in sorted(runs.items()):
        ks = sorted(by_depth)
        medians = [statistics.median(by_depth[k]) for k in ks]
        low = [m - min(by_depth[k]) for k, m in zip(ks, medians)]
        high = [max(by_depth[k]) - m for k, m in zip(ks, medians)]
        ax.errorbar(ks, medians, yerr=[low, high], marker="o", capsize=4,
                    label=f"{ranks} ranks, {cells:,} cells, {steps} steps")
    ax.set(xlabel="halo depth k (slices per side; exchanged every k stencil kernels)",
           ylabel="seconds of the steps (median; bars: min–max)", title="Deep halos: time against k")
    ax.set_xticks(sorted({k for by_depth in runs.values() for k in by_depth}))
    ax.legend()
    footer(fig, device_dir, result.inputs, "the state is bitwise the same for every k (mpi tests)")
    result.files += save_figure(fig, out_dir, "scaleout-halo-depth")
    save_table(result, out_dir, "scaleout-halo-depth", "Deep halos: time against the halo depth", "Halo depth",
               markdown_table(HEADER, depth_rows(runs)))
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
