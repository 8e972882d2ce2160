"""What the report scripts share: reading bench_step's Google Benchmark JSON, saving figures, Markdown tables."""

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display on build and GPU machines
import matplotlib.pyplot as plt  # noqa: E402

LATTICES = ("cubic", "fcc", "bcc", "a15", "c15", "z")
LABELS = {"cubic": "cubic", "fcc": "FCC", "bcc": "BCC", "a15": "A15", "c15": "C15", "z": "Z"}
BYTES_PER_UPDATE = 48  # the model's floor: read ψⁿ and ψⁿ⁻¹, write ψⁿ⁺¹, 16 B each (bench/bench_step.cpp)
GPU = "cuda:plain"  # what `--backend cuda` picks on every lattice (docs/gpu.md)


@dataclass(frozen=True)
class Measurement:
    backend: str
    lattice: str
    dofs: int
    rate: float  # DOF-updates per second
    copy_fraction: float  # GPU only; nan elsewhere
    source: Path


@dataclass
class Rendered:
    """What a report wrote, from which data files, and what a reader must know about it."""

    files: list = field(default_factory=list)  # figures (PNG and PDF) and tables (Markdown)
    inputs: list = field(default_factory=list)  # data files, for provenance
    tables: list = field(default_factory=list)  # Markdown text of each table, for the index
    notes: list = field(default_factory=list)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def bench_files(folder):
    return sorted(Path(folder).glob("bench-*.json"))


def load_bench(paths):
    """Measurements keyed by (backend, lattice, dofs). Repetitions within a file are reduced to their median; where
    several files measured the same key, the one with the latest context date wins."""
    docs = sorted(((read_json(p), Path(p)) for p in paths), key=lambda d: (d[0]["context"].get("date", ""), d[1]))
    found = {}
    for doc, path in docs:
        runs = {}
        for b in doc["benchmarks"]:
            if b.get("run_type") == "aggregate" or b.get("error_occurred"):
                continue
            # step/<backend>/<lattice>/<requested dofs>[/min_time:…/real_time]
            _, backend, lattice = b["name"].split("/")[:3]
            runs.setdefault((backend, lattice, int(b["dofs"])), []).append(b)
        for key, bs in runs.items():
            found[key] = Measurement(
                *key,
                rate=statistics.median(b["dof_updates_per_second"] for b in bs),
                copy_fraction=statistics.median(b.get("copy_fraction", float("nan")) for b in bs),
                source=path,
            )
    return found


def copy_bandwidth(paths):
    """The device-to-device copy rate (bytes read + written per second) that bench_step measured, from the newest
    file that has one; None without a GPU."""
    contexts = sorted((read_json(p)["context"] for p in paths), key=lambda c: c.get("date", ""))
    rates = [float(c["gpu_copy_bytes_per_second"]) for c in contexts if "gpu_copy_bytes_per_second" in c]
    return rates[-1] if rates else None


def lattice_order(lattices):
    """BCC and C15 (the paper's two) first, then the rest in the usual order."""
    return sorted(set(lattices), key=lambda name: (name not in ("bcc", "c15"), LATTICES.index(name)))


def save_figure(fig, out_dir, stem):
    """PNG for reading, PDF for the paper; returns both paths."""
    paths = [Path(out_dir) / f"{stem}.{ext}" for ext in ("png", "pdf")]
    for path in paths:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return paths


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def si(value, unit=""):
    """1.23e10 -> '12.3 G' (three significant digits, trailing zeros kept: 3.00 TB/s, not 3 TB/s)."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:#.3g} {prefix}{unit}".replace(". ", " ")
    return f"{value:#.3g} {unit}".replace(". ", " ").rstrip()
