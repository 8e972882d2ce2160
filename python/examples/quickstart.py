"""A first look at a decgpe results file: what ran, how the invariants behaved, and the density near z = 0.

    python3 python/examples/quickstart.py out/default.h5 [density.png]

The image needs matplotlib, which the plain install of decgpe lacks (pip install -e 'python/[reports]' adds it).
"""

import sys

import numpy as np

import decgpe


def pyplot():
    """matplotlib's pyplot drawing to files, or the exit with one line saying how to get it."""
    try:
        import matplotlib
    except ImportError:
        sys.exit("quickstart: drawing the density needs matplotlib: pip install matplotlib "
                 "(or pip install -e 'python/[reports]'); without an image path it prints the summary only")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def main(path, image=None):
    plt = pyplot() if image else None  # before the work: a missing matplotlib is said at once
    r = decgpe.load(path)
    p = r.provenance
    print(f"{p['case_name']}: {p['lattice']}, {r.cells:,} cells, {p['scheme']} with dt = {p['dt']:.4g}, "
          f"{p['steps_done']} steps on {p['device']} (commit {p['git_commit']})")
    d = r.diagnostics
    print(f"t = {d['t'][0]:g} … {d['t'][-1]:g}: norm drift {abs(d['norm'][-1] - d['norm'][0]):.2e}, "
          f"energy {d['energy'][0]:.10g} → {d['energy'][-1]:.10g}, |<psi0|psi>| = {abs(d['overlap'][-1]):.8f}")
    if r.psi is None:
        print("no state in this file (run without --no-state to have psi)")
        return
    x, y, z = r.positions.T
    near = np.abs(z) <= np.min(np.abs(z)) + 1e-9 + 0.5 * r.box[2]
    print(f"max |psi|^2 = {r.density.max():.6g}; {near.sum()} cells within half a structure of z = 0")
    if image:
        fig, ax = plt.subplots(figsize=(4.5, 4))
        shown = ax.scatter(x[near], y[near], c=r.density[near], s=4, cmap="viridis")
        # The paper's trap units: lengths in a_ho = sqrt(ħ/mω⊥), times in 1/ω⊥, ψ in a_ho^(−3/2).
        fig.colorbar(shown, label="|ψ|² (a_ho⁻³)")
        ax.set(xlabel="x (a_ho)", ylabel="y (a_ho)", aspect="equal",
               title=f"{p['lattice']}, t = {d['t'][-1]:g} (1/ω⊥)")
        fig.savefig(image, dpi=120, bbox_inches="tight")
        print(f"wrote {image}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
