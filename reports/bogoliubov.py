"""The Bogoliubov spectrum of the paper's κ = 10 vortex (λ = 1, g = 300) in the continuum, solved here: which
azimuthal modes are dynamically unstable and how fast they grow, to compare with the growth rates the lattice runs
measure from the azimuthal spectrum over time (reports/stationary_start.py).

The vortex ψ = f(ρ, z) e^(iκφ) is the lowest state of the κ sector of H = −½∇² + ½(ρ² + λ²z²) + g|ψ|², ∫|ψ|² = 1,
found by a damped self-consistent iteration; a perturbation e^(iκφ)[u e^(imφ − iωt) + v* e^(−imφ + iω*t)] solves
    ω u = (T_{κ+m} + V + 2gf² − μ) u + gf² v,   −ω v = (T_{κ−m} + V + 2gf² − μ) v + gf² u,
T_ℓ = −½(ρ⁻¹∂_ρ ρ∂_ρ + ∂_z² − ℓ²/ρ²). Complex ω is a dynamical instability: the density's |c_m| grows as e^(Im ω t).
Finite differences on ρ_j = (j + ½)h (no axis condition needed: the flux through ρ = 0 vanishes), z_k = (k + ½)h
with z ≥ 0 and the mode's parity in z, ψ = 0 at ρ = R and |z| = R; dense eigenvalues (numpy only), two resolutions
to show the convergence.

    bogoliubov.py [--out FILE.json]

render() draws the committed solution (bogoliubov/bogoliubov.json in the device folder that solved it,
reports/data/cpu-2core-vm/; the report "Bogoliubov"): the growth rate per m at every step solved, and the unstable
modes' rates against h² with their extrapolation to h = 0, at the box radius R = 7.5; and, from bogoliubov-radii.json
where committed, the rates against R at each step.
"""

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from common import Rendered, footer, markdown_table, plt, read_json, run_on_folder, save_figure, save_table

FILE = "bogoliubov/bogoliubov.json"  # in a device folder
RADII_FILE = "bogoliubov/bogoliubov-radii.json"  # the same solve at other box radii
KAPPA, G, LAMBDA = 10, 300.0, 1.0
MU_CONTINUUM = 13.449481124903919  # setup/stationary_vortex (spectral, converged to ~1e-14)


def operators(h, radius):
    n = int(round(radius / h))
    rho = (np.arange(n) + 0.5) * h
    z = (np.arange(n) + 0.5) * h
    # −½ ρ⁻¹∂ρ(ρ∂ρ): flux form, ρ_{−½} = 0, u_n = 0
    face = np.arange(n + 1) * h
    radial = np.zeros((n, n))
    for j in range(n):
        radial[j, j] = (face[j] + face[j + 1]) / (rho[j] * h * h)
        if j > 0:
            radial[j, j - 1] = -face[j] / (rho[j] * h * h)
        if j + 1 < n:
            radial[j, j + 1] = -face[j + 1] / (rho[j] * h * h)
    radial *= 0.5

    def axial(parity):  # −½∂z² with u_{−1} = ±u_0, u_n = 0
        a = (np.diag(np.full(n, 2.0)) - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)) / (h * h)
        a[0, 0] -= parity / (h * h)
        return 0.5 * a

    return n, rho, z, radial, axial


def kinetic(n, rho, radial, axial_z, ell):
    eye = np.eye(n)
    return np.kron(radial + np.diag(ell * ell / (2 * rho * rho)), eye) + np.kron(eye, axial_z)


def ground_state(h, radius):
    n, rho, z, radial, axial = operators(h, radius)
    r, zz = np.meshgrid(rho, z, indexing="ij")
    potential = 0.5 * (r ** 2 + (LAMBDA * zz) ** 2).ravel()
    weight = np.repeat(rho, n) * h * h * 2 * 2 * np.pi  # ∫ over z ≥ 0 doubled, 2π around
    base = kinetic(n, rho, radial, axial(+1), KAPPA) + np.diag(potential)
    s, s_inv = np.sqrt(np.repeat(rho, n)), 1 / np.sqrt(np.repeat(rho, n))  # symmetrise the ρ-weighted operator
    density = np.zeros(n * n)
    for iteration in range(400):
        h_mat = base + np.diag(G * density)
        values, vectors = np.linalg.eigh((s[:, None] * h_mat * s_inv[None, :] + (s[:, None] * h_mat * s_inv[None, :]).T) / 2)
        f = vectors[:, 0] * s_inv
        f /= np.sqrt(np.sum(weight * f * f))
        new = f * f
        change = np.max(np.abs(new - density)) / np.max(new)
        density = new if iteration == 0 else 0.7 * density + 0.3 * new
        if change < 1e-11:
            break
    f = np.sqrt(density)
    f /= np.sqrt(np.sum(weight * f * f))
    h_mat = base + np.diag(G * f * f)
    mu = float(np.sum(weight * f * (h_mat @ f)))
    return dict(n=n, rho=rho, z=z, radial=radial, axial=axial, potential=potential, f=f, mu=mu,
                iterations=iteration + 1, residual=float(np.sqrt(np.sum(weight * (h_mat @ f - mu * f) ** 2))))


def bogoliubov(state, m, parity):
    n, rho, radial, axial = state["n"], state["rho"], state["radial"], state["axial"]
    f2 = state["f"] ** 2
    common = np.diag(state["potential"] + 2 * G * f2 - state["mu"])
    a_plus = kinetic(n, rho, radial, axial(parity), KAPPA + m) + common
    a_minus = kinetic(n, rho, radial, axial(parity), KAPPA - m) + common
    b = np.diag(G * f2)
    matrix = np.block([[a_plus, b], [-b, -a_minus]])
    return np.linalg.eigvals(matrix)


def rates_by_mode(row, parity):
    """{m: max |Im ω|} of one step's modes of a parity, in m order."""
    prefix = f"{parity}_m"
    found = {int(k[len(prefix):]): v for k, v in row["growth"].items() if k.startswith(prefix)}
    return dict(sorted(found.items()))


def extrapolated(rows, m, steps=None):
    """σ_m at h → 0 from the two finest steps (or the two `steps`), the discretisation being second order (error
    ∝ h²); None where fewer than two steps solved m."""
    solved = sorted((r["h"], rates_by_mode(r, "even").get(m)) for r in rows)
    solved = [(h, v) for h, v in solved if v is not None and (steps is None or any(np.isclose(h, steps)))]
    if len(solved) < 2:
        return None
    (h1, s1), (h2, s2) = solved[0], solved[1]  # the finest first
    return s1 + (s1 - s2) * h1 ** 2 / (h2 ** 2 - h1 ** 2)


def by_radius(rows):
    """{R: [row]} ascending in R, each radius's rows coarsest first."""
    found = {}
    for r in rows:
        found.setdefault(r["radius"], []).append(r)
    return {radius: sorted(found[radius], key=lambda r: -r["h"]) for radius in sorted(found)}


def shared_steps(groups):
    """The steps solved at two radii or more, coarsest first."""
    counts = Counter(r["h"] for rows in groups.values() for r in rows)
    return sorted((h for h, n in counts.items() if n >= 2), reverse=True)


def rates_at(groups, m, h):
    """{R: σ_m} at step h, over the radii that solved it."""
    return {radius: rates_by_mode(r, "even")[m] for radius, rows in groups.items() for r in rows if r["h"] == h}


def radius_panel(ax, groups, unstable):
    """σ_m(R, h) − σ_m(R_largest, h) against R, per unstable m and per step solved at every radius."""
    for m, colour in zip(unstable, ("tab:blue", "tab:orange", "tab:green")):  # as (b) draws them
        for h, style in zip(shared_steps(groups), ("-", "--", ":")):
            rates = rates_at(groups, m, h)
            far = rates[max(rates)]
            ax.plot(list(rates), [v - far for v in rates.values()], marker="o", linestyle=style, color=colour,
                    label=f"m = {m}, h = {h:g} (against R = {max(rates):g})")
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.set(xlabel="box radius R (a_ho): ψ = 0 at ρ = R and |z| = R",
           ylabel="σ_m(R) − σ_m(the largest R at that h) (ω⊥)",
           title="(c) the rates against the box radius, at each step")
    ax.legend(fontsize="small")


def radius_table(groups, unstable, pair):
    """A row per radius and step, and per radius that solved both steps of `pair` their extrapolation to h = 0."""
    header = ["R", "h", "μ_h", *(f"σ_{m} (even in z)" for m in unstable), "seconds (one core)"]
    table = []
    for radius, rows in groups.items():
        for r in rows:
            rates = rates_by_mode(r, "even")
            table.append([f"{radius:g}", f"{r['h']:g}", f"{r['mu']:.6f}",
                          *(f"{rates.get(m, float('nan')):.4f}" for m in unstable),
                          f"{r['seconds']:.0f}" if r.get("one_core") else "—"])
        limits = [extrapolated(rows, m, pair) for m in unstable]
        if all(v is not None for v in limits):
            table.append([f"{radius:g}", f"→ 0 (from {', '.join(f'{h:g}' for h in pair)})", "",
                          *(f"{v:.4f}" for v in limits), ""])
    return markdown_table(header, table)


def radius_note(groups, unstable, reference):
    """What changes with R: per unstable m, at each step solved at every radius, the rate's change from the
    reference radius to the largest and from the smallest to the reference."""
    smallest, largest = min(groups), max(groups)
    parts = []
    for m in unstable:
        for h in shared_steps(groups):
            rate = rates_at(groups, m, h)
            parts.append(f"m = {m}, h = {h:g}: {' → '.join(f'{rate[R]:.4f}' for R in sorted(rate))} (R = "
                         f"{', '.join(f'{R:g}' for R in sorted(rate))})")
    return (f"Against the box radius (ψ = 0 at ρ = R and |z| = R, solved at R = "
            f"{', '.join(f'{R:g}' for R in groups)}; (a), (b) and the first table at R = {reference:g}): "
            + "; ".join(parts) + f". From R = {reference:g} to {largest:g} the rates move by at most "
            f"{max_change(groups, unstable, reference, largest):.1e}, from {smallest:g} to {reference:g} by "
            f"{max_change(groups, unstable, smallest, reference):.1e}.")


def max_change(groups, unstable, first, second):
    """max |σ_m(second) − σ_m(first)| over the unstable m and the steps solved at both radii."""
    changes = [abs(rates_by_mode(a, "even")[m] - rates_by_mode(b, "even")[m])
               for a in groups[first] for b in groups[second] if a["h"] == b["h"] for m in unstable]
    return max(changes)


def render(device_dir, out_dir):
    path = Path(device_dir) / FILE
    rows = sorted(read_json(path)["rows"], key=lambda r: -r["h"])
    result = Rendered(inputs=[path])
    unstable = sorted({m for r in rows for m, v in rates_by_mode(r, "even").items() if v > 0})
    radii_path = Path(device_dir) / RADII_FILE
    groups = {}
    if radii_path.exists():
        result.inputs.append(radii_path)
        groups = by_radius(rows + [{**r, "one_core": True} for r in read_json(radii_path)["rows"]])
    fig, axes = plt.subplots(1, 3 if groups else 2, figsize=(19.5 if groups else 13, 4.8), constrained_layout=True)
    spectrum, convergence = axes[:2]
    if groups:
        radius_panel(axes[2], groups, unstable)
    for r, marker in zip(rows, ("o", "s", "^", "D")):
        for parity, fill in (("even", "full"), ("odd", "none")):
            rates = rates_by_mode(r, parity)
            if rates:
                spectrum.plot(list(rates), list(rates.values()), marker=marker, linestyle="none",
                              fillstyle=fill, label=f"h = {r['h']:g}, {parity} in z")
    spectrum.set(xlabel="azimuthal mode m", ylabel="growth rate max |Im ω| (ω⊥)",
                 title="(a) dynamical instabilities of the κ = 10 vortex, per mode")
    spectrum.legend(fontsize="small")
    for m in unstable:
        limit = extrapolated(rows, m)
        if limit is None:
            continue
        steps = [(r["h"] ** 2, rates_by_mode(r, "even")[m] - limit) for r in rows if m in rates_by_mode(r, "even")]
        line, = convergence.plot(*zip(*steps), marker="o", label=f"m = {m}: σ(h → 0) = {limit:.4f}")
        convergence.plot([0.0], [0.0], marker="*", markersize=12, color=line.get_color(), linestyle="none")
    convergence.set_xlim(left=-0.004)
    convergence.set(xlabel="h² (a_ho²)", ylabel="σ_m(h) − σ_m(h → 0) (ω⊥)",
                    title="(b) the unstable modes' rates converge as h² (★: the extrapolation)")
    convergence.legend(fontsize="small")
    footer(fig, device_dir, result.inputs, f"κ = {KAPPA}, g = {G:g}, λ = {LAMBDA:g}; finite differences in (ρ, z); "
           f"(a) and (b) at the box radius R = {rows[0]['radius']:g}")
    result.files += save_figure(fig, out_dir, "bogoliubov")
    header = ["h", "μ_h", "μ_h − μ (spectral)", "SCF residual", *(f"σ_{m} (even in z)" for m in unstable)]
    table = [[f"{r['h']:g}", f"{r['mu']:.6f}", f"{r['mu'] - r['mu_continuum']:+.2e}", f"{r['residual']:.1e}",
              *(f"{rates_by_mode(r, 'even').get(m, float('nan')):.4f}" for m in unstable)] for r in rows]
    limits = [extrapolated(rows, m) for m in unstable]
    table.append(["→ 0", "", "", "", *("—" if v is None else f"{v:.4f}" for v in limits)])
    text = markdown_table(header, table)
    if groups:
        pair = [r["h"] for r in rows][:2]  # the two coarsest steps of R = 7.5: solved at the other radii too
        text += ("\n**Against the box radius R**\n\n" + radius_table(groups, unstable, pair))
    save_table(result, out_dir, "bogoliubov", "Bogoliubov spectrum of the κ = 10 vortex", "Bogoliubov", text)
    if groups:
        result.notes.append(radius_note(groups, unstable, rows[0]["radius"]))
    result.notes.append("Modes odd in z and even modes other than m = " + ", ".join(map(str, unstable)) +
                        " are stable (max |Im ω| = 0) at every step that solved them; h → 0 is the extrapolation "
                        "from the two finest steps (error ∝ h²).")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="write the growth rates as JSON here")
    parser.add_argument("--steps", default="0.3,0.25,0.2", help="grid steps h, comma-separated")
    parser.add_argument("--radius", type=float, default=7.5)
    parser.add_argument("--modes", default="1-8", help="azimuthal modes m, A-B")
    parser.add_argument("--parities", default="even,odd", help="parities in z: even, odd or both")
    args = parser.parse_args()
    rows = []
    for h in (float(x) for x in args.steps.split(",")):
        began = time.time()
        state = ground_state(h, args.radius)
        row = {"h": h, "radius": args.radius, "mu": state["mu"], "mu_continuum": MU_CONTINUUM,
               "scf_iterations": state["iterations"], "residual": state["residual"], "growth": {}}
        first, last = (int(x) for x in args.modes.split("-"))
        chosen = [p for p in ((+1, "even"), (-1, "odd")) if p[1] in args.parities.split(",")]
        for parity, name in chosen:
            for m in range(first, last + 1):
                omega = bogoliubov(state, m, parity)
                row["growth"][f"{name}_m{m}"] = float(np.max(np.abs(omega.imag)))
        row["seconds"] = time.time() - began
        rows.append(row)
        rates = ", ".join(f"{k}: {v:.4f}" for k, v in row["growth"].items())
        print(f"h = {h}: mu = {state['mu']:.6f} (continuum {MU_CONTINUUM:.6f}), residual {state['residual']:.1e}, "
              f"{state['iterations']} SCF iterations, {row['seconds']:.0f} s\n  max |Im omega|: {rates}", flush=True)
    if args.out:
        json.dump({"command": "reports/bogoliubov.py " + " ".join(f"--{k} {v}" for k, v in vars(args).items() if k != "out"),
                   "kappa": KAPPA, "g": G, "lambda": LAMBDA, "rows": rows}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
