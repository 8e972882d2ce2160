"""Fig 7: the GPU's DOF-updates/s over one CPU core (`reference`) and over all host cores (`openmp`), per lattice and
problem size, from ONE bench_step Google Benchmark JSON: DEVICE_FOLDER/bench-speedup.json.

    speedup.py BENCH.json|DEVICE_FOLDER [--out DIR]

Writes fig7-throughput.{png,pdf} (DOF-updates/s against DOFs: every backend, every measured size),
fig7-speedup.{png,pdf} (the ratios against DOFs) and fig7-speedup.md. A ratio is taken only where the GPU and a CPU
backend ran the same lattice at the same DOF count; runs at other sizes show in the throughput figure alone.

One file, one build, one session: mixing files measured at different commits put a kink into the curves where one
file's points met the other's. With repetitions (--benchmark_repetitions, per-repetition entries with run_type
"iteration" and repetition_index, plus the _mean/_median/_stddev/_cv aggregates) each point is the median over the
repetitions and its bar spans the slowest to the fastest repetition; a ratio's bar spans the slowest GPU repetition
over the fastest CPU one to the fastest GPU repetition over the slowest CPU one. A file of single runs draws points
without bars; a file holding only aggregates uses their median and, where present, min and max.
"""

import argparse
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

from matplotlib.ticker import NullFormatter

import re

from common import (BYTES_PER_UPDATE, GPU, LABELS, Rendered, footer, lattice_order, markdown_table, own_record, plt,
                    provenance, read_json, save_figure, si)

FILE = "bench-speedup.json"  # the one file Fig 7 is drawn from, in a device folder
SCHEDULE = "speedup-run.log"  # scripts/speedup-run.sh's record of when each part ran, beside it


def backends_note(context):
    cores = f"all {context['num_cpus']}" if "num_cpus" in context else "all the"
    return (f"reference: the serial oracle backend (one core, plain loops); openmp: the same on {cores} host cores; "
            f"{GPU}: the GPU kernel.")

STYLE = {  # colour, marker; CPU backends first
    "reference": ("tab:gray", "v"),
    "openmp": ("tab:blue", "s"),
    "cuda:plain": ("tab:green", "o"),
}


@dataclass(frozen=True)
class Point:
    """One backend, lattice and size: the median DOF-updates/s over the repetitions and their range."""

    backend: str
    lattice: str
    dofs: int
    rate: float  # median over the repetitions
    low: float  # slowest repetition (= rate for a single run)
    high: float  # fastest repetition
    repetitions: int
    stddev: float  # over the repetitions; nan for fewer than two
    bar: str = "range"  # what low–high is: "range" (min–max), "stddev" (median ± s.d., aggregates only) or "none"


def read_points(path):
    """{(backend, lattice, dofs): Point} of the leapfrog step (step/<backend>/<lattice>/<dofs>/…) in one file."""
    doc = read_json(path)
    runs, aggregates = {}, {}
    for b in doc["benchmarks"]:
        if b.get("error_occurred") or "dof_updates_per_second" not in b:
            continue
        kind, backend, lattice = b["name"].split("/")[:3]
        if kind != "step":  # rk4/… and the other schemes are not the paper's step
            continue
        if b.get("run_type") == "aggregate":
            aggregates.setdefault((backend, lattice, b["run_name"]), {})[b["aggregate_name"]] = b
        else:
            runs.setdefault((backend, lattice, int(b["dofs"])), []).append(b["dof_updates_per_second"])
    points = {}
    for (backend, lattice, dofs), rates in runs.items():
        points[backend, lattice, dofs] = Point(
            backend, lattice, dofs, rate=statistics.median(rates), low=min(rates), high=max(rates),
            repetitions=len(rates), stddev=statistics.stdev(rates) if len(rates) > 1 else math.nan,
            bar="range" if len(rates) > 1 else "none")
    for (backend, lattice, _), by_name in aggregates.items():  # only where no per-repetition entries were written
        centre = by_name.get("median") or by_name.get("mean")
        if centre is None:
            continue
        dofs = int(centre["dofs"])
        if (backend, lattice, dofs) in points:
            continue
        rate = centre["dof_updates_per_second"]
        stddev = by_name["stddev"]["dof_updates_per_second"] if "stddev" in by_name else math.nan
        if "min" in by_name and "max" in by_name:
            low, high, bar = by_name["min"]["dof_updates_per_second"], by_name["max"]["dof_updates_per_second"], "range"
        elif math.isfinite(stddev):
            low, high, bar = rate - stddev, rate + stddev, "stddev"
        else:
            low, high, bar = rate, rate, "none"
        points[backend, lattice, dofs] = Point(backend, lattice, dofs, rate=rate, low=low, high=high,
                                               repetitions=int(centre.get("repetitions", 1)), stddev=stddev, bar=bar)
    return points


def speedups(points):
    """(lattice, dofs, gpu, reference, openmp) for each size where the GPU and at least one CPU backend ran; a CPU
    backend that did not run that size is None."""
    rows = []
    for (backend, lattice, dofs), gpu in points.items():
        cpu = [points.get((name, lattice, dofs)) for name in ("reference", "openmp")]
        if backend == GPU and any(cpu):
            rows.append((lattice, dofs, gpu, *cpu))
    order = lattice_order(r[0] for r in rows)
    return sorted(rows, key=lambda r: (order.index(r[0]), r[1]))


def ratio(gpu, cpu):
    """The speedup (medians) and its range over the repetitions: (median, lowest, highest)."""
    return gpu.rate / cpu.rate, gpu.low / cpu.high, gpu.high / cpu.low


def times(r):
    """A speedup as printed: whole numbers from 100 up, one decimal below."""
    return f"{r:.0f}" if r >= 100 else f"{r:.1f}"


def has_spread(points):
    return any(p.bar != "none" for p in points.values())


def backend_label(name, context):
    if name == "reference":
        return "reference (1 core)"
    if name == "openmp" and "num_cpus" in context:
        return f"openmp ({context['num_cpus']} cores)"
    return name


def error_bars(values):
    """matplotlib's yerr from (centre, low, high) triples."""
    return [[c - lo for c, lo, _ in values], [hi - c for c, _, hi in values]]


def throughput_figure(points, context, title):
    copy_rate = float(context["gpu_copy_bytes_per_second"]) if "gpu_copy_bytes_per_second" in context else None
    lattices = lattice_order(key[1] for key in points)
    backends = sorted({key[0] for key in points}, key=lambda b: (list(STYLE) + [b]).index(b))
    cols = min(3, len(lattices))
    rows = math.ceil(len(lattices) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), sharey=True, squeeze=False,
                             constrained_layout=True)
    for ax, lattice in zip(axes.flat, lattices):
        for backend in backends:
            chosen = sorted((p for k, p in points.items() if k[:2] == (backend, lattice)), key=lambda p: p.dofs)
            if chosen:
                colour, marker = STYLE.get(backend, ("black", "x"))
                ax.errorbar([p.dofs for p in chosen], [p.rate for p in chosen],
                            yerr=error_bars([(p.rate, p.low, p.high) for p in chosen]), color=colour,
                            marker=marker, capsize=3, label=backend_label(backend, context))
        if copy_rate:
            ax.axhline(copy_rate / BYTES_PER_UPDATE, color="black", linestyle="--", linewidth=1,
                       label=f"GPU copy bandwidth {si(copy_rate, 'B/s')} (measured)\n÷ {BYTES_PER_UPDATE} B/update = "
                             f"{si(copy_rate / BYTES_PER_UPDATE)} DOF-updates/s")
        ax.set(xscale="log", yscale="log", title=LABELS[lattice], xlabel="DOFs (cells)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("DOF-updates/s")
    if copy_rate:
        axes[0, 0].set_ylim(top=2 * copy_rate / BYTES_PER_UPDATE)  # room above the ceiling
    for ax in axes.flat[len(lattices):]:
        ax.set_visible(False)
    # Inside the first panel, in the empty decade between the CPU and the GPU rates (below the figure it would
    # meet the footer).
    axes.flat[0].legend(fontsize="small", loc="lower right", bbox_to_anchor=(1, 0.42), framealpha=0.9)
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


def speedup_figure(rows, context, title):
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    for ax, (column, cpu) in zip(axes, ((3, "reference"), (4, "openmp"))):
        for lattice in lattice_order(r[0] for r in rows):
            chosen = [r for r in rows if r[0] == lattice and r[column]]
            if chosen:
                values = [ratio(r[2], r[column]) for r in chosen]
                dofs, (last, *_) = chosen[-1][1], values[-1]
                ax.errorbar([r[1] for r in chosen], [v[0] for v in values], yerr=error_bars(values), marker="o",
                            capsize=3, label=f"{LABELS[lattice]} ({times(last)}× at {dofs:,} DOFs)")
        ax.set(xscale="log", yscale="log", xlabel="DOFs (cells)", ylabel="speedup (×)",
               title=f"{GPU} over {backend_label(cpu, context)}")
        ax.grid(True, which="both", alpha=0.2)
        if ax.has_data():
            whole_decades(ax)
            ax.legend(fontsize="small")
    fig.suptitle(title)
    return fig


def spread_note(points):
    counts = sorted({p.repetitions for p in points.values()})
    bars = {p.bar for p in points.values()}
    if bars == {"none"}:
        return "One run per point (no repetitions in the file): no error bars."
    if bars == {"stddev"}:
        return (f"Points: the median over {' or '.join(map(str, counts))} repetitions (the file holds aggregates "
                "only); bars: ± one standard deviation over the repetitions. A speedup's bar: the same extremes "
                "combined (GPU low over CPU high to GPU high over CPU low).")
    return (f"Points: the median over {' or '.join(map(str, counts))} repetitions; bars: the slowest to the fastest "
            "repetition (min–max, not a standard deviation). A speedup's bar: slowest GPU over fastest CPU "
            "repetition to fastest GPU over slowest CPU repetition."
            + (" Points without a bar: one run." if "none" in bars else "")
            + (" Some points: ± one standard deviation (aggregates only)." if "stddev" in bars else ""))


def schedule_note(folder, context):
    """When each part of the measurement ran, from speedup-run.log ("<time> start <part>: <command>", "<time> end
    <part>"): the parts that overlapped in time, and how many host cores they kept busy (one thread each, but
    openmp); "" without the log."""
    path = Path(folder) / SCHEDULE
    if not path.exists():
        return ""
    spans = {}
    for line in path.read_text().splitlines():
        found = re.match(r"^(\S+T(\d\d:\d\d:\d\d)\S*) (start|end) ([\w.-]+)", line)
        if found:
            spans.setdefault(found[4], {})[found[3]] = (found[1], found[2])
    parts = [(name, span) for name, span in spans.items() if {"start", "end"} <= span.keys()]  # the log's order
    parts.sort(key=lambda p: p[1]["start"][0])
    groups = []  # parts whose runs overlap, in order
    for name, span in parts:
        if groups and span["start"][0] < groups[-1]["end"][0]:
            groups[-1]["names"].append(name)
            groups[-1]["end"] = max(groups[-1]["end"], span["end"])
        else:
            groups.append({"names": [name], "start": span["start"], "end": span["end"]})
    if not groups:
        return ""
    cores = context.get("num_cpus")
    said = []
    for group in groups:
        names = group["names"]
        when = f"{group['start'][1]}–{group['end'][1]} UTC"
        if len(names) > 1:
            busy = (f", one thread each: {len(names)} of {cores} host cores busy"
                    if cores and not any("openmp" in n for n in names) else "")
            said.append(f"{', '.join(names[:-1])} and {names[-1]} side by side ({when}{busy})")
        else:
            said.append(f"{names[0]} alone ({when})")
    return f"Schedule ({SCHEDULE}): " + ", then ".join(said) + "."


def gpu_bar_note(points):
    """The GPU's spread is too small to see: its bars hide behind the markers."""
    spans = [(p.high - p.low) / p.rate for p in points.values() if p.backend == GPU and p.bar != "none"]
    if not spans:
        return ""
    return (f"{GPU}'s bars span at most {max(spans):.1%} of its rate: smaller than the markers, they are hidden "
            "behind them.")


def provenance_mismatch(device_dir, path):
    """A warning where provenance.json's record of the file names another commit than the file's own context (a
    new measurement dropped in without its record updated); None where they agree or either is silent."""
    own = own_record(path).get("git_commit") or ""
    recorded = provenance(device_dir, path)["git_commit"]
    if not own or recorded == "—" or own[:7] == recorded[:7]:
        return None
    return (f"provenance.json records {path.name} at commit {recorded[:12]}, but the file's own context says "
            f"{own[:12]}: update its entry in provenance.json.")


def render_file(path, out_dir, device_dir=None):
    path = Path(path)
    points = read_points(path)
    context = read_json(path)["context"]
    result = Rendered(inputs=[path])
    device = context.get("gpu_name") or "no GPU"
    note = spread_note(points)
    hidden = gpu_bar_note(points)
    schedule = schedule_note(path.parent, context)
    def caption(*extra):
        return "\n".join(line for line in (backends_note(context), " ".join((note, *extra)).strip(), schedule,
                                            f"All points from {path.name}.") if line)

    figure = throughput_figure(points, context, f"Leapfrog step throughput ({device})")
    footer(figure, device_dir or path.parent, [path], caption(hidden))
    result.files += save_figure(figure, out_dir, "fig7-throughput")
    result.notes += [f"All points from one file, {path.name}. {note}", backends_note(context), *(n for n in (hidden, schedule) if n)]
    stale = provenance_mismatch(device_dir or path.parent, path)
    if stale:
        result.notes.append(stale)
    rows = speedups(points)
    if not rows:
        result.notes.append(f"No size at which {GPU} and a CPU backend both ran: no ratios.")
        return result
    figure = speedup_figure(rows, context, f"GPU speedup ({device})")
    footer(figure, device_dir or path.parent, [path], caption())
    result.files += save_figure(figure, out_dir, "fig7-speedup")
    spread = has_spread(points)
    cells = []
    for lattice, dofs, gpu, *cpu in rows:
        cell = [LABELS[lattice], f"{dofs:,}", f"{gpu.rate / 1e9:.1f}",
                *(f"{c.rate / 1e6:.1f}" if c else "—" for c in cpu),
                *(times(gpu.rate / c.rate) if c else "—" for c in cpu)]
        if spread:
            cell += [f"{times(ratio(gpu, c)[1])}–{times(ratio(gpu, c)[2])}" if c else "—" for c in cpu]
            cell.append(", ".join(str(p.repetitions) for p in (gpu, *cpu) if p))
        cells.append(cell)
    header = ["lattice", "DOFs", f"{GPU} G DOF-updates/s", "reference M DOF-updates/s",
              f"{backend_label('openmp', context)} M DOF-updates/s", "× reference", "× openmp"]
    if spread:
        header += ["× reference, range", "× openmp, range", "repetitions (GPU, reference, openmp)"]
    table = markdown_table(header, cells)
    table_path = Path(out_dir) / "fig7-speedup.md"
    table_path.write_text(f"# GPU speedup over CPU ({device})\n\n{table}\n{note} All points from {path.name}.\n\n"
                          + " ".join(line for line in (backends_note(context), schedule) if line) + "\n")
    result.files.append(table_path)
    result.tables.append(table)
    unpaired = len(points) - sum(1 + bool(r[3]) + bool(r[4]) for r in rows)
    if unpaired:
        result.notes.append(f"{unpaired} of {len(points)} measurements enter no ratio (other sizes or backends); "
                            "the throughput figure shows them all.")
    return result


def render(device_dir, out_dir):
    return render_file(Path(device_dir) / FILE, out_dir, device_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", type=Path, help=f"a bench_step JSON file, or a device folder holding {FILE}")
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    result = render(args.input, args.out) if args.input.is_dir() else render_file(args.input, args.out)
    print("\n".join([*map(str, result.files), *result.notes]))


if __name__ == "__main__":
    main()
