"""Splits from the lattice's own stationary state (issue 16, items 1, 3 and 4), from scripts/splitting-study-run.sh's
DEVICE_FOLDER/splitting/splitting-study-*.json. Per lattice and placement the κ = 10 vortex is first solved on the
lattice itself (M(ψ)ψ = μ_h ψ to a residual of 1e-8, some also to 1e-10: the table shows the tightest solve; every
run's own residual is in its record), then run from it to the split (E(t) > 0.01) or t = 100, with
controlled seeds (ψ_h (1 + ε Σ_{m=1..8} cos(mφ + θ_m)), ε = 1e-6, the phases from the run's seed) and once unseeded.

- Fold statistics (Fig 6 as counts): the dominant m ≥ 2 at the split over the seeds, the split times, and the growth
  rates σ_3, σ_4 of the azimuthal amplitudes |c_3|, |c_4| of the density change on z = 0, fitted as ln|c_m| = a + σt
  over the run's exponential phase (GROWTH_WINDOW below).
- Fig 5 from the stationary start: E(t) and the three RMSEs of the unseeded runs, lattice centred.
- The three RMSEs at t = 10: the paper's (1/m Σ_i |Ψ_i − ψ_i|², every cell counted once), volume-weighted
  (∫ … dV / V), and phase-corrected (volume-weighted, minimised over a global phase); Ψ = ψ_h e^(−iμ_h t).

    stationary_start.py DEVICE_FOLDER [--out DIR]

Units are the paper's dimensionless ones: t in 1/ω⊥, σ in ω⊥, ψ and the RMSEs in a_ho^(−3/2).
"""

import statistics
from collections import Counter
from pathlib import Path

import numpy as np

import bogoliubov
import physics
from common import (LABELS, Rendered, footer, lattice_order, markdown_table, plt, read_json, run_on_folder, save_figure,
                    save_sections)

FILES = "splitting/splitting-study-*.json"
# the continuum spectrum (reports/bogoliubov.py), whichever device folder the lattice runs are in
BOGOLIUBOV = Path(__file__).resolve().parent / "data" / "cpu-2core-vm" / bogoliubov.FILE
ORDER = ("centred", "shifted")
PLACEMENT = {"centred": "centred", "shifted": "shifted −1/8"}
GROWTH_MODES = (2, 3, 4)
GROWTH_WINDOW = (1e-3, 1e-1)  # of the mode's largest |c_m|: below the saturation, above the start's noise
MIN_POINTS = 5  # samples a growth fit needs
MIN_R2 = 0.95  # a fit worse than this is no exponential growth: no rate reported
# σ₃'s window, by a stated rule: of the windows [low, high] × the largest |c₃| below (each at least a decade wide),
# admissible where ln|c₃| is a straight line to MAX_RMS (root mean square of the fit's residual) in every seeded run;
# the rule takes the widest admissible one with high ≤ WINDOW_TOP (a decade below the split, where the runs stop).
WINDOW_LOWS = (1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)
WINDOW_HIGHS = (1e-2, 3e-2, 1e-1, 3e-1, 1.0)
MAX_RMS = 0.01  # |c₃| within 1% of one exponential
WINDOW_TOP = 1e-1
MODE_COLOURS = {2: "tab:green", 3: "tab:blue", 4: "tab:orange"}
FOLD_COLOURS = {"3-fold": "tab:blue", "4-fold": "tab:orange", "other": "0.6", "no split": "white"}
RMSE_KINDS = (("per_cell", "paper's (per cell)"), ("volume_weighted", "volume-weighted"),
              ("phase_corrected", "phase-corrected"))


def load(device_dir):
    """(states, runs, paths) over every study file, runs with their fold checked against the amplitudes."""
    paths = sorted(Path(device_dir).glob(FILES))
    return (*collect((path, read_json(path)) for path in paths), paths)


def collect(docs):
    """(states, runs) of study documents, given as (path, doc): per lattice and placement the tightest state, each
    run once, its fold checked against the amplitudes."""
    best, runs, seen = {}, [], set()
    for path, doc in docs:
        for s in doc["states"]:  # per lattice and placement the tightest solve (calls asked 1e-8 or 1e-10)
            key = (s["lattice"], s["placement"])
            if key not in best or s["residual"] < best[key]["residual"]:
                best[key] = s
        for r in doc["runs"]:
            key = (r["lattice"], r["placement"], r["seed"])
            if key in seen:  # a later call ran it again (bitwise the same run): counted once
                continue
            seen.add(key)
            m1, m2, ratio = physics.dominant_folds(np.asarray(r["amplitudes"], dtype=float))
            if m1 != r["fold"]:
                raise ValueError(f"{path}: {r['lattice']} {r['placement']} seed {r['seed']}: fold {r['fold']} is not "
                                 f"the largest |c_m|, m ≥ 2 (m = {m1})")
            runs.append({**r, "runner_up": m2, "ratio": ratio})
    return list(best.values()), runs


def growth_fit(t, amplitude, window=GROWTH_WINDOW):
    """(σ, R², rms residual) of ln|c| = a + σt over the samples before the largest |c| that lie within `window` of
    it, the contiguous stretch that ends at the largest; nans with fewer than MIN_POINTS."""
    t, c = np.asarray(t, dtype=float), np.asarray(amplitude, dtype=float)
    top = int(np.argmax(c))
    low, high = window[0] * c[top], window[1] * c[top]
    first = top
    while first > 0 and c[first - 1] >= low:
        first -= 1
    chosen = [k for k in range(first, top + 1) if low <= c[k] <= high]
    if len(chosen) < MIN_POINTS:
        return np.nan, np.nan, np.nan
    x, y = t[chosen], np.log(c[chosen])
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    r2 = 1 - float(residual @ residual) / float(((y - y.mean()) ** 2).sum())
    return float(slope), r2, float(np.sqrt(np.mean(residual ** 2)))


def growth_rate(t, amplitude):
    """(σ, R²) of ln|c| = a + σt over GROWTH_WINDOW (growth_fit)."""
    return growth_fit(t, amplitude)[:2]


def windows():
    """Every candidate window for σ₃, at least a decade wide."""
    return [(low, high) for low in WINDOW_LOWS for high in WINDOW_HIGHS if high >= 10 * low * (1 - 1e-9)]


def window_scan(runs):
    """[(window, σ₃ of every seeded run, worst rms residual)] over windows()."""
    seeded = [r for r in runs if r["seed"] > 0]
    scan = []
    for window in windows():
        fits = [growth_fit(r["history_t"], np.asarray(r["history"], dtype=float)[:, 3], window) for r in seeded]
        scan.append((window, np.array([f[0] for f in fits]), max(f[2] for f in fits)))
    return scan


def admissible(worst_rms):
    return bool(np.isfinite(worst_rms) and worst_rms <= MAX_RMS)


def ruled_window(scan):
    """The rule's window: the widest admissible one with high ≤ WINDOW_TOP (the lower one of equal width); None
    where none is."""
    chosen = [w for w, _, rms in scan if admissible(rms) and w[1] <= WINDOW_TOP * (1 + 1e-9)]
    return min(chosen, key=lambda w: (-np.log10(w[1] / w[0]), w[0])) if chosen else None


def rates(run, m):
    history = np.asarray(run["history"], dtype=float)
    sigma, r2 = growth_rate(run["history_t"], history[:, m])
    return sigma if r2 >= MIN_R2 else np.nan


def category(run):
    if run["split_t"] is None:
        return "no split"
    return f"{run['fold']}-fold" if run["fold"] in (3, 4) else "other"


def grouped(runs, seeded=True):
    """{(lattice, placement): [run]} in lattice order, placements centred first; seeded or unseeded runs only."""
    groups = {}
    for r in runs:
        if (r["seed"] > 0) == seeded:
            groups.setdefault((r["lattice"], r["placement"]), []).append(r)
    lattices = lattice_order({k[0] for k in groups})
    keys = [(name, p) for name in lattices for p in ORDER if (name, p) in groups]
    return {k: sorted(groups[k], key=lambda r: r["seed"]) for k in keys}


def summarised(values, form, many):
    """The finite values as text: — without any, the one alone, else many(values, form)."""
    values = [v for v in values if np.isfinite(v)]
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:{form}}"
    return many(values, form)


def mean_sd(values, form=".3f"):
    return summarised(values, form, lambda v, f: f"{statistics.mean(v):{f}} ± {statistics.stdev(v):{f}} ({len(v)})")


def counts_text(runs):
    counts = Counter(category(r) for r in runs)
    return ", ".join(f"{name} {counts[name]}" for name in FOLD_COLOURS if counts[name]) + f" of {len(runs)}"


def unseeded_text(run):
    if run is None:
        return "—"
    if run["split_t"] is None:
        return f"no split by t = {run['end_t']:.0f}"
    return f"{category(run)} at t = {run['split_t']:.1f}"


def fold_table(runs):
    seeded, unseeded = grouped(runs), grouped(runs, seeded=False)
    rows = []
    for (lattice, placement), group in seeded.items():
        split = [r["split_t"] for r in group if r["split_t"] is not None]
        lone = unseeded.get((lattice, placement), [None])[0]
        rows.append([LABELS[lattice], PLACEMENT.get(placement, placement), counts_text(group),
                     mean_sd(split, ".1f"), *(mean_sd([rates(r, m) for r in group]) for m in GROWTH_MODES),
                     unseeded_text(lone),
                     "—" if lone is None else " / ".join(mean_sd([rates(lone, m)]) for m in GROWTH_MODES)])
    head = ["lattice", "placement", "folds over the seeds", "split time", "σ₂", "σ₃", "σ₄", "unseeded",
            "unseeded σ₂ / σ₃ / σ₄"]
    return markdown_table(head, rows)


def state_table(states):
    rows = []
    for s in sorted(states, key=lambda s: (list(LABELS).index(s["lattice"]), s["placement"] != "centred")):
        rows.append([LABELS[s["lattice"]], PLACEMENT.get(s["placement"], s["placement"]), f"{s['mu_h']:.7f}",
                     f"{100 * (s['mu_h'] / s['mu_continuum'] - 1):+.2f}%", f"{s['start_residual']:.2g}",
                     f"{s['residual']:.2g}", str(s["newton_steps"]), f"{s['solve_seconds']:.0f}", str(s["cells"])])
    head = ["lattice", "placement", "μ_h", "vs continuum", "residual of the sampled state", "residual",
            "Newton steps", "solve (s)", "cells"]
    return markdown_table(head, rows)


def rmse_table(runs):
    rows = []
    for (lattice, placement), group in grouped(runs, seeded=False).items():
        values = group[0]["rmse_at_10"]
        rows.append([LABELS[lattice], PLACEMENT.get(placement, placement),
                     *("—" if values[k] is None else f"{values[k]:.2e}" for k, _ in RMSE_KINDS)])
    return markdown_table(["lattice", "placement", *(f"RMSE(t = 10), {name}" for _, name in RMSE_KINDS)], rows)


def group_ticks(ax, groups):
    """The groups' lattice and placement under the bars, slanted so that neighbours do not overlap."""
    ax.set_xticks(range(len(groups)), [f"{LABELS[l]}, {PLACEMENT.get(p, p)}" for l, p in groups],
                  rotation=35, ha="right", fontsize="small")


def folds_panel(ax, runs):
    groups = grouped(runs)
    bottom = np.zeros(len(groups))
    for name, colour in FOLD_COLOURS.items():
        counts = np.array([sum(category(r) == name for r in g) for g in groups.values()], dtype=float)
        ax.bar(range(len(groups)), counts, bottom=bottom, color=colour, edgecolor="0.3", label=name)
        bottom += counts
    group_ticks(ax, groups)
    # Head room above the tallest bar for the legend, which then covers no bar.
    ax.set_ylim(0, 1.3 * max(bottom.max(), 1))
    ax.set(ylabel="runs (seeds)", title="(a) fold at the split over the seeds")
    ax.legend(fontsize="small", loc="upper center", ncol=len(FOLD_COLOURS))


def continuum_rates():
    """{m: max |Im ω|} of the continuum Bogoliubov modes even in z at the finest step, when its data is committed."""
    if not BOGOLIUBOV.exists():
        return {}
    return bogoliubov.rates_by_mode(min(read_json(BOGOLIUBOV)["rows"], key=lambda r: r["h"]), "even")


def rates_panel(ax, runs):
    groups = grouped(runs)
    continuum = continuum_rates()
    without = []
    for m, marker in zip(GROWTH_MODES, ("^", "o", "s")):
        measured = False
        for k, group in enumerate(groups.values()):
            values = [v for v in (rates(r, m) for r in group) if np.isfinite(v)]
            if values:
                ax.errorbar(k + (m - 3) * 0.2, np.mean(values), yerr=np.std(values) if len(values) > 1 else 0,
                            fmt=marker, color=MODE_COLOURS[m], capsize=3,
                            label=f"σ_{m}, on the lattice" if not measured else None)
                measured = True
        if measured and continuum.get(m, 0) > 0:
            ax.axhline(continuum[m], color=MODE_COLOURS[m], linestyle="--", linewidth=1,
                       label=f"σ_{m}, continuum Bogoliubov ({continuum[m]:.4f})")
        if not measured:
            without.append(f"|c_{m}|")
    group_ticks(ax, groups)
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.25 * (high - low))  # head room for the note and the legend
    ax.set(ylabel="growth rate σ (ω⊥)", title="(b) growth rates of the azimuthal amplitudes (mean ± sd over the seeds)")
    if without:
        ax.text(0.01, 0.98, f"no exponential growth (no rate fitted) in any run: {', '.join(without)}",
                transform=ax.transAxes, fontsize="small", color="0.3", va="top")
    ax.legend(fontsize="small", loc="upper right")


def fig5_panels(axes, runs):
    centred = {l: g[0] for (l, p), g in grouped(runs, seeded=False).items() if p == "centred"}
    rmse = "RMSE (a_ho^(−3/2))"
    series = (("error", "t", "E(t) = 1 − |⟨ψ_h|ψ(t)⟩|", "E (dimensionless)"),
              ("per_cell", "probe_t", "RMSE, the paper's (per cell)", rmse),
              ("volume_weighted", "t", "RMSE, volume-weighted", rmse),
              ("phase_corrected", "t", "RMSE, phase-corrected", rmse))
    for ax, (key, time, title, ylabel) in zip(axes.flat, series):
        first = 1 if key == "error" else 0  # E(0) = 0 exactly: nothing to draw on a log axis
        for lattice, run in centred.items():
            s = run["series"]
            ax.plot(s[time][first:], physics.positive(np.asarray(s[key][first:], dtype=float)),
                    color=physics.COLOURS[lattice], linewidth=1, label=LABELS[lattice])
        ax.set(yscale="log", xlabel="t (1/ω⊥)", ylabel=ylabel, title=title)
        ax.legend(fontsize="small")


def bogoliubov_note():
    """The continuum prediction at the finest step solved, when reports/bogoliubov.py's data is committed."""
    if not BOGOLIUBOV.exists():
        return ""
    finest = min(read_json(BOGOLIUBOV)["rows"], key=lambda r: r["h"])
    rates = ", ".join(f"m = {m} {v:.4f}" for m, v in continuum_rates().items())
    return (f"Continuum Bogoliubov spectrum (reports/bogoliubov.py, finite differences in (ρ, z), h = {finest['h']:g}): "
            f"max |Im ω| of the modes even in z: {rates} (0: stable); the σ_m above are these rates measured on the "
            "lattices in the time domain.")


def window_text(window):
    return f"{window[0]:g}–{window[1]:g}"


def window_table(scan, rule):
    head = ["window (× the largest c₃ amplitude)", "decades", "σ₃: mean", "σ₃: min–max over the runs", "runs fitted",
            "worst rms residual of ln c₃", f"admissible (≤ {MAX_RMS:g})"]
    rows = [[window_text(w) + (" (the rule's)" if w == rule else ""), f"{np.log10(w[1] / w[0]):.1f}",
             f"{np.nanmean(s):.4f}", f"{np.nanmin(s):.4f}–{np.nanmax(s):.4f}", str(int(np.isfinite(s).sum())),
             f"{rms:.4f}", "yes" if admissible(rms) else "no"] for w, s, rms in scan]
    return markdown_table(head, rows)


def window_note(scan, rule):
    """The rule, what it gives, and the spread over every admissible window."""
    text = (f"σ₃'s fit window, by a stated rule: of the windows [low, high] × the largest |c₃| (low in "
            f"{', '.join(f'{v:g}' for v in WINDOW_LOWS)}; high in {', '.join(f'{v:g}' for v in WINDOW_HIGHS)}; at "
            f"least a decade wide), admissible where ln|c₃| is a straight line to {MAX_RMS:g} rms in every seeded "
            f"run; the rule takes the widest admissible one with high ≤ {WINDOW_TOP:g} (the runs stop at the split).")
    if rule is None:
        return text + " No window is admissible."
    chosen = next(s for w, s, _ in scan if w == rule)
    kept = np.concatenate([s for w, s, rms in scan if admissible(rms)])
    text += (f" It gives {window_text(rule)}: σ₃ = {np.nanmean(chosen):.4f} ({np.nanmin(chosen):.4f}–"
             f"{np.nanmax(chosen):.4f} over {int(np.isfinite(chosen).sum())} runs); over every admissible window "
             f"{np.nanmin(kept):.4f}–{np.nanmax(kept):.4f}.")
    deepest = [(s, rms) for w, s, rms in scan if w[0] == WINDOW_LOWS[0]]
    if deepest:
        values = np.concatenate([s for s, _ in deepest])
        text += (f" The windows from {WINDOW_LOWS[0]:g} of the largest reach back into the seed's transient, where "
                 f"ln|c₃| is no straight line (worst rms residual {min(r for _, r in deepest):.2f}–"
                 f"{max(r for _, r in deepest):.2f}), and give {np.nanmin(values):.4f}–{np.nanmax(values):.4f}: "
                 "σ₃'s spread with the window is theirs.")
    return text


def window_figure(device_dir, out_dir, inputs, scan, rule):
    fig, ax = plt.subplots(figsize=(9, 4.2), constrained_layout=True)
    for k, (w, s, rms) in enumerate(scan):
        ok = admissible(rms)
        mean = np.nanmean(s)
        ax.errorbar(k, mean, yerr=[[mean - np.nanmin(s)], [np.nanmax(s) - mean]], fmt="o", capsize=3,
                    color="tab:blue" if ok else "0.55", markerfacecolor="tab:blue" if ok else "white")
        if w == rule:
            ax.plot(k, mean, "*", markersize=14, color="tab:red", label=f"the rule's window {window_text(w)}")
    continuum = continuum_rates().get(3, 0)
    if continuum > 0:
        ax.axhline(continuum, color="tab:blue", linestyle="--", linewidth=1,
                   label=f"continuum Bogoliubov σ₃ ({continuum:.4f})")
    ax.plot([], [], "o", color="tab:blue", label=f"admissible: ln|c₃| straight to {MAX_RMS:g} rms in every run")
    ax.plot([], [], "o", color="0.55", markerfacecolor="white", label="not admissible")
    ax.set_xticks(range(len(scan)), [window_text(w) for w, _, _ in scan], rotation=60, ha="right", fontsize="small")
    ax.set(xlabel="fit window (of the largest |c₃|)", ylabel="σ₃ (ω⊥): mean, min–max over the runs",
           title="σ₃ against the fit window, every seeded run from the stationary state")
    ax.legend(fontsize="small", loc="lower right")
    footer(fig, device_dir, inputs, "least squares of ln|c₃| against t over the samples before the largest |c₃| "
           "within the window")
    return save_figure(fig, out_dir, "stationary-start-growth-window")


def render(device_dir, out_dir):
    states, runs, paths = load(device_dir)
    result = Rendered(inputs=list(paths))
    fig, axes = plt.subplots(1, 2, figsize=(16, 5.6), constrained_layout=True)
    folds_panel(axes[0], runs)
    rates_panel(axes[1], runs)
    fig.suptitle("Splits from the lattice's own stationary state: folds and growth rates over controlled seeds")
    footer(fig, device_dir, result.inputs, f"ε = 1e-6 on m = 1…8; σ fitted where |c_m| is within "
           f"{GROWTH_WINDOW[0]:g}–{GROWTH_WINDOW[1]:g} of its largest (R² ≥ {MIN_R2})")
    result.files += save_figure(fig, out_dir, "stationary-start-folds")
    fig, axes = plt.subplots(2, 2, figsize=(14, 9), constrained_layout=True)
    fig5_panels(axes, runs)
    fig.suptitle("Fig 5 from the lattice's own stationary state (unseeded, lattice centred)")
    footer(fig, device_dir, result.inputs, "Ψ = ψ_h e^(−iμ_h t), ψ_h the lattice's stationary state")
    result.files += save_figure(fig, out_dir, "stationary-start-fig5")

    scan = window_scan(runs)
    rule = ruled_window(scan)
    result.files += window_figure(device_dir, out_dir, result.inputs, scan, rule)

    sections = [("The lattice's stationary states", state_table(states)),
                ("Folds, split times and growth rates from the stationary state", fold_table(runs)),
                ("σ₃ against the fit window", window_table(scan, rule)),
                ("The three RMSEs at t = 10, unseeded", rmse_table(runs))]
    notes = [n for n in [f"σ_m: least squares of ln|c_m| against t over the samples before the largest |c_m| within "
             f"{GROWTH_WINDOW[0]:g}–{GROWTH_WINDOW[1]:g} of it (at least {MIN_POINTS}, R² ≥ {MIN_R2}, else no rate); "
             "mean ± sd (number of runs with a rate).",
             window_note(scan, rule),
             "Folds: " + physics.near_tie_note(),
             bogoliubov_note(),
             "Units: t in 1/ω⊥, σ in ω⊥, RMSE in a_ho^(−3/2)."] if n]
    save_sections(result, out_dir, "stationary-start", "Splits from the lattice's own stationary state", sections,
                  notes)
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with splitting/splitting-study-*.json)")
