"""Fig 8: the step kernel on the FP64 roofline, and its DRAM bytes per DOF-update against the 48-byte model.

    roofline.py DEVICE_FOLDER [--out DIR]

Counters come from DEVICE_FOLDER/roofline/ (scripts/profile-roofline.sh: roofline.json and one Nsight Compute CSV per
run): FLOPs = dadd + dmul + 2·dfma (thread-level SASS counts), arithmetic intensity = FLOPs / DRAM bytes. The memory
ceiling is the device-to-device copy rate bench_step measured (DEVICE_FOLDER/bench-*.json). Without counters (no
roofline/, or roofline.json says "counters": false) the figure places bench_step's cuda:plain throughputs at the
analytic model's intensity instead, and says so on it.
"""

import csv
import math
from pathlib import Path

import numpy as np

from common import (run_on_folder, BYTES_PER_UPDATE, GPU, LABELS, Rendered, bench_files, copy_bandwidth, lattice_order, load_bench,
                    markdown_table, plt, read_json, registry_entries, save_figure, si)

# FP64 vector peak without tensor cores (the step issues no tensor-core instructions), from NVIDIA's datasheets,
# matched as a substring of the CUDA device name. "H100 80GB HBM3" is the SXM5 board.
FP64_PEAK = {"H100 80GB HBM3": 33.5e12, "H100 SXM": 33.5e12, "H200": 34e12}

# FP64 operations per DOF-update, counted in solvers/cell_arithmetic.hpp and solvers/cuda/cell_access.cuh (built without
# FMA contraction): a face adds w·(ψᵢ − ψⱼ) to the sum, 2 sub + 2 mul + 2 add; the harmonic potential is 9 for the
# position and 8 for ½(x² + y² + λ²z²); the update (½ sum + (V + g|ψ|²)ψ, times 2Δt, into ψⁿ⁻¹) is 15.
FLOPS_PER_FACE = 6
FLOPS_PER_CELL = 17 + 15


def faces_per_cell(lattice):
    """The mean faces a cell of the lattice's structure (`decgpe list lattices --json`; FCC (8·4 + 4·8) / 12)."""
    return registry_entries("lattices")[lattice]["faces_per_cell"]


METRICS = {
    "dram": "dram__bytes.sum",
    "dadd": "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "dmul": "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "dfma": "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "time": "gpu__time_duration.sum",
}
HOLLOW = dict(markerfacecolor="none", markersize=9, markeredgewidth=1.5)  # points that coincide stay visible
PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def analytic_flops(lattice):
    return FLOPS_PER_FACE * faces_per_cell(lattice) + FLOPS_PER_CELL


def fp64_peak(gpu_name):
    return next((peak for key, peak in FP64_PEAK.items() if key in gpu_name), None)


def to_base(text, unit):
    """An ncu value in base units (bytes, instructions, seconds) from what ncu printed: "246,583,040" byte with
    --print-units base, "246.583040" Mbyte without; "88,192" ns or "88.192000" us."""
    for base in ("byte", "inst", "second", "s"):
        if unit.endswith(base) and unit[: -len(base)] in PREFIX:
            return float(text.replace(",", "")) * PREFIX[unit[: -len(base)]]
    raise ValueError(f"unexpected ncu unit {unit!r}")


def read_ncu_csv(path):
    """The metrics of the one launch in an `ncu --csv --page raw` file: a header row, a units row, a value row."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # ncu may put ==PROF== or warning lines first
    header, units, *launches = csv.reader(lines)
    if len(launches) != 1:
        raise ValueError(f"{path}: expected one profiled launch, found {len(launches)}")
    row = dict(zip(header, zip(launches[0], units)))
    return {key: to_base(*row[name]) for key, name in METRICS.items()}


def profiled_runs(folder, settings):
    runs = []
    for run in settings["runs"]:
        m = read_ncu_csv(Path(folder) / run["csv"])
        flops = m["dadd"] + m["dmul"] + 2 * m["dfma"]
        runs.append(dict(run, flops=flops, dram=m["dram"], time=m["time"], intensity=flops / m["dram"],
                         flop_rate=flops / m["time"]))
    return runs


def ceilings(ax, intensities, copy_rate, peak):
    """The roof: the copy rate's slope up to the ridge, where it meets the FP64 peak, flat from there."""
    ridge = peak / copy_rate if peak and copy_rate else max(intensities)
    low = 10.0 ** math.floor(math.log10(min(intensities) / 3))
    high = 10.0 ** math.ceil(math.log10(max(*intensities, ridge) * 3))
    if copy_rate:
        top = ridge if peak else high  # straight lines on log-log axes: their ends suffice
        ax.plot([low, top], [low * copy_rate, top * copy_rate], color="black", linestyle="--",
                label=f"copy rate {si(copy_rate, 'B/s')} (measured)")
    if peak:
        ax.plot([ridge if copy_rate else low, high], [peak, peak], color="black",
                label=f"FP64 peak {si(peak, 'FLOP/s')} (datasheet, no tensor cores)")
    ax.set(xscale="log", yscale="log", xlabel="arithmetic intensity (FLOP / DRAM byte)", ylabel="FLOP/s")
    ax.grid(True, which="both", alpha=0.2)


def counter_figure(runs, settings, copy_rate, peak, title):
    fig, (roof, traffic) = plt.subplots(1, 2, figsize=(13, 4.6), constrained_layout=True)
    ceilings(roof, [r["intensity"] for r in runs], copy_rate, peak)
    markers = dict(zip(lattice_order(r["lattice"] for r in runs), "osD^vP"))
    for lattice, marker in markers.items():
        mine = sorted((r for r in runs if r["lattice"] == lattice), key=lambda r: r["dofs"])
        colours = plt.cm.viridis(np.linspace(0, 0.85, len(mine)))
        for r, colour in zip(mine, colours):
            roof.plot(r["intensity"], r["flop_rate"], marker=marker, color=colour, linestyle="none", **HOLLOW,
                      label=f"{LABELS[lattice]} {r['edge']}³ ({si(r['dofs'])} DOFs)")
        traffic.plot([r["dofs"] for r in mine], [r["dram"] / r["dofs"] for r in mine], marker=marker,
                     label=LABELS[lattice])
    roof.set_title("step kernel on the roofline")
    roof.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1))
    traffic.axhline(BYTES_PER_UPDATE, color="black", linestyle="--", label=f"model: {BYTES_PER_UPDATE} B/update")
    top = max(BYTES_PER_UPDATE, *(r["dram"] / r["dofs"] for r in runs)) * 1.25
    traffic.set(xscale="log", xlabel="DOFs (cells)", ylabel="DRAM bytes per DOF-update", ylim=(0, top),
                title="DRAM traffic of one step")
    traffic.grid(True, alpha=0.3)
    traffic.legend(fontsize="small", loc="lower right")
    fig.suptitle(title)
    note = (f"Nsight Compute {settings.get('ncu_version', '')}: kernel {settings['kernel_regex']}, launch "
            f"{settings['launch_skip'] + 1} of the run, --clock-control {settings['clock_control']} (times at those "
            "clocks).\nLeft: marker shape = lattice, colour = problem size within it (dark: smallest, light: largest; "
            "sizes in the legend).")
    if peak:
        note += (f"\nFP64 peak: the vendor datasheet's, at boost clocks, while the counters ran at "
                 f"{settings['clock_control']} clocks. It does not bind: the kernel's "
                 f"{max(r['intensity'] for r in runs):.1f} FLOP/B at most lies far left of the ridge"
                 + (f" ({peak / copy_rate:.1f} FLOP/B): memory-bound." if copy_rate else ": memory-bound."))
    fig.text(0.5, -0.02, note, ha="center", va="top", fontsize="small")
    return fig


def analytic_figure(points, copy_rate, peak, reason, title):
    fig, ax = plt.subplots(figsize=(9, 4.6), constrained_layout=True)
    ceilings(ax, [p["intensity"] for p in points], copy_rate, peak)
    for p, marker in zip(points, "osD^vP"):
        ax.plot(p["intensity"], p["flop_rate"], marker=marker, linestyle="none", **HOLLOW,
                label=f"{LABELS[p['lattice']]} ({si(p['dofs'])} DOFs)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title("analytic model (no counters)", color="tab:red")
    fig.suptitle(title)
    note = (f"No hardware counters ({reason}). Intensity: FLOPs counted from the kernel source over the "
            f"{BYTES_PER_UPDATE}-B/update model;\nFLOP/s: those FLOPs times bench_step's {GPU} DOF-updates/s at the "
            "largest size. FP64 peak: vendor datasheet.")
    fig.text(0.5, -0.02, note, ha="center", va="top", fontsize="small")
    return fig


def analytic_points(measurements):
    """Each lattice's largest cuda:plain measurement, at the model's intensity."""
    largest = {}
    for (backend, lattice, dofs), m in measurements.items():
        if backend == GPU and dofs > largest.get(lattice, (0,))[0]:
            largest[lattice] = (dofs, m.rate)
    points = []
    for lattice in lattice_order(largest):
        dofs, rate = largest[lattice]
        flops = analytic_flops(lattice)
        points.append(dict(lattice=lattice, dofs=dofs, rate=rate, flops=flops, intensity=flops / BYTES_PER_UPDATE,
                           flop_rate=flops * rate))
    return points


def render(device_dir, out_dir):
    device_dir, out_dir = Path(device_dir), Path(out_dir)
    benches = bench_files(device_dir)
    result = Rendered(inputs=list(benches))
    copy_rate = copy_bandwidth(benches)
    gpu_name = next((c["gpu_name"] for c in (read_json(p)["context"] for p in benches) if "gpu_name" in c), "")
    peak = fp64_peak(gpu_name)
    if not peak:
        result.notes.append(f"No FP64 peak on record for '{gpu_name}': the compute ceiling is left out.")
    settings_path = device_dir / "roofline" / "roofline.json"
    settings = read_json(settings_path) if settings_path.exists() else {"counters": False, "reason": "not profiled"}
    title = f"Roofline of the leapfrog step ({gpu_name or 'unknown GPU'})"

    if settings["counters"]:
        runs = profiled_runs(settings_path.parent, settings)
        result.inputs.append(settings_path)  # it names the CSV files and how they were taken
        result.files += save_figure(counter_figure(runs, settings, copy_rate, peak, title), out_dir, "fig8-roofline")
        header = ["lattice", "structures", "DOFs", "DRAM B/update", "FLOPs/update", "FLOP/B", "GFLOP/s",
                  f"G DOF-updates/s (clocks: {settings['clock_control']})"]
        rows = [[LABELS[r["lattice"]], f"{r['edge']}³", f"{r['dofs']:,}", f"{r['dram'] / r['dofs']:.1f}",
                 f"{r['flops'] / r['dofs']:.1f}", f"{r['intensity']:.2f}", f"{r['flop_rate'] / 1e9:.0f}",
                 f"{r['dofs'] / r['time'] / 1e9:.1f}"] for r in runs]
    else:
        if settings_path.exists():
            result.inputs.append(settings_path)
        result.notes.append(f"Analytic model (no counters: {settings['reason']}).")
        points = analytic_points(load_bench(benches))
        if not points:
            result.notes.append(f"No {GPU} measurements: nothing to place on the roofline.")
            return result
        result.files += save_figure(analytic_figure(points, copy_rate, peak, settings["reason"], title), out_dir,
                                    "fig8-roofline")
        header = ["lattice", "faces/cell", "FLOPs/update (model)", f"FLOP/B at {BYTES_PER_UPDATE} B", "DOFs",
                  "G DOF-updates/s", "GFLOP/s"]
        rows = [[LABELS[p["lattice"]], f"{faces_per_cell(p['lattice']):.3g}", f"{p['flops']:.1f}", f"{p['intensity']:.2f}",
                 f"{p['dofs']:,}", f"{p['rate'] / 1e9:.1f}", f"{p['flop_rate'] / 1e9:.0f}"] for p in points]
    table = markdown_table(header, rows)
    table_path = out_dir / "fig8-roofline.md"
    table_path.write_text(f"# {title}\n\n{table}")
    result.files.append(table_path)
    result.tables.append(table)
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
