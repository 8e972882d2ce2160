"""What single and mixed precision (`[numerics] precision`) buy in speed and cost in accuracy, on a GPU:

- speed: the leapfrog step and the RK4 stages per lattice at 64M DOFs in double, single and mixed (bench_step, one
  call), their ratio to double and the fraction of the same run's copy rate at each precision's bytes (48 B or 24 B a
  leapfrog update);
- accuracy: the paper's accuracy case of each lattice (cases/accuracy/) run to the split (E = 1 − |⟨ψ₀|ψ⟩| > 0.01) in
  each precision: the split time, the overlap's phase against the double run's at t = 10 and at half the split, and
  the drifts of the norm and of the leapfrog invariant over the run;
- the seeded split: the seed study (scripts/seed-study-run.sh, lattice centred, ε = 1e-6) in single and mixed against
  the same seeds' double runs: split times and folds.

and on a CPU (render_drifts), every lattice and scheme over 1e5 steps of a small trap (verify/precision_study.cpp):
the drifts of the norm and of the scheme's invariant in each precision.

    precision.py reports/data/<device> [--out DIR]
"""

import cmath
import csv
import json
from pathlib import Path

from common import GPU, LABELS, Rendered, markdown_table, run_on_folder, save_sections, span

SPEED = ("precision/bench-double.json", "precision/bench-precision.json")
ACCURACY = "precision/accuracy-precision.json"
SEEDS = {"double": "splitting/seed-study-centred.json", "single": "precision/seed-study-centred-single.json",
         "mixed": "precision/seed-study-centred-mixed.json"}
SEED_HEADER = ("lattice", "seeds", "split t double", "single", "mixed", "max Δt single", "mixed", "folds double",
               "single", "mixed")
DRIFTS = "precision/precision.csv"
DRIFT_HEADER = ("lattice", "scheme", "cells", "invariant drift double", "single", "mixed", "norm drift double", "single",
                "mixed")
PRECISIONS = ("double", "single", "mixed")
SPEED_HEADER = ("lattice", "double G/s", "single G/s", "mixed G/s", "single / double", "mixed / double",
                "double % of copy", "single % of copy", "mixed % of copy")
ACCURACY_HEADER = ("lattice", "split t double", "single", "mixed", "phase Δ single t = 10", "mixed t = 10",
                   "single at ½ split", "mixed at ½ split", "norm drift double", "single",
                   "invariant drift double", "single", "mixed")


def medians(paths):
    """{(scheme, lattice, precision): median benchmark} of the 64M-DOF GPU rows of bench_step's JSON files."""
    found = {}
    for path in paths:
        for b in json.loads(Path(path).read_text())["benchmarks"]:
            parts = b["name"].split("/")
            if b.get("aggregate_name") != "median" or parts[1] != GPU or parts[3] != "64e6":
                continue
            precision = next((p for p in parts if p in PRECISIONS), "double")
            found[parts[0], parts[2], precision] = b
    return found


def speed_rows(found, scheme):
    rows = []
    for lattice, label in LABELS.items():
        runs = [found.get((scheme, lattice, p)) for p in PRECISIONS]
        if None in runs:
            continue
        rate = [b["dof_updates_per_second"] for b in runs]
        rows.append((label, *(f"{r / 1e9:.1f}" for r in rate), f"{rate[1] / rate[0]:.2f}", f"{rate[2] / rate[0]:.2f}",
                     *(f"{100 * b['copy_fraction']:.0f}" for b in runs)))
    return rows


def phase_at(run, t):
    """arg ⟨ψ₀|ψ⟩ at the diagnostics time nearest t."""
    s = run["series"]
    k = min(range(len(s["t"])), key=lambda i: abs(s["t"][i] - t))
    return cmath.phase(complex(s["overlap_re"][k], s["overlap_im"][k]))


def phase_difference(run, double, t):
    """|arg ⟨ψ₀|ψ⟩ − the double run's| at t, wrapped to [0, π]."""
    return abs(cmath.phase(cmath.exp(1j * (phase_at(run, t) - phase_at(double, t)))))


def drift(run, key):
    """max_t |q(t) − q(0)| / |q(0)| over the run's diagnostics."""
    q = run["series"][key]
    return max(abs(v - q[0]) for v in q) / abs(q[0])


def accuracy_rows(runs):
    rows = []
    for lattice, label in LABELS.items():
        by = {p: runs.get(f"{lattice}-{p}") for p in PRECISIONS}
        if None in by.values():
            continue
        double = by["double"]
        split = [by[p]["series"]["t"][-1] for p in PRECISIONS]
        half = 0.5 * split[0]
        rows.append((label, *(f"{t:.1f}" for t in split),
                     f"{phase_difference(by['single'], double, 10.0):.1e}",
                     f"{phase_difference(by['mixed'], double, 10.0):.1e}",
                     f"{phase_difference(by['single'], double, half):.1e}",
                     f"{phase_difference(by['mixed'], double, half):.1e}",
                     f"{drift(double, 'norm'):.1e}", f"{drift(by['single'], 'norm'):.1e}",
                     *(f"{drift(by[p], 'invariant'):.1e}" for p in PRECISIONS)))
    return rows


def seed_runs(device_dir):
    """{precision: {(lattice, seed): run}} of the seed studies at ε = 1e-6 (double: the splitting study's), or None
    where a device folder lacks one of them."""
    paths = {p: Path(device_dir) / path for p, path in SEEDS.items()}
    if not all(path.exists() for path in paths.values()):
        return None
    found = {}
    for precision_name, path in paths.items():
        runs = json.loads(path.read_text())["runs"]
        found[precision_name] = {(r["lattice"], r["seed"]): r for r in runs if r["epsilon"] == 1e-6}
    return found


def split_span(splits):
    """min–max of the split times, — where a run ended unsplit."""
    return "—" if None in splits else span(splits, ".2f")


def largest_gap(splits, doubles):
    """max |t − t_double| seed by seed, — where a run ended unsplit."""
    pairs = list(zip(splits, doubles))
    return "—" if any(None in pair for pair in pairs) else f"{max(abs(a - b) for a, b in pairs):.3f}"


def seed_rows(found):
    """A row per lattice: the seeds run in all three precisions (listed), their split times and folds."""
    order = list(LABELS)
    rows = []
    for lattice in sorted({lattice for lattice, _ in found["single"]}, key=order.index):
        seeds = sorted(seed for (other, seed) in found["single"] if other == lattice
                       and (lattice, seed) in found["mixed"] and (lattice, seed) in found["double"])
        if not seeds:
            continue
        runs = {p: [found[p][lattice, seed] for seed in seeds] for p in PRECISIONS}
        splits = {p: [r["split_t"] for r in runs[p]] for p in PRECISIONS}
        rows.append((LABELS.get(lattice, lattice), " ".join(map(str, seeds)),
                     *(split_span(splits[p]) for p in PRECISIONS),
                     *(largest_gap(splits[p], splits["double"]) for p in ("single", "mixed")),
                     *(" ".join(str(r["fold"]) for r in runs[p]) for p in PRECISIONS)))
    return rows


def render(device_dir, out_dir):
    paths = [Path(device_dir) / f for f in SPEED]
    found = medians(paths)
    context = json.loads(paths[1].read_text())["context"]
    runs = json.loads((Path(device_dir) / ACCURACY).read_text())
    seeds = seed_runs(device_dir)
    result = Rendered(inputs=[*paths, Path(device_dir) / ACCURACY,
                              *((Path(device_dir) / f for f in SEEDS.values()) if seeds else ())])
    sections = [(f"Precision: {title}", markdown_table(SPEED_HEADER, speed_rows(found, scheme)))
                for scheme, title in (("step", "the leapfrog step"), ("rk4", "RK4 (per DOF-update of a stage)"))]
    sections.append(("Precision: the accuracy case to the split", markdown_table(ACCURACY_HEADER, accuracy_rows(runs))))
    if seeds:
        sections.append(("Precision: the seeded split", markdown_table(SEED_HEADER, seed_rows(seeds))))
    notes = [
        f"{context.get('gpu_name', 'GPU')}, {GPU}, 64M DOFs, medians of bench_step's 5 repetitions (CUDA events, cold "
        "L2), double from the same call; % of copy: the same run's device-to-device copy "
        f"({float(context['gpu_copy_bytes_per_second']) / 1e12:.2f} TB/s) against 48 B a leapfrog update and 64 B an "
        "RK4 stage's in double, half that in single and mixed.",
        "Accuracy: cases/accuracy/<lattice>.toml with --set numerics.precision=…, each run to its split (E > 0.01) "
        "on the same GPU; phase Δ: |arg⟨ψ₀|ψ⟩ − the double run's| in radians; drifts: max_t |q(t) − q(0)|/|q(0)| "
        "over the run (the norm drifts by the leapfrog's own O(Δt²) oscillation in every precision; the invariant is "
        "conserved to round-off, FP32's in single and mixed). cubic4 has no accuracy case, and no double run at 64M in "
        "the call (perf-check's matrix is the six crystals).",
        "Seeded split: the seed study's runs (scripts/seed-study-run.sh, the lattice centred, seeded with modes "
        "m = 1…8 at ε = 1e-6) in single and mixed beside the double runs of the same seeds (splitting/"
        "seed-study-centred.json); split t: the first diagnostics time with E > 0.01 (min–max over the seeds); "
        "seeds: those run in all three precisions; max Δt: the largest gap |t − t_double| to the same seed's double "
        "run (the diagnostics come every 25 steps, at most 0.05 time units apart); folds: the azimuthal fold at the "
        "split, seed by seed."]
    save_sections(result, out_dir, "precision", "Single and mixed precision against double", sections, notes)
    return result


def drift_rows(rows):
    """A row per lattice and scheme of the study's CSV: its drifts in the three precisions."""
    by = {(r["lattice"], r["scheme"], r["precision"]): r for r in rows}
    out = []
    for lattice, scheme in dict.fromkeys((r["lattice"], r["scheme"]) for r in rows):
        runs = [by.get((lattice, scheme, p)) for p in PRECISIONS]
        if None in runs:
            continue
        out.append((LABELS.get(lattice, lattice), scheme, runs[0]["cells"],
                    *(f"{float(r['invariant_drift']):.1e}" for r in runs),
                    *(f"{float(r['norm_drift']):.1e}" for r in runs)))
    return out


def render_drifts(device_dir, out_dir):
    path = Path(device_dir) / DRIFTS
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    result = Rendered(inputs=[path])
    steps = {r["steps"] for r in rows}
    sections = [("Precision: drifts over many steps", markdown_table(DRIFT_HEADER, drift_rows(rows)))]
    notes = [f"{', '.join(sorted(steps))} steps of the λ = 1 vortex in a λ = 1.4 trap, g = 100, on the smallest trap grid of "
             "about 1000 cells or more (the cells column), at half the leapfrog's limit for every scheme (openmp, one thread): max |q(t) − q(0)|/|q(0)| over 20 samples. "
             "The invariant is the leapfrog's Re⟨ψⁿ⁻¹, ψⁿ⟩ and the others' norm (RK4's decays by its own error). "
             "The runs' states decorrelate from the double run's over so many steps (the interacting, non-stationary "
             "state is chaotic), so their distance from it (state_error, phase_error in the CSV) is O(1) and "
             "says nothing of the precision; the accuracy case's table on the GPU measures that."]
    save_sections(result, out_dir, "precision-drifts", "Single and mixed precision: drifts over many steps", sections,
                  notes)
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
