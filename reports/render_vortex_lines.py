"""pvpython: vortex lines in 3D, one PNG per legacy VTK polyline file (reports/vortex_split.py writes them), each
drawn as tubes coloured by charge (1 blue, 2 red, more dark red) inside the outline of the box ±R, seen obliquely
from above with one camera and scale for all, so that the pictures compare.

    pvpython render_vortex_lines.py R SIZE LINES.vtk PNG [LINES.vtk PNG ...]

Each picture must show the lines: exit 1 naming the first blank one.
"""

import sys

from paraview.simple import (Box, CreateView, GetColorTransferFunction, LegacyVTKReader, Render, SaveScreenshot,
                             Show, Tube, _DisableFirstRenderCameraReset)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

CHARGE_COLOURS = [1, 0.12, 0.35, 0.75, 2, 0.85, 0.15, 0.1, 3, 0.45, 0.0, 0.0]  # (charge, r, g, b) nodes


def view_of(size):
    view = CreateView("RenderView")
    view.ViewSize = [size, size]
    view.OrientationAxesVisibility = 1
    view.Background = [1.0, 1.0, 1.0]
    view.UseColorPaletteForBackground = 0
    return view


def aim(view, reach):
    """The one camera of every picture, set after Show (which may fit the camera to what it shows)."""
    view.CameraPosition = [2.2 * reach, -3.0 * reach, 1.6 * reach]
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = [0, 0, 1]
    view.CameraParallelProjection = 1
    view.CameraParallelScale = 1.5 * reach  # the box ±reach seen from there is 2.8 reach wide, 2.9 high


def render(vtk, png, reach, size):
    view = view_of(size)
    outline = Box(XLength=2 * reach, YLength=2 * reach, ZLength=2 * reach)
    box = Show(outline, view)
    box.SetRepresentationType("Outline")
    box.AmbientColor = box.DiffuseColor = [0.6, 0.6, 0.6]
    lines = LegacyVTKReader(FileNames=[vtk])
    tubes = Tube(Input=lines, Radius=0.012 * reach, NumberofSides=12)
    shown = Show(tubes, view)
    shown.ColorArrayName = ["CELLS", "charge"]
    lut = GetColorTransferFunction("charge")
    lut.RGBPoints = CHARGE_COLOURS
    lut.ScalarRangeInitialized = 1
    shown.LookupTable = lut
    aim(view, reach)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[size, size])
    reader = vtkPNGReader()
    reader.SetFileName(png)
    reader.Update()
    rgb = vtk_to_numpy(reader.GetOutput().GetPointData().GetScalars())[:, :3].astype(int)
    coloured = ((rgb.max(axis=1) - rgb.min(axis=1)) > 60).mean()  # the tubes: the box and background are grey
    lines.UpdatePipeline()
    count = lines.GetDataInformation().GetNumberOfCells()
    if count and coloured < 1e-4:
        print(f"render_vortex_lines: {png}: {count} lines but no coloured pixel")
        sys.exit(1)
    print(f"render_vortex_lines: {png}: {count} lines, {coloured:.2%} coloured pixels")


def main():
    _DisableFirstRenderCameraReset()  # else the first picture's camera is fitted to what it shows, unlike the rest
    reach, size, pairs = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    for vtk, png in zip(pairs[::2], pairs[1::2]):
        render(vtk, png, reach, size)


if __name__ == "__main__":
    main()
