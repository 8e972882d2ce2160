"""Hybrid ranks: one GPU rank beside OpenMP ranks against the GPU alone, on the paper's BCC case and on the case
stretched past what the GPU holds, from scaleout/hybrid.csv (scripts/scaling-run.sh's scaling.csv: kind, ranks,
structures_z, cells, steps, dt, seconds, peak_host_bytes, halo_depth, slab_slices, and the call). A run the GPU alone was refused
has no time; `call` says which of the provenance's device calls measured the row (the two 3-rank hybrid rows are one
command line on one tree, timed in two calls 12 minutes apart: the gap between them is the machine's spread). Slabs of the hybrid runs were sized by calibration (the GPU rank capped by its free memory)."""

import csv
from pathlib import Path

import matplotlib.pyplot as plt

from common import Rendered, footer, markdown_table, run_on_folder, save_figure, save_table

FILES = "scaleout/hybrid.csv"


def read_runs(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def slabs(row):
    """'GPU 299, CPU 1 × 3' from the ranks' z-slices (rank 0 the GPU's)."""
    slices = row["slab_slices"].split()
    if len(slices) < 2:
        return slices[0] if slices else "—"
    others = sorted(set(slices[1:]), key=int)
    return f"GPU {slices[0]}, CPU {'/'.join(others)} × {len(slices) - 1}"


def table_rows(runs):
    rows = []
    for r in runs:
        if not r["seconds"]:
            rows.append([r["kind"], r["ranks"], r["structures_z"], "—", "—", "—", "—", "—", r["halo_depth"],
                         "refused at once (one line; no steps)", r["call"]])
            continue
        cells, steps, seconds = int(r["cells"]), int(r["steps"]), float(r["seconds"])
        rows.append([r["kind"], r["ranks"], r["structures_z"], f"{cells:,}", steps, f"{1e3 * seconds / steps:.3f}",
                     f"{cells * steps / seconds / 1e6:,.0f}", f"{int(r['peak_host_bytes']) / 2**30:.1f}",
                     r["halo_depth"], slabs(r), r["call"]])
    return rows


def bar_labels(timed):
    """'kind\nN ranks, SM' per run, with the device call that timed it where the same run was timed more than once."""
    keys = [(r["kind"], r["ranks"], r["cells"], r["slab_slices"]) for r in timed]
    labels = []
    for r, key in zip(timed, keys):
        repeat = f" (device call {r['call']})" if keys.count(key) > 1 else ""
        ranks = f"{r['ranks']} rank{'' if r['ranks'] == '1' else 's'}"
        labels.append(f"{r['kind']}\n{ranks}, {int(r['cells']) / 1e6:,.0f}M{repeat}")
    return labels


HEADER = ["kind", "ranks", "Sz", "cells", "steps", "ms / step", "M cell-updates/s", "largest rank's host GiB", "k",
          "z-slices", "device call"]


def render(device_dir, out_dir):
    path = Path(device_dir) / FILES
    runs = read_runs(path)
    result = Rendered(inputs=[path])
    timed = [r for r in runs if r["seconds"]]
    fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    labels = bar_labels(timed)
    rates = [int(r["cells"]) * int(r["steps"]) / float(r["seconds"]) / 1e9 for r in timed]
    ax.barh(range(len(timed)), rates)
    ax.set_yticks(range(len(timed)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set(xlabel="G cell-updates/s", title="Hybrid ranks against the GPU alone")
    footer(fig, device_dir, result.inputs, "hybrid: 1 GPU rank + OpenMP ranks; bitwise the reference (ctest); device call n: "
           "the n-th of the provenance's three calls")
    result.files += save_figure(fig, out_dir, "scaleout-hybrid")
    save_table(result, out_dir, "scaleout-hybrid", "Hybrid ranks against the GPU alone", "Hybrid ranks",
               markdown_table(HEADER, table_rows(runs)))
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
