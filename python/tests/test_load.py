"""decgpe.load against what the solver wrote: a fresh run of the harmonic-oscillator vortex (positions checked
against the analytic density, psi and the series against h5py, the norm against the volumes, the snapshots' times and
units), committed results (a split and its fold; a run that never split, which claims none) and a made-up file of the
same layout (snapshots with and without times and units).

    DECGPE_EXECUTABLE=build/cpu/cli/decgpe python3 -m unittest discover -s python/tests
"""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import h5py
import numpy as np

import decgpe

ROOT = Path(__file__).resolve().parents[2]
SPLIT = ROOT / "reports/data/nvidia-h100-80gb-hbm3/physics/accuracy_bcc.h5"  # stopped at E > 0.01, 3-fold
NO_SPLIT = ROOT / "reports/testdata/reduced-cpu-accuracy_bcc.h5"  # ends at t = 10 with E < 0.01

CASE = """lattice = "bcc"
h = 0.45
domain = [9.0, 9.0, 9.0]
g = 0.0
[time]
dt = 1e-4
steps = 20
diagnostics_every = 5
snapshot_every = 10
[initial]
kappa = 1
"""


class Package(unittest.TestCase):
    def test_version_is_the_projects(self):
        """decgpe.__version__ is pyproject.toml's version, installed or not."""
        import tomllib

        with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as f:
            self.assertEqual(decgpe.__version__, tomllib.load(f)["project"]["version"])


class FreshRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        case = Path(cls.dir.name) / "vortex.toml"
        case.write_text(CASE)
        cls.path = Path(cls.dir.name) / "vortex.h5"
        subprocess.run([os.environ["DECGPE_EXECUTABLE"], "run", str(case), "--quiet", "--backend", "openmp",
                        "--out", str(cls.path)], check=True)
        cls.result = decgpe.load(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_psi_and_series_are_what_the_file_holds(self):
        with h5py.File(self.path) as f:
            np.testing.assert_array_equal(self.result.psi, f["state/current"][()])
            np.testing.assert_array_equal(self.result.diagnostics["norm"], f["diagnostics/norm"][()])
            self.assertEqual(self.result.cells, int(f.attrs["cells"]))
        self.assertEqual(self.result.provenance["lattice"], "bcc")
        self.assertEqual(self.result.provenance["scheme"], "leapfrog")
        self.assertIn("[initial]", self.result.provenance["case_toml"])
        self.assertEqual(list(self.result.snapshots), [0, 10, 20])
        for step, snapshot in self.result.snapshots.items():
            self.assertEqual(snapshot.step, step)
            self.assertAlmostEqual(snapshot.t, step * 1e-4, delta=1e-15)
            self.assertEqual(snapshot.units, {"density": "a_ho^-3", "phase": "rad", "re_psi": "a_ho^-3/2",
                                              "im_psi": "a_ho^-3/2"})
        np.testing.assert_array_equal(self.result.snapshots[20].psi, self.result.psi)

    def test_the_norm_is_the_volume_weighted_density(self):
        norm = np.sum(self.result.volume * self.result.density)
        self.assertAlmostEqual(norm, self.result.diagnostics["norm"][-1], delta=1e-12)

    def test_positions_carry_the_analytic_vortex(self):
        # psi = (x + iy) e^{-r^2/2} e^{-i mu t} up to the grid's O(h^2): |psi|^2 ~ rho^2 e^{-r^2} at the positions.
        x, y, z = self.result.positions.T
        analytic = (x ** 2 + y ** 2) * np.exp(-(x ** 2 + y ** 2 + z ** 2))
        analytic /= np.sum(self.result.volume * analytic)
        worst = np.max(np.abs(self.result.density - analytic)) / np.max(analytic)
        self.assertLess(worst, 1e-2)
        # Every cell lies in its instance's box, the instances tile the domain from its origin.
        corner = self.result.origin
        far = corner + np.array(self.result.structures) * self.result.box
        self.assertTrue(np.all(self.result.positions >= corner - 1e-12))
        self.assertTrue(np.all(self.result.positions <= far + 1e-12))


    def test_the_example_runs_on_it(self):
        image = Path(self.dir.name) / "density.png"
        done = subprocess.run([sys.executable, str(ROOT / "python/examples/quickstart.py"), str(self.path),
                               str(image)], capture_output=True, text=True, check=True)
        self.assertIn("bcc", done.stdout)
        self.assertIn("cells within half a structure of z = 0", done.stdout)
        self.assertGreater(image.stat().st_size, 10000)


class CommittedResult(unittest.TestCase):
    def test_a_committed_accuracy_run_loads_without_its_state(self):
        path = ROOT / "reports/data/nvidia-h100-80gb-hbm3/physics/accuracy_bcc.h5"
        r = decgpe.load(path)
        self.assertIsNone(r.psi)
        self.assertEqual(r.provenance["lattice"], "bcc")
        with h5py.File(path) as f:
            np.testing.assert_array_equal(r.diagnostics["t"], f["diagnostics/t"][()])
            self.assertEqual(r.cells, int(f.attrs["cells"]))

    def test_a_run_that_split_has_its_fold(self):
        r = decgpe.load(SPLIT)
        with h5py.File(SPLIT) as f:
            t, overlap = f["diagnostics/t"][()], f["diagnostics/overlap"][()]
            fold = int(f["analysis/azimuthal_amplitude"].attrs["fold"])
        overlap = overlap["r"] + 1j * overlap["i"] if overlap.dtype.names else overlap
        self.assertEqual(r.analysis["split_t"], t[np.argmax(1 - np.abs(overlap) > 0.01)])
        self.assertEqual(r.analysis["fold"], fold)
        self.assertEqual(fold, 3)

    def test_a_run_that_never_split_claims_no_fold(self):
        with h5py.File(NO_SPLIT) as f:  # the file's fold is the largest of the noise; E never passed 0.01
            self.assertEqual(int(f["analysis/azimuthal_amplitude"].attrs["fold"]), 4)
            self.assertLess(np.max(1 - np.abs(f["diagnostics/overlap"][()])), 0.01)
        r = decgpe.load(NO_SPLIT)
        self.assertIsNone(r.analysis["split_t"])
        self.assertIsNone(r.analysis["fold"])
        self.assertEqual(len(r.analysis["azimuthal_amplitude"]), 13)  # the spectrum itself is still there

    def test_the_example_without_matplotlib_says_so_in_one_line(self):
        hide = ("import runpy, sys; sys.modules['matplotlib'] = None; sys.argv[0] = sys.argv[1]; del sys.argv[1]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')")
        done = subprocess.run([sys.executable, "-c", hide, str(ROOT / "python/examples/quickstart.py"), str(SPLIT),
                               "density.png"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, "")
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertIn("needs matplotlib", done.stderr)

    def test_a_file_that_is_not_a_result_is_refused(self):
        with tempfile.NamedTemporaryFile(suffix=".h5") as tmp:
            with h5py.File(tmp.name, "w") as f:
                f["x"] = 1
            with self.assertRaises(ValueError):
                decgpe.load(tmp.name)


def made_up_result(path, snapshots):
    """A results file of io/results.cpp's layout, one cell: {name: (t or None, units or None)} under /snapshots (and
    /viz/snapshots where units are given), strings fixed-length as the solver writes them."""
    with h5py.File(path, "w") as f:
        f.attrs["structures"] = np.array([1, 1, 1])
        f["grid/centre"], f["grid/volume"] = np.zeros((1, 3)), np.ones(1)
        f["grid/origin"], f["grid/box"] = np.zeros(3), np.ones(3)
        f["diagnostics/t"], f["diagnostics/overlap"] = np.array([0.0, 1.0]), np.array([1.0 + 0j, 1.0 + 0j])
        for k, (name, (t, units)) in enumerate(snapshots.items()):
            f[f"snapshots/{name}"] = np.array([k + 1j])
            if t is not None:
                f[f"snapshots/{name}"].attrs["t"] = t
            for field, unit in (units or {}).items():
                f[f"viz/snapshots/{name}/{field}"] = np.zeros(1, np.float32)
                f[f"viz/snapshots/{name}/{field}"].attrs["units"] = np.bytes_(unit)


class Snapshots(unittest.TestCase):
    def test_snapshots_carry_their_times_and_units(self):
        units = {"density": "a_ho^-3", "phase": "rad"}
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.h5"
            made_up_result(path, {"000000000100": (0.25, units), "000000000000": (0.0, units)})
            snapshots = decgpe.load(path).snapshots
        self.assertEqual(list(snapshots), [0, 100])
        self.assertEqual([(s.step, s.t, s.units) for s in snapshots.values()], [(0, 0.0, units), (100, 0.25, units)])
        np.testing.assert_array_equal(snapshots[100].psi, [0 + 1j])

    def test_snapshots_of_older_files_have_no_time_or_units(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.h5"
            made_up_result(path, {"10": (None, None)})
            snapshot = decgpe.load(path).snapshots[10]
        self.assertEqual((snapshot.step, snapshot.t, snapshot.units), (10, None, {}))


if __name__ == "__main__":
    unittest.main()
