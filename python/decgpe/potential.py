"""Tabulated potentials: the file `[potential] kind = "tabulated"` reads (setup/case_setup.cpp, make_potential).

The solver reads one value of V per cell (in ħω⊥), in its memory order (§4: the m_s cells of one structure instance
contiguous, instances running x fastest), from a one-dimensional dataset of as many numbers as the grid has cells,
each finite. The positions in that order are those of any results file of a run on the same grid (the same lattice,
h, domain or structures, and shift): `decgpe.load(path).positions`. A one-step run writes one:

    decgpe run case.toml --set time.steps=1 --set time.end_time= --out grid.h5

then

    import decgpe
    positions = decgpe.load("grid.h5").positions
    decgpe.write_potential("v.h5", positions, lambda x, y, z: 0.5 * (x**2 + y**2) + 2.0 * np.exp(-z**2))

and the case names the file:

    [potential]
    kind = "tabulated"
    file = "v.h5"        # relative to the case file's folder
    dataset = "V"        # the default
"""

from pathlib import Path

import h5py
import numpy as np


def write_potential(path, positions, potential, dataset="V"):
    """Writes V at `positions` to the HDF5 file `path` (replaced if it exists) as the dataset `dataset`.

    positions: (N, 3) cell centres in the solver's memory order (`Result.positions`).
    potential: a function V(x, y, z) of numpy arrays giving N values, or an array of N values, in ħω⊥.
    Raises ValueError, before writing anything, when the positions are not (N, 3) or V is not N finite numbers.
    Returns the path.
    """
    positions = np.asarray(positions, dtype=float)
    if positions.ndim != 2 or positions.shape[1] != 3:
        raise ValueError(f"positions must be an (N, 3) array, got shape {positions.shape}")
    values = potential(*positions.T) if callable(potential) else potential
    values = np.asarray(values, dtype=float)
    if values.shape != (len(positions),):
        raise ValueError(f"the potential has shape {values.shape}, the grid {len(positions)} cells")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ValueError(f"the potential is not finite at cell {bad[0]} (of {bad.size} such cells)")
    path = Path(path)
    with h5py.File(path, "w") as f:
        f.create_dataset(dataset, data=values)
    return path
