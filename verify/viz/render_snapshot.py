"""Opens a results file's XDMF sidecar in ParaView (pvpython, its XDMF3 reader), checks what ParaView reads against
the HDF5 file (h5py), and renders the density: a slice through z = 0 and the iso-surface at half the density's
maximum, each to a PNG that it then looks at, and a volume rendering of the resampled density.

    pvpython render_snapshot.py RESULTS.xmf OUT-PREFIX

Checks: the cell count is the file's, every cell a tetrahedron or polyhedron, one time per snapshot and final state;
the last time's density range is that of the state's |ψ|², with its unit in its name; the slice's image has its
minimum at the vortex core between two brighter rings; the iso-surface (Cell Data to Point Data, then Contour) is a
tube around the z axis: non-empty, its points at least 0.2 a_ho from the axis and reaching beyond 0.3 a_ho on both
sides of z = 0 (the trap closes it in z: a torus), and its image, seen along the axis, a ring with the background in
its middle; ResampleToImage gives the density's range and its volume rendering is not blank. Exit 0 when all hold; one line naming the failed check and exit 1 otherwise."""

import sys
from pathlib import Path

import h5py
import numpy as np
from paraview import servermanager
from paraview.simple import (CellDatatoPointData, ColorBy, Contour, CreateView, GetColorTransferFunction,
                             GetOpacityTransferFunction, Render, ResampleToImage, SaveScreenshot, Show, Slice,
                             Xdmf3ReaderT)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

DENSITY = "density [a_ho^-3]"
SIZE = 400


def fail(message):
    print(f"viz: {message}")
    sys.exit(1)


def check_reader(reader, results):
    """The cells, times and the last frame's density, as ParaView reads them, against the HDF5 file."""
    times = list(reader.TimestepValues) if reader.TimestepValues else [0.0]
    reader.UpdatePipeline(times[-1])
    data = servermanager.Fetch(reader)
    with h5py.File(results) as f:
        cells = int(f.attrs["cells"])
        expected_times = [float(g.attrs["t"]) for g in f["viz/snapshots"].values()] if "viz/snapshots" in f else []
        if "viz/state" in f and float(f["viz/state"].attrs["t"]) not in expected_times[-1:]:
            expected_times.append(float(f["viz/state"].attrs["t"]))
        state = f["state/current"][()] if "state/current" in f else None
    if not np.allclose(times, expected_times):
        fail(f"ParaView's times {times}, the file's snapshots and state {expected_times}")
    if data.GetNumberOfCells() != cells:
        fail(f"ParaView reads {data.GetNumberOfCells()} cells, the file has {cells}")
    types = set(vtk_to_numpy(data.GetCellTypesArray()).tolist())
    if not types <= {10, 42}:  # VTK_TETRA, VTK_POLYHEDRON
        fail(f"cell types {sorted(types)}, expected tetrahedra (10) and polyhedra (42)")
    array = data.GetCellData().GetArray(DENSITY)
    if array is None:
        cell_data = data.GetCellData()
        names = [cell_data.GetArrayName(i) for i in range(cell_data.GetNumberOfArrays())]
        fail(f"no cell array '{DENSITY}' (has {names})")
    density = vtk_to_numpy(array)
    if state is not None:
        expected = np.abs(state) ** 2
        if not np.allclose([density.min(), density.max()], [expected.min(), expected.max()], rtol=1e-6, atol=1e-12):
            fail(f"density range {density.min():.6g}…{density.max():.6g} in ParaView, "
                 f"{expected.min():.6g}…{expected.max():.6g} in /state/current")
    return times, float(density.max())


def view_of(time):
    view = CreateView("RenderView")
    view.ViewSize = [SIZE, SIZE]
    view.ViewTime = time
    view.OrientationAxesVisibility = 0
    view.Background = [1.0, 0.0, 0.0]  # red: no grey pixel is background
    view.UseColorPaletteForBackground = 0
    view.CameraPosition = [0, 0, 50]
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = [0, 1, 0]
    view.CameraParallelProjection = 1
    return view


def save(view, png):
    view.ResetCamera()
    Render(view)
    SaveScreenshot(str(png), view, ImageResolution=[SIZE, SIZE])


def pixels(png):
    reader = vtkPNGReader()
    reader.SetFileName(str(png))
    reader.Update()
    image = reader.GetOutput()
    width, height, _ = image.GetDimensions()
    if (width, height) != (SIZE, SIZE):
        fail(f"{png}: {width}×{height} pixels, expected {SIZE}×{SIZE}")
    rgb = vtk_to_numpy(image.GetPointData().GetScalars())[:, :3].astype(float).reshape(height, width, 3)
    background = (rgb[..., 0] > 240) & (rgb[..., 1] < 15) & (rgb[..., 2] < 15)
    return rgb, ~background


def render_slice(reader, time, peak, png):
    """The cells cut by z = 0, coloured by density in grey, seen from +z; the row through the axis must dip there."""
    cut = Slice(Input=reader)
    cut.SliceType.Origin = [0, 0, 0]
    cut.SliceType.Normal = [0, 0, 1]
    view = view_of(time)
    display = Show(cut, view)
    ColorBy(display, ("CELLS", DENSITY))
    lut = GetColorTransferFunction(DENSITY)
    lut.ApplyPreset("Grayscale", True)
    lut.RescaleTransferFunction(0.0, peak)
    save(view, png)
    rgb, data = pixels(png)
    if data.mean() < 0.2 or rgb[data].std() < 10:
        fail(f"{png}: blank ({data.mean():.0%} data pixels, spread {rgb[data].std():.1f})")
    row = rgb[SIZE // 2, :, 1]
    centre = SIZE // 2
    core = row[centre - 3:centre + 4].mean()
    left, right = row[:centre].max(), row[centre:].max()
    if not core < 0.3 * min(left, right):
        fail(f"{png}: no density minimum on the axis (core {core:.0f}, rings {left:.0f} and {right:.0f} of 255)")
    print(f"viz: {png}: core {core:.0f}, rings {left:.0f} and {right:.0f} of 255; {data.mean():.0%} data pixels")


def render_tube(reader, time, peak, png):
    """The iso-surface at half the peak density: a tube around the z axis, seen along it as a ring."""
    points = CellDatatoPointData(Input=reader)
    tube = Contour(Input=points, ContourBy=["POINTS", DENSITY], Isosurfaces=[0.5 * peak])
    tube.UpdatePipeline(time)
    surface = servermanager.Fetch(tube)
    if surface.GetNumberOfPoints() == 0:
        fail(f"the iso-surface at half the peak density ({0.5 * peak:.4g}) is empty")
    xyz = vtk_to_numpy(surface.GetPoints().GetData())
    axis = np.hypot(xyz[:, 0], xyz[:, 1])
    if axis.min() < 0.2 or xyz[:, 2].min() > -0.3 or xyz[:, 2].max() < 0.3:
        fail(f"the iso-surface is no tube around the axis: {axis.min():.3f}…{axis.max():.3f} a_ho from it, "
             f"z {xyz[:, 2].min():.2f}…{xyz[:, 2].max():.2f}")
    view = view_of(time)
    display = Show(tube, view)
    ColorBy(display, None)
    display.AmbientColor = display.DiffuseColor = [0.8, 0.8, 0.8]
    save(view, png)
    rgb, data = pixels(png)
    hole = data[SIZE // 2 - 3:SIZE // 2 + 4, SIZE // 2 - 3:SIZE // 2 + 4]
    if data.mean() < 0.05 or hole.any():
        fail(f"{png}: no ring around a hole ({data.mean():.0%} surface pixels, {hole.mean():.0%} in the middle)")
    print(f"viz: {png}: iso-surface at {0.5 * peak:.4g} a_ho^-3, {surface.GetNumberOfPoints()} points "
          f"{axis.min():.3f}…{axis.max():.3f} a_ho from the axis; {data.mean():.0%} surface pixels, hole empty")


def render_volume(reader, time, peak, png):
    """ResampleToImage's density (its range must be the cells') and its volume rendering, which must not be blank."""
    image = ResampleToImage(Input=reader)
    image.UseInputBounds = 0
    image.SamplingBounds = [-3, 3, -3, 3, -3, 3]  # the condensate, in a_ho: the camera frames it
    image.SamplingDimensions = [48, 48, 48]
    image.UpdatePipeline(time)
    low, high = servermanager.Fetch(image).GetPointData().GetArray(DENSITY).GetRange()
    if not high > 0.5 * peak:
        fail(f"ResampleToImage's density range is {low:.4g}…{high:.4g}, the cells' peak {peak:.4g}")
    view = view_of(time)
    display = Show(image, view)
    display.SetRepresentationType("Volume")
    ColorBy(display, ("POINTS", DENSITY))
    GetColorTransferFunction(DENSITY).RescaleTransferFunction(0.0, peak)
    GetOpacityTransferFunction(DENSITY).RescaleTransferFunction(0.0, peak)
    view.CameraPosition = [30, -40, 25]
    view.CameraViewUp = [0, 0, 1]
    save(view, png)
    rgb, data = pixels(png)
    if data.mean() < 0.1 or rgb[data].std() < 5:
        fail(f"{png}: blank volume rendering ({data.mean():.0%} non-background pixels)")
    print(f"viz: {png}: ResampleToImage density {low:.4g}…{high:.4g}; {data.mean():.0%} volume pixels")


def main():
    xmf, prefix = Path(sys.argv[1]).resolve(), sys.argv[2]  # Xdmf3 resolves the HDF5 file against an absolute path
    reader = Xdmf3ReaderT(FileName=[str(xmf)])
    times, peak = check_reader(reader, xmf.with_suffix(".h5"))
    render_slice(reader, times[-1], peak, f"{prefix}-slice.png")
    render_tube(reader, times[-1], peak, f"{prefix}-isosurface.png")
    render_volume(reader, times[-1], peak, f"{prefix}-volume.png")


if __name__ == "__main__":
    main()
