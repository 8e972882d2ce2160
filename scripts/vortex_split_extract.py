"""What reports/vortex_split.py needs of scripts/vortex-split-run.sh's results files, in one small HDF5 file: per
lattice (a group named for it) the results' root attributes, E(t) = 1 − |⟨ψ₀|ψ⟩| at every diagnostics step, the
lines' series and events, every sample's crossings of z = 0 (decgpe.VortexLines.crossings) and the whole lines of the
samples the report draws: the first, the first separation's, the first at or after E > 0.01 (the split) and
the last.

    python3 scripts/vortex_split_extract.py OUT.h5 RESULTS.h5... --command "what ran"

The file's root attributes give the provenance (git_commit, device and date of the first results file, the command);
a results file without vortex lines is an error naming it.
"""

import argparse
import sys
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import decgpe  # noqa: E402
from decgpe.results import SPLIT_ERROR  # noqa: E402


def kept_steps(samples, split_t, events):
    """{role: step} of the samples whose whole lines are kept."""
    steps = list(samples)
    kept = {"first": steps[0], "last": steps[-1]}
    separation = next((e for e in events if e["kind"] == "separation"), None)
    if separation:
        kept["separation"] = separation["step"]
    if split_t is not None:
        kept["split"] = next((s for s in steps if samples[s].t >= split_t), steps[-1])
    return kept


def put(group, name, data):
    """A dataset, compressed where that pays (a small one's chunk index outweighs what gzip saves)."""
    data = np.asarray(data)
    group.create_dataset(name, data=data, compression="gzip" if data.size > 4096 else None)


def write_sample(group, sample):
    """One sample's lines, the points in single precision: the vertices' signs of z, and so every crossing of z = 0,
    are kept (a float64 keeps its sign in float32 down to 1e-45), and the file half as large (16 MB come back)."""
    group.attrs["t"] = sample.t
    put(group, "points", np.asarray(sample.points, dtype=np.float32))
    for name in ("offsets", "charges", "closed", "ends"):
        put(group, name, getattr(sample, name))


CROSSING_TYPES = {"step": np.int32, "line": np.int32, "x": np.float32, "y": np.float32, "flux": np.int8}


def write_crossings(group, samples):
    """Every sample's crossings of z = 0 in one table (a row each), in the smallest types that hold them."""
    found = {name: [] for name in CROSSING_TYPES}
    for step, sample in samples.items():
        c = sample.crossings()
        found["step"].append(np.full(len(c["line"]), step))
        for name in ("line", "x", "y", "flux"):
            found[name].append(c[name])
    for name, parts in found.items():
        put(group, name, np.concatenate(parts).astype(CROSSING_TYPES[name]))


def extract(out, path):
    """One results file into the group of its lattice."""
    r = decgpe.load(path)
    samples, events = r.vortex_lines, r.vortex_events
    if not samples:
        sys.exit(f"vortex_split_extract: {path} has no vortex lines (analysis.vortex_lines_every = 0?)")
    group = out.create_group(r.provenance["lattice"])
    for key, value in r.provenance.items():
        group.attrs[key] = value
    t = r.diagnostics["t"]
    error = 1 - np.abs(r.diagnostics["overlap"])
    passed = np.flatnonzero(error > SPLIT_ERROR)
    split_t = float(t[passed[0]]) if passed.size else None
    group.attrs["split_t"] = np.nan if split_t is None else split_t
    put(group, "diagnostics/t", t)
    put(group, "diagnostics/error", error)
    for name, values in r.vortex_series.items():
        put(group, f"series/{name}", values)
    for name in ("step", "after_step", "t"):
        put(group, f"events/{name}", np.array([e[name] for e in events], dtype=float if name == "t" else np.int64))
    put(group, "events/kind", np.array([{"separation": 1, "reconnection": 2}[e["kind"]] for e in events], np.int64))
    write_crossings(group.create_group("crossings"), samples)
    for role, step in kept_steps(samples, split_t, events).items():
        group.attrs[f"{role}_step"] = step
        if f"samples/{step:012d}" not in group:
            write_sample(group.create_group(f"samples/{step:012d}"), samples[step])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--command", required=True)
    args = parser.parse_args()
    first = decgpe.attributes(args.results[0])
    partial = args.out.with_name(args.out.name + ".partial")  # nothing half-written under the real name
    try:
        with h5py.File(partial, "w") as out:
            for key in ("git_commit", "device", "date"):
                out.attrs[key] = first.get(key, "")
            out.attrs["command"] = args.command
            out.attrs["split_error"] = SPLIT_ERROR
            for path in args.results:
                extract(out, path)
        partial.replace(args.out)
    finally:
        partial.unlink(missing_ok=True)
    print(f"vortex_split_extract: {len(args.results)} runs -> {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
