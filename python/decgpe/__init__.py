"""Read decgpe results files: `decgpe.load(path)` returns a `Result` with numpy arrays (see README.md)."""

from .results import Result, attributes, load

__all__ = ["Result", "attributes", "load"]
