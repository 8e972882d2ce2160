"""Time to solution on a GPU, from scripts/time-to-solution.sh's DEVICE_FOLDER/time-to-solution/time_to_solution.json:
the six accuracy cases run to the vortex split on the grid of the paper's criterion, once with Δt = 0.9 of eq. 11's
bound (the paper's choice) and once with Δt = 0.9 of the leapfrog's stability limit from the spectrum of M. GPU s is
the stepping time the results record (set-up excluded); the split time shows what the larger step does to the
physics.

    time_to_solution.py DEVICE_FOLDER [--out DIR]
"""

from pathlib import Path

import numpy as np

from common import LABELS, Rendered, footer, markdown_table, plt, read_json, run_on_folder, save_figure, save_table

FILE = "time-to-solution/time_to_solution.json"
RUNS = (("eq11", "Δt = 0.9 of eq. 11's bound", "tab:gray"), ("limit", "Δt = 0.9 of the spectral limit", "tab:blue"))


def table_rows(rows):
    out = []
    for r in rows:
        e, s = r["eq11"], r["limit"]
        out.append([LABELS[r["lattice"]], f"{e['cells']:,}", f"{e['dt']:.4g}", e["steps"], f"{e['split_time']:.2f}",
                    f"{e['wall_seconds']:.2f}", f"{s['dt']:.4g}", s["steps"], f"{s['split_time']:.2f}",
                    f"{s['wall_seconds']:.2f}", f"{e['wall_seconds'] / s['wall_seconds']:.2f}"])
    return out


HEADER = ["lattice", "cells", "eq. 11: Δt", "steps", "split t", "GPU s", "limit: Δt", "steps", "split t", "GPU s",
          "speed-up"]


def render(device_dir, out_dir):
    path = Path(device_dir) / FILE
    rows = read_json(path)
    result = Rendered(inputs=[path])
    x = np.arange(len(rows))
    fig, (seconds, split) = plt.subplots(1, 2, figsize=(13, 4.5), constrained_layout=True)
    for k, (key, label, colour) in enumerate(RUNS):
        seconds.bar(x + (k - 0.5) * 0.4, [r[key]["wall_seconds"] for r in rows], 0.4, color=colour, label=label)
        split.plot(x, [r[key]["split_time"] for r in rows], marker="os"[k], linestyle="none", color=colour,
                   label=label)
    for k, r in enumerate(rows):
        seconds.annotate(f"{r['eq11']['wall_seconds'] / r['limit']['wall_seconds']:.2f}×",
                         (k + 0.2, r["limit"]["wall_seconds"]), ha="center", va="bottom", fontsize="small")
    ticks = [LABELS[r["lattice"]] for r in rows]
    seconds.set_xticks(x, ticks)
    seconds.set(ylabel="GPU seconds to the split", title="(a) stepping time to the split (speed-up over eq. 11's Δt)")
    seconds.set_ylim(0, 1.2 * max(r["eq11"]["wall_seconds"] for r in rows))
    seconds.legend(fontsize="small", loc="upper left")
    split.set_xticks(x, ticks)
    split.set(ylabel="split time t (1/ω⊥)", title="(b) the split time with either step")
    split.legend(fontsize="small")
    footer(fig, device_dir, result.inputs, "cases/accuracy/*.toml on the grid of the paper's criterion, to the split")
    result.files += save_figure(fig, out_dir, "time-to-solution")
    save_table(result, out_dir, "time-to-solution", "Time to solution on the GPU", "Time to solution",
               markdown_table(HEADER, table_rows(rows)))
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with time-to-solution/time_to_solution.json)")
