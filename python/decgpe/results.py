"""The results file of `decgpe run` (io/results.cpp) as numpy arrays.

The grid is stored per structure instance (/grid/centre: m_s circumcentres relative to an instance's corner,
/grid/volume: their dual volumes) with the domain's origin, the instance box and the instance counts (attribute
`structures`); cell i of the domain is local cell l = i mod m_s of instance s = i div m_s, instances running x
fastest (the paper's §4 memory order). Positions are computed in the solver's own order of operations
(origin + centre, then + the instance offset), so they are the solver's bit for bit.

Units are the trap's (docs/cases.md): lengths in a_ho, times in 1/ω⊥, ψ in a_ho^(−3/2).
"""

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Optional

import h5py
import numpy as np


def _plain(value):
    """An HDF5 attribute as a plain Python value (str, float, int, list)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.dtype.kind in "SO" else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _complex(dataset):
    """A compound {r, i} dataset as a complex array (h5py maps that compound to complex128 itself)."""
    data = dataset[()]
    return data if np.iscomplexobj(data) else data["r"] + 1j * data["i"]


SPLIT_ERROR = 0.01  # E = 1 − |⟨ψ₀|ψ⟩| past which the vortex has split (the paper's §5.1, the accuracy cases' stop)


def _split_time(diagnostics):
    """The first diagnostics time with E > SPLIT_ERROR, or None. /analysis holds the spectrum at the end whether or
    not the vortex split (its fold attribute is then the largest noise); the overlap series says which."""
    passed = np.flatnonzero(1 - np.abs(diagnostics["overlap"]) > SPLIT_ERROR)
    return float(diagnostics["t"][passed[0]]) if passed.size else None


@dataclass(frozen=True)
class Snapshot:
    """ψ at one step of /snapshots. t (1/ω⊥) is None and units {} in files written before snapshots carried them."""

    step: int
    t: Optional[float]
    psi: np.ndarray = field(repr=False)
    units: dict  # {field: unit} of its /viz fields: density a_ho^-3, phase rad, re_psi and im_psi a_ho^-3/2


EVENT_KINDS = {1: "separation", 2: "reconnection"}  # /vortex_lines/events/kind (docs/cases.md, "Vortex lines")


@dataclass(frozen=True)
class VortexLines:
    """The vortex lines of one sample of /vortex_lines (analysis.vortex_lines_every): points (n, 3) in a_ho, line k
    being points[offsets[k]:offsets[k + 1]] (a closed line's first point not repeated), its charge (> 0, the winding
    counterclockwise about the direction of travel), whether it is closed, and an open line's ends (0: the domain's
    boundary, 1: a junction inside it, 2: the edge of the region measured, analysis.vortex_region)."""

    step: int
    t: float
    points: np.ndarray = field(repr=False)
    offsets: np.ndarray = field(repr=False)
    charges: np.ndarray
    closed: np.ndarray
    ends: np.ndarray = field(repr=False)  # (lines, 2)

    @property
    def lines(self):
        """Each line's points, an (n_k, 3) array per line."""
        return [self.points[a:b] for a, b in zip(self.offsets[:-1], self.offsets[1:])]

    def crossings(self):
        """Where the lines cross the plane z = 0, as the series' net_flux_z0 counts them (analysis/vortex_events.cpp:
        a segment from z < 0 to z ≥ 0 crosses upwards, the reverse downwards, a closed line's closing segment too):
        {"line": index, "x", "y": the segment's point at z = 0 (a_ho), "flux": charge × (+1 upwards, −1 downwards)},
        arrays in line order; their flux sums to net_flux_z0."""
        counts = np.diff(self.offsets)
        line_of = np.repeat(np.arange(len(counts)), counts)
        inner = np.flatnonzero(line_of[:-1] == line_of[1:])  # segments k → k + 1 inside one line
        ring = np.flatnonzero(self.closed & (counts > 1))  # a closed line's closing segment, last → first
        a = np.concatenate([inner, self.offsets[ring + 1] - 1])
        b = np.concatenate([inner + 1, self.offsets[ring]])
        za, zb = self.points[a, 2], self.points[b, 2]
        sign = ((za < 0) & (zb >= 0)).astype(np.int64) - ((za >= 0) & (zb < 0))
        hit = np.flatnonzero(sign)
        hit = hit[np.lexsort((hit, line_of[a[hit]]))]  # line order; a closed line's closing segment last
        pa, pb = self.points[a[hit]], self.points[b[hit]]
        at = pa + (pb - pa) * (-pa[:, 2] / (pb[:, 2] - pa[:, 2]))[:, np.newaxis]
        line = line_of[a[hit]]
        return {"line": line.astype(np.int64), "x": at[:, 0], "y": at[:, 1],
                "flux": (np.asarray(self.charges)[line] * sign[hit]).astype(np.int64)}


def _vortex_sample(group, step):
    return VortexLines(step=step, t=float(group.attrs["t"]), points=group["points"][()].reshape(-1, 3),
                       offsets=group["offsets"][()], charges=group["charges"][()],
                       closed=group["closed"][()].astype(bool), ends=group["ends"][()].reshape(-1, 2))


@dataclass
class Result:
    path: Path
    provenance: dict
    diagnostics: dict
    centre: np.ndarray = field(repr=False)  # (m_s, 3)
    volume_per_structure: np.ndarray = field(repr=False)  # (m_s,)
    origin: np.ndarray = field(repr=False)
    box: np.ndarray = field(repr=False)
    structures: tuple
    analysis: dict = field(repr=False)  # /analysis: "plane" {x, y, density, initial_density}, "azimuthal_amplitude",
    #   "split_t" (None: no split), "fold" (None without a split), and "history" {t, step, azimuthal_amplitude,
    #   cell_norm, cell_overlap} when probed

    @property
    def cells(self):
        return len(self.centre) * int(np.prod(self.structures))

    @cached_property
    def positions(self):
        """(N, 3) cell centres in memory order."""
        sx, sy, sz = self.structures
        ms = len(self.centre)
        iz, iy, ix = np.meshgrid(np.arange(sz), np.arange(sy), np.arange(sx), indexing="ij")
        offset = np.stack([ix.ravel() * self.box[0], iy.ravel() * self.box[1], iz.ravel() * self.box[2]], axis=1)
        local = self.origin + self.centre  # (m_s, 3), as the solver adds them
        return (local[np.newaxis, :, :] + offset[:, np.newaxis, :]).reshape(sx * sy * sz * ms, 3)

    @cached_property
    def volume(self):
        """(N,) dual cell volumes |B_i| in memory order."""
        return np.tile(self.volume_per_structure, int(np.prod(self.structures)))

    @cached_property
    def levels(self):
        """{name: complex array} of the scheme's final levels (/state), read when first asked for."""
        with h5py.File(self.path, "r") as f:
            return {name: _complex(f["state"][name]) for name in f["state"]} if "state" in f else {}

    @property
    def psi(self):
        """The final state, or None when the run wrote none (--no-state)."""
        return self.levels.get("current")

    @property
    def density(self):
        return None if self.psi is None else np.abs(self.psi) ** 2

    @property
    def phase(self):
        return None if self.psi is None else np.angle(self.psi)

    @cached_property
    def snapshots(self):
        """{step: Snapshot} of /snapshots, in step order."""
        with h5py.File(self.path, "r") as f:
            if "snapshots" not in f:
                return {}
            found = {}
            for name in sorted(f["snapshots"], key=int):
                data = f["snapshots"][name]
                viz = f.get(f"viz/snapshots/{name}", {})
                units = {key: _plain(viz[key].attrs["units"]) for key in viz if "units" in viz[key].attrs}
                t = float(data.attrs["t"]) if "t" in data.attrs else None
                found[int(name)] = Snapshot(int(name), t, _complex(data), units)
            return found

    @cached_property
    def vortex_lines(self):
        """{step: VortexLines} of /vortex_lines, in step order ({} when the run sampled none)."""
        with h5py.File(self.path, "r") as f:
            groups = f.get("vortex_lines", {})
            return {int(name): _vortex_sample(groups[name], int(name)) for name in sorted(groups) if name.isdigit()}

    @cached_property
    def vortex_series(self):
        """/vortex_lines/series: {step, t, lines, total_length, largest_charge, net_flux_z0} ({} without lines)."""
        with h5py.File(self.path, "r") as f:
            series = f.get("vortex_lines/series", {})
            return {name: series[name][()] for name in series}

    @cached_property
    def vortex_events(self):
        """/vortex_lines/events, one dict per event: step, after_step (the sample before), t and kind
        ("separation" or "reconnection")."""
        with h5py.File(self.path, "r") as f:
            if "vortex_lines/events" not in f:
                return []
            e = f["vortex_lines/events"]
            return [{"step": int(step), "after_step": int(after), "t": float(t), "kind": EVENT_KINDS[int(kind)]}
                    for step, after, t, kind in zip(e["step"][()], e["after_step"][()], e["t"][()], e["kind"][()])]


def attributes(path):
    """The root attributes of any HDF5 file as plain Python values (a results file's provenance without the rest)."""
    with h5py.File(path, "r") as f:
        return {key: _plain(value) for key, value in f.attrs.items()}


def load(path):
    """Reads a decgpe results file. Raises ValueError for a file that is not one."""
    path = Path(path)
    with h5py.File(path, "r") as f:
        if "grid" not in f or "diagnostics" not in f:
            raise ValueError(f"{path} is not a decgpe results file (no /grid or /diagnostics)")
        provenance = {key: _plain(value) for key, value in f.attrs.items()}
        if "case_toml" in f:
            provenance["case_toml"] = _plain(f["case_toml"][()])
        diagnostics = {}
        for name, dataset in f["diagnostics"].items():
            diagnostics[name] = _complex(dataset) if dataset.dtype.names else dataset[()]
        grid = f["grid"]
        analysis = {}
        if "analysis" in f:
            a = f["analysis"]
            analysis["plane"] = {name: a["plane"][name][()] for name in a["plane"]}
            analysis["azimuthal_amplitude"] = a["azimuthal_amplitude"][()]
            analysis["split_t"] = _split_time(diagnostics)
            split = analysis["split_t"] is not None
            analysis["fold"] = int(a["azimuthal_amplitude"].attrs["fold"]) if split else None
            if "history" in a:  # the host probes (time.spectrum_every): t, step, azimuthal_amplitude (samples × 13), ...
                analysis["history"] = {name: a["history"][name][()] for name in a["history"]}
        return Result(path=path, provenance=provenance, diagnostics=diagnostics,
                      centre=grid["centre"][()], volume_per_structure=grid["volume"][()],
                      origin=grid["origin"][()], box=grid["box"][()],
                      structures=tuple(int(n) for n in f.attrs["structures"]), analysis=analysis)
