"""The integrators' work–precision study (bench/work_precision.cpp, scripts/integrators-run.sh): for the κ = 10
vortex on cubic, BCC, C15 and cubic4, every scheme over a range of Δt to t = 5 (and, where the data have them, the
adaptive runs over a range of θ or tolerances, dashed), its error against a converged reference of the same grid
(the time error) and against the continuum state ψ₀e^{−iμt} (the total error), against GPU seconds and kernel
passes; and a table of the fastest scheme per lattice and error target.

    integrators.py FOLDER [--out DIR]      FOLDER: reports/data/<device> (reads integrators/work_precision.json)
"""

from pathlib import Path

import matplotlib.pyplot as plt

from common import Rendered, footer, markdown_table, read_json, run_on_folder, save_figure

SCHEMES = ("leapfrog", "rk4", "trotter_suzuki", "trotter_suzuki4", "exponential")
STYLE = {"leapfrog": ("C0", "o"), "rk4": ("C1", "s"), "trotter_suzuki": ("C2", "^"), "trotter_suzuki4": ("C3", "v"),
         "exponential": ("C4", "D")}
NAMES = {"cubic": "cubic", "bcc": "BCC", "c15": "C15", "cubic4": "cubic4 (4th-order operator)"}
TARGETS = (1e-2, 1e-3)  # total error
TIME_TARGETS = (1e-3, 1e-5)  # time error


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


def figure(doc):
    cases = doc["cases"]
    fig, axes = plt.subplots(2, len(cases), figsize=(3.6 * len(cases), 6.6), squeeze=False)
    for col, case in enumerate(cases):
        for scheme, adaptive, runs in series(case):
            colour, marker = STYLE[scheme]
            style = dict(marker=marker, color=colour, ls="--" if adaptive else "-", mfc="none" if adaptive else colour,
                         label=f"{scheme} (adaptive)" if adaptive else scheme)
            axes[0][col].loglog([r["seconds"] for r in runs], [r["total_error"] for r in runs], **style)
            axes[1][col].loglog([r["passes"] for r in runs], [r["time_error"] for r in runs], **style)
        spatial = case["reference_total_error"]
        axes[0][col].axhline(spatial, color="0.5", lw=0.8, ls="--")
        axes[0][col].annotate("reference: spatial error", (0.02, spatial), xycoords=("axes fraction", "data"),
                              va="bottom", fontsize="x-small", color="0.4")
        axes[1][col].axhline(case["reference_error"], color="0.5", lw=0.8, ls=":")
        axes[0][col].set_title(f"{NAMES.get(case['lattice'], case['lattice'])}, {case['cells'] / 1e6:.2f}M cells",
                               fontsize="medium")
        axes[0][col].set_xlabel("GPU seconds to t = 5")
        axes[1][col].set_xlabel("kernel passes over the state to t = 5")
        for ax in axes[:, col]:
            ax.grid(True, which="major", alpha=0.3)
            ax.set_ylim(top=3)
    axes[0][0].set_ylabel("total error ‖ψ − ψ₀e^{−iμt}‖ / ‖ψ₀‖")
    axes[1][0].set_ylabel("time error ‖ψ − ψ_ref‖ / ‖ψ_ref‖")
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize="small", frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def fastest(case, key, target):
    """The cheapest run (GPU seconds) whose `key` error is at most `target`: (scheme, Δt/limit, seconds), or None.
    A total error counts only with the time error within the target too: no credit for a time error that happens to
    cancel part of the grid's spatial error."""
    ok = [r for r in case["runs"] if r[key] <= target and r["time_error"] <= target]
    if not ok:
        return None
    best = min(ok, key=lambda r: r["seconds"])
    return best


def cell(best, floor=None):
    if best is None:
        return f"none (spatial error {floor:.2g})" if floor is not None else "none"
    if best.get("adaptive", False):
        setting = f"θ = {best['theta']:g}" if "theta" in best else f"tol = {best['tolerance']:g}"
        how = f"adaptive, {setting}, mean Δt = {best['dt_over_leapfrog_limit']:.3g} L"
    else:
        how = f"Δt = {best['dt_over_leapfrog_limit']:g} L"
    return f"{best['scheme']} ({how}, {best['seconds']:.2f} s)"


def table(doc):
    header = ["lattice", "cells", "spatial error", *(f"total ≤ {t:g}" for t in TARGETS),
              *(f"time ≤ {t:g}" for t in TIME_TARGETS)]
    rows = []
    for case in doc["cases"]:
        spatial = case["reference_total_error"]
        rows.append([NAMES.get(case["lattice"], case["lattice"]), f"{case['cells']:,}", f"{spatial:.3g}",
                     *(cell(fastest(case, "total_error", t), spatial) for t in TARGETS),
                     *(cell(fastest(case, "time_error", t)) for t in TIME_TARGETS)])
    return markdown_table(header, rows)


def render(device_dir, out_dir):
    doc, path = load(device_dir)
    result = Rendered(inputs=[path])
    note = ("Δt from 16 L down (L = the leapfrog's limit 1/ρ(M)); dashed, open: adaptive steps (split schemes θ = "
            "0.4…0.025, RK4 tolerance 1e-5…1e-11); reference: trotter_suzuki4 at L/4 (its error, dotted, against L/8)."
            "\nTotal error floor (dashed): the grid's spatial error. Passes: kernel passes over the state "
            "(Scheme::traffic()).")
    fig = figure(doc)
    footer(fig, device_dir, result.inputs, note)
    result.files += save_figure(fig, out_dir, "integrators_work_precision")
    text = table(doc)
    table_path = Path(out_dir) / "integrators_fastest.md"
    table_path.write_text("# The fastest scheme per lattice and error target (GPU seconds to t = 5)\n\n" + text +
                          "\nL: the leapfrog's stability limit 1/ρ(M(ψ⁰)) on that grid. 'none': no scheme and Δt of "
                          "the study reached the target; below the spatial error no Δt can. A total error counts only where the time "
                          "error is within the target too.\n")
    result.files.append(table_path)
    result.tables.append(text)
    result.notes.append("Total error is bounded below by the grid's spatial error; the time error isolates the "
                        "integrator.")
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with integrators/work_precision.json)")
