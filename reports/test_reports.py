"""make_all on the committed data and on small made-up device folders: the outputs exist, the speedup table holds the
ratios of the JSON's own numbers, Nsight Compute CSV (real files in testdata/, made-up ones here) becomes bytes and
FLOPs per update, and a folder without the data a report needs gets a note instead.

    /usr/bin/python3 reports/test_reports.py        (any Python 3 with numpy, matplotlib and h5py)
"""

import json
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_all  # noqa: E402
import roofline  # noqa: E402

H100 = HERE / "data" / "nvidia-h100-80gb-hbm3"


def table_rows(markdown):
    """Body rows of the first Markdown table in the text, as lists of cell texts."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines[2:]]


def close(text, expected):
    """Whether a number printed with some decimals is `expected` rounded to them."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - expected) <= 0.5 * 10.0**-decimals + 1e-9


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
        for stem in ("fig7-throughput", "fig7-speedup", "fig8-roofline"):
            for ext in ("png", "pdf"):
                path = self.out / H100.name / f"{stem}.{ext}"
                self.assertGreater(path.stat().st_size, 1000, path)
        index = (self.out / "index.md").read_text()
        self.assertIn("Fig 7", index)
        self.assertIn("analytic model", index.lower())  # no counters committed yet
        self.assertIn("4ad2503068db", index)  # provenance: the data's commit

    def test_speedup_table_is_the_json_ratios(self):
        rates = {}
        for path in H100.glob("bench-*.json"):
            for b in json.loads(path.read_text())["benchmarks"]:
                backend, lattice = b["name"].split("/")[1:3]
                rates[backend, lattice, int(b["dofs"])] = b["dof_updates_per_second"]
        expected = {}
        for (backend, lattice, dofs), gpu in rates.items():
            cpu = [rates.get((name, lattice, dofs)) for name in ("reference", "openmp")]
            if backend == "cuda:plain" and any(cpu):
                expected[lattice, dofs] = [gpu / c if c else None for c in cpu]
        self.assertEqual(len(expected), 2)  # BCC and C15 at 64M DOFs

        rows = table_rows((self.out / H100.name / "fig7-speedup.md").read_text())
        self.assertEqual(len(rows), len(expected))
        for row in rows:
            want = expected[row[0].lower(), int(row[1].replace(",", ""))]
            for text, value in zip(row[-2:], want):
                self.assertTrue(close(text, value), f"{row}: {text} is not {value}")


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

    def test_missing_data_is_a_note(self):
        (self.data / "empty").mkdir()
        status, out = render(self.data)
        self.addCleanup(shutil.rmtree, out)
        self.assertEqual(status, 0)
        self.assertEqual((out / "index.md").read_text().count("Skipped: needs `bench-*.json`"), len(make_all.REPORTS))


if __name__ == "__main__":
    unittest.main()
