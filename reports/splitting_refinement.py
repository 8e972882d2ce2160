"""The seeded split from the lattice's own stationary state under refinement (issue 33 part 5): cubic and BCC, lattice
centred, at the paper's work per time unit (DEVICE_FOLDER/splitting/splitting-study-*.json, the report "Stationary
start") and at the refinements of DEVICE_FOLDER/splitting-refined/splitting-study-*.json.

Per lattice and resolution: the grid (cells, μ_h and its gap to the continuum μ), the seeded split time (the first
diagnostics time with E > 0.01; the seeds every resolution ran, and the base's over all its seeds), the unseeded run,
the folds, σ₃ from the fit window that reports/stationary_start.py's rule picks among that resolution's runs, and σ₃'s
spread over every window the rule admits. Then the successive differences of the split time and of σ₃, their ratio,
and a Richardson estimate where that ratio supports one (RICHARDSON_RULE below).

A study's operations_per_time and diagnostics_every are those its recorded command passed every run (SPLITTING_SET),
else cases/accuracy/<lattice>.toml's, which its runs read (both keys unchanged there since the cases were written).

    splitting_refinement.py DEVICE_FOLDER [--out DIR]

Units: t in 1/ω⊥, σ in ω⊥, μ in ħω⊥.
"""

import itertools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import bogoliubov
import physics
import stationary_start
from common import (LABELS, ROOT, Rendered, footer, markdown_table, plt, read_json, run_on_folder, save_figure,
                    save_sections)

FILES = "splitting-refined/splitting-study-*.json"
LATTICES = ("cubic", "bcc")
PLACEMENT = "centred"
SEEDS = (1, 2, 3)  # seeded at every resolution: the comparison across resolutions takes these alone
CASES = ROOT / "cases" / "accuracy"
SPLITTING_SET = re.compile(r"^SPLITTING_SET='([^']*)'")
RICHARDSON_RULE = ("a Richardson estimate is given where the ratio r of the successive differences lies in (0, 1) "
                   "(convergent) and its range holds q, the ratio an error ∝ h² gives on the finer step (consistent "
                   "with second order); it assumes that error ∝ h², h ∝ cells^(−1/3), and extrapolates the two finest "
                   "resolutions: x + (x − x_coarser) q / (1 − q)")


@dataclass
class Level:
    """One lattice at one work per time unit."""

    lattice: str
    work: float  # operations_per_time
    state: dict  # the tightest stationary solve of the lattice's studies at this work
    seeded: list  # every seeded run, in seed order
    unseeded: dict  # None where there is none
    interval: float  # E's sampling: a split time is late by less than this
    scan: list  # stationary_start.window_scan over the SEEDS runs
    rule: tuple  # the rule's window; None where none is admissible

    def compared(self):
        return [r for r in self.seeded if r["seed"] in SEEDS]

    def sigma3(self, window=None):
        """σ₃ of the SEEDS runs in `window` (the rule's by default)."""
        window = window or self.rule
        return next(s for w, s, _ in self.scan if w == window) if window else np.array([np.nan])


def setting(doc, lattice, key):
    """A case setting of a study's runs: its SPLITTING_SET's value where the recorded command gives one, else
    cases/accuracy/<lattice>.toml's (a dotted key names a table: time.diagnostics_every)."""
    found = SPLITTING_SET.match(doc["command"])
    given = dict(word.split("=", 1) for word in found[1].split()) if found else {}
    if key in given:
        return float(given[key])
    with open(CASES / f"{lattice}.toml", "rb") as f:
        value = tomllib.load(f)
    for part in key.split("."):
        value = value[part]
    return float(value)


def sampling(docs, lattice):
    """(spectrum probe steps, diagnostics steps) that the studies of one resolution share."""
    found = {(doc["settings"]["spectrum_every"], setting(doc, lattice, "time.diagnostics_every")) for _, doc in docs}
    if len(found) != 1:
        raise ValueError(f"{lattice}: the studies of one resolution sampled differently: {sorted(found)}")
    return found.pop()


def level(lattice, work, docs):
    """The Level of `lattice` at `work` from its studies' documents [(path, doc)]; None without a seeded run."""
    states, runs = stationary_start.collect(docs)
    state = next((s for s in states if (s["lattice"], s["placement"]) == (lattice, PLACEMENT)), None)
    runs = sorted((r for r in runs if (r["lattice"], r["placement"]) == (lattice, PLACEMENT)), key=lambda r: r["seed"])
    seeded = [r for r in runs if r["seed"] > 0]
    if state is None or not any(r["seed"] in SEEDS for r in seeded):
        return None
    probe, diagnostics = sampling(docs, lattice)
    time_step = max(r["history_t"][1] - r["history_t"][0] for r in seeded) / probe  # history_t: every probe steps
    scan = stationary_start.window_scan([r for r in seeded if r["seed"] in SEEDS])
    return Level(lattice, work, state, seeded, next((r for r in runs if r["seed"] == 0), None),
                 diagnostics * time_step, scan, stationary_start.ruled_window(scan))


def levels(device_dir):
    """({lattice: [Level], work ascending}, the study files that hold the lattices' centred runs)."""
    paths = sorted(Path(device_dir).glob(stationary_start.FILES)) + sorted(Path(device_dir).glob(FILES))
    grouped, used = {}, []
    for path in paths:
        doc = read_json(path)
        for lattice in LATTICES:
            if any((r["lattice"], r["placement"]) == (lattice, PLACEMENT) for r in doc["runs"] + doc["states"]):
                grouped.setdefault((lattice, setting(doc, lattice, "operations_per_time")), []).append((path, doc))
                used += [] if path in used else [path]
    found = {}
    for (lattice, work), docs in sorted(grouped.items(), key=lambda item: (LATTICES.index(item[0][0]), item[0][1])):
        made = level(lattice, work, docs)
        if made:
            found.setdefault(lattice, []).append(made)
    return found, used


def split_times(runs):
    return [r["split_t"] for r in runs if r["split_t"] is not None]


def mean_range(values, form=".3f"):
    """mean (min–max) of the finite values; — without any."""
    return stationary_start.summarised(values, form, lambda v, f: f"{np.mean(v):{f}} ({min(v):{f}}–{max(v):{f}})")


def unseeded_text(run):
    """stationary_start's, with the last E sampled where the run did not split."""
    text = stationary_start.unseeded_text(run)
    if run is not None and run["split_t"] is None and "series" in run:
        text += f" (E = {run['series']['error'][-1]:.1e} at t = {run['series']['t'][-1]:.2f})"
    return text


def work_text(level):
    """6e9, 1.2e10: the way the case files and the study's command write it."""
    return f"{level.work:.3g}".replace("e+0", "e").replace("e+", "e")


def resolution_table(by_lattice):
    head = ["lattice", "operations_per_time", "cells", "μ_h", "μ_h − μ", "E sampled every",
            f"split, seeds {SEEDS[0]}–{SEEDS[-1]}: mean (min–max)", "split, every seed: mean (min–max)", "unseeded",
            f"folds, seeds {SEEDS[0]}–{SEEDS[-1]}"]
    rows = []
    for level in (lv for group in by_lattice.values() for lv in group):
        s = level.state
        rows.append([LABELS[level.lattice], work_text(level), str(s["cells"]), f"{s['mu_h']:.7f}",
                     f"{s['mu_h'] - s['mu_continuum']:+.5f}", f"{level.interval:.4f}",
                     mean_range(split_times(level.compared())),
                     f"{mean_range(split_times(level.seeded))}, {len(level.seeded)} seeds",
                     unseeded_text(level.unseeded), stationary_start.counts_text(level.compared())])
    return markdown_table(head, rows)


def admitted(level):
    """σ₃ of every SEEDS run in every window the rule admits at this level, and how many windows."""
    kept = [s for _, s, rms in level.scan if stationary_start.admissible(rms)]
    return (np.concatenate(kept) if kept else np.array([np.nan])), len(kept)


def growth_table(by_lattice, continuum):
    head = ["lattice", "operations_per_time", "the rule's window", "σ₃, the rule's window: mean (min–max)",
            "σ₃, every admissible window: min–max (windows)", f"σ₃ against the continuum's {continuum:.4f}",
            "split × σ₃: mean (min–max)"]
    rows = []
    for level in (lv for group in by_lattice.values() for lv in group):
        sigma, (kept, windows) = level.sigma3(), admitted(level)
        products = [r["split_t"] * s for r, s in zip(level.compared(), sigma) if r["split_t"] is not None]
        rows.append([LABELS[level.lattice], work_text(level),
                     stationary_start.window_text(level.rule) if level.rule else "none admissible",
                     mean_range(sigma, ".5f"), f"{np.nanmin(kept):.5f}–{np.nanmax(kept):.5f} ({windows})",
                     f"{100 * (np.nanmean(sigma) / continuum - 1):+.2f}%", mean_range(products)])
    return markdown_table(head, rows)


def h2_ratio(coarse, fine):
    """(h_fine / h_coarse)² with h ∝ cells^(−1/3) (the same cuboid of eq. 15 at every resolution)."""
    return (coarse.state["cells"] / fine.state["cells"]) ** (2 / 3)


def ratio(values):
    """The second successive difference over the first."""
    return (values[2] - values[1]) / (values[1] - values[0])


def richardson(values, q):
    return values[-1] + (values[-1] - values[-2]) * q / (1 - q)


def split_variants(group):
    """The seeds' mean split time per level, and every corner of where the true one lies: each up to one sampling
    interval earlier (E is sampled; the split is the first sample past 0.01)."""
    values = np.array([np.mean(split_times(lv.compared())) for lv in group])
    intervals = np.array([lv.interval for lv in group])
    corners = [values - np.array(c) * intervals for c in itertools.product((0, 1), repeat=len(group))]
    return values, corners, "E's sampling"


def sigma_variants(group):
    """σ₃'s mean per level in the rule's windows, and in every window admissible at every level."""
    values = np.array([np.nanmean(lv.sigma3()) for lv in group])
    scans = [{w: rms for w, _, rms in lv.scan} for lv in group]
    shared = [w for w in scans[0] if all(stationary_start.admissible(scan.get(w, np.nan)) for scan in scans)]
    return values, [np.array([np.nanmean(lv.sigma3(w)) for lv in group]) for w in shared], \
        f"the {len(shared)} windows admissible at every resolution"


def convergence_row(group, name, variants, form):
    """One quantity's values, differences, ratio and range, q, and the Richardson estimate where the rule allows."""
    values, others, source = variants(group)
    cells = [LABELS[group[0].lattice], name, " → ".join(f"{v:{form}}" for v in values),
             ", ".join(f"×{fine.work / coarse.work:.3g}" for coarse, fine in zip(group, group[1:])),
             ", ".join(f"{d:+{form}}" for d in np.diff(values))]
    if len(group) != 3:
        return cells + ["—"] * 5
    r, q = ratio(values), h2_ratio(group[1], group[2])
    rs = [ratio(v) for v in others] or [r]
    cells += [f"{r:.3f}", f"{min(rs):.2f}–{max(rs):.2f} ({source})", f"{q:.3f}"]
    if 0 < r < 1 and min(rs) <= q <= max(rs):
        estimates = [richardson(v, q) for v in others] or [richardson(values, q)]
        return cells + [f"{richardson(values, q):{form}} ({min(estimates):{form}}–{max(estimates):{form}})"]
    return cells + ["not supported"]


def convergence_table(by_lattice):
    head = ["lattice", "quantity", "values, work ascending", "steps of the work", "successive differences", "ratio r",
            "r's range (over)", "q = (h_fine/h_coarse)², finer step", "Richardson estimate (range)"]
    rows = []
    for group in by_lattice.values():
        rows.append(convergence_row(group, f"seeded split time, seeds {SEEDS[0]}–{SEEDS[-1]} mean", split_variants,
                                    ".3f"))
        rows.append(convergence_row(group, "σ₃, the rule's window, mean", sigma_variants, ".5f"))
    return markdown_table(head, rows)


def mu_note(by_lattice):
    """The gap of μ_h to the continuum μ: its ratio per step against q, and its Richardson estimate against the
    known limit (the check of the h² assumption)."""
    parts = []
    for lattice, group in by_lattice.items():
        gaps = [lv.state["mu_continuum"] - lv.state["mu_h"] for lv in group]
        shrink = ", ".join(f"{gaps[k + 1] / gaps[k]:.3f} (q = {h2_ratio(group[k], group[k + 1]):.3f})"
                           for k in range(len(group) - 1))
        text = f"{LABELS[lattice]}: the gap μ − μ_h shrinks by {shrink}"
        if len(group) == 3:
            mus = [lv.state["mu_h"] for lv in group]
            text += (f"; Richardson gives μ = {richardson(mus, h2_ratio(group[1], group[2])):.5f} against the "
                     f"continuum's {group[0].state['mu_continuum']:.5f}")
        parts.append(text)
    return ("The h² assumption, checked on μ_h (solved to a residual of 1e-8 or less, so its gap is the grid's): "
            + "; ".join(parts) + ".")


def product_note(by_lattice, limit):
    """split × σ₃ per run over the resolutions, and the split time it gives at the continuum's σ₃."""
    products = {lattice: [r["split_t"] * s for lv in group for r, s in zip(lv.compared(), lv.sigma3())
                          if r["split_t"] is not None] for lattice, group in by_lattice.items()}
    every = np.concatenate([values for values in products.values()])
    spans = ", ".join(f"{min(v):.3f}–{max(v):.3f} ({LABELS[lattice]})" for lattice, v in products.items())
    return (f"split × σ₃ of each run (seeds {SEEDS[0]}–{SEEDS[-1]}, the rule's window) over every resolution: "
            f"{spans}, within {100 * (every.max() / every.min() - 1):.2f}% of each other: the split time moves as "
            f"1/σ₃. Were the product to stay within that span, σ₃ = {limit:.5f} (the continuum's, h → 0) would put "
            f"the split at t = {every.min() / limit:.2f}–{every.max() / limit:.2f}.")


def continuum_sigma3():
    """(σ₃ at the finest step solved, σ₃ extrapolated to h = 0) of the continuum Bogoliubov spectrum."""
    rows = read_json(stationary_start.BOGOLIUBOV)["rows"]
    return stationary_start.continuum_rates()[3], bogoliubov.extrapolated(rows, 3)


def work_ticks(ax, by_lattice):
    """A logarithmic axis of the work per time unit, ticked at the resolutions run."""
    levels = {lv.work: lv for group in by_lattice.values() for lv in group}
    ax.set_xscale("log")
    ax.set_xticks(sorted(levels), [work_text(levels[w]) for w in sorted(levels)])
    ax.minorticks_off()


def split_panel(ax, by_lattice):
    for k, (lattice, group) in enumerate(by_lattice.items()):
        colour, x = physics.COLOURS[lattice], np.array([lv.work for lv in group]) * (1 + 0.03 * (2 * k - 1))
        times = [split_times(lv.compared()) for lv in group]
        mean = np.array([np.mean(t) for t in times])
        # Down to one sampling interval below the earliest seed: where the first crossing of 0.01 may lie.
        low = mean - np.array([min(t) - lv.interval for t, lv in zip(times, group)])
        high = np.maximum(0, np.array([max(t) for t in times]) - mean)  # 0, not −1 ulp, where the seeds agree
        ax.errorbar(x, mean, yerr=[low, high], fmt="o-", color=colour, capsize=3, label=LABELS[lattice])
    work_ticks(ax, by_lattice)
    ax.set(xlabel="operations_per_time (work per time unit)", ylabel="split time (1/ω⊥)",
           title=f"(a) seeded split time, seeds {SEEDS[0]}–{SEEDS[-1]}: mean, seeds and E's sampling")
    ax.legend(fontsize="small")


def sigma_panel(ax, by_lattice, continuum):
    for k, (lattice, group) in enumerate(by_lattice.items()):
        colour, x = physics.COLOURS[lattice], np.array([lv.work for lv in group]) * (1 + 0.03 * (2 * k - 1))
        mean = np.array([np.nanmean(lv.sigma3()) for lv in group])
        kept = [admitted(lv)[0] for lv in group]
        yerr = [mean - np.array([np.nanmin(s) for s in kept]), np.array([np.nanmax(s) for s in kept]) - mean]
        ax.errorbar(x, mean, yerr=yerr, fmt="o-", color=colour, capsize=3,
                    label=f"{LABELS[lattice]}, the rule's window")
    finest, limit = continuum
    ax.axhline(finest, color="0.3", linestyle=":", linewidth=1,
               label=f"continuum Bogoliubov, finest step ({finest:.4f})")
    ax.axhline(limit, color="0.3", linestyle="--", linewidth=1, label=f"continuum Bogoliubov, h → 0 ({limit:.4f})")
    work_ticks(ax, by_lattice)
    ax.set(xlabel="operations_per_time (work per time unit)", ylabel="σ₃ (ω⊥)",
           title="(b) σ₃: mean, bars over every admissible window")
    ax.legend(fontsize="small")


def render(device_dir, out_dir):
    by_lattice, paths = levels(device_dir)
    result = Rendered(inputs=paths)
    continuum = continuum_sigma3()
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), constrained_layout=True)
    split_panel(axes[0], by_lattice)
    sigma_panel(axes[1], by_lattice, continuum)
    fig.suptitle("The seeded split from the lattice's own stationary state against the work per time unit, centred")
    epsilons = sorted({r["epsilon"] for group in by_lattice.values() for lv in group for r in lv.compared()})
    epsilon = ", ".join(f"{e:g}".replace("e-0", "e-") for e in epsilons)
    footer(fig, device_dir, result.inputs, f"ε = {epsilon} on m = 1…8; split: the first sample of E > 0.01; σ₃ "
           "fitted to ln|c₃| in the window reports/stationary_start.py's rule picks per resolution")
    result.files += save_figure(fig, out_dir, "splitting-refinement")
    sections = [("Per resolution: the grid, the split, the unseeded run", resolution_table(by_lattice)),
                ("Per resolution: σ₃ and its window", growth_table(by_lattice, continuum[0])),
                ("Convergence", convergence_table(by_lattice))]
    notes = [f"Richardson: {RICHARDSON_RULE}.", mu_note(by_lattice), product_note(by_lattice, continuum[1]),
             "Split times: the first diagnostics sample with E > 0.01, so each is late by less than one sampling "
             "interval (the table's E sampled every); r's range over E's sampling takes every true split time "
             "within that interval. σ₃'s range takes each window admissible at every resolution.",
             f"Continuum Bogoliubov σ₃ (reports/bogoliubov.py): {continuum[0]:.5f} at its finest step, "
             f"{continuum[1]:.5f} extrapolated to h = 0.",
             "Units: t in 1/ω⊥, σ in ω⊥, μ in ħω⊥."]
    save_sections(result, out_dir, "splitting-refinement", "The seeded split under refinement", sections, notes)
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with splitting/ and splitting-refined/)")
