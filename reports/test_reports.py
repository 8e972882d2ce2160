"""make_all on the committed data and on small made-up device folders: the outputs exist, the speedup table holds the
ratios of the JSON's own numbers, Nsight Compute CSV (real files in testdata/, made-up ones here) becomes bytes and
FLOPs per update, the physics, isotropy and scaling tables hold what the HDF5 and CSV files give when recomputed here,
more GPU counts need no code change, and a folder without the data a report needs is left out of its entry (a report no
folder has data for says so). Guards against the figures saying more than they show: the phase-corrected RMSE stays at
or below the paper's and below 2/√V, near ties are labelled as such, a run that never split claims no fold, Fig 7 is
drawn from one file, two GPU counts are "solved" rather than "fitted", the index lists each figure once with the device
folders that hold its data (and no other), and the README's physics table holds what the data give. The captions drawn
on the figures (read by patching each module's footer) say what the data show and no more: the integrators' reference
error is no floor and unresolved points are marked, Figs 9 and 10 say each point is a single timing and how many steps
the CPU rows timed, Fig 5 gives the placement's split-time ranking from the HDF5 files, Fig 6's amplitudes are per slab
thickness, and Fig 7 names the reference backend and its measurement schedule. The seeded splits (right after Fig 6):
the fold counts and the growth rate σ are those the seed-study JSON files give when recomputed here, and the caption
says what ran.

    /usr/bin/python3 reports/test_reports.py        (any Python 3 with numpy, matplotlib and h5py)
"""

import contextlib
import csv
import json
import statistics
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import h5py
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import common  # noqa: E402
import integrators  # noqa: E402
import isotropy  # noqa: E402
import known_answers  # noqa: E402
import make_all  # noqa: E402
import physics  # noqa: E402
import precision  # noqa: E402
import roofline  # noqa: E402
import rotating_frame  # noqa: E402
import hybrid  # noqa: E402
import scaleout  # noqa: E402
import scaling  # noqa: E402
import speedup  # noqa: E402
import splitting  # noqa: E402
import bogoliubov  # noqa: E402
import stationary_start  # noqa: E402
import time_to_solution  # noqa: E402
import vortex_lattice  # noqa: E402
import vortex_split  # noqa: E402
from common import LABELS, LATTICES as CRYSTALS, decgpe, plt  # noqa: E402

H100 = HERE / "data" / "nvidia-h100-80gb-hbm3"
H200X2 = HERE / "data" / "nvidia-h200-x2"
H200 = HERE / "data" / "nvidia-h200"
CPU_VM = HERE / "data" / "cpu-2core-vm"
NO_SPLIT = HERE / "testdata" / "reduced-cpu-accuracy_bcc.h5"  # scripts/main.sh --reports' reduced BCC run: no split
VORTEX_SPLIT = HERE / "testdata" / "vortex-split-coarse-cpu.h5"  # scripts/vortex-split-run.sh, coarsened, on a CPU
AWAITING_DATA = set()  # reports whose GPU data is not committed yet (tested on testdata/ alone)
README = HERE.parent / "README.md"


def table_rows(markdown):
    """Body rows of the first Markdown table in the text, as lists of cell texts."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines[2:]]


def close(text, expected):
    """Whether a number printed with some decimals is `expected` rounded to them."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - expected) <= 0.5 * 10.0**-decimals + 1e-9


def close_e(text, expected):
    """close() for a number printed as 1.23e-04."""
    mantissa, exponent = text.split("e")
    return close(mantissa, expected / 10.0 ** int(exponent))


def table_of(markdown, column):
    """{first cell: cell of `column`} of the first Markdown table in the text, `column` named by its header."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    index = [cell.strip() for cell in lines[0].strip().strip("|").split("|")].index(column)
    return {row[0]: row[index] for row in table_rows(markdown)}


def expected_fold(amplitude, dominant):
    """The fold label the tables must show for a run that split, from the amplitudes alone: the dominant m and the
    strongest m ≥ 2 that is not one of its multiples; a near tie below physics.NEAR_TIE."""
    rival = max((m for m in range(2, len(amplitude)) if m % dominant), key=lambda m: amplitude[m])
    ratio = amplitude[dominant] / amplitude[rival]
    return f"{dominant}/{rival}, ratio {ratio:.2f}" if ratio < physics.NEAR_TIE else f"{dominant}-fold"


def rendered_for(index):
    """{figure: {device folder: its files' cell}} from the "rendered for" column of index.md's contents table."""
    found = {}
    for line in index.split("\n## ")[0].splitlines():
        if line.startswith("| ["):
            figure, cell = re.match(r"\| \[([^\]]+)\]", line)[1], line.strip("|").split("|")[2].strip()
            found[figure] = dict(re.match(r"`([^`]+)`: (.*)", part).groups() for part in cell.split("<br>")
                                 if part != "no data")
    return found


def holders(data, report):
    """The device folders under `data` that hold every file `report` needs, by glob here."""
    return [d.name for d in sorted(data.iterdir()) if d.is_dir() and all(any(d.glob(p)) for p in report.needs)]


def section_of(index, heading):
    """The text of index.md's section whose heading starts with `## heading:`."""
    return index.split(f"\n## {heading}:")[1].split("\n## ")[0]


def render_recording_captions(data):
    """render(data), recording the note each figure gets under it: {(device folder name, file stem): note}. The
    report modules' footer and save_figure are wrapped (they still draw and save), pairing a figure's note with the
    name it is saved under."""
    pending, drawn = {}, {}

    def footer(fig, device_dir, inputs, note=""):
        pending[id(fig)] = (Path(device_dir).name, note)
        return common.footer(fig, device_dir, inputs, note)

    def save_figure(fig, out_dir, stem):
        if id(fig) in pending:
            device, note = pending.pop(id(fig))
            drawn[device, stem] = note
        return common.save_figure(fig, out_dir, stem)

    with contextlib.ExitStack() as stack:
        for module in (integrators, physics, scaling, speedup, splitting, stationary_start):
            stack.enter_context(mock.patch.object(module, "footer", footer))
            stack.enter_context(mock.patch.object(module, "save_figure", save_figure))
        status, out = render(data)
    return status, out, drawn


def first_split(path):
    """The first diagnostics time with E = 1 − |⟨ψ₀|ψ⟩| > 0.01, read here from the HDF5 file; nan without one."""
    with h5py.File(path) as f:
        t, overlap = f["diagnostics/t"][:], f["diagnostics/overlap"][:]
    passed = np.flatnonzero(1 - np.abs(overlap) > 0.01)
    return t[passed[0]] if passed.size else np.nan


SEED_STUDY = H100 / "splitting"


def seed_runs(placement):
    """The runs of splitting/seed-study-<placement>.json, as the file has them."""
    return json.loads((SEED_STUDY / f"seed-study-{placement}.json").read_text())["runs"]


def seeded_table(markdown, title):
    """{first cell: row} of the table under the heading of seeded-splits.md that starts with `title`."""
    section = next(part for part in markdown.split("\n## ") if part.startswith(title))
    return {row[0]: row for row in table_rows(section)}


def parse_counts(cell):
    """A fold-counts cell as ({category: runs}, total): "3-fold 8/8" or "3-fold 6, 4-fold 2 of 8"."""
    if " of " not in cell:
        label, fraction = cell.rsplit(" ", 1)
        n, total = map(int, fraction.split("/"))
        return {label: n}, total
    body, total = cell.rsplit(" of ", 1)
    return {part.rsplit(" ", 1)[0]: int(part.rsplit(" ", 1)[1]) for part in body.split(", ")}, int(total)


def render(data):
    out = Path(tempfile.mkdtemp())
    status = make_all.main(["--data", str(data), "--out", str(out)])
    return status, out


class CommittedData(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.status, cls.out, cls.drawn = render_recording_captions(HERE / "data")
        cls.addClassCleanup(shutil.rmtree, cls.out)

    def caption(self, folder, stem):
        """The note drawn under a figure of the committed render."""
        return self.drawn[folder.name, stem]

    def test_every_report_renders(self):
        self.assertEqual(self.status, 0)
        figures = {H100: ("fig5-error", "fig5-convergence", "fig6-density-centred", "fig6-density-placement",
                          "fig6-azimuthal", "fig7-throughput", "fig7-speedup", "fig8-roofline"),
                   CPU_VM: ("isotropy", "bogoliubov", "vortex_lattice"), H200X2: ("fig9-scaling", "fig10-rate"),
                   H200: ("fig8-roofline",)}
        figures[H100] += ("integrators_work_precision", "seeded-splits", "splitting-refinement")
        for folder, stems in figures.items():
            for stem in stems:
                for ext in ("png", "pdf"):
                    path = self.out / folder.name / f"{stem}.{ext}"
                    self.assertGreater(path.stat().st_size, 1000, path)
        for name in ("accuracy", "table1-dual-edges", "fig5-convergence", "seeded-splits"):
            self.assertTrue((self.out / H100.name / f"{name}.md").exists(), name)
        index = (self.out / "index.md").read_text()
        for title in ("Fig 5", "Table 1", "Fig 6", "Fig 7", "Fig 9", "Fig 10", "Isotropy"):
            self.assertIn(title, index)
        # each folder's roofline says "analytic model" exactly where it has no counters
        fig8 = section_of(index, "Fig 8")
        for folder in (H100, H200):
            settings = folder / "roofline" / "roofline.json"
            counters = settings.exists() and json.loads(settings.read_text())["counters"]
            part = fig8.split(f"\n### {folder.name}\n")[1].split("\n### ")[0].split("\nProvenance:")[0]
            self.assertEqual("analytic model" in part.lower(), not counters, folder.name)
        # provenance: the commits of the bench JSON, the physics HDF5 attributes, the scaling CSV entries and the
        # isotropy file (uncommitted changes marked)
        for commit in ("4ad2503068db", "d2e176de68cf", "88fce4770a0b", "53331078d0fb", "30eb2329dfb3-dirty"):
            self.assertIn(commit, index)

    def test_speedup_table_is_the_json_ratios(self):
        """Fig 7's table: the ratios of bench-speedup.json's own medians, and of no other file."""
        doc = json.loads((H100 / "bench-speedup.json").read_text())
        samples = {}
        for b in doc["benchmarks"]:
            # not the runs that failed, not the aggregates: the median of the repetitions
            if "dof_updates_per_second" in b and b.get("run_type") != "aggregate" and b["name"].startswith("step/"):
                backend, lattice = b["name"].split("/")[1:3]
                samples.setdefault((backend, lattice, int(b["dofs"])), []).append(b["dof_updates_per_second"])
        rates = {key: statistics.median(values) for key, values in samples.items()}
        expected = {}
        for (backend, lattice, dofs), gpu in rates.items():
            cpu = [rates.get((name, lattice, dofs)) for name in ("reference", "openmp")]
            if backend == "cuda:plain" and any(cpu):
                expected[lattice, dofs] = [gpu / c if c else None for c in cpu]
        self.assertGreaterEqual(len(expected), 2)  # BCC and C15 at least at 64M DOFs

        rows = table_rows((self.out / H100.name / "fig7-speedup.md").read_text())
        self.assertEqual(len(rows), len(expected))
        for row in rows:
            want = expected[row[0].lower(), int(row[1].replace(",", ""))]
            for text, value in zip(row[5:7], want):
                self.assertTrue(close(text, value), f"{row}: {text} is not {value}")

    def test_fig7_is_one_file(self):
        """Fig 7 draws bench-speedup.json alone: its provenance lists that file and no other (bench-gpu.json and
        bench-cpu.json were measured at other commits), and the throughput figure's points are that file's."""
        index = (self.out / "index.md").read_text()
        section = index.split("## Fig 7:")[1].split("\n## ")[0]
        sources = re.findall(r"^\| [^|]+ \| `([^`]+)` \|", section, flags=re.M)
        self.assertEqual(sources, ["bench-speedup.json"])
        self.assertIn("All points from one file, bench-speedup.json", section)
        points = speedup.read_points(H100 / "bench-speedup.json")
        other = json.loads((H100 / "bench-gpu.json").read_text())
        self.assertNotIn(("cuda:plain", "fcc"), {key[:2] for key in points})
        self.assertTrue(any(b["name"].startswith("step/cuda:plain/fcc/") for b in other["benchmarks"]))


    def test_split_fold_and_rmse_are_the_hdf5s(self):
        text = (self.out / H100.name / "accuracy.md").read_text()
        split, fold, rmse, phase_rmse = (table_of(text, column) for column in (
            "split t", "fold", "RMSE(t = 10), paper's", "phase-corrected RMSE(t = 10)"))
        for path in sorted((H100 / "physics").glob("accuracy_*.h5")):
            with h5py.File(path) as f:
                label = LABELS[f.attrs["lattice"].decode()]
                t, overlap, norm = (f["diagnostics"][name][:] for name in ("t", "overlap", "norm"))
                mu, volume = f.attrs["mu"], f.attrs["domain_volume"]
                amplitude = f["analysis/azimuthal_amplitude"][:]
                dominant = int(f["analysis/azimuthal_amplitude"].attrs["fold"])
            self.assertEqual(fold[label], expected_fold(amplitude, dominant), label)
            first = t[np.argmax(1 - np.abs(overlap) > 0.01)]
            self.assertTrue(close(split[label], first), f"{label}: split {split[label]}, HDF5 {first}")
            # both RMSEs at the two diagnostics times around t = 10, linearly between them
            j = np.searchsorted(t, 10.0)
            paper = [np.sqrt((norm[0] + norm[k] - 2 * (np.exp(1j * mu * t[k]) * overlap[k]).real) / volume)
                     for k in (j - 1, j)]
            shape = [np.sqrt((norm[0] + norm[k] - 2 * abs(overlap[k])) / volume) for k in (j - 1, j)]
            self.assertTrue(close_e(rmse[label], np.interp(10.0, t[j - 1:j + 1], paper)), label)
            self.assertTrue(close_e(phase_rmse[label], np.interp(10.0, t[j - 1:j + 1], shape)), label)
        # the committed run, as the decgpe log says: t = 75.44 (72.90 with the paper's leapfrog start, fb6b304)
        self.assertEqual(split["BCC"], "75.44")

    def test_phase_corrected_rmse_is_below_the_papers_and_the_ceiling(self):
        """At every diagnostics sample of every committed run: min over a global phase can only lower the error
        against ψ₀e^(−iμt), and ψ and ψ₀ of norm ≈ 1 are never further apart than 2/√V."""
        paths = sorted((H100 / "physics").glob("*.h5"))
        self.assertGreaterEqual(len(paths), 12)
        for path in paths:
            run = physics.load(path)
            with h5py.File(path) as f:
                overlap, norm = f["diagnostics/overlap"][:], f["diagnostics/norm"][:]
                volume = f.attrs["domain_volume"]
            np.testing.assert_allclose(run.rmse_phase, np.sqrt(np.maximum(0, norm[0] + norm - 2 * abs(overlap))
                                                               / volume), rtol=1e-12, atol=1e-15)
            self.assertTrue(np.all(run.rmse_phase <= run.rmse + 1e-12), path.name)
            self.assertTrue(np.all(run.rmse_phase < 2 / np.sqrt(volume)), path.name)
            self.assertTrue(np.all(run.rmse <= 2 / np.sqrt(volume) * (1 + 1e-4)), path.name)

    def test_near_ties_are_labelled_as_such(self):
        """C15's split is a near tie of m = 4 and 3 (1.13), and with the paper code's placement of 3 and 4 (1.77):
        neither may be called 4-fold or 3-fold; BCC's clear 3-fold may."""
        text = (self.out / H100.name / "accuracy.md").read_text()
        fold, placed = table_of(text, "fold"), table_of(text, "placement fold")
        self.assertEqual(fold["C15"], "4/3, ratio 1.13")
        self.assertEqual(placed["C15"], "3/4, ratio 1.77")
        self.assertEqual(fold["BCC"], "3-fold")
        for path in sorted((H100 / "physics").glob("placement_*.h5")):
            with h5py.File(path) as f:
                label = LABELS[f.attrs["lattice"].decode()]
                amplitude = f["analysis/azimuthal_amplitude"][:]
                dominant = int(f["analysis/azimuthal_amplitude"].attrs["fold"])
            self.assertEqual(placed[label], expected_fold(amplitude, dominant), label)
        index = (self.out / "index.md").read_text()
        self.assertNotIn("C15: 4-fold", index)

    def test_index_is_one_entry_per_figure_with_its_devices(self):
        index = (self.out / "index.md").read_text()
        headings = re.findall(r"^## (.+?):", index, flags=re.M)
        paper = ["Fig 5", "Fig 6", "Fig 7", "Fig 8", "Fig 9", "Fig 10", "Table 1"]
        # the paper's order first, each once, with Fig 6's extensions (the seeded splits, the stationary start and its
        # refinements, the split told by the vortex lines) after it
        extensions = ["Seeded splits", "Stationary start", "Split convergence", "Vortex split"]
        self.assertEqual(headings[:len(paper) + len(extensions)], [*paper[:2], *extensions, *paper[2:]])
        self.assertEqual(len(headings), len(set(headings)))
        self.assertEqual(headings, [report.figure for report in make_all.REPORTS])
        devices = sorted(d.name for d in (HERE / "data").iterdir() if d.is_dir())
        for device in devices:  # no section per device folder
            self.assertNotIn(f"\n## {device}", index)
        header = next(line for line in index.splitlines() if line.startswith("| figure or table"))
        self.assertEqual(header, "| figure or table | what | rendered for |")  # no column per device folder
        listed = rendered_for(index)
        self.assertEqual(list(listed), headings)
        self.assertNotIn("Skipped for", index)
        # every figure names exactly the folders that hold its data, in the table and as its subsections
        for report in make_all.REPORTS:
            expected = holders(HERE / "data", report)
            if report.figure in AWAITING_DATA:  # said once in the index; the entry gets its folders with the data
                self.assertEqual(expected, [], f"{report.figure} has data now: take it out of AWAITING_DATA")
                self.assertIn(f"No device folder has `{report.needs[0]}`", section_of(index, report.figure))
                continue
            self.assertTrue(expected, report.figure)
            self.assertEqual(list(listed[report.figure]), expected, report.figure)
            section = section_of(index, report.figure)
            self.assertEqual(re.findall(r"^### (.+)$", section, flags=re.M), expected, report.figure)
            self.assertIn("| device folder | data file | git commit | device | date | command |", section)
            self.assertEqual(set(re.findall(r"^\| ([^|`]+?) \| `", section, flags=re.M)), set(expected), report.figure)
        # every folder under reports/data is a machine's, some report drawn from it: a study's folder put there on
        # its own (reports/data/precession/) would be a "device folder" no report renders
        for device in devices:
            self.assertTrue([f for f, found in listed.items() if device in found], device)

    def test_seeded_fold_counts_are_the_jsons(self):
        """The seeded splits' tables at ε = 1e-6, one per placement: per lattice the run count, the fold counts (the
        largest |c_m| over m ≥ 2 of each run that split, recomputed here from the amplitudes), the near ties (below
        physics.NEAR_TIE) and the median split time, from the JSON files."""
        text = (self.out / H100.name / "seeded-splits.md").read_text()
        titles = {"centred": "Folds at ε = 1e-6, lattice centred",
                  "shifted": "Folds at ε = 1e-6, lattice shifted by −1/8 structure edge"}
        for placement, title in titles.items():
            rows = seeded_table(text, title)
            by_lattice = {}
            for r in seed_runs(placement):
                if r["epsilon"] == 1e-6:
                    by_lattice.setdefault(LABELS[r["lattice"]], []).append(r)
            self.assertEqual(set(rows), set(by_lattice), placement)
            self.assertEqual(list(rows)[:2], ["BCC", "C15"])  # the paper's two first, as elsewhere
            for label, runs in by_lattice.items():
                row = rows[label]
                split = [r for r in runs if r["split_t"] is not None]
                dominant = [2 + int(np.argmax(r["amplitudes"][2:])) for r in split]
                expected = {}
                for m in dominant:
                    expected[f"{m}-fold"] = expected.get(f"{m}-fold", 0) + 1
                if len(split) < len(runs):
                    expected["no split"] = len(runs) - len(split)
                self.assertEqual(row[1], str(len(runs)), (placement, label))
                self.assertEqual(parse_counts(row[2]), (expected, len(runs)), (placement, label, row[2]))
                ties = sum("ratio" in expected_fold(np.array(r["amplitudes"]), m) for r, m in zip(split, dominant))
                if ties:
                    self.assertTrue(row[3].startswith(f"{ties} of {len(runs)}: "), (placement, label, row[3]))
                else:
                    self.assertEqual(row[3], "none", (placement, label))
                median = row[4].split(" (")[0]
                self.assertTrue(close(median, statistics.median(r["split_t"] for r in split)), (placement, label))
        # the format, on the committed data: A15's split is a near tie either way in every centred run
        centred = seeded_table(text, titles["centred"])
        self.assertEqual(centred["A15"][2], "3-fold 6, 4-fold 2 of 8")
        self.assertEqual(centred["A15"][3], "8 of 8: 3/4 ×6, 4/3 ×2")
        self.assertEqual(centred["BCC"][2], "3-fold 8/8")

    def test_bogoliubov_spectrum_of_the_papers_vortex_at_a_coarse_step(self):
        """The continuum Bogoliubov solver at h = 0.5 (2 s): μ within 0.1% of the spectral state's, m = 3 unstable at
        the rate the lattice runs measure (0.21), m = 4 stable. A wrong sign or block fails one of the three."""
        state = bogoliubov.ground_state(0.5, 7.5)
        self.assertAlmostEqual(state["mu"], bogoliubov.MU_CONTINUUM, delta=1e-3 * bogoliubov.MU_CONTINUUM)
        self.assertAlmostEqual(float(np.max(np.abs(bogoliubov.bogoliubov(state, 3, +1).imag))), 0.21, delta=0.005)
        self.assertLess(float(np.max(np.abs(bogoliubov.bogoliubov(state, 4, +1).imag))), 1e-6)

    def test_growth_rate_is_the_exponential_phase_of_the_spectrum(self):
        """σ of a made-up |c_m|(t): noise at the start's level, then e^(0.2t), then saturation. The fit takes the
        exponential stretch only; a mode that never grows gets no rate."""
        t = np.linspace(0, 80, 161)
        grown = 1e-7 * np.exp(0.2 * t)
        c = np.where(grown < 3e-6, 3e-6 * (1 + 0.5 * np.sin(7 * t)), np.minimum(grown, 1e-2 * (1 + 0.01 * t)))
        sigma, r2 = stationary_start.growth_rate(t, c)
        self.assertAlmostEqual(sigma, 0.2, delta=0.004)
        self.assertGreater(r2, 0.999)
        flat = 1e-5 * (1 + 0.3 * np.sin(3 * t))
        sigma, r2 = stationary_start.growth_rate(t, flat)
        self.assertFalse(np.isfinite(sigma) and r2 >= stationary_start.MIN_R2)

    def test_sigma3_window_rule_skips_the_transient(self):
        """σ₃'s window rule on made-up runs: |c₃| oscillates at the seed's level, then grows as e^(0.2t) to the
        split. Windows reaching into the oscillation are not admissible; the rule's window lies above it: σ₃ = 0.2."""
        t = np.linspace(0, 75, 301)
        runs = []
        for seed, phase in ((1, 0.0), (2, 1.0)):
            c = 1e-8 * (1 + 0.8 * np.sin(3 * t + phase)) + 1e-9 * np.exp(0.2 * t)
            history = np.zeros((t.size, 4))
            history[:, 3] = c
            runs.append({"seed": seed, "history_t": t.tolist(), "history": history.tolist()})
        scan = stationary_start.window_scan(runs)
        worst = {w: rms for w, _, rms in scan}
        self.assertFalse(stationary_start.admissible(worst[(1e-5, 1e-2)]))
        rule = stationary_start.ruled_window(scan)
        self.assertIsNotNone(rule)
        self.assertLessEqual(rule[1], stationary_start.WINDOW_TOP * (1 + 1e-9))
        sigma = next(s for w, s, _ in scan if w == rule)
        np.testing.assert_allclose(sigma, 0.2, atol=0.004)

    def test_halo_depth_table_is_the_csv(self):
        """The deep-halo table: per k the median of the CSV's timings, their count and the ratio to k = 1, recomputed
        here from scaleout/halo-depth.csv."""
        rows = table_rows((self.out / CPU_VM.name / "scaleout-halo-depth.md").read_text())
        with open(CPU_VM / scaleout.FILES, newline="") as f:
            data = list(csv.DictReader(f))
        by_k = {}
        for r in data:
            by_k.setdefault(int(r["halo_depth"]), []).append(float(r["seconds"]))
        self.assertEqual([int(row[3]) for row in rows], sorted(by_k))
        base = statistics.median(by_k[1])
        for row in rows:
            times = by_k[int(row[3])]
            self.assertTrue(close(row[4], statistics.median(times)), row)
            self.assertEqual(int(row[6]), len(times))
            self.assertTrue(close(row[8], statistics.median(times) / base), row)
        self.assertGreater((self.out / CPU_VM.name / "scaleout-halo-depth.png").stat().st_size, 1000)

    def test_kohn_tables_are_the_csv(self):
        """The Kohn tables: per lattice and scheme the finest spacing's error and the order in h as kohn.csv gives
        them, and the order in Δt recomputed here from the three ω of the ladder (log₂ of the ratio of their
        successive changes), for x and z."""
        with open(CPU_VM / known_answers.KOHN, newline="") as f:
            data = list(csv.DictReader(f))
        text = (self.out / CPU_VM.name / "kohn.md").read_text()
        space, time = (table_rows(part) for part in text.split("\n## ")[1:3])
        label = {v: k for k, v in LABELS.items()}
        finest = {(r["lattice"], r["scheme"], r["mode"]): r for r in data if r["part"] == "space"}
        self.assertEqual(len(space), len({key[:2] for key in finest}))
        for row in space:
            for mode, column in (("x", 4), ("z", 8)):
                r = finest[label[row[0]], row[1], mode]
                self.assertTrue(close_e(row[column], float(r["error"])), row)
                self.assertTrue(row[column + 1].startswith("—") or close(row[column + 1], float(r["order"])), row)
        ladder = {}
        for r in data:
            if r["part"] == "time":
                ladder.setdefault((r["lattice"], r["scheme"], r["mode"]), []).append(float(r["omega"]))
        self.assertEqual(len(time), len({key[:2] for key in ladder}))
        for row in time:
            for mode, column in (("x", 5), ("z", 7)):
                w = ladder[label[row[0]], row[1], mode]
                self.assertEqual(len(w), 3)
                self.assertTrue(close(row[column], np.log2((w[0] - w[1]) / (w[1] - w[2]))), row)

    def test_breathing_table_is_the_csv(self):
        """The breathing table: ω_B(0) is the quadratic in s² through the three spacings' ω_B, recomputed here by
        numpy, and its distance to the sum rule of the finest grid."""
        with open(CPU_VM / known_answers.BREATHING, newline="") as f:
            data = list(csv.DictReader(f))
        rows = table_rows((self.out / CPU_VM.name / "breathing.md").read_text())
        label = {v: k for k, v in LABELS.items()}
        self.assertEqual(len(rows), len({r["lattice"] for r in data}))
        for row in rows:
            runs = [r for r in data if r["lattice"] == label[row[0]]]
            s2 = np.array([float(r["spacing"]) ** 2 for r in runs])
            at_zero = np.polyval(np.polyfit(s2, [float(r["omega"]) for r in runs], 2), 0.0)
            self.assertTrue(close(row[5], at_zero), row)
            self.assertTrue(close_e(row[6].lstrip("+"), at_zero - float(runs[-1]["sum_rule"])), row)

    def test_precession_tables_are_the_csv(self):
        """The precession tables, one per lattice: each row's error is its rate against 1 − Ω and its order
        log(|error| ratio)/log(spacing ratio) against the next coarser spacing, both recomputed here from
        precession.csv's rates; no order where the error changed sign."""
        with open(CPU_VM / known_answers.PRECESSION, newline="") as f:
            data = list(csv.DictReader(f))
        text = (self.out / CPU_VM.name / "precession.md").read_text()
        tables = {part.split("\n")[0].removeprefix("Precession: "): table_rows(part) for part in text.split("\n## ")[1:]}
        self.assertEqual(list(tables), list(dict.fromkeys(LABELS[r["lattice"]] for r in data)))
        label = {v: k for k, v in LABELS.items()}
        for name, rows in tables.items():
            runs = [r for r in data if r["lattice"] == label[name]]
            self.assertEqual([(row[0], row[1]) for row in rows], [(r["omega"], r["spacing"]) for r in runs], name)
            for before, row, r in zip([None, *runs], rows, runs):
                error = float(r["rate"]) - (1.0 - float(r["omega"]))
                self.assertTrue(close(row[4], float(r["rate"])), row)
                self.assertTrue(close_e(row[5].lstrip("+"), error), row)
                if before is None or before["omega"] != r["omega"]:
                    self.assertEqual(row[6], "—", row)
                elif (float(before["rate"]) - (1.0 - float(before["omega"]))) * error < 0:
                    self.assertEqual(row[6], "— (sign change)", row)
                else:
                    previous = float(before["rate"]) - (1.0 - float(before["omega"]))
                    expected = np.log(abs(previous / error)) / np.log(float(before["spacing"]) / float(r["spacing"]))
                    self.assertTrue(close(row[6], expected), (row, expected))

    def vortex_lattice_rows(self, table):
        """(row, its summary.csv line, the radii of its vortices in vortices.csv) for each row of a Vortex lattice
        table, after checking that the rows are the summary's lattices."""
        with open(CPU_VM / vortex_lattice.FOLDER / "summary.csv", newline="") as f:
            summary = {r["lattice"]: r for r in csv.DictReader(f)}
        with open(CPU_VM / vortex_lattice.FOLDER / "vortices.csv", newline="") as f:
            vortices = list(csv.DictReader(f))
        rows = table_rows((self.out / CPU_VM.name / table).read_text())
        label = {v: k for k, v in LABELS.items()}
        self.assertEqual(sorted(label[row[0]] for row in rows), sorted(summary))
        for row in rows:
            name = label[row[0]]
            yield row, summary[name], [np.hypot(float(v["x"]), float(v["y"])) for v in vortices
                                       if v["lattice"] == name]

    def test_vortex_lattice_table_and_figure_are_the_csvs(self):
        """The vortex lattice: per lattice the count inside R_TF and beyond it recomputed here from vortices.csv's
        crossings and summary.csv's radius, Feynman's count ΩR² from Ω and R; the figure drawn."""
        for row, s, rho in self.vortex_lattice_rows("vortex_lattice.md"):
            radius = float(s["tf_radius"])
            self.assertEqual(row[6], str(sum(r < radius for r in rho)), row)
            self.assertEqual(row[7], str(sum(r >= radius for r in rho)), row)
            self.assertTrue(close(row[4], float(s["omega"]) * radius**2), row)
        self.assertGreater((self.out / CPU_VM.name / "vortex_lattice.png").stat().st_size, 1000)

    def test_vortex_lattice_by_radius_is_the_csvs(self):
        """The count by radius: per lattice and fraction f the vortices of vortices.csv within fR, and Feynman's
        Ω(fR)² from summary.csv; and issue 32's known answer on the committed study: Feynman's density Ω/π within a
        few (4) vortices over the disc of 0.8 R on every lattice."""
        for row, s, rho in self.vortex_lattice_rows("vortex_lattice_radial.md"):
            radius, omega = float(s["tf_radius"]), float(s["omega"])
            for cell, f in zip(row[1:], vortex_lattice.FRACTIONS):
                count, feynman = cell.split(" of ")
                self.assertEqual(int(count), sum(r < f * radius for r in rho), row)
                self.assertTrue(close(feynman, omega * (f * radius) ** 2), row)
            within = sum(r < 0.8 * radius for r in rho)
            self.assertLessEqual(abs(within - omega * (0.8 * radius) ** 2), 4.0, row)

    def test_vortex_lattice_edge_is_the_csvs_and_the_edge_corrected_density(self):
        """At the edge: each row's range of counts recomputed from the CSVs; and issue 32's count inside R explained on
        the committed study: on every lattice the count within 0.5–0.8 R and inside R lies within 2 vortices of
        Sheehy and Radzihovsky's edge-corrected count for ln(ℓ/ξ) at either end of its range, while Feynman's ΩR²
        inside R lies more than 10 above it."""
        rows = table_rows((self.out / CPU_VM.name / "vortex_lattice_edge.md").read_text())
        counts = {}
        for _, s, rho in self.vortex_lattice_rows("vortex_lattice.md"):
            radius, omega = float(s["tf_radius"]), float(s["omega"])
            counts[s["lattice"]] = [sum(r < f * radius for r in rho) for f in (*vortex_lattice.EDGE_FRACTIONS, 1.0)]
        self.assertEqual(len(rows), len(vortex_lattice.EDGE_FRACTIONS) + 1)
        for row, column in zip(rows, zip(*counts.values())):
            self.assertEqual(row[1], f"{min(column)}–{max(column)}", row)
        omega_r2 = omega * radius**2
        logs = vortex_lattice.log_factors(omega, radius)
        for f, column in zip(vortex_lattice.EDGE_FRACTIONS, zip(*counts.values())):
            band = [vortex_lattice.edge_corrected_count(omega_r2, log, f) for log in logs]
            for count in column:
                self.assertTrue(min(band) - 2.0 <= count <= max(band) + 2.0, (f, count, band))
        totals = [vortex_lattice.edge_corrected_total(omega_r2, log)[0] for log in logs]
        for count in list(zip(*counts.values()))[-1]:
            self.assertTrue(min(totals) - 2.0 <= count <= max(totals) + 2.0, (count, totals))
        self.assertGreater(omega_r2 - max(totals), 10.0)

    def test_rotating_frame_tables_are_the_json(self):
        """The rotating frame's tables, leapfrog then RK4: a row per lattice of the registry, its rates and their
        ratio recomputed here from the committed JSON's medians, a ratio under 0.8 marked."""
        text = (self.out / H100.name / "rotating-frame.md").read_text()
        medians = {}
        for b in json.loads((H100 / rotating_frame.FILE).read_text())["benchmarks"]:
            parts = b["name"].split("/")
            if b.get("aggregate_name") == "median":
                medians[parts[0], parts[2], "w0.5" in parts] = b["dof_updates_per_second"]
        for scheme, part in zip(("step", "rk4"), text.split("\n## ")[1:]):
            rows = table_rows(part)
            self.assertEqual([row[0] for row in rows], list(LABELS.values()))
            for row, lattice in zip(rows, LABELS):
                lab, turned = medians[scheme, lattice, False], medians[scheme, lattice, True]
                self.assertTrue(close(row[1], lab / 1e9), row)
                self.assertTrue(close(row[2], turned / 1e9), row)
                self.assertTrue(close(row[3].split()[0], turned / lab), row)
                self.assertEqual("below" in row[3], turned / lab < 0.8, row)

    def test_precision_tables_are_the_json(self):
        """The precision report: the rates of double, single and mixed per crystal recomputed from the committed JSON
        (single faster than double on every one, as its 24 B an update allow), and the accuracy case's split times
        the runs' last diagnostics time, the double ones the README's."""
        text = (self.out / H100.name / "precision.md").read_text()
        found = precision.medians([H100 / f for f in precision.SPEED])
        parts = text.split("\n## ")[1:]
        for scheme, part in zip(("step", "rk4"), parts):
            rows = table_rows(part)
            self.assertEqual([row[0] for row in rows], [LABELS[name] for name in CRYSTALS])
            for row, lattice in zip(rows, CRYSTALS):
                rates = [found[scheme, lattice, p]["dof_updates_per_second"] / 1e9 for p in precision.PRECISIONS]
                for cell, rate in zip(row[1:4], rates):
                    self.assertTrue(close(cell, rate), row)
                self.assertGreater(rates[1], 1.3 * rates[0], row)
        runs = json.loads((H100 / precision.ACCURACY).read_text())
        rows = table_rows(parts[2])
        self.assertEqual([row[0] for row in rows], [LABELS[name] for name in CRYSTALS])
        readme_splits = {"cubic": 47.7, "fcc": 56.4, "bcc": 75.4, "a15": 68.5, "c15": 85.5, "z": 72.5}
        for row, lattice in zip(rows, CRYSTALS):
            for cell, p in zip(row[1:4], precision.PRECISIONS):
                self.assertTrue(close(cell, runs[f"{lattice}-{p}"]["series"]["t"][-1]), row)
            self.assertTrue(close(row[1], readme_splits[lattice]), row)

    def test_precision_seeded_split_is_the_seed_studies(self):
        """The seeded split in single and mixed: per crystal the seeds' split times and folds recomputed from the seed
        studies' JSON; each run within one diagnostics interval (0.05) of the same seed's double run, at most 0.032
        as the README says, and in the same fold."""
        part = (self.out / H100.name / "precision.md").read_text().split("## Precision: the seeded split")[1]
        rows = table_rows(part.split("\n## ")[0])
        self.assertEqual([row[0] for row in rows], [LABELS[name] for name in CRYSTALS])
        studies = {p: json.loads((H100 / path).read_text())["runs"] for p, path in precision.SEEDS.items()}
        largest = 0.0
        for row, lattice in zip(rows, CRYSTALS):
            runs = {p: {r["seed"]: r for r in studies[p] if r["lattice"] == lattice and r["epsilon"] == 1e-6}
                    for p in precision.PRECISIONS}
            seeds = sorted(runs["single"])
            self.assertGreaterEqual(len(seeds), 3, row)
            self.assertEqual(row[1].split(), [str(s) for s in seeds])
            for column, p in zip(row[2:5], precision.PRECISIONS):
                splits = [runs[p][s]["split_t"] for s in seeds]
                self.assertTrue(all(close(cell, t) for cell, t in zip(column.split("–"), (min(splits), max(splits)))),
                                row)
            for p, gap_cell, fold_cell in (("single", row[5], row[8]), ("mixed", row[6], row[9])):
                gaps = [abs(runs[p][s]["split_t"] - runs["double"][s]["split_t"]) for s in seeds]
                self.assertTrue(close(gap_cell, max(gaps)), row)
                self.assertLessEqual(max(gaps), 0.05, row)
                largest = max(largest, max(gaps))
                self.assertEqual(fold_cell.split(), [str(runs["double"][s]["fold"]) for s in seeds], row)
                self.assertEqual(row[7], fold_cell, row)
        self.assertIn(f"at most {largest:.3f} time units", README.read_text().replace("\n", " "))

    def test_precision_drifts_table_is_the_csv(self):
        """The drifts table: a row per lattice and scheme of the CPU study, its drifts the CSV's; the invariants
        conserved to round-off in double (the leapfrog's and the split schemes') drift far more in single."""
        rows = table_rows((self.out / CPU_VM.name / "precision-drifts.md").read_text())
        with open(CPU_VM / precision.DRIFTS, newline="") as f:
            data = list(csv.DictReader(f))
        by = {(r["lattice"], r["scheme"], r["precision"]): r for r in data}
        self.assertEqual(len(rows), len(data) // 3)
        for row in rows:
            lattice = next(name for name, label in LABELS.items() if label == row[0])
            runs = [by[lattice, row[1], p] for p in precision.PRECISIONS]
            for cell, r in zip(row[3:6], runs):
                self.assertTrue(close_e(cell, float(r["invariant_drift"])), row)
            if row[1] != "rk4":
                self.assertLess(float(runs[0]["invariant_drift"]), 1e-7, row)
                self.assertGreater(float(runs[1]["invariant_drift"]), 1e-8, row)

    def test_hybrid_table_is_the_csv(self):
        """The hybrid table: a row per run of scaleout/hybrid.csv, its time per step and rate recomputed here; a run
        the GPU alone was refused has none."""
        rows = table_rows((self.out / H100.name / "scaleout-hybrid.md").read_text())
        with open(H100 / hybrid.FILES, newline="") as f:
            data = list(csv.DictReader(f))
        self.assertEqual([row[0] for row in rows], [r["kind"] for r in data])
        for row, r in zip(rows, data):
            self.assertEqual(row[-1], r["call"])
            if not r["seconds"]:
                self.assertIn("refused", row[-2])
                continue
            per_step = float(r["seconds"]) / int(r["steps"])
            self.assertTrue(close(row[5], 1e3 * per_step), row)
            self.assertTrue(close(row[6].replace(",", ""), int(r["cells"]) / per_step / 1e6), row)
        self.assertGreater((self.out / H100.name / "scaleout-hybrid.png").stat().st_size, 1000)

    def test_hybrid_bars_tell_repeated_runs_apart(self):
        """Two timings of the same hybrid run are two bars labelled by the device call that timed each."""
        with open(H100 / hybrid.FILES, newline="") as f:
            timed = [r for r in csv.DictReader(f) if r["seconds"]]
        labels = hybrid.bar_labels(timed)
        self.assertEqual(len(set(labels)), len(labels), labels)
        self.assertEqual(sum("(device call 2)" in label for label in labels), 1, labels)
        self.assertEqual(sum("(device call 3)" in label for label in labels), 1, labels)

    def test_time_to_solution_is_the_json(self):
        """The time-to-solution table: per lattice both runs' Δt, steps, split time and GPU seconds as recorded, and
        the speed-up recomputed here."""
        data = json.loads((H100 / time_to_solution.FILE).read_text())
        rows = table_rows((self.out / H100.name / "time-to-solution.md").read_text())
        self.assertEqual([row[0] for row in rows], [LABELS[r["lattice"]] for r in data])
        for row, r in zip(rows, data):
            e, s = r["eq11"], r["limit"]
            self.assertEqual(int(row[3]), e["steps"])
            self.assertEqual(int(row[7]), s["steps"])
            self.assertTrue(close(row[5], e["wall_seconds"]) and close(row[9], s["wall_seconds"]), row)
            self.assertTrue(close(row[10], e["wall_seconds"] / s["wall_seconds"]), row)
        self.assertGreater((self.out / H100.name / "time-to-solution.png").stat().st_size, 1000)

    def test_bogoliubov_figure_and_table_are_the_json(self):
        """The Bogoliubov report: a row per step solved with its rates of the unstable modes as in bogoliubov.json,
        and a last row extrapolating them to h = 0 from the two finest steps as error ∝ h² (recomputed here)."""
        data = json.loads((CPU_VM / bogoliubov.FILE).read_text())["rows"]
        text = (self.out / CPU_VM.name / "bogoliubov.md").read_text().split("**Against the box radius R**")[0]
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
                if line.startswith("| ") and not line.startswith("| h ")]
        self.assertEqual([r[0] for r in rows], [f"{r['h']:g}" for r in sorted(data, key=lambda r: -r["h"])] + ["→ 0"])
        for row, r in zip(rows, sorted(data, key=lambda r: -r["h"])):
            self.assertEqual(row[4:], [f"{r['growth'][f'even_m{m}']:.4f}" for m in (2, 3)])
        fine, coarse = sorted(data, key=lambda r: r["h"])[:2]
        for cell, m in zip(rows[-1][4:], (2, 3)):
            s1, s2 = fine["growth"][f"even_m{m}"], coarse["growth"][f"even_m{m}"]
            slope = (s2 - s1) / (coarse["h"] ** 2 - fine["h"] ** 2)
            self.assertEqual(cell, f"{s1 - slope * fine['h'] ** 2:.4f}")
        self.assertGreater((self.out / CPU_VM.name / "bogoliubov.png").stat().st_size, 1000)

    def test_bogoliubov_radii_table_is_the_jsons(self):
        """The rates against the box radius: a row per radius and step of bogoliubov.json and bogoliubov-radii.json
        with its rates of m = 2, 3, and per radius that solved h = 0.3 and 0.25 their extrapolation as error ∝ h²
        (recomputed here); beyond R = 7.5 the rates at h = 0.3 move by less than 1e-6."""
        data = [*json.loads((CPU_VM / bogoliubov.FILE).read_text())["rows"],
                *json.loads((CPU_VM / bogoliubov.RADII_FILE).read_text())["rows"]]
        text = (self.out / CPU_VM.name / "bogoliubov.md").read_text().split("**Against the box radius R**")[1]
        rows = table_rows(text)
        solved = [r for r in rows if not r[1].startswith("→")]
        expected = sorted(data, key=lambda r: (r["radius"], -r["h"]))
        self.assertEqual([(r[0], r[1]) for r in solved], [(f"{r['radius']:g}", f"{r['h']:g}") for r in expected])
        for row, r in zip(solved, expected):
            self.assertEqual(row[3:5], [f"{r['growth'][f'even_m{m}']:.4f}" for m in (2, 3)])
        limits = {r[0]: r[3:5] for r in rows if r[1] == "→ 0 (from 0.3, 0.25)"}
        for radius, cells in limits.items():
            at = {r["h"]: r["growth"] for r in data if f"{r['radius']:g}" == radius}
            for cell, m in zip(cells, (2, 3)):
                s1, s2 = at[0.25][f"even_m{m}"], at[0.3][f"even_m{m}"]
                self.assertEqual(cell, f"{s1 - (s2 - s1) / (0.3 ** 2 - 0.25 ** 2) * 0.25 ** 2:.4f}", radius)
        self.assertGreaterEqual(len(limits), 2)
        coarse = {r["radius"]: r["growth"] for r in data if r["h"] == 0.3}
        self.assertGreaterEqual(len([R for R in coarse if R > 7.5]), 1)
        for radius in (R for R in coarse if R > 7.5):
            for m in (2, 3):
                self.assertLess(abs(coarse[radius][f"even_m{m}"] - coarse[7.5][f"even_m{m}"]), 1e-6, radius)

    def test_stationary_start_panels_are_labelled_and_uncovered(self):
        """Fig 5's panels name their quantity and unit on the y axis; the rates panel shows only the modes that grew,
        says which did not, and draws the continuum rate beside them; the folds legend sits above the bars."""
        _, runs, _ = stationary_start.load(H100)
        fig, axes = common.plt.subplots(2, 2)
        self.addCleanup(common.plt.close, fig)
        stationary_start.fig5_panels(axes, runs)
        for ax in axes.flat:
            self.assertRegex(ax.get_ylabel(), r"\(.+\)", ax.get_title())
        fig, (folds, rates) = common.plt.subplots(1, 2)
        self.addCleanup(common.plt.close, fig)
        stationary_start.folds_panel(folds, runs)
        tallest = max(patch.get_y() + patch.get_height() for patch in folds.patches)
        self.assertGreaterEqual(folds.get_ylim()[1], 1.25 * tallest)
        stationary_start.rates_panel(rates, runs)
        legend = [t.get_text() for t in rates.get_legend().get_texts()]
        self.assertIn("σ_3, on the lattice", legend)
        self.assertTrue(any(t.startswith("σ_3, continuum Bogoliubov") for t in legend), legend)
        self.assertFalse(any(t.startswith("σ_2") or t.startswith("σ_4") for t in legend), legend)
        notes = " ".join(t.get_text() for t in rates.texts)
        self.assertIn("|c_2|", notes)
        self.assertIn("|c_4|", notes)

    def test_stationary_start_folds_and_rates_are_the_jsons(self):
        """The stationary-start fold table: per lattice and placement the folds over the seeds (the largest |c_m|,
        m ≥ 2, of each seeded run that split, recomputed here from the amplitudes) and the mean σ₃ (fitted here from
        the spectrum history), from splitting/splitting-study-*.json."""
        text = (self.out / H100.name / "stationary-start.md").read_text()
        section = text.split("## Folds, split times and growth rates from the stationary state")[1].split("## ")[0]
        rows = {tuple(cells[:2]): cells for cells in (
            [c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| lattice"))}
        runs = {}
        for path in sorted(SEED_STUDY.glob("splitting-study-*.json")):
            for r in json.loads(path.read_text())["runs"]:
                runs.setdefault((r["lattice"], r["placement"], r["seed"]), r)
        groups = {}
        for (lattice, placement, seed), r in runs.items():
            if seed > 0:
                groups.setdefault((LABELS[lattice], stationary_start.PLACEMENT[placement]), []).append(r)
        self.assertEqual(set(rows), set(groups))
        for key, group in groups.items():
            split = [r for r in group if r["split_t"] is not None]
            folds = {}
            for r in split:
                m = 2 + int(np.argmax(r["amplitudes"][2:]))
                name = f"{m}-fold" if m in (3, 4) else "other"
                folds[name] = folds.get(name, 0) + 1
            expected = ", ".join(f"{n} {folds[n]}" for n in ("3-fold", "4-fold", "other") if n in folds)
            if len(split) < len(group):
                expected += (", " if expected else "") + f"no split {len(group) - len(split)}"
            self.assertEqual(rows[key][2], f"{expected} of {len(group)}", key)
            sigma = [stationary_start.growth_rate(r["history_t"], np.array(r["history"])[:, 3]) for r in group]
            sigma = [s for s, r2 in sigma if r2 >= stationary_start.MIN_R2]
            if sigma:
                self.assertTrue(rows[key][5].startswith(f"{statistics.mean(sigma):.3f}"), (key, rows[key][5]))

    def test_sigma3_window_table_is_the_jsons(self):
        """σ₃ against the fit window: the rule's window (the widest with ln|c₃| straight to 1% rms in every seeded
        run, high ≤ 0.1) is the table's 0.001–0.1, so the fold table's σ₃ is the rule's; its mean and the deepest
        window's (1e-5–0.01: the 0.187–0.208 of an earlier window) recomputed here with their own least squares."""
        text = (self.out / H100.name / "stationary-start.md").read_text()
        rows = {row[0]: row for row in table_rows(text.split("## σ₃ against the fit window")[1])}
        runs = {}
        for path in sorted(SEED_STUDY.glob("splitting-study-*.json")):
            for r in json.loads(path.read_text())["runs"]:
                runs.setdefault((r["lattice"], r["placement"], r["seed"]), r)
        seeded = [r for key, r in runs.items() if key[2] > 0]

        def sigma(r, low, high):
            t, c = np.array(r["history_t"]), np.array(r["history"])[:, 3]
            top = int(np.argmax(c))
            first = top
            while first > 0 and c[first - 1] >= low * c[top]:
                first -= 1
            keep = [k for k in range(first, top + 1) if low * c[top] <= c[k] <= high * c[top]]
            x, y = t[keep], np.log(c[keep])
            slope, intercept = np.polyfit(x, y, 1)
            return slope, float(np.sqrt(np.mean((y - slope * x - intercept) ** 2)))

        self.assertEqual(stationary_start.GROWTH_WINDOW, (1e-3, 1e-1))
        for label, (low, high), admissible in (("0.001–0.1 (the rule's)", (1e-3, 1e-1), "yes"),
                                               ("1e-05–0.01", (1e-5, 1e-2), "no")):
            fits = [sigma(r, low, high) for r in seeded]
            values = [s for s, _ in fits]
            self.assertEqual(rows[label][2], f"{statistics.mean(values):.4f}", label)
            self.assertEqual(rows[label][3], f"{min(values):.4f}–{max(values):.4f}", label)
            self.assertEqual(rows[label][6], admissible, label)
            self.assertEqual(max(r for _, r in fits) <= stationary_start.MAX_RMS, admissible == "yes", label)

    def test_split_convergence_is_the_jsons(self):
        """The split under refinement: per lattice the mean split time of seeds 1-3, centred, at each work per time
        unit (the study command's SPLITTING_SET, else the case file's 6e9), recomputed here from the JSON files, and
        the ratio of its successive differences; the cells and μ_h of each resolution's state."""
        text = (self.out / H100.name / "splitting-refinement.md").read_text()
        grid = table_rows(text.split("## Per resolution: the grid")[1].split("\n## ")[0])
        convergence = {row[0]: row for row in table_rows(text.split("## Convergence")[1]) if "split" in row[1]}
        found = {}
        for path in sorted(SEED_STUDY.glob("splitting-study-*.json")) + sorted(
                (H100 / "splitting-refined").glob("splitting-study-*.json")):
            doc = json.loads(path.read_text())
            work = re.search(r"operations_per_time=([0-9.e]+)", doc["command"])
            work = float(work[1]) if work else 6e9  # cases/accuracy/{cubic,bcc}.toml
            for r in doc["runs"]:
                if r["lattice"] in ("cubic", "bcc") and r["placement"] == "centred" and r["seed"] in (1, 2, 3):
                    found.setdefault((LABELS[r["lattice"]], work), {})[r["seed"]] = (r["split_t"], r["cells"])
        found = dict(sorted(found.items(), key=lambda item: (item[0][0] != "cubic", item[0][1])))  # cubic first
        self.assertEqual([(row[0], float(row[1])) for row in grid], list(found))
        for row, runs in zip(grid, found.values()):
            self.assertEqual(len(runs), 3, row[:2])
            self.assertEqual(row[2], str(runs[1][1]), row[:2])
            self.assertTrue(row[6].startswith(f"{statistics.mean(t for t, _ in runs.values()):.3f} "), row)
        for label in ("cubic", "BCC"):
            means = [statistics.mean(t for t, _ in runs.values()) for (name, _), runs in found.items() if name == label]
            self.assertEqual(convergence[label][2], " → ".join(f"{t:.3f}" for t in means), label)
            self.assertEqual(convergence[label][5], f"{(means[2] - means[1]) / (means[1] - means[0]):.3f}", label)

    def test_seeded_growth_rate_is_the_jsons(self):
        """σ = −1/slope of BCC's split time against ln ε over the centred runs at ε = 1e-6–1e-4 (each seed one point),
        the rule's window, recomputed here from the JSON, is what the section's notes, the caption and the legend
        print; the dashed line is the unseeded run's first diagnostics time with E > 0.01. The rule's window: its rms
        residual is within the seeds' spread at ε = 1e-6, that from 1e-7 is not."""
        bcc = [r for r in seed_runs("centred") if r["lattice"] == "bcc" and r["split_t"] is not None]
        spread = statistics.stdev(r["split_t"] for r in bcc if r["epsilon"] == 1e-6)

        def line(low):
            runs = [r for r in bcc if r["epsilon"] >= low * (1 - 1e-9)]
            x, y = np.log([r["epsilon"] for r in runs]), np.array([r["split_t"] for r in runs])
            slope, intercept = np.polyfit(x, y, 1)
            return slope, float(np.sqrt(np.mean((y - slope * x - intercept) ** 2))), {r["epsilon"] for r in runs}

        slope, rms, epsilons = line(1e-6)
        self.assertEqual(len(epsilons), 3)
        self.assertLessEqual(rms, spread)
        self.assertGreater(line(1e-7)[1], spread)
        sigma = -1 / slope
        section = section_of((self.out / "index.md").read_text(), "Seeded splits")
        caption = self.caption(H100, "seeded-splits")
        for rendered in (section, caption):
            found = re.findall(r"σ = ([\d.]+) ω⊥", rendered)
            self.assertTrue(found, rendered)
            for text in found:
                self.assertTrue(close(text, sigma), f"σ {text}, recomputed {sigma}")
        unseeded = first_split(H100 / "physics" / "accuracy_bcc.h5")
        self.assertIn(f"unseeded at {unseeded:.2f}", caption)
        placed, _ = splitting.load_all(H100)
        scan = splitting.bcc_scan(placed)
        fig, ax = plt.subplots()
        splitting.scan_panel(ax, scan, splitting.growth_fit(scan), physics.load(H100 / "physics" / "accuracy_bcc.h5"))
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertTrue(any(f"σ = {sigma:.3f} ω⊥" in label for label in labels), labels)
        self.assertTrue(any(f"t = {unseeded:.2f}" in label for label in labels), labels)
        dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        self.assertEqual([line.get_ydata()[0] for line in dashed], [unseeded])
        plt.close(fig)

    def test_seeded_splits_caption_says_what_ran(self):
        """The caption: the seed, the interpolated start, both placements, the seed counts from the data, and that
        below ε ≈ 1e-8 the boundary seed decides."""
        caption = self.caption(H100, "seeded-splits")
        self.assertIn("ψ⁰ (1 + ε Σ_{m=1..8} cos(mφ + θ_m))", caption)
        self.assertIn("interpolated onto the lattice (not the lattice's own stationary state)", caption)
        self.assertIn("Two placements ran", caption)
        for placement in ("centred", "shifted"):
            counts = {}
            for r in seed_runs(placement):
                if r["epsilon"] == 1e-6:
                    counts[r["lattice"]] = counts.get(r["lattice"], 0) + 1
            low, high = min(counts.values()), max(counts.values())
            self.assertIn(f"{placement}: {low}–{high} seeds per lattice" if low < high else
                          f"{placement}: {low} seeds per lattice", caption)
        scan = {r["epsilon"] for r in seed_runs("centred") if r["lattice"] == "bcc" and r["epsilon"] != 1e-6}
        self.assertIn(f"BCC also at ε = {', '.join(splitting.eps(e) for e in sorted(scan))} (2 seeds each)", caption)
        self.assertIn("below ε ≈ 1e-8 the boundary seed", caption)
        self.assertIn("t in 1/ω⊥", caption)

    def test_seeded_splits_are_one_entry_naming_their_device(self):
        index = (self.out / "index.md").read_text()
        self.assertEqual(re.findall(r"^## (Seeded splits):", index, flags=re.M), ["Seeded splits"])
        rows = [line for line in index.splitlines() if line.startswith("| [Seeded splits](")]
        self.assertEqual(len(rows), 1)
        cells = rendered_for(index)["Seeded splits"]
        self.assertEqual(list(cells), [H100.name])
        self.assertIn(f"{H100.name}/seeded-splits.png", cells[H100.name])
        section = section_of(index, "Seeded splits")
        self.assertEqual(re.findall(r"^### (.+)$", section, flags=re.M), [H100.name])
        sources = re.findall(r"^\| [^|]+ \| `([^`]+)` \| `([^`]+)`", section, flags=re.M)
        self.assertEqual(sources, [("splitting/seed-study-centred.json", "3521a49"),
                                   ("splitting/seed-study-shifted.json", "3521a49"),
                                   ("physics/accuracy_bcc.h5", "d2e176de68cf")])

    def test_two_gpu_counts_are_solved_not_fitted(self):
        section = section_of((self.out / "index.md").read_text(), "Fig 9")
        self.assertIn("solved exactly from 2 GPU counts", section)
        self.assertNotIn("least squares", section)
        self.assertNotIn("Fitted", section)

    def test_table1_explains_each_difference(self):
        text = (self.out / H100.name / "table1-dual-edges.md").read_text()
        for topic in ("**Which length.**", "**BCC**", "**FCC**", "**Rounding to whole structures.**",
                      "**The 5% condition.**"):
            self.assertIn(topic, text)
        # the shortest dual edges quoted from `decgpe lattice --json` agree with what the HDF5 files record where
        # all edges have one length
        for name in ("cubic", "fcc", "bcc"):
            with h5py.File(H100 / "physics" / f"accuracy_{name}.h5") as f:
                self.assertAlmostEqual(physics.SHORTEST_DUAL_EDGE[name] * f.attrs["h"], f.attrs["dual_edge_max"],
                                       delta=1e-6)
        for name in ("a15", "c15", "z"):
            with h5py.File(H100 / "physics" / f"accuracy_{name}.h5") as f:
                self.assertLess(physics.SHORTEST_DUAL_EDGE[name] * f.attrs["h"], f.attrs["dual_edge_mean"])

    def test_readme_physics_table_is_the_data(self):
        """README.md's physics table: every number recomputed from the committed HDF5 and isotropy files."""
        text = README.read_text().split("## Physics results")[1].split("\n## ")[0]
        all_lines = text.splitlines()
        first = next(i for i, line in enumerate(all_lines) if line.startswith("|"))
        lines = []
        for line in all_lines[first:]:  # the first table only
            if not line.startswith("|"):
                break
            lines.append(line.replace("\\|", "¦"))  # \| inside a cell
        order = [cell.strip() for cell in lines[0].strip("|").split("|")][1:]
        names = {LABELS[n]: n for n in CRYSTALS}
        rows = {cells[0]: dict(zip(order, cells[1:])) for cells in
                ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}
        runs = {n: physics.load(H100 / "physics" / f"accuracy_{n}.h5") for n in CRYSTALS}
        with h5py.File(CPU_VM / isotropy.FILE) as f:
            spread = {n: f[f"{n}/error_kh0.30"][:].std() for n in CRYSTALS}
        cubic = runs["cubic"].attrs["dual_edge_mean"]
        checks = {"split time": lambda r, n: close(r, runs[n].split),
                  "fold of the split": lambda r, n: r == physics.fold_label(runs[n], word=""),
                  "RMSE at t = 10, the paper's definition (volume-weighted)":
                      lambda r, n: close_e(r, runs[n].at(runs[n].rmse, 10.0)),
                  "phase-corrected RMSE at t = 10": lambda r, n: close_e(r, runs[n].at(runs[n].rmse_phase, 10.0)),
                  "Table 1: mean dual edge / cubic's": lambda r, n: close(r, runs[n].attrs["dual_edge_mean"] / cubic),
                  "Bloch dispersion spread at ¦k¦h = 0.3": lambda r, n: close_e(r, spread[n])}
        for row, check in checks.items():
            self.assertIn(row, rows, f"README's physics table has no row '{row}'")
            for label, cell in rows[row].items():
                self.assertTrue(check(cell, names[label]), f"README {row}, {label}: {cell}")

    def test_integrators_table_is_the_studys_fastest_run(self):
        doc = json.loads((H100 / "integrators" / "work_precision.json").read_text())
        text = (self.out / H100.name / "integrators_fastest.md").read_text()
        names = {"cubic": "cubic", "bcc": "BCC", "c15": "C15", "cubic4": "cubic4 (4th-order operator)"}
        for column, key, target in (("total ≤ 0.01", "total_error", 1e-2), ("time ≤ 1e-05", "time_error", 1e-5)):
            cells = table_of(text, column)
            for case in doc["cases"]:
                ok = [r for r in case["runs"] if r[key] <= target and r["time_error"] <= target]
                cell = cells[names[case["lattice"]]]
                if not ok:
                    self.assertTrue(cell.startswith("none"), cell)
                    continue
                best = min(ok, key=lambda r: r["seconds"])
                self.assertTrue(cell.startswith(best["scheme"] + " "), f"{case['lattice']}: {cell} vs {best}")
                self.assertIn(f"{best['seconds']:.2f} s", cell)

    def test_integrators_reference_error_is_no_floor_and_unresolved_points_are_marked(self):
        """The reference solution's error against ψ₀e^(−iμt) is the grid's, mostly its phase; a scheme's time-step
        phase error can cancel part of it, and the committed study has runs well below it. Nothing rendered may call
        it a floor or a lower bound; the bottom row rings exactly the points below the reference's own time error;
        the legend names schemes readably; a 'none (≥ b)' cell holds the triangle-inequality bound; the table's
        phase is the same-grid accuracy run's, read here from its HDF5 file."""
        doc = json.loads((H100 / "integrators" / "work_precision.json").read_text())
        self.assertTrue(any(r["total_error"] * 2 < case["reference_total_error"]
                            for case in doc["cases"] for r in case["runs"]))  # what the caption must explain
        notes = [self.caption(H100, "integrators_work_precision")]
        text = (self.out / H100.name / "integrators_fastest.md").read_text()
        section = section_of((self.out / "index.md").read_text(), "Integrators")
        for rendered in (*notes, text, section):
            self.assertIsNone(re.search(r"floor|bounded (from )?below|lower bound", rendered, flags=re.I), rendered)
            self.assertNotIn("none (spatial error", rendered)
        self.assertIn("phase cancellation", notes[0])
        self.assertIn("no overlap ⟨ψ₀|ψ⟩", notes[0])  # why there is no phase-corrected total error
        self.assertIn("ringed points lie below it", notes[0])

        fig = integrators.figure(doc)
        columns = len(doc["cases"])
        marked_any = False
        for case, ax in zip(doc["cases"], fig.axes[columns:2 * columns]):  # the bottom row
            expected = {(r["passes"], r["time_error"]) for r in case["runs"]
                        if r["time_error"] < case["reference_error"]}
            rings = [line for line in ax.get_lines() if line.get_gid() == "unresolved"]
            marked = {(x, y) for line in rings for x, y in zip(line.get_xdata(), line.get_ydata())}
            self.assertEqual(marked, expected, case["lattice"])
            marked_any |= bool(marked)
        self.assertTrue(marked_any)  # cubic's RK4 reaches below its reference's 6e-8
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        self.assertIn("Trotter–Suzuki 2", labels)
        self.assertIn("exponential (Chebyshev)", labels)
        self.assertFalse(any("trotter_suzuki" in label for label in labels))
        plt.close(fig)

        names = {"cubic": "cubic", "bcc": "BCC", "c15": "C15", "cubic4": "cubic4 (4th-order operator)"}
        for target in integrators.TARGETS:
            cells = table_of(text, f"total ≤ {target:g}")
            for case in doc["cases"]:
                cell = cells[names[case["lattice"]]]
                bound = re.fullmatch(r"none \(≥ ([\d.e-]+)\)", cell)
                if bound:
                    self.assertAlmostEqual(float(bound[1]), case["reference_total_error"] - target,
                                           delta=0.05 * float(bound[1]))
                    self.assertGreater(case["reference_total_error"] - target, target)
        phases = table_of(text, "accuracy run, t = 5: phase φ (rad)")
        for case in doc["cases"]:
            path = H100 / "physics" / f"accuracy_{case['lattice']}.h5"
            if not path.exists():
                self.assertEqual(phases[names[case["lattice"]]], "—")
                continue
            with h5py.File(path) as f:
                t, overlap, mu = f["diagnostics/t"][:], f["diagnostics/overlap"][:], f.attrs["mu"]
            phase = np.interp(case["end_time"], t, np.unwrap(np.angle(np.exp(1j * mu * t) * overlap)))
            self.assertTrue(close(phases[names[case["lattice"]]].split()[0], phase), case["lattice"])
        self.assertIn("`physics/accuracy_cubic.h5`", section)  # its provenance beside the study's

    def test_scaling_figures_say_single_timings_steps_and_sensitivity(self):
        """Figs 9 and 10 as drawn: every (kind, ranks) of the CSVs is one row, so each point is a single timing; the
        CPU rows' step counts and the GPU rows' are on Fig 10; Fig 9 gives p_t from the graphs-off rows too; the
        laws are the laws' curves, not a segment between two points, drawn over the measured GPU counts and no
        further; one "data:" line per date and device."""
        rows = []
        for name in ("scaling_gpu.csv", "scaling_cpu_mpi.csv"):
            with open(H200X2 / name, newline="") as f:
                rows += list(csv.DictReader(f))
        self.assertEqual(len({(r["kind"], r["ranks"]) for r in rows}), len(rows))  # no repetitions in the data
        fig9, fig10 = self.caption(H200X2, "fig9-scaling"), self.caption(H200X2, "fig10-rate")
        for note in (fig9, fig10):
            self.assertIn("single timing", note)
        cpu = {r["ranks"]: r["steps"] for r in rows if r["kind"] == "cpu_mpi"}
        gpu = {r["steps"] for r in rows if r["kind"] == "gpu_strong"}
        for steps in set(cpu.values()):
            ranks = ", ".join(sorted((k for k, v in cpu.items() if v == steps), key=int))
            self.assertIn(f"{steps} steps at {ranks} rank", fig10)
        self.assertIn(f"the GPU rows {' or '.join(sorted(gpu))} steps", fig10)
        seconds = {(r["kind"], int(r["ranks"])): float(r["seconds"]) for r in rows}
        off = 2 * (1 - seconds["gpu_strong_no_graphs", 2] / seconds["gpu_strong_no_graphs", 1])
        found = re.search(r"CUDA graphs off, S_2 = ([\d.]+) gives ([\d.]+)", fig9)
        self.assertTrue(close(found[1], seconds["gpu_strong_no_graphs", 1] / seconds["gpu_strong_no_graphs", 2]))
        self.assertTrue(close(found[2], off))
        runs = {kind: by_ranks for kind, by_ranks in scaling.read_runs([H200X2 / "scaling_gpu.csv"]).items()}
        fig = scaling.scaling_figure(runs, 0.967, 0.832, "test")
        for ax, name, law, p in ((fig.axes[0], "Amdahl", scaling.amdahl, 0.967),
                                 (fig.axes[1], "Gustafson", scaling.gustafson, 0.832)):
            curve = next(line for line in ax.get_lines() if line.get_label().startswith(name))
            x, y = curve.get_xdata(), curve.get_ydata()
            self.assertGreater(len(x), 2)
            np.testing.assert_allclose(y, law(p, x))
            self.assertEqual((x.min(), x.max()), (1, 2), name)  # the committed data measured 1 and 2 GPUs
            self.assertLessEqual(max(line.get_xdata().max() for line in ax.get_lines()), 2, name)
            self.assertLess(ax.get_xlim()[1], 2.5, name)
        plt.close(fig)
        fig = plt.figure()
        common.footer(fig, H200X2, [H200X2 / "scaling_cpu_mpi.csv", H200X2 / "scaling_gpu.csv"])
        drawn = fig.texts[-1].get_text()
        self.assertEqual(drawn.count("data:"), 1, drawn)
        self.assertIn("53331078d0fb and 88fce4770a0b", drawn)
        plt.close(fig)

    def test_fig5_and_fig6_captions_state_what_the_hdf5s_give(self):
        """Fig 5: the lattices whose split-time order changes with the placement, and both sets of times, computed
        here from the HDF5 files. Fig 6: the amplitudes are drawn per slab thickness (one structure edge, which
        differs several-fold between lattices), placement −1/8 and the near-tie label are explained."""
        centred = {p.stem.split("_")[1]: first_split(p) for p in (H100 / "physics").glob("accuracy_*.h5")}
        placed = {p.stem.split("_")[1]: first_split(p) for p in (H100 / "physics").glob("placement_*.h5")}
        both = sorted(set(centred) & set(placed))
        swapped = {n for a in both for b in both for n in (a, b)
                   if (centred[a] - centred[b]) * (placed[a] - placed[b]) < 0}
        self.assertTrue(swapped)
        order = sorted(swapped, key=lambda n: -centred[n])
        notes = [self.caption(H100, "fig5-error")]
        self.assertIn(" / ".join(f"{centred[n]:.1f}" for n in order), notes[0])
        self.assertIn(" / ".join(f"{placed[n]:.1f}" for n in order), notes[0])
        self.assertIn("depends on the placement", notes[0])
        self.assertIn("2/√V at each lattice's own V", notes[0])
        density, shifted, azimuthal = (self.caption(H100, stem) for stem in (
            "fig6-density-centred", "fig6-density-placement", "fig6-azimuthal"))
        for note in (density, shifted, azimuthal):
            self.assertIn('a near tie "m1/m2, ratio r"', note)
        self.assertIn("shifted by −1/8 structure edge along each of x, y and z", shifted)
        self.assertIn("shifted by −1/8 structure edge along each of x, y and z", azimuthal)
        self.assertIn("divided by d so that heights compare", azimuthal)
        for path in (H100 / "physics").glob("accuracy_*.h5"):
            with h5py.File(path) as f:
                box, amplitude = f["grid/box"][:], f["analysis/azimuthal_amplitude"][:]
            np.testing.assert_allclose(physics.slab_amplitude(physics.load(path)), amplitude / box[2])

    def test_fig7_captions_name_the_reference_and_the_schedule(self):
        """Fig 7 as drawn: what `reference` is; the schedule from speedup-run.log (the two reference parts beside
        the GPU part, OpenMP alone after); the GPU's bars hidden by its markers, with their largest span computed
        here; the dashed line's measured copy bandwidth."""
        throughput, ratios = self.caption(H100, "fig7-throughput"), self.caption(H100, "fig7-speedup")
        log = (H100 / speedup.SCHEDULE).read_text()
        starts = re.findall(r"^(\S+) start (\S+):", log, flags=re.M)
        together = [name for when, name in starts if when == starts[0][0]]
        self.assertEqual(len(together), 3)
        for note in (throughput, ratios):
            self.assertIn("reference: the serial oracle backend (one core, plain loops)", note)
            self.assertIn(" side by side (", note)
            self.assertIn(f"{len(together)} of 16 host cores busy", note)
            self.assertIn("then openmp alone", note)
        points = speedup.read_points(H100 / speedup.FILE)
        span = max((p.high - p.low) / p.rate for p in points.values() if p.backend == "cuda:plain")
        self.assertIn(f"at most {span:.1%} of its rate: smaller than the markers", throughput)
        context = json.loads((H100 / speedup.FILE).read_text())["context"]
        fig = speedup.throughput_figure(points, context, "test")
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        self.assertTrue(any(common.si(float(context["gpu_copy_bytes_per_second"]), "B/s") in label
                            for label in labels), labels)
        plt.close(fig)

    def test_table1_is_the_dual_edge_ratio(self):
        ratio = table_of((self.out / H100.name / "table1-dual-edges.md").read_text(), "relative to cubic (mean)")
        edge = {name: h5py.File(H100 / "physics" / f"accuracy_{name}.h5").attrs["dual_edge_mean"]
                for name in ("cubic", "bcc", "c15")}
        self.assertTrue(close(ratio["BCC"], edge["bcc"] / edge["cubic"]))
        self.assertTrue(close(ratio["C15"], edge["c15"] / edge["cubic"]))
        self.assertEqual(ratio["cubic"], "1.00")

    def test_isotropy_table_is_the_mean_and_spread(self):
        text = (self.out / CPU_VM.name / "isotropy.md").read_text()
        with h5py.File(CPU_VM / isotropy.FILE) as f:
            error = f["bcc/error_kh0.30"][:]
        self.assertTrue(close_e(table_of(text, "mean, kh_eff = 0.3")["BCC"], error.mean()))
        self.assertTrue(close_e(table_of(text, "s.d., kh_eff = 0.3")["BCC"], error.std()))

    def test_scaling_fits_are_the_csvs(self):
        with open(H200X2 / "scaling_gpu.csv", newline="") as f:
            rows = {(r["kind"], int(r["ranks"])): r for r in csv.DictReader(f)}
        seconds = {key: float(r["seconds"]) for key, r in rows.items()}
        # two GPU counts: Amdahl's T_2/T_1 = 1 − p_t/2 and Gustafson's W_2/W_1 = 1 + p_w, exactly
        p_t = 2 * (1 - seconds["gpu_strong", 2] / seconds["gpu_strong", 1])
        weak = {n: int(rows["gpu_weak", n]["cells"]) / seconds["gpu_weak", n] for n in (1, 2)}
        p_w = weak[2] / weak[1] - 1
        index = (self.out / "index.md").read_text()
        self.assertTrue(close(re.search(r"Amdahl p_t = ([\d.]+)", index)[1], p_t))
        self.assertTrue(close(re.search(r"Gustafson p_w = ([\d.]+)", index)[1], p_w))
        with open(H200X2 / "scaling_cpu_mpi.csv", newline="") as f:
            cpu = next(r for r in csv.DictReader(f) if r["ranks"] == "1")
        rate = {name: int(r["steps"]) * float(r["dt"]) / float(r["seconds"])
                for name, r in (("gpu", rows["gpu_strong", 1]), ("cpu", cpu))}
        self.assertTrue(close(re.search(r"(\d+)× one CPU core", index)[1], rate["gpu"] / rate["cpu"]))


GROWTH = 0.00095  # E(t) of the made-up run: E = 0.01 at t = 10.53


def made_up_run(path, overlap_dtype, amplitude=None, lattice="cubic"):
    """A run of decgpe's HDF5 layout whose error grows as E(t) = GROWTH·t at norm 1, so that the split is at t = 10.6
    (diagnostics every 0.1) and RMSE(t)² = 2·GROWTH·t / V; its azimuthal amplitudes `amplitude` (m = 0..12), by
    default a clear 4-fold."""
    if amplitude is None:
        amplitude = np.full(13, 1e-6)
        amplitude[4] = 1e-3
    t = np.linspace(0, 12, 121)
    mu = 13.0
    overlap = (1 - GROWTH * t) * np.exp(-1j * mu * t)
    x, y = (v.ravel() for v in np.meshgrid(np.linspace(-6, 6, 25), np.linspace(-6, 6, 25)))
    density = np.exp(-(x**2 + y**2) / 8)
    with h5py.File(path, "w") as f:
        attrs = dict(lattice=lattice, h=0.5, structures=[25, 25, 25], cells=25**3, dt=1e-3, mu=mu,
                     operations_per_time=6e9, dual_edge_mean=0.5, dual_edge_max=0.5, effective_wavelength=2.0,
                     domain_volume=100.0, shift=[0.0, 0.0, 0.0], steps_done=12000, git_commit="made-up",
                     date="2026-01-01T00:00:00Z", device="test", backend="reference", command_line="test")
        f.attrs.update(attrs)
        f["diagnostics/t"] = t
        f["diagnostics/norm"] = np.ones_like(t)
        compound = np.empty(t.size, overlap_dtype)
        compound["r"], compound["i"] = overlap.real, overlap.imag
        f["diagnostics/overlap"] = compound
        # The grid of one cubic instance (one cell, its centre at the instance's middle).
        f["grid/centre"] = np.array([[0.25, 0.25, 0.25]])
        f["grid/volume"] = np.array([0.125])
        f["grid/origin"] = np.array([-6.25, -6.25, -6.25])
        f["grid/box"] = np.array([0.5, 0.5, 0.5])
        f["analysis/azimuthal_amplitude"] = amplitude
        f["analysis/azimuthal_amplitude"].attrs["fold"] = float(2 + np.argmax(amplitude[2:]))
        for name, values in (("x", x), ("y", y), ("density", density), ("initial_density", 0.9 * density)):
            f[f"analysis/plane/{name}"] = values


class MadeUpData(unittest.TestCase):
    def setUp(self):
        self.data = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.data)

    def test_counters_become_bytes_and_flops_per_update(self):
        device = self.data / "gpu"
        (device / "roofline").mkdir(parents=True)
        shutil.copy(H100 / "bench-gpu.json", device)
        runs = [{"lattice": "bcc", "edge": 14, "dofs": 32928, "csv": "bcc-14.csv"},
                {"lattice": "c15", "edge": 54, "dofs": 21415104, "csv": "c15-54.csv"}]
        (device / "roofline" / "roofline.json").write_text(json.dumps(
            {"counters": True, "ncu_version": "test", "clock_control": "base", "kernel_regex": "step_plain",
             "launch_skip": 3, "launch_count": 1, "runs": runs}))
        header = ('"ID","Kernel Name","dram__bytes.sum","gpu__time_duration.sum",'
                  '"sm__sass_thread_inst_executed_op_dadd_pred_on.sum",'
                  '"sm__sass_thread_inst_executed_op_dfma_pred_on.sum",'
                  '"sm__sass_thread_inst_executed_op_dmul_pred_on.sum"\n')
        # The two ways ncu prints values (see testdata/): base units with thousands separators, or scaled units.
        styles = [("byte", 1, "ns", 1e-9, "{:,.0f}"), ("Mbyte", 1e6, "us", 1e-6, "{:.6f}")]
        for run, bytes_per_update, (byte, byte_scale, time, time_scale, form) in zip(runs, (3.0, 46.5), styles):
            n = run["dofs"]
            values = [form.format(n * bytes_per_update / byte_scale), form.format(n / 40e9 / time_scale),
                      f"{30 * n:,}", f"{3 * n:,}", f"{20 * n:,}"]
            (device / "roofline" / run["csv"]).write_text(
                header + f'"","","{byte}","{time}","inst","inst","inst"\n'
                + '"0","step_plain<12, 4, 1, 256, 8>(DeviceGrid, Tiling)",' + ",".join(f'"{v}"' for v in values) + "\n")
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        rows = table_rows((out / "gpu" / "fig8-roofline.md").read_text())
        self.assertEqual([row[3] for row in rows], ["3.0", "46.5"])  # DRAM B/update
        self.assertEqual([row[4] for row in rows], ["56.0", "56.0"])  # dadd + dmul + 2 dfma
        self.assertEqual([row[-1] for row in rows], ["40.0", "40.0"])  # G DOF-updates/s
        self.assertNotIn("analytic model", (out / "index.md").read_text().lower())

    def test_real_ncu_output_reads_the_same_in_either_unit_style(self):
        base, scaled = (roofline.read_ncu_csv(HERE / "testdata" / f"ncu-raw-{style}-units.csv")
                        for style in ("base", "auto"))
        self.assertEqual(base["dram"], 246583040)
        self.assertEqual(base["dmul"], 2**24)
        self.assertAlmostEqual(base["time"], 88.192e-6, delta=1e-12)
        for key in base:
            self.assertAlmostEqual(base[key], scaled[key], delta=1e-9 * max(1, base[key]))

    def test_compound_overlap_and_a_lone_run(self):
        """The overlap as an HDF5 compound {r, i}; no refined or placement runs: those parts become notes."""
        (self.data / "gpu" / "physics").mkdir(parents=True)
        made_up_run(self.data / "gpu" / "physics" / "accuracy_cubic.h5", np.dtype([("r", "<f8"), ("i", "<f8")]))
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        text = (out / "gpu" / "accuracy.md").read_text()
        self.assertEqual(table_of(text, "split t")["cubic"], "10.60")
        self.assertEqual(table_of(text, "fold")["cubic"], "4-fold")
        self.assertTrue(close_e(table_of(text, "RMSE(t = 10), paper's")["cubic"], np.sqrt(2 * GROWTH * 10 / 100)))
        # the made-up overlap keeps the exact phase: the phase-corrected RMSE is the paper's
        self.assertTrue(close_e(table_of(text, "phase-corrected RMSE(t = 10)")["cubic"],
                                np.sqrt(2 * GROWTH * 10 / 100)))
        self.assertEqual(table_of(text, "placement split t")["cubic"], "—")
        index = (out / "index.md").read_text()
        self.assertIn("No refined_<lattice>_<ops>.h5", index)
        self.assertIn("No placement_<lattice>.h5", index)

    def test_more_gpus_need_no_code_change(self):
        """Four GPU counts timed along Amdahl's law with p_t = 0.9 and Gustafson's with p_w = 0.8; no CPU file."""
        (self.data / "gpus").mkdir()
        lines = ["kind,ranks,structures_z,cells,steps,dt,seconds"]
        for n in (1, 2, 4, 8):
            lines.append(f"gpu_strong,{n},100,1000000,100,0.001,{10 * (0.1 + 0.9 / n)}")
            lines.append(f"gpu_weak,{n},{100 * n},{1000000 * n},100,0.001,{10 * n / (0.2 + 0.8 * n)}")
        (self.data / "gpus" / "scaling_gpu.csv").write_text("\n".join(lines) + "\n")
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        index = (out / "index.md").read_text()
        self.assertIn("Amdahl p_t = 0.900", index)
        self.assertIn("Gustafson p_w = 0.800", index)
        self.assertIn("least squares over 4 GPU counts", index)
        self.assertNotIn("solved exactly", index)
        self.assertEqual(rendered_for(index)["Fig 10"], {})  # no CPU file
        self.assertIn("No device folder has `scaling_gpu.csv`, `scaling_cpu_mpi.csv`.", section_of(index, "Fig 10"))
        self.assertGreater((out / "gpus" / "fig9-scaling.png").stat().st_size, 1000)
        fig = scaling.scaling_figure(scaling.read_runs([self.data / "gpus" / "scaling_gpu.csv"]), 0.9, 0.8, "test")
        for ax in fig.axes:  # the laws reach the last measured count, 8
            self.assertEqual(max(line.get_xdata().max() for line in ax.get_lines()), 8)
        plt.close(fig)

    def test_missing_data_is_a_note(self):
        """A folder with no data is named by no entry; a report no folder has data for says so once."""
        (self.data / "empty").mkdir()
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        index = (out / "index.md").read_text()
        self.assertEqual(rendered_for(index), {report.figure: {} for report in make_all.REPORTS})
        self.assertEqual(index.count("| no data |"), len(make_all.REPORTS))
        self.assertEqual(index.count("No device folder has"), len(make_all.REPORTS))
        self.assertNotIn("### empty", index)

    def test_seeded_splits_skip_a_folder_without_them_and_take_any_runs(self):
        """A device folder with physics/ but no splitting/ is named by Fig 5, not here; one with only a shifted file
        at ε = 1e-6 (a clear 4-fold, a near tie 3/4, a run that never split) renders a table and a one-panel
        figure, claims no fold for the run without a split and fits no growth rate."""
        (self.data / "physics-only" / "physics").mkdir(parents=True)
        made_up_run(self.data / "physics-only" / "physics" / "accuracy_cubic.h5",
                    np.dtype([("r", "<f8"), ("i", "<f8")]))
        (self.data / "seeds" / "splitting").mkdir(parents=True)

        def run(seed, strong, split, lattice="cubic"):
            amplitude = np.full(13, 1e-6)
            for m, value in strong.items():
                amplitude[m] = value
            return {"lattice": lattice, "placement": "shifted", "seed": seed, "epsilon": 1e-6, "split_t": split,
                    "end_t": split or 100.0, "fold": 2 + int(np.argmax(amplitude[2:])),
                    "amplitudes": list(amplitude), "cells": 1000, "git_commit": "made-up", "device": "test"}

        runs = [run(1, {4: 1e-3}, 47.5), run(2, {3: 1e-3, 4: 0.67e-3}, 48.5), run(3, {4: 1e-5}, None),
                run(1, {3: 1e-3}, 56.0, "bcc")]
        (self.data / "seeds" / "splitting" / "seed-study-shifted.json").write_text(
            json.dumps({"runs": runs, "command": "made-up"}))
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        index = (out / "index.md").read_text()
        section = section_of(index, "Seeded splits")
        self.assertEqual(list(rendered_for(index)["Seeded splits"]), ["seeds"])
        self.assertEqual(list(rendered_for(index)["Fig 5"]), ["physics-only"])
        self.assertNotIn("physics-only", section)
        rows = seeded_table((out / "seeds" / "seeded-splits.md").read_text(), "Folds at ε = 1e-6, lattice shifted")
        self.assertEqual(rows["cubic"][1:5], ["3", "3-fold 1, 4-fold 1, no split 1 of 3", "1 of 3: 3/4 ×1",
                                              "48.00 (47.50–48.50)"])
        self.assertEqual(rows["BCC"][2], "3-fold 1/1")
        self.assertNotIn("σ =", section)
        self.assertIn("One placement ran", section)
        self.assertGreater((out / "seeds" / "seeded-splits.png").stat().st_size, 1000)

    def test_near_tie_and_harmonics(self):
        """|c_4| 1.67 times |c_3|: a near tie "4/3"; |c_8|, a harmonic of 4, is no rival however large. |c_3| at
        0.4 of |c_4|: 4-fold."""
        (self.data / "gpu" / "physics").mkdir(parents=True)
        compound = np.dtype([("r", "<f8"), ("i", "<f8")])
        for lattice, third in (("c15", 0.6e-3), ("a15", 0.4e-3)):
            amplitude = np.full(13, 1e-6)
            amplitude[[3, 4, 8]] = third, 1e-3, 0.9e-3
            made_up_run(self.data / "gpu" / "physics" / f"accuracy_{lattice}.h5", compound, amplitude, lattice)
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        fold = table_of((out / "gpu" / "accuracy.md").read_text(), "fold")
        self.assertEqual(fold["C15"], "4/3, ratio 1.67")
        self.assertEqual(fold["A15"], "4-fold")

    def test_a_run_that_never_split_claims_no_fold(self):
        """scripts/main.sh --reports' reduced CPU run of BCC (testdata/) ends at t = 10 with E < 0.01; decgpe still
        records the largest |c_m| (m = 4) as its fold. Nothing rendered may call it 4-fold."""
        with h5py.File(NO_SPLIT) as f:
            self.assertEqual(int(f["analysis/azimuthal_amplitude"].attrs["fold"]), 4)
            self.assertLess((1 - abs(f["diagnostics/overlap"][:])).max(), 0.01)
        (self.data / "cpu-reduced" / "physics").mkdir(parents=True)
        shutil.copy(NO_SPLIT, self.data / "cpu-reduced" / "physics" / "accuracy_bcc.h5")
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        text = (out / "cpu-reduced" / "accuracy.md").read_text()
        self.assertEqual(table_of(text, "fold")["BCC"], "no split by t = 10")
        self.assertEqual(table_of(text, "split t")["BCC"], "—")
        self.assertEqual(table_of(text, "amplitude ratio m1 : m2")["BCC"], "—")
        index = (out / "index.md").read_text()
        self.assertIsNone(re.search(r"\d-fold|\d/\d, ratio", index))
        self.assertNotIn("4/", table_of(text, "fold")["BCC"])
        for stem in ("fig5-error", "fig6-density-centred", "fig6-azimuthal"):
            self.assertGreater((out / "cpu-reduced" / f"{stem}.png").stat().st_size, 1000)

    def test_fig7_with_repetitions_draws_medians_and_ranges_from_one_file(self):
        """bench-speedup.json as the new measurement writes it (5 repetitions per point: iteration entries with
        repetition_index, then _mean/_median/_stddev/_cv aggregates), beside another bench file that must not enter
        Fig 7: the table holds the medians' ratios and the min–max range."""
        device = self.data / "gpu"
        device.mkdir()
        doc = json.loads((H100 / "bench-speedup.json").read_text())
        # One repetition of each point of the committed sweep is the single run the made-up repetitions scale.
        doc["benchmarks"] = [b for b in doc["benchmarks"]
                             if b["run_type"] == "iteration" and b.get("repetition_index", 0) == 0]
        scratch = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, scratch)
        single = scratch / "single-run.json"
        single.write_text(json.dumps(doc))
        benchmarks = []
        for b in doc["benchmarks"]:
            rates = [b["dof_updates_per_second"] * (1 + 0.02 * (i - 2)) for i in range(5)]
            for i, rate in enumerate(rates):
                benchmarks.append({**b, "run_type": "iteration", "repetitions": 5, "repetition_index": i,
                                   "dof_updates_per_second": rate})
            for name, value in (("mean", statistics.mean(rates)), ("median", statistics.median(rates)),
                                ("stddev", statistics.stdev(rates)), ("cv", statistics.stdev(rates) / statistics.mean(rates))):
                aggregate = {k: v for k, v in b.items() if k != "repetition_index"}
                aggregate.update(name=f"{b['name']}_{name}", run_name=b["name"], run_type="aggregate",
                                 aggregate_name=name, repetitions=5, dof_updates_per_second=value)
                benchmarks.append(aggregate)
        (device / "bench-speedup.json").write_text(json.dumps({**doc, "benchmarks": benchmarks}))
        shutil.copy(H100 / "bench-gpu.json", device)
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        text = (out / "gpu" / "fig7-speedup.md").read_text()
        rows = table_rows(text)
        self.assertEqual(len(rows), 10)  # BCC and C15 at five sizes: nothing from bench-gpu.json
        original = speedup.read_points(single)
        for row in rows:
            key = (row[0].lower(), int(row[1].replace(",", "")))
            gpu, reference = original["cuda:plain", *key], original["reference", *key]
            self.assertTrue(close(row[5], gpu.rate / reference.rate))  # the medians are the single runs
            low, high = row[7].split("–")
            self.assertTrue(close(low, gpu.rate * 0.96 / (reference.rate * 1.04)), row)
            self.assertTrue(close(high, gpu.rate * 1.04 / (reference.rate * 0.96)), row)
            self.assertEqual(row[9], "5, 5, 5")
        self.assertIn("median over 5 repetitions", text)
        self.assertIn("min–max", text)
        section = section_of((out / "index.md").read_text(), "Fig 7")
        self.assertEqual(re.findall(r"^\| [^|]+ \| `([^`]+)` \|", section, flags=re.M), ["bench-speedup.json"])


class VortexSplit(unittest.TestCase):
    """reports/vortex_split.py through make_all on a device folder holding the coarsened CPU run of testdata/: the
    tables hold what the file's series, events and lines give when recomputed here, and the net flux of the lines at
    each sample drawn is the solver's own net_flux_z0."""

    @classmethod
    def setUpClass(cls):
        cls.data = Path(tempfile.mkdtemp())
        cls.addClassCleanup(shutil.rmtree, cls.data)
        (cls.data / "cpu" / "vortex-split").mkdir(parents=True)
        shutil.copy(VORTEX_SPLIT, cls.data / "cpu" / vortex_split.FILE)
        cls.status, cls.out = render(cls.data)
        cls.addClassCleanup(shutil.rmtree, cls.out)
        cls.runs = {r.lattice: r for r in vortex_split.load(VORTEX_SPLIT)}

    def table(self, stem):
        return table_rows((self.out / "cpu" / f"{stem}.md").read_text())

    def test_renders_its_figures_in_one_entry(self):
        self.assertEqual(self.status, 0)
        for stem in ("vortex-split-lines", "vortex-split-order", "vortex-split-crossings"):
            self.assertGreater((self.out / "cpu" / f"{stem}.png").stat().st_size, 1000)
        index = (self.out / "index.md").read_text()
        self.assertEqual(rendered_for(index)["Vortex split"].keys(), {"cpu"})
        three_d = self.out / "cpu" / "vortex-split-3d.png"
        self.assertTrue(three_d.exists() or "vortex-split-3d skipped" in section_of(index, "Vortex split"))

    def test_split_times_are_the_files(self):
        with h5py.File(VORTEX_SPLIT) as f:
            for row in self.table("vortex-split-times"):
                g = f[row[0].lower()]
                t, error = g["diagnostics/t"][()], g["diagnostics/error"][()]
                self.assertTrue(close(row[5], t[np.flatnonzero(error > 0.01)[0]]), row)
                separations = g["events/t"][()][g["events/kind"][()] == 1]
                if separations.size:
                    self.assertTrue(close(row[6].split()[0], separations[0]), row)
                else:
                    self.assertTrue(row[6].startswith("none"), row)
                lines, largest = g["series/lines"][0], g["series/largest_charge"][0]
                self.assertEqual(row[7], f"{lines} ({largest})")
        self.assertEqual({r[0] for r in self.table("vortex-split-times") if not r[6].startswith("none")}, {"BCC"})

    def test_lines_at_each_sample_drawn_are_the_solvers(self):
        rows = self.table("vortex-split-arrangement")
        self.assertEqual(len(rows), 10)  # BCC: start, split, separation, end; cubic and Z: start, split and end
        for row in rows:
            run = self.runs[row[0].lower()]
            sample = next(s for s in run.samples.values() if close(row[2], s.t))
            series_at = np.flatnonzero(run.series["step"] == sample.step)[0]
            self.assertEqual(int(row[3]), len(sample.charges))
            self.assertEqual(int(row[6]), run.series["net_flux_z0"][series_at])
            self.assertEqual(int(row[3]), run.series["lines"][series_at])
            stored = run.crossings["step"] == sample.step  # every sample's crossings, kept by the extraction
            self.assertEqual(int(row[7]), stored.sum())
            np.testing.assert_array_equal(run.crossings["flux"][stored], sample.crossings()["flux"])

    def test_net_crossings_and_their_order(self):
        """A line down and back up through one vertex on z = 0 counts zero there; three crossings 120° apart are
        3-fold (strength 1), not 6-fold, though the sixth harmonic is as strong."""
        points = [[1, 0, 1], [1, 0, 0], [1, 0, -1], [1.5, 0, -1], [1.5, 0, 0], [1.5, 0, 1]]  # down, up: net 0
        for angle in (0, 2 * np.pi / 3, 4 * np.pi / 3):
            points += [[np.cos(angle), np.sin(angle), -1], [np.cos(angle), np.sin(angle), 1]]
        lines = decgpe.VortexLines(step=0, t=0.0, points=np.array(points, float), offsets=np.array([0, 6, 8, 10, 12]),
                                   charges=np.array([1, 1, 1, 1]), closed=np.zeros(4, bool), ends=np.zeros((4, 2)))
        a = vortex_split.arrangement(lines)
        self.assertEqual(a["crossings"], 5)
        np.testing.assert_array_equal(a["flux"], [1, 1, 1])
        np.testing.assert_allclose(np.sort(a["phi"]), [-120, 0, 120], atol=1e-9)
        self.assertEqual(a["m"], 3)
        self.assertAlmostEqual(a["strength"], 1.0)

    def test_only_lines_threading_z0_give_the_net_crossings(self):
        """A closed loop through z = 0 at two points and an open line that comes back are counted as lines and
        crossings, but not among the threading lines and their net crossings; the line along the axis ± 1 is."""
        loop = [[2, 0, -1], [2, 0, 1], [3, 0, 1], [3, 0, -1]]  # closed: up at x = 2, down at x = 3
        back = [[0, 2, 1], [0, 2, -1], [0, 3, -1], [0, 3, 1]]  # open: down at y = 2, up at y = 3
        through = [[1, 0, -1], [1, 0, 1]]
        lines = decgpe.VortexLines(step=0, t=0.0, points=np.array(loop + back + through, float),
                                   offsets=np.array([0, 4, 8, 10]), charges=np.array([1, 1, 2]),
                                   closed=np.array([True, False, False]), ends=np.zeros((3, 2)))
        a = vortex_split.arrangement(lines)
        self.assertEqual((a["lines"], a["crossings"]), (3, 5))
        np.testing.assert_array_equal(a["threads"], [2])
        self.assertEqual(a["thread_charges"], {2: 1})
        np.testing.assert_array_equal(a["flux"], [2])
        np.testing.assert_allclose(a["rho"], [1.0])
        thin = vortex_split.threading_lines(lines)
        np.testing.assert_array_equal(thin.points, through)
        np.testing.assert_array_equal(thin.charges, [2])


if __name__ == "__main__":
    unittest.main()
