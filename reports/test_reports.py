"""make_all on the committed data and on small made-up device folders: the outputs exist, the speedup table holds the
ratios of the JSON's own numbers, Nsight Compute CSV (real files in testdata/, made-up ones here) becomes bytes and
FLOPs per update, the physics, isotropy and scaling tables hold what the HDF5 and CSV files give when recomputed here,
more GPU counts need no code change, and a folder without the data a report needs gets a note instead.

    /usr/bin/python3 reports/test_reports.py        (any Python 3 with numpy, matplotlib and h5py)
"""

import csv
import json
import statistics
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

import h5py
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_all  # noqa: E402
import roofline  # noqa: E402
from common import LABELS  # noqa: E402

H100 = HERE / "data" / "nvidia-h100-80gb-hbm3"
LATTICES = HERE / "data" / "lattices"
H200X2 = HERE / "data" / "nvidia-h200-x2"


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


def render(data):
    out = Path(tempfile.mkdtemp())
    status = make_all.main(["--data", str(data), "--out", str(out)])
    return status, out


class CommittedData(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.status, cls.out = render(HERE / "data")
        cls.addClassCleanup(shutil.rmtree, cls.out)

    def test_every_report_renders(self):
        self.assertEqual(self.status, 0)
        figures = {H100: ("fig5-error", "fig5-convergence", "fig6-density-centred", "fig6-density-placement",
                          "fig6-azimuthal", "fig7-throughput", "fig7-speedup", "fig8-roofline"),
                   LATTICES: ("isotropy",), H200X2: ("fig9-scaling", "fig10-rate")}
        figures[H100] += ("integrators_work_precision",)
        for folder, stems in figures.items():
            for stem in stems:
                for ext in ("png", "pdf"):
                    path = self.out / folder.name / f"{stem}.{ext}"
                    self.assertGreater(path.stat().st_size, 1000, path)
        for name in ("accuracy", "table1-dual-edges", "fig5-convergence"):
            self.assertTrue((self.out / H100.name / f"{name}.md").exists(), name)
        index = (self.out / "index.md").read_text()
        for title in ("Fig 5", "Table 1", "Fig 6", "Fig 7", "Fig 9", "Fig 10", "Isotropy"):
            self.assertIn(title, index)
        counters = json.loads((H100 / "roofline" / "roofline.json").read_text())["counters"]
        self.assertEqual("analytic model" in index.lower(), not counters)
        # provenance: the commits of the bench JSON, the physics HDF5 attributes, the scaling CSV entries and the
        # isotropy file (uncommitted changes marked)
        for commit in ("4ad2503068db", "d2e176de68cf", "88fce4770a0b", "53331078d0fb", "30eb2329dfb3-dirty"):
            self.assertIn(commit, index)

    def test_speedup_table_is_the_json_ratios(self):
        rates = {}
        docs = [json.loads(path.read_text()) for path in H100.glob("bench-*.json")]
        for doc in sorted(docs, key=lambda d: d["context"]["date"]):  # the newest file's measurement wins
            samples = {}
            for b in doc["benchmarks"]:
                # not the runs that failed, not the aggregates: the median of the repetitions
                if "dof_updates_per_second" in b and b.get("run_type") != "aggregate":
                    backend, lattice = b["name"].split("/")[1:3]
                    samples.setdefault((backend, lattice, int(b["dofs"])), []).append(b["dof_updates_per_second"])
            rates.update({key: statistics.median(values) for key, values in samples.items()})
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
            for text, value in zip(row[-2:], want):
                self.assertTrue(close(text, value), f"{row}: {text} is not {value}")


    def test_split_fold_and_rmse_are_the_hdf5s(self):
        text = (self.out / H100.name / "accuracy.md").read_text()
        split, fold, rmse = (table_of(text, column) for column in ("split t", "fold", "RMSE(t = 10)"))
        for path in sorted((H100 / "physics").glob("accuracy_*.h5")):
            with h5py.File(path) as f:
                label = LABELS[f.attrs["lattice"].decode()]
                t, overlap, norm = (f["diagnostics"][name][:] for name in ("t", "overlap", "norm"))
                mu, volume = f.attrs["mu"], f.attrs["domain_volume"]
                self.assertEqual(int(fold[label]), int(f["analysis/azimuthal_amplitude"].attrs["fold"]))
            first = t[np.argmax(1 - np.abs(overlap) > 0.01)]
            self.assertTrue(close(split[label], first), f"{label}: split {split[label]}, HDF5 {first}")
            # the RMSE at the two diagnostics times around t = 10, linearly between them
            j = np.searchsorted(t, 10.0)
            at = [np.sqrt((norm[0] + norm[k] - 2 * (np.exp(1j * mu * t[k]) * overlap[k]).real) / volume)
                  for k in (j - 1, j)]
            self.assertTrue(close_e(rmse[label], np.interp(10.0, t[j - 1:j + 1], at)), label)
        # the committed run, as the decgpe log says: t = 75.44 (72.90 with the paper's leapfrog start, fb6b304)
        self.assertEqual(split["BCC"], "75.44")

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

    def test_table1_is_the_dual_edge_ratio(self):
        ratio = table_of((self.out / H100.name / "table1-dual-edges.md").read_text(), "relative to cubic")
        edge = {name: h5py.File(H100 / "physics" / f"accuracy_{name}.h5").attrs["dual_edge_mean"]
                for name in ("cubic", "bcc", "c15")}
        self.assertTrue(close(ratio["BCC"], edge["bcc"] / edge["cubic"]))
        self.assertTrue(close(ratio["C15"], edge["c15"] / edge["cubic"]))
        self.assertEqual(ratio["cubic"], "1.00")

    def test_isotropy_table_is_the_mean_and_spread(self):
        text = (self.out / LATTICES.name / "isotropy.md").read_text()
        with h5py.File(LATTICES / "isotropy.h5") as f:
            error = f["bcc/error_kh0.30"][:]
        self.assertTrue(close_e(table_of(text, "mean, kh = 0.3")["BCC"], error.mean()))
        self.assertTrue(close_e(table_of(text, "s.d., kh = 0.3")["BCC"], error.std()))

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


def made_up_run(path, overlap_dtype):
    """A cubic-lattice run of decgpe's HDF5 layout whose error grows as E(t) = GROWTH·t at norm 1, so that the split
    is at t = 10.6 (diagnostics every 0.1) and RMSE(t)² = 2·GROWTH·t / V."""
    t = np.linspace(0, 12, 121)
    mu = 13.0
    overlap = (1 - GROWTH * t) * np.exp(-1j * mu * t)
    x, y = (v.ravel() for v in np.meshgrid(np.linspace(-6, 6, 25), np.linspace(-6, 6, 25)))
    density = np.exp(-(x**2 + y**2) / 8)
    with h5py.File(path, "w") as f:
        attrs = dict(lattice="cubic", h=0.5, structures=[25, 25, 25], cells=25**3, dt=1e-3, mu=mu,
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
        f["analysis/azimuthal_amplitude"] = np.linspace(1, 0.1, 13)
        f["analysis/azimuthal_amplitude"].attrs["fold"] = 4
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
        self.assertTrue(close_e(table_of(text, "RMSE(t = 10)")["cubic"], np.sqrt(2 * GROWTH * 10 / 100)))
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
        self.assertIn("Skipped: needs `scaling_cpu_mpi.csv`", index)  # Fig 10
        self.assertGreater((out / "gpus" / "fig9-scaling.png").stat().st_size, 1000)

    def test_missing_data_is_a_note(self):
        (self.data / "empty").mkdir()
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        self.assertEqual((out / "index.md").read_text().count("Skipped: needs"), len(make_all.REPORTS))


if __name__ == "__main__":
    unittest.main()
