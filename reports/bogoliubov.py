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
"""

import argparse
import json
import time

import numpy as np

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
