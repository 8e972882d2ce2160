"""python/examples/compare_lattices.ipynb runs as a reader would run it (its code cells in order, from its folder,
matplotlib drawing to memory) and shows what the committed results hold; it is kept without outputs."""

import json
import os
import unittest
from pathlib import Path

import decgpe

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "compare_lattices.ipynb"


class Notebook(unittest.TestCase):
    def test_runs_and_reports_the_files_splits(self):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        cells = json.loads(NOTEBOOK.read_text())["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        self.assertTrue(all(not c["outputs"] and c["execution_count"] is None for c in code), "committed with outputs")
        namespace, before = {}, Path.cwd()
        plt.close("all")
        try:
            os.chdir(NOTEBOOK.parent)
            for cell in code:
                exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)
        finally:
            os.chdir(before)
        self.assertEqual(len(plt.get_fignums()), 2)  # E(t) and the density planes
        plt.close("all")
        for name, run in namespace["runs"].items():
            self.assertEqual(namespace["split"][name], decgpe.load(run.path).analysis["split_t"])
        self.assertLess(namespace["split"]["cubic"], namespace["split"]["bcc"])  # the paper's Fig 5 ordering


if __name__ == "__main__":
    unittest.main()
