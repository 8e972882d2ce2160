"""A quick look at a run's diagnostics: `python3 -m decgpe.plot RESULTS.h5 [-o IMAGE.png]`.

One figure, a panel per series the file holds, all against t (1/ω⊥): E(t) = 1 − |⟨ψ₀|ψ⟩| with the split marked,
the drifts of the norm and of the scheme's invariant, the energy's relative change, the energy by term (kinetic, trap,
interaction), Δt(t), and the number of vortex lines when the run sampled them. Needs matplotlib (pip install -e
'python/[reports]'); without it, one line and exit 1.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

from .results import SPLIT_ERROR, load


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit("decgpe.plot: needs matplotlib: pip install matplotlib (or pip install -e 'python/[reports]')")
    matplotlib.use("Agg")  # files only: runs on machines without a display
    import matplotlib.pyplot as plt

    return plt


def _positive(values):
    """|values| with exact zeros dropped to NaN, for a log axis (a drift of exactly 0 has no logarithm)."""
    magnitude = np.abs(np.asarray(values, dtype=float))
    return np.where(magnitude > 0, magnitude, np.nan)


def panels(result):
    """(title, y label, t, values, log scale) for each series the file holds, in the figure's order."""
    d, t = result.diagnostics, result.diagnostics["t"]
    found = [("E(t) = 1 − |⟨ψ₀|ψ⟩|", "E", t, _positive(1 - np.abs(d["overlap"])), True),
             ("norm drift |N(t) − N(0)|", "|ΔN|", t, _positive(d["norm"] - d["norm"][0]), True),
             (f"invariant drift ({result.provenance.get('scheme', '?')})", "|ΔI|", t,
              _positive(d["invariant"] - d["invariant"][0]), True),
             ("energy, relative change", "|E(t) − E(0)| / |E(0)|", t,
              _positive((d["energy"] - d["energy"][0]) / d["energy"][0]), True)]
    if "kinetic" in d:  # the energy by term, in runs since it was recorded: one line each
        found.append(("energy by term", "energy (ħω⊥)", t,
                      {name: d[name] for name in ("kinetic", "trap", "interaction", "rotation")
                       if name in d and (name != "rotation" or np.any(d[name]))}, False))
    if "dt" in d and np.ptp(d["dt"]) > 0:  # adaptive steps only: a fixed Δt is a flat line
        found.append(("time step", "Δt (1/ω⊥)", t, d["dt"], False))
    series = result.vortex_series
    if series:
        found.append(("vortex lines", "lines", series["t"], series["lines"], False))
    return found


def figure(result):
    """The figure of `panels(result)`, titled with what ran."""
    plt = _pyplot()
    rows = panels(result)
    fig, axes = plt.subplots(len(rows), 1, figsize=(7, 2.1 * len(rows)), sharex=True, squeeze=False)
    for ax, (title, ylabel, t, values, log) in zip(axes[:, 0], rows):
        marker = "." if len(t) <= 50 else None  # few samples: each seen
        if isinstance(values, dict):  # several series in one panel, named in its legend
            for name, series in values.items():
                ax.plot(t, series, linewidth=1, marker=marker, label=name)
            ax.legend(fontsize="small")
        else:
            ax.plot(t, values, linewidth=1, marker=marker)
        if log and np.isfinite(values).any():
            ax.set_yscale("log")
        ax.set_title(title, fontsize="medium")
        ax.set_ylabel(ylabel)
    split = result.analysis.get("split_t")
    if split is not None:
        for ax in axes[:, 0]:
            ax.axvline(split, color="grey", linestyle=":", linewidth=1)
        axes[0, 0].axhline(SPLIT_ERROR, color="grey", linestyle=":", linewidth=1)
        axes[0, 0].annotate(f"split t = {split:.4g}", (split, SPLIT_ERROR), fontsize="small", ha="right",
                            xytext=(-4, 4), textcoords="offset points")
    axes[-1, 0].set_xlabel("t (1/ω⊥)")
    p = result.provenance
    fig.suptitle(f"{p.get('case_name', result.path.stem)}: {p.get('lattice', '?')}, h = {p.get('h', float('nan')):.4g}, "
                 f"{result.cells:,} cells, {p.get('steps_done', '?')} steps", fontsize="medium")
    fig.tight_layout()
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m decgpe.plot", description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a results file of decgpe run")
    parser.add_argument("-o", "--output", type=Path, help="the image (default: RESULTS with .diagnostics.png)")
    args = parser.parse_args(argv)
    _pyplot()  # a missing matplotlib is said before any reading
    try:
        result = load(args.results)
    except (OSError, ValueError) as error:
        sys.exit(f"decgpe.plot: cannot read {args.results}: {error}")
    output = args.output or args.results.with_suffix(".diagnostics.png")
    try:
        figure(result).savefig(output, dpi=120)
    except OSError as error:
        sys.exit(f"decgpe.plot: cannot write {output}: {error}")
    print(output)


if __name__ == "__main__":
    main()
