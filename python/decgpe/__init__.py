"""Read decgpe results files: `decgpe.load(path)` returns a `Result` with numpy arrays (see README.md); write a
tabulated potential on a run's grid with `decgpe.write_potential`."""

from importlib import metadata

from .potential import write_potential
from .results import Result, Snapshot, VortexLines, attributes, load

try:
    __version__ = metadata.version("decgpe")
except metadata.PackageNotFoundError:  # imported from the source tree without installing: its pyproject.toml
    import tomllib
    from pathlib import Path

    with open(Path(__file__).resolve().parent.parent / "pyproject.toml", "rb") as _f:
        __version__ = tomllib.load(_f)["project"]["version"]

__all__ = ["Result", "Snapshot", "VortexLines", "attributes", "load", "write_potential", "__version__"]
