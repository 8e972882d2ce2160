"""Opens a results file's XDMF sidecar in ParaView (pvpython), checks what ParaView reads against the HDF5 file
(h5py), and renders the density on the plane z = 0 to a PNG that it then looks at.

    pvpython render_snapshot.py RESULTS.xmf OUT.png

Checks: the point count is the file's cell count; the last time's density range is that of the state's |ψ|²; the
image is not blank, and along the horizontal line through the axis the density has its minimum at the vortex core
between two brighter rings. Exit 0 when all hold; one line naming the failed check and exit 1 otherwise."""

import sys
from pathlib import Path

import h5py
import numpy as np
from paraview import servermanager
from paraview.simple import (Calculator, ColorBy, CreateView, Delaunay2D, GetColorTransferFunction, Render,
                             SaveScreenshot, Show, Threshold, XDMFReader)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader


def fail(message):
    print(f"viz: {message}")
    sys.exit(1)


def check_reader(reader, results):
    """The points and the last frame's density, as ParaView reads them, against the HDF5 file."""
    times = list(reader.TimestepValues) if reader.TimestepValues else [0.0]
    reader.UpdatePipeline(times[-1])
    data = servermanager.Fetch(reader)
    with h5py.File(results) as f:
        cells = int(f.attrs["cells"])
        state = f["state/current"][()] if "state/current" in f else None
    if data.GetNumberOfPoints() != cells:
        fail(f"ParaView reads {data.GetNumberOfPoints()} points, the file has {cells} cells")
    density = vtk_to_numpy(data.GetPointData().GetArray("density"))
    if state is not None:
        expected = np.abs(state) ** 2
        if not np.allclose([density.min(), density.max()], [expected.min(), expected.max()], rtol=1e-6, atol=1e-12):
            fail(f"density range {density.min():.6g}…{density.max():.6g} in ParaView, "
                 f"{expected.min():.6g}…{expected.max():.6g} in /state/current")
    return times[-1], float(density.max())


def render(reader, time, peak, png, layer):
    """The cells with z in `layer`, triangulated in their plane, coloured by density in grey, seen from +z."""
    z = Calculator(Input=reader, ResultArrayName="z", Function="coordsZ")
    near_plane = Threshold(Input=z, Scalars=["POINTS", "z"], LowerThreshold=layer[0], UpperThreshold=layer[1])
    surface = Delaunay2D(Input=near_plane)
    view = CreateView("RenderView")
    view.ViewSize = [400, 400]
    view.ViewTime = time
    view.OrientationAxesVisibility = 0
    view.Background = [1.0, 0.0, 0.0]  # red: no grey pixel is background
    view.UseColorPaletteForBackground = 0
    display = Show(surface, view)
    ColorBy(display, ("POINTS", "density"))
    lut = GetColorTransferFunction("density")
    lut.ApplyPreset("Grayscale", True)
    lut.RescaleTransferFunction(0.0, peak)
    view.CameraPosition = [0, 0, 50]
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = [0, 1, 0]
    view.CameraParallelProjection = 1
    view.ResetCamera()
    Render(view)
    SaveScreenshot(str(png), view, ImageResolution=[400, 400])


def look_at(png):
    """Grey pixels are the data; the row through the image's centre must dip at the axis between two bright rings."""
    reader = vtkPNGReader()
    reader.SetFileName(str(png))
    reader.Update()
    image = reader.GetOutput()
    width, height, _ = image.GetDimensions()
    rgb = vtk_to_numpy(image.GetPointData().GetScalars())[:, :3].astype(float).reshape(height, width, 3)
    grey = (np.abs(rgb[..., 0] - rgb[..., 1]) < 8) & (np.abs(rgb[..., 1] - rgb[..., 2]) < 8)
    if grey.mean() < 0.2 or rgb[grey].std() < 10:
        fail(f"{png}: blank ({grey.mean():.0%} data pixels, grey spread {rgb[grey].std():.1f})")
    row = rgb[height // 2, :, 1]
    centre = width // 2
    core = row[centre - 3:centre + 4].mean()
    left, right = row[:centre].max(), row[centre:].max()
    if not core < 0.3 * min(left, right):
        fail(f"{png}: no density minimum on the axis (core {core:.0f}, rings {left:.0f} and {right:.0f} of 255)")
    print(f"viz: {png}: core {core:.0f}, rings {left:.0f} and {right:.0f} of 255; {grey.mean():.0%} data pixels")


def main():
    xmf, png = Path(sys.argv[1]), Path(sys.argv[2])
    results = xmf.with_suffix(".h5")
    reader = XDMFReader(FileNames=[str(xmf)])
    time, peak = check_reader(reader, results)
    with h5py.File(results) as f:  # the layer of cells nearest z = 0: a plane of them
        z = f["viz/points"][:, 2]
        plane = float(z[np.argmin(np.abs(z))])
        layer = (plane - 1e-4 * float(f.attrs["h"]), plane + 1e-4 * float(f.attrs["h"]))
    render(reader, time, peak, png, layer)
    look_at(png)


if __name__ == "__main__":
    main()
