"""python3 -m decgpe.plot: the quick look at a run's diagnostics, on a committed run that split (its panels and the
split marked, an image written) and on files it cannot read (one line, exit 1)."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

import decgpe
from decgpe import plot

ROOT = Path(__file__).resolve().parents[2]
SPLIT = ROOT / "reports/data/nvidia-h100-80gb-hbm3/physics/accuracy_bcc.h5"  # stopped at E > 0.01


def run_plot(*args):
    return subprocess.run([sys.executable, "-m", "decgpe.plot", *map(str, args)], capture_output=True, text=True)


class Plot(unittest.TestCase):
    def test_panels_are_the_files_series(self):
        result = decgpe.load(SPLIT)
        rows = plot.panels(result)
        self.assertEqual([r[0].split(" ")[0] for r in rows], ["E(t)", "norm", "invariant", "energy,"])
        e = rows[0][3]
        overlap = result.diagnostics["overlap"]
        np.testing.assert_array_equal(e[1:], np.abs(1 - np.abs(overlap[1:])))
        self.assertGreater(np.nanmax(e), decgpe.results.SPLIT_ERROR)  # the split is in the series drawn

    def test_the_energy_by_term_is_one_panel_of_three_lines(self):
        result = decgpe.load(SPLIT)
        t = result.diagnostics["t"]
        terms = {"kinetic": 1 + 0.1 * t, "trap": 2 - 0.1 * t, "interaction": np.full_like(t, 3.0)}
        result.diagnostics.update(terms)
        rows = plot.panels(result)
        self.assertEqual(rows[4][0], "energy by term")
        self.assertEqual(rows[4][3], terms)
        with tempfile.TemporaryDirectory() as d:
            plot.figure(result).savefig(Path(d) / "terms.png")

    def test_writes_the_image_it_names(self):
        with tempfile.TemporaryDirectory() as d:
            image = Path(d) / "look.png"
            done = run_plot(SPLIT, "-o", image)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout.strip(), str(image))
            self.assertEqual(image.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
            self.assertGreater(image.stat().st_size, 20_000)  # four panels of lines, not an empty canvas

    def test_a_file_it_cannot_read_is_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            text = Path(d) / "case.toml"
            text.write_text("lattice = 'bcc'\n")
            for path in (Path(d) / "missing.h5", text):
                done = run_plot(path)
                self.assertEqual(done.returncode, 1)
                self.assertTrue(done.stderr.startswith("decgpe.plot: cannot read"), done.stderr)
                self.assertEqual(done.stderr.count("\n"), 1, done.stderr)


if __name__ == "__main__":
    unittest.main()
