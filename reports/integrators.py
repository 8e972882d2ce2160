"""The integrators' work–precision study (bench/work_precision.cpp, scripts/integrators-run.sh): for the κ = 10
vortex on cubic, BCC, C15 and cubic4, every scheme over a range of Δt to t = 5 (and, where the data have them, the
adaptive runs over a range of θ or tolerances, dashed), its error against a converged reference of the same grid
(the time error) and against the continuum state ψ₀e^{−iμt} (the total error), against GPU seconds and kernel
passes; and a table of the fastest scheme per lattice and error target.

The reference solution's own error against ψ₀e^{−iμt} is no lower limit to a run's total error: it is mostly
the phase (μ − μ_h)t the grid's chemical potential μ_h turns, and a scheme's time-step phase error can cancel part of
it. work_precision.json holds the three distances (run–reference, run–continuum, reference–continuum) and no
overlap ⟨ψ₀|ψ⟩ per run, so no phase-corrected total error can be computed from it; for the grids that the accuracy
study ran too (physics/accuracy_<lattice>.h5, same cells and h), the table gives that run's phase and phase-corrected
error at t = 5, splitting the grid's error into its two parts.

    integrators.py FOLDER [--out DIR]      FOLDER: reports/data/<device> (reads integrators/work_precision.json)
"""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

import physics
from common import Rendered, footer, markdown_table, read_json, registry, run_on_folder, save_figure

SCHEMES = registry("schemes")
STYLE = {scheme: (f"C{i}", "os^vD<>p"[i % 8]) for i, scheme in enumerate(SCHEMES)}
# The figure's names where they differ from the code's (--scheme); the table keeps the code's.
DISPLAY = {"rk4": "RK4", "trotter_suzuki": "Trotter–Suzuki 2", "trotter_suzuki4": "Trotter–Suzuki 4",
           "exponential": "exponential (Chebyshev)"}
NAMES = {"cubic": "cubic", "bcc": "BCC", "c15": "C15", "cubic4": "cubic4 (4th-order operator)"}
TARGETS = (1e-2, 1e-3)  # total error
TIME_TARGETS = (1e-3, 1e-5)  # time error
CANCELLATION = 2.0  # a total error this many times below the reference's own is named in the caption
RING = dict(marker="o", markersize=12, markerfacecolor="none", markeredgecolor="black", markeredgewidth=1.0,
            linestyle="none")


def load(device_dir):
    path = Path(device_dir) / "integrators" / "work_precision.json"
    return read_json(path), path


def series(case):
    """(scheme, adaptive, runs by cost) for each scheme's fixed-step and adaptive runs present in the case."""
    for scheme in SCHEMES:
        for adaptive in (False, True):
            runs = sorted((r for r in case["runs"] if r["scheme"] == scheme and r.get("adaptive", False) == adaptive),
                          key=lambda r: r["seconds"])
            if runs:
                yield scheme, adaptive, runs


def unresolved(case):
    """The runs whose time error lies below the reference solution's own error (against one at half its Δt): the
    reference cannot resolve them."""
    return [r for r in case["runs"] if r["time_error"] < case["reference_error"]]


def label(scheme, adaptive):
    name = DISPLAY.get(scheme, scheme)
    return f"{name} (adaptive)" if adaptive else name


def figure(doc):
    cases = doc["cases"]
    fig, axes = plt.subplots(2, len(cases), figsize=(3.6 * len(cases), 6.6), squeeze=False)
    for col, case in enumerate(cases):
        for scheme, adaptive, runs in series(case):
            colour, marker = STYLE[scheme]
            style = dict(marker=marker, color=colour, ls="--" if adaptive else "-", mfc="none" if adaptive else colour,
                         label=label(scheme, adaptive))
            axes[0][col].loglog([r["seconds"] for r in runs], [r["total_error"] for r in runs], **style)
            axes[1][col].loglog([r["passes"] for r in runs], [r["time_error"] for r in runs], **style)
        axes[0][col].axhline(case["reference_total_error"], color="0.4", lw=1, ls="--")
        axes[1][col].axhline(case["reference_error"], color="0.4", lw=1, ls=":")
        below = unresolved(case)
        if below:
            axes[1][col].plot([r["passes"] for r in below], [r["time_error"] for r in below], gid="unresolved",
                              **RING)
        axes[0][col].set_title(f"{NAMES.get(case['lattice'], case['lattice'])}, {case['cells'] / 1e6:.2f}M cells",
                               fontsize="medium")
        axes[0][col].set_xlabel("GPU seconds to t = 5")
        axes[1][col].set_xlabel("kernel passes over the state to t = 5")
        for ax in axes[:, col]:
            ax.grid(True, which="major", alpha=0.3)
            ax.set_ylim(top=3)
    axes[0][0].set_ylabel(r"total error $\|\psi - \psi_0 e^{-i\mu t}\|\,/\,\|\psi_0\|$")
    axes[1][0].set_ylabel(r"time error $\|\psi - \psi_{\rm ref}\|\,/\,\|\psi_{\rm ref}\|$")
    handles, labels = axes[0][-1].get_legend_handles_labels()
    handles += [Line2D([], [], color="0.4", lw=1, ls="--"), Line2D([], [], color="0.4", lw=1, ls=":")]
    labels += ["top: the reference solution against ψ₀e^(−iμt) (the grid's error, mostly phase)",
               "bottom: the reference's own time error (against half its Δt)"]
    if any(unresolved(case) for case in cases):
        handles.append(Line2D([], [], **RING))
        labels.append("ringed: time error below the dotted line (unresolved)")
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize="small", frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.88))
    return fig


def cancellations(doc):
    """{scheme: [(lattice name, its lowest total error, that run's time error, the reference's total error)]} where
    a scheme's total error lies CANCELLATION times or more below the reference solution's own: its time-step phase
    error cancelling part of the grid's."""
    found = {}
    for case in doc["cases"]:
        spatial = case["reference_total_error"]
        for scheme in SCHEMES:
            best = min((r for r in case["runs"] if r["scheme"] == scheme), key=lambda r: r["total_error"],
                       default=None)
            if best and best["total_error"] * CANCELLATION <= spatial:
                found.setdefault(scheme, []).append((NAMES.get(case["lattice"], case["lattice"]).split(" (")[0],
                                                     best["total_error"], best["time_error"], spatial))
    return found


def cancellation_text(doc, names=DISPLAY):
    """"Trotter–Suzuki 2 on cubic (0.034 against 0.26, time error 0.27), …" for the caption and the table's note."""
    return "; ".join(f"{names.get(scheme, scheme)} on " + ", ".join(
        f"{lattice} ({low:.2g} against {spatial:.2g}, time error {time:.2g})" for lattice, low, time, spatial in where)
                     for scheme, where in cancellations(doc).items())


def caption(doc):
    """The figure's note: what each line is, and why points fall below the dashed one."""
    named = cancellation_text(doc)
    reference = doc["cases"][0]
    return (
        "Top: error against the continuum state ψ₀e^(−iμt). Dashed: the converged reference solution's own error "
        "against it, the grid's error, mostly the global phase (μ − μ_h)t that the grid's chemical potential μ_h turns "
        "by t = 5 (table: the accuracy runs on the same grids). It is no lower limit: a scheme's time-step phase "
        "error can cancel part of the grid's, and points below the dashed line are such phase cancellation, not "
        "accuracy" + (f"; a factor {CANCELLATION:g} or more below: {named}" if named else "") + ". "
        "work_precision.json holds no overlap ⟨ψ₀|ψ⟩ per run: no phase-corrected total error can be drawn.\n"
        f"Bottom: error against the reference solution ({reference['reference_scheme']} at L/4); dotted: the "
        "reference's own error (against L/8); ringed points lie below it, unresolved by this reference.\n"
        "Δt from 16 L down (L = the leapfrog's limit 1/ρ(M)); dashed lines, open markers: adaptive steps (split "
        "schemes θ = 0.4…0.025, RK4 tolerance 1e-5…1e-11). Passes: kernel passes over the state "
        "(Scheme::traffic()).")


def fastest(case, key, target):
    """The cheapest run (GPU seconds) whose `key` error is at most `target`, or None.
    A total error counts only with the time error within the target too: no credit for a time error that happens to
    cancel part of the grid's phase error."""
    ok = [r for r in case["runs"] if r[key] <= target and r["time_error"] <= target]
    if not ok:
        return None
    best = min(ok, key=lambda r: r["seconds"])
    return best


def cell(best, spatial=None, target=None):
    """A table cell: the fastest run, or "none". For a total-error target: a run counts only with its time error
    ≤ target, and then, by the triangle inequality, its total error is ≥ (the reference's total error − target);
    where that exceeds the target, "none (≥ bound)" says no run could count."""
    if best is None:
        if spatial is not None and spatial - target > target:
            return f"none (≥ {spatial - target:.2g})"
        return "none"
    if best.get("adaptive", False):
        setting = f"θ = {best['theta']:g}" if "theta" in best else f"tol = {best['tolerance']:g}"
        how = f"adaptive, {setting}, mean Δt = {best['dt_over_leapfrog_limit']:.3g} L"
    else:
        how = f"Δt = {best['dt_over_leapfrog_limit']:g} L"
    return f"{best['scheme']} ({how}, {best['seconds']:.2f} s)"


def same_grid_runs(device_dir, doc):
    """{lattice: physics.Run} of the accuracy runs (physics/accuracy_<lattice>.h5) on the very grid of a case: same
    lattice, cell count and h."""
    found = {}
    for case in doc["cases"]:
        path = Path(device_dir) / "physics" / f"accuracy_{case['lattice']}.h5"
        if not path.exists():
            continue
        run = physics.load(path)
        if run.attrs["cells"] == case["cells"] and np.isclose(run.attrs["h"], case["h"], rtol=1e-5):
            found[case["lattice"]] = run
    return found


def grid_parts(case, run):
    """The accuracy run's phase φ(t) = arg(e^(iμt)⟨ψ₀|ψ(t)⟩) and phase-corrected error min_φ‖ψ − e^(iφ)ψ₀‖ at the
    study's end time, and its Δt in leapfrog limits."""
    end = case["end_time"]
    phase = run.at(run.phase, end)
    shape = run.at(run.rmse_phase, end) * np.sqrt(run.attrs["domain_volume"])  # ‖ψ₀‖ = 1
    return phase, shape, run.attrs["dt"] / case["leapfrog_limit"]


def table(doc, grids=None):
    grids = grids or {}
    header = ["lattice", "cells", "reference vs ψ₀e^(−iμt) (grid's error)", "accuracy run, t = 5: phase φ (rad)",
              "accuracy run, t = 5: phase-corrected error", *(f"total ≤ {t:g}" for t in TARGETS),
              *(f"time ≤ {t:g}" for t in TIME_TARGETS)]
    rows = []
    for case in doc["cases"]:
        spatial = case["reference_total_error"]
        run = grids.get(case["lattice"])
        phase, shape = grid_parts(case, run)[:2] if run else (None, None)
        rows.append([NAMES.get(case["lattice"], case["lattice"]), f"{case['cells']:,}", f"{spatial:.3g}",
                     f"{phase:.3g} (2 sin(φ/2) = {2 * abs(np.sin(phase / 2)):.3g})" if run else "—",
                     f"{shape:.2g}" if run else "—",
                     *(cell(fastest(case, "total_error", t), spatial, t) for t in TARGETS),
                     *(cell(fastest(case, "time_error", t)) for t in TIME_TARGETS)])
    return markdown_table(header, rows)


def table_note(doc, grids):
    steps = sorted({f"{grid_parts(case, grids[case['lattice']])[2]:.2f}" for case in doc["cases"]
                    if case["lattice"] in grids})
    return (
        "L: the leapfrog's stability limit 1/ρ(M(ψ⁰)) on that grid. A total error counts only where the time error "
        "is within the target too. 'none (≥ b)': then, by the triangle inequality, the total error is at least the "
        "reference's total error minus the target, b, above the target: no run of this grid can count. 'none': no "
        "run of the study reached the target.\n\n"
        "The reference's total error is the grid's error against the continuum state, mostly its global phase: "
        "2 sin(φ/2) is the error a pure phase φ gives. It is no lower limit to a run's total error: a run's "
        "time-step phase error can cancel part of it"
        + (f" ({cancellation_text(doc, {})})" if cancellations(doc) else "") + ". work_precision.json holds no overlap ⟨ψ₀|ψ⟩ per run, so no phase-corrected total "
        "error per run can be computed from it."
        + (" Phase and phase-corrected error: from the accuracy run on the same grid (physics/accuracy_<lattice>.h5: "
           f"same lattice, cells and h; leapfrog at Δt = {' or '.join(steps)} L, whose own time error is inside "
           "these numbers)." if grids else "") + "\n")


def render(device_dir, out_dir):
    doc, path = load(device_dir)
    grids = same_grid_runs(device_dir, doc)
    result = Rendered(inputs=[path, *(run.path for run in grids.values())])
    fig = figure(doc)
    footer(fig, device_dir, result.inputs, caption(doc))
    result.files += save_figure(fig, out_dir, "integrators_work_precision")
    text = table(doc, grids)
    table_path = Path(out_dir) / "integrators_fastest.md"
    table_path.write_text("# The fastest scheme per lattice and error target (GPU seconds to t = 5)\n\n" + text +
                          "\n" + table_note(doc, grids))
    result.files.append(table_path)
    result.tables.append(text)
    result.notes.append("The total error contains the grid's phase error (μ − μ_h)t, which a scheme's time-step phase "
                        "error can partly cancel: points below the reference's total error are such cancellation. "
                        "The time error isolates the integrator; ringed points lie below the reference's own error.")
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with integrators/work_precision.json)")
