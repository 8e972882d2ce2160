"""Fig 7: the GPU's DOF-updates/s over one CPU core (`reference`) and over all host cores (`openmp`), per lattice and
problem size, from bench_step's Google Benchmark JSON.

    speedup.py BENCH.json|FOLDER ... [--out DIR]

Writes fig7-throughput.{png,pdf} (DOF-updates/s against DOFs: every backend, every measured size),
fig7-speedup.{png,pdf} (the ratios against DOFs) and fig7-speedup.md. A ratio is taken only where the GPU and a CPU
backend ran the same lattice at the same DOF count; runs at other sizes show in the throughput figure alone.
"""

import argparse
import math
from pathlib import Path

from matplotlib.ticker import NullFormatter

from common import (BYTES_PER_UPDATE, GPU, LABELS, Rendered, bench_files, copy_bandwidth, lattice_order, load_bench,
                    markdown_table, plt, read_json, save_figure)

STYLE = {  # colour, marker; CPU backends first
    "reference": ("tab:gray", "v"),
    "openmp": ("tab:blue", "s"),
    "cuda:plain": ("tab:green", "o"),
    "cuda:shared": ("tab:olive", "D"),
}


def speedups(measurements):
    """(lattice, dofs, gpu, reference, openmp) for each size where the GPU and at least one CPU backend ran; a CPU
    backend that did not run that size is None."""
    rows = []
    for (backend, lattice, dofs), gpu in measurements.items():
        cpu = [measurements.get((name, lattice, dofs)) for name in ("reference", "openmp")]
        if backend == GPU and any(cpu):
            rows.append((lattice, dofs, gpu, *cpu))
    order = lattice_order(r[0] for r in rows)
    return sorted(rows, key=lambda r: (order.index(r[0]), r[1]))


def times(r):
    """A speedup as printed: whole numbers from 100 up, one decimal below."""
    return f"{r:.0f}" if r >= 100 else f"{r:.1f}"


def backend_label(name, measurements):
    if name == "reference":
        return "reference (1 core)"
    source = next((m.source for key, m in measurements.items() if key[0] == name), None)
    if name == "openmp" and source:
        return f"openmp ({read_json(source)['context']['num_cpus']} cores)"
    return name


def throughput_figure(measurements, copy_rate, title):
    lattices = lattice_order(key[1] for key in measurements)
    backends = sorted({key[0] for key in measurements}, key=lambda b: (list(STYLE) + [b]).index(b))
    cols = min(3, len(lattices))
    rows = math.ceil(len(lattices) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), sharey=True, squeeze=False,
                             constrained_layout=True)
    for ax, lattice in zip(axes.flat, lattices):
        for backend in backends:
            points = sorted((k[2], m.rate) for k, m in measurements.items() if k[:2] == (backend, lattice))
            if points:
                colour, marker = STYLE.get(backend, ("black", "x"))
                ax.plot(*zip(*points), color=colour, marker=marker, label=backend_label(backend, measurements))
        if copy_rate:
            ax.axhline(copy_rate / BYTES_PER_UPDATE, color="black", linestyle="--", linewidth=1,
                       label=f"GPU copy rate ÷ {BYTES_PER_UPDATE} B/update")
        ax.set(xscale="log", yscale="log", title=LABELS[lattice], xlabel="DOFs (cells)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("DOF-updates/s")
    if copy_rate:
        axes[0, 0].set_ylim(top=2 * copy_rate / BYTES_PER_UPDATE)  # room above the ceiling
    for ax in axes.flat[len(lattices):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=len(handles), frameon=False)
    fig.suptitle(title)
    return fig


def whole_decades(ax):
    """Log axes from one power of ten to another, so that one or two points get readable ticks, not crowded minor
    labels."""
    for axis, limits, setter in ((ax.xaxis, ax.dataLim.intervalx, ax.set_xlim),
                                 (ax.yaxis, ax.dataLim.intervaly, ax.set_ylim)):
        low, high = math.floor(math.log10(limits[0])), math.ceil(math.log10(limits[1]))
        setter(10.0**low, 10.0**max(high, low + 1))
        axis.set_minor_formatter(NullFormatter())


def speedup_figure(rows, measurements, title):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    for ax, (column, cpu) in zip(axes, ((3, "reference"), (4, "openmp"))):
        for lattice in lattice_order(r[0] for r in rows):
            points = [(r[1], r[2].rate / r[column].rate) for r in rows if r[0] == lattice and r[column]]
            if points:
                dofs, last = points[-1]
                ax.plot(*zip(*points), marker="o", label=f"{LABELS[lattice]} ({times(last)}× at {dofs:,} DOFs)")
        ax.set(xscale="log", yscale="log", xlabel="DOFs (cells)", ylabel="speedup (×)",
               title=f"{GPU} over {backend_label(cpu, measurements)}")
        ax.grid(True, which="both", alpha=0.2)
        if ax.has_data():
            whole_decades(ax)
            ax.legend(fontsize="small")
    fig.suptitle(title)
    return fig


def render_files(paths, out_dir):
    measurements = load_bench(paths)
    result = Rendered(inputs=sorted({m.source for m in measurements.values()}))
    gpu_names = {read_json(p)["context"].get("gpu_name") for p in result.inputs} - {None}
    device = ", ".join(sorted(gpu_names)) or "no GPU"
    copy_rate = copy_bandwidth(result.inputs)
    figure = throughput_figure(measurements, copy_rate, f"Leapfrog step throughput ({device})")
    result.files += save_figure(figure, out_dir, "fig7-throughput")
    rows = speedups(measurements)
    if not rows:
        result.notes.append(f"No size at which {GPU} and a CPU backend both ran: no ratios.")
        return result
    result.files += save_figure(speedup_figure(rows, measurements, f"GPU speedup ({device})"), out_dir,
                                "fig7-speedup")
    cells = []
    for lattice, dofs, gpu, *cpu in rows:
        cells.append([LABELS[lattice], f"{dofs:,}", f"{gpu.rate / 1e9:.1f}",
                      *(f"{c.rate / 1e6:.1f}" if c else "—" for c in cpu),
                      *(times(gpu.rate / c.rate) if c else "—" for c in cpu)])
    header = ["lattice", "DOFs", f"{GPU} G DOF-updates/s", "reference M DOF-updates/s",
              f"{backend_label('openmp', measurements)} M DOF-updates/s", "× reference", "× openmp"]
    table = markdown_table(header, cells)
    table_path = Path(out_dir) / "fig7-speedup.md"
    table_path.write_text(f"# GPU speedup over CPU ({device})\n\n{table}")
    result.files.append(table_path)
    result.tables.append(table)
    unpaired = len(measurements) - sum(1 + bool(r[3]) + bool(r[4]) for r in rows)
    if unpaired:
        result.notes.append(f"{unpaired} of {len(measurements)} measurements enter no ratio (other sizes or backends); "
                            "the throughput figure shows them all.")
    return result


def render(device_dir, out_dir):
    return render_files(bench_files(device_dir), out_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", type=Path, help="bench_step JSON files or folders of bench-*.json")
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    paths = [p for arg in args.inputs for p in (bench_files(arg) if arg.is_dir() else [arg])]
    args.out.mkdir(parents=True, exist_ok=True)
    result = render_files(paths, args.out)
    print("\n".join([*map(str, result.files), *result.notes]))


if __name__ == "__main__":
    main()
