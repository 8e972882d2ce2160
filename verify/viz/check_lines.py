"""pvpython: the vortex lines' sidecar read by ParaView shows, at every sample with lines, the results' lines: one
polyline cell a line with its points (a closed line's first point again at its end), its charge and closure.

    pvpython check_lines.py RUN.lines.xmf RUN.h5      exit 1 naming the first difference
"""
import sys

import h5py
import numpy as np
from paraview import servermanager
from paraview.simple import OpenDataFile


def fail(message):
    print(f"check_lines: {message}")
    sys.exit(1)


def expected_samples(path):
    """[(t, offsets, charges, closed)] of the samples with lines, in step order."""
    with h5py.File(path, "r") as f:
        groups = [f["vortex_lines"][name] for name in sorted(f["vortex_lines"]) if name.isdigit()]
        return [(float(g.attrs["t"]), g["offsets"][()], g["charges"][()], g["closed"][()]) for g in groups
                if len(g["charges"])]


def check_sample(grid, t, offsets, charges, closed):
    if grid.GetNumberOfCells() != len(charges):
        fail(f"t = {t}: {grid.GetNumberOfCells()} cells, the results have {len(charges)} lines")
    if grid.GetNumberOfPoints() != offsets[-1]:
        fail(f"t = {t}: {grid.GetNumberOfPoints()} points, the results have {offsets[-1]}")
    for k in range(len(charges)):
        nodes = offsets[k + 1] - offsets[k] + closed[k]
        if grid.GetCellType(k) != 4 or grid.GetCell(k).GetNumberOfPoints() != nodes:  # 4: VTK_POLY_LINE
            fail(f"t = {t}: cell {k} is not a polyline of {nodes} points")
    for name, values in (("charge", charges), ("closed", closed)):
        shown = grid.GetCellData().GetArray(name)
        if shown is None or [shown.GetValue(k) for k in range(len(values))] != list(values):
            fail(f"t = {t}: cell data '{name}' is not the results'")


def main():
    sidecar, results = sys.argv[1], sys.argv[2]
    samples = expected_samples(results)
    if len(samples) < 2 or not any(len(s[2]) > 1 for s in samples):
        fail("the case should give several samples, some with several lines")
    reader = OpenDataFile(sidecar)
    times = list(reader.TimestepValues)
    if not np.array_equal(times, [s[0] for s in samples]):
        fail(f"times {times}, the results' samples with lines are at {[s[0] for s in samples]}")
    for sample in samples:
        reader.UpdatePipeline(sample[0])  # a method: simple.UpdatePipeline takes time = 0 for none
        data = servermanager.Fetch(reader)
        check_sample(data.GetBlock(0) if data.IsA("vtkMultiBlockDataSet") else data, *sample)
    print(f"check_lines: {len(samples)} samples, {sum(len(s[2]) for s in samples)} lines as the results hold them")


if __name__ == "__main__":
    main()
