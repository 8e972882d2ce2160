"""What the report scripts share: reading bench_step's Google Benchmark JSON, the provenance of a data file, saving
figures, Markdown tables."""

import argparse
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

# The repository's Python package (python/decgpe) reads the results files; found here without installing it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import decgpe  # noqa: E402

matplotlib.use("Agg")  # files only; no display on build and GPU machines
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def decgpe_executable():
    """The decgpe to ask: $DECGPE where set (ctest sets it to the build's), else this checkout's build (cuda, then
    cpu), else one on PATH."""
    candidates = [os.environ.get("DECGPE", ""), ROOT / "build/cuda/cli/decgpe", ROOT / "build/cpu/cli/decgpe",
                  shutil.which("decgpe") or ""]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return str(candidate)
    sys.exit("reports: no decgpe executable found (build it with scripts/build.sh): the lattice and scheme names "
             "come from its registries")


@functools.cache
def registry_entries(what):
    """Each entry of one of decgpe's registries with its facts (`decgpe list WHAT --json`: lattices, crystals, schemes,
    backends; a lattice's faces per cell and shortest dual edge, a scheme's order, …), by name in the registry's
    order: the one list of them, which reports ask rather than keep their own."""
    done = subprocess.run([decgpe_executable(), "list", what, "--json"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"reports: decgpe list {what} --json failed: {done.stderr.strip()}")
    return {entry["name"]: entry for entry in json.loads(done.stdout)}


def registry(what):
    """The names in one of decgpe's registries, in the registry's order."""
    return tuple(registry_entries(what))


LATTICES = registry("crystals")  # the paper's six
LABELS = {name: name if name.startswith("cubic") else name.upper() for name in registry("lattices")}
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


def text(value):
    """An HDF5 string attribute as str (h5py gives bytes for fixed-length strings)."""
    return value.decode() if isinstance(value, bytes) else value


def h5_attrs(path):
    return decgpe.attributes(path)


PROVENANCE = ("git_commit", "device", "date", "command")


def own_record(path):
    """What a data file says of itself: Google Benchmark's context or top-level fields (roofline.json), or the root
    attributes decgpe writes into its HDF5 output."""
    path = Path(path)
    if path.suffix == ".h5":
        attrs = h5_attrs(path)
        return {"git_commit": attrs.get("git_commit"), "date": attrs.get("date"), "device": attrs.get("device"),
                "command": attrs.get("command_line")}
    if path.suffix != ".json":
        return {}
    doc = read_json(path)
    if not isinstance(doc, dict):  # a list of rows says nothing of itself: its provenance.json does
        return {}
    c = doc.get("context", doc)
    return {"git_commit": c.get("decgpe_git_commit") or c.get("git_commit"), "date": c.get("date"),
            "device": c.get("gpu_name") or c.get("device"), "command": c.get("command")}


def provenance(device_dir, path):
    """git commit, device, date and command of one data file, from the provenance.json nearest to it (its own folder
    or one above, up to the device folder). That record's "files" entry for it (or for a folder, "name/", holding it)
    is either the command, the top level giving the rest, or an object of its own fields; what that leaves open, the
    file's own record fills, and then the record's top level."""
    device_dir, path = Path(device_dir), Path(path)
    folders = [f for f in path.parents if f == device_dir or device_dir in f.parents]  # nearest first
    record = next((f / "provenance.json" for f in folders if (f / "provenance.json").exists()), None)
    prov = read_json(record) if record else {}
    top = {k: prov.get(k) for k in PROVENANCE if isinstance(prov.get(k), str)}
    rel = path.relative_to(record.parent).as_posix() if record else ""
    entry = next((v for k, v in prov.get("files", {}).items() if k == rel or (k.endswith("/") and rel.startswith(k))),
                 None)
    if isinstance(entry, str):
        entry = {**top, "command": entry}
    fields = {**top, **{k: v for k, v in {**own_record(path), **(entry or {})}.items() if v}}
    return {k: fields.get(k) or "—" for k in PROVENANCE}


COMMIT = re.compile(r"\b[0-9a-f]{7,40}(-dirty)?\b")


def short_commit(commit):
    """12 hex digits, keeping a "-dirty" mark: data from uncommitted changes must say so. A record whose git_commit
    is a sentence ("the working tree of 3521a49 (…)") gives its first commit hash."""
    found = COMMIT.search(commit) if not COMMIT.match(commit) else None
    if found:
        commit = found[0]
    return commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")


def footer(fig, device_dir, inputs, note=""):
    """The note, then the commit, day and device of the data, under the figure: a figure read on its own still says
    where it came from."""
    records = [provenance(device_dir, path) for path in inputs]
    sources = {}  # (day, device): commits; one line each, not one per commit
    for r in records:
        commits = sources.setdefault((r["date"][:10], r["device"]), [])
        if short_commit(r["git_commit"]) not in commits:
            commits.append(short_commit(r["git_commit"]))
    origin = "\n".join(f"data: decgpe {' and '.join(sorted(commits))}, {day}, {device}"
                        for (day, device), commits in sorted(sources.items()))
    width = max(60, int(16 * fig.get_figwidth()))  # characters of the small font across the figure
    note = "\n".join(textwrap.fill(line, width) for line in note.splitlines())
    fig.text(0.5, 0, f"{note}\n{origin}" if note else origin, ha="center", va="top", fontsize="small",
             color="0.25")


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
            # step/<backend>/<lattice>/<requested dofs>[/min_time:…/real_time]: the leapfrog; other schemes'
            # benchmarks (rk4/…) are not the paper's step
            kind, backend, lattice = b["name"].split("/")[:3]
            if kind != "step":
                continue
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


def save_table(result, out_dir, stem, title, label, table):
    """One Markdown table as its own file (under `title`) and in the index (under `label`), added to `result`."""
    result.tables.append(f"**{label}**\n\n{table}")
    path = Path(out_dir) / f"{stem}.md"
    path.write_text(f"# {title}\n\n{table}")
    result.files.append(path)


def save_sections(result, out_dir, stem, title, sections, notes):
    """Tables under their headings, then the notes, as one Markdown file (under `title`); each table and note in the
    index too, added to `result`."""
    result.tables += [f"**{heading}**\n\n{table}" for heading, table in sections]
    text = f"# {title}\n\n" + "\n\n".join(f"## {heading}\n\n{table}" for heading, table in sections)
    path = Path(out_dir) / f"{stem}.md"
    path.write_text(text + "\n\n" + "\n\n".join(notes) + "\n")
    result.files.append(path)
    result.notes += notes


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def span(values, form):
    """"low–high" of the values in `form`, or one value where both print alike."""
    low, high = min(values), max(values)
    return format(low, form) if format(low, form) == format(high, form) else f"{low:{form}}–{high:{form}}"


def si(value, unit=""):
    """1.23e10 -> '12.3 G' (three significant digits, trailing zeros kept: 3.00 TB/s, not 3 TB/s)."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:#.3g} {prefix}{unit}".replace(". ", " ")
    return f"{value:#.3g} {unit}".replace(". ", " ").rstrip()


def run_on_folder(doc, *renders, folder_help="reports/data/<device>"):
    """The command line of a report module: render one data folder into --out."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help=folder_help)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for render in renders:
        result = render(args.folder, args.out)
        print("\n".join([*map(str, result.files), *result.notes]))
