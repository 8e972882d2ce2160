"""decgpe.write_potential against the solver: the harmonic trap written as a table on a run's positions gives that
run again (the same norm and energy series), and what the solver would refuse is refused before anything is written.

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
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 10.0
[time]
dt_fraction = 0.5
steps = 20
diagnostics_every = 5
[initial]
kappa = 1
"""

TABULATED = '[potential]\nkind = "tabulated"\nfile = "v.h5"\n'


def run(folder, case_text, name):
    """`decgpe run` of `case_text` in `folder`; the results' path."""
    case = Path(folder) / f"{name}.toml"
    case.write_text(case_text)
    out = Path(folder) / f"{name}.h5"
    subprocess.run([os.environ["DECGPE_EXECUTABLE"], "run", str(case), "--quiet", "--backend", "openmp", "--out",
                    str(out)], check=True)
    return out


class WritePotential(unittest.TestCase):
    def test_the_harmonic_trap_as_a_table_is_the_same_run(self):
        with tempfile.TemporaryDirectory() as folder:
            analytic = decgpe.load(run(folder, CASE, "analytic"))
            decgpe.write_potential(Path(folder) / "v.h5", analytic.positions,
                                   lambda x, y, z: 0.5 * (x * x + y * y + z * z))
            with h5py.File(Path(folder) / "v.h5") as f:
                self.assertEqual(f["V"].shape, (analytic.cells,))
                self.assertEqual(f["V"].dtype, np.float64)
            tabulated = decgpe.load(run(folder, CASE + TABULATED, "tabulated"))
            self.assertEqual(tabulated.provenance["potential"], "tabulated")
            for series in ("norm", "energy", "invariant"):
                np.testing.assert_allclose(tabulated.diagnostics[series], analytic.diagnostics[series], rtol=1e-12,
                                           err_msg=series)

    def test_values_are_taken_as_given_under_the_named_dataset(self):
        with tempfile.TemporaryDirectory() as folder:
            path = decgpe.write_potential(Path(folder) / "w.h5", np.zeros((3, 3)), [1.0, 2.0, 3.0], dataset="trap")
            with h5py.File(path) as f:
                np.testing.assert_array_equal(f["trap"][()], [1.0, 2.0, 3.0])

    def test_what_the_solver_would_refuse_is_refused_and_nothing_written(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "v.h5"
            for positions, potential, says in (
                    (np.zeros((4, 2)), np.zeros(4), "(N, 3)"),
                    (np.zeros((4, 3)), np.zeros(5), "the grid 4 cells"),
                    (np.zeros((4, 3)), lambda x, y, z: np.ones(2), "the grid 4 cells"),
                    (np.zeros((4, 3)), [0.0, 1.0, np.inf, np.nan], "not finite at cell 2 (of 2 such cells)")):
                with self.assertRaises(ValueError) as refused:
                    decgpe.write_potential(path, positions, potential)
                self.assertIn(says, str(refused.exception))
                self.assertFalse(path.exists())


if __name__ == "__main__":
    unittest.main()
