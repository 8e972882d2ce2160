"""decgpe.load's vortex lines against what the solver wrote: a fresh run of the straight kappa = 1 vortex sampled every
10 steps (one open line of charge 1 per sample, along the axis), and a made-up file of the same layout with a closed
line and events.

    DECGPE_EXECUTABLE=build/cpu/cli/decgpe python3 -m unittest discover -s python/tests
"""

import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import h5py
import numpy as np

import decgpe

CASE = """lattice = "bcc"
h = 0.45
domain = [6.0, 6.0, 6.0]
g = 0.0
[time]
dt = 1e-3
steps = 25
[initial]
kappa = 1
[analysis]
vortex_lines_every = 10
"""


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

    def test_one_line_along_the_axis_per_sample(self):
        samples = self.result.vortex_lines
        self.assertEqual(list(samples), [0, 10, 20, 25])
        for step, sample in samples.items():
            self.assertEqual(sample.step, step)
            self.assertAlmostEqual(sample.t, step * 1e-3, delta=1e-15)
            self.assertEqual(len(sample.lines), 1)
            np.testing.assert_array_equal(sample.charges, [1])
            np.testing.assert_array_equal(sample.closed, [False])
            line = sample.lines[0]
            self.assertEqual(line.shape[1], 3)
            self.assertLess(np.max(np.hypot(line[:, 0], line[:, 1])), 0.45)
            self.assertLess(line[0, 2], line[-1, 2])

    def test_the_series_and_events_are_what_the_file_holds(self):
        series = self.result.vortex_series
        with h5py.File(self.path) as f:
            for name in ("step", "t", "lines", "total_length", "largest_charge", "net_flux_z0"):
                np.testing.assert_array_equal(series[name], f[f"vortex_lines/series/{name}"][()])
        np.testing.assert_array_equal(series["lines"], [1, 1, 1, 1])
        np.testing.assert_array_equal(series["net_flux_z0"], [1, 1, 1, 1])
        self.assertEqual(self.result.vortex_events, [])

    def test_the_line_crosses_z0_once_on_the_axis_as_the_series_counts(self):
        series = self.result.vortex_series
        for k, sample in enumerate(self.result.vortex_lines.values()):
            found = sample.crossings()
            np.testing.assert_array_equal(found["line"], [0])
            np.testing.assert_array_equal(found["flux"], [1])
            self.assertEqual(found["flux"].sum(), series["net_flux_z0"][k])
            self.assertLess(np.hypot(found["x"][0], found["y"][0]), 0.45)


def made_up_lines(path):
    """One cell's results with two samples of /vortex_lines: an open charge-2 line, then a closed ring and an open
    line, and the events between them as the solver writes them."""
    with h5py.File(path, "w") as f:
        f.attrs["structures"] = np.array([1, 1, 1])
        f["grid/centre"], f["grid/volume"] = np.zeros((1, 3)), np.ones(1)
        f["grid/origin"], f["grid/box"] = np.zeros(3), np.ones(3)
        f["diagnostics/t"] = np.array([0.0])
        samples = {"000000000000": ([[0, 0, -1], [0, 0, 1]], [0, 2], [2], [0]),
                   "000000000005": ([[1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, 0, -1], [0, 0, 1]], [0, 3, 5], [1, 1],
                                    [1, 0])}
        for k, (name, (points, offsets, charges, closed)) in enumerate(samples.items()):
            g = f.create_group(f"vortex_lines/{name}")
            g.attrs["t"] = 0.5 * k
            g["points"], g["offsets"] = np.array(points, float), np.array(offsets, np.int64)
            g["charges"], g["closed"] = np.array(charges, np.int64), np.array(closed, np.int64)
            g["ends"] = np.zeros(2 * len(charges), np.int64)
        e = f.create_group("vortex_lines/events")
        e["step"], e["after_step"], e["t"], e["kind"] = [5], [0], [0.5], [2]


class MadeUp(unittest.TestCase):
    def test_closed_lines_and_events(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.h5"
            made_up_lines(path)
            r = decgpe.load(path)
            samples, events = r.vortex_lines, r.vortex_events
        self.assertEqual(list(samples), [0, 5])
        ring, open_line = samples[5].lines
        self.assertEqual((len(ring), len(open_line)), (3, 2))
        np.testing.assert_array_equal(samples[5].closed, [True, False])
        np.testing.assert_array_equal(samples[0].charges, [2])
        self.assertEqual(events, [{"step": 5, "after_step": 0, "t": 0.5, "kind": "reconnection"}])
        np.testing.assert_array_equal(samples[0].crossings()["flux"], [2])
        in_plane = samples[5].crossings()  # the ring lies in z = 0, above by the rule: only the open line crosses
        np.testing.assert_array_equal(in_plane["line"], [1])
        np.testing.assert_array_equal([in_plane["x"][0], in_plane["y"][0], in_plane["flux"][0]], [0, 0, 1])

    def test_a_tilted_ring_crosses_twice_its_closing_segment_too(self):
        ring = decgpe.VortexLines(step=0, t=0.0, points=np.array([[0, 0, -1], [1, 0, 0.5], [-1, 0, 0.5]], float),
                                  offsets=np.array([0, 3]), charges=np.array([2]), closed=np.array([True]),
                                  ends=np.zeros((1, 2), np.int64))
        found = ring.crossings()
        np.testing.assert_array_equal(found["flux"], [2, -2])
        np.testing.assert_allclose(found["x"], [2 / 3, -2 / 3])
        np.testing.assert_array_equal(found["y"], [0, 0])


if __name__ == "__main__":
    unittest.main()
