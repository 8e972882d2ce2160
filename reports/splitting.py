"""Seeded splits (issue 16, item 4): the κ = 10 vortex split of the accuracy cases with a controlled seed, from
scripts/seed-study-run.sh's DEVICE_FOLDER/splitting/seed-study-<placement>.json. Each run starts from the
interpolated stationary state times 1 + ε Σ_{m=1..8} cos(mφ + θ_m), the phases θ_m drawn from the run's seed, and
stops at the split (the first diagnostics time with E(t) = 1 − |⟨ψ₀|ψ(t)⟩| > 0.01, physics.py's definition) or
at t = 100. Per placement, a table of the folds over the seeds at ε = 1e-6 per lattice (counts, near ties, split times,
the dominant mode's lead over the next); a figure of those counts and of BCC's split time against ε, whose
seed-dominated part gives the growth rate σ of the mode that splits the vortex: the seed grows as ε e^(σt) to a
fixed size at the split, so t_split = const − ln ε / σ. The fit's window of ε is chosen by a stated rule (fit_window):
of the runs of ε values at least two decades wide, those where the split time is a straight line in ln ε to the
seeds' own spread at ε = 1e-6 are admissible, and the widest of them is taken; σ over every window is tabled.

    splitting.py DEVICE_FOLDER [--out DIR]

Units are the paper's dimensionless ones: t in 1/ω⊥, σ in ω⊥.
"""

import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.patches import Patch

import physics
from common import (LABELS, Rendered, footer, lattice_order, markdown_table, plt, provenance, read_json, span,
                    run_on_folder, save_figure)

FILES = "splitting/seed-study-*.json"
EPSILON = 1e-6  # the amplitude every lattice ran at
MIN_DECADES = 2  # the narrowest window of ε the growth fit may use
BOUNDARY_BELOW = 1e-8  # ε below which the unseeded run's own seed decides
ORDER = ("centred", "shifted")  # placements, in this order; any other after them
PLACEMENTS = {"centred": "lattice centred",
              "shifted": "lattice shifted by −1/8 structure edge along x, y and z (the paper code's placement)"}
FOLDS = ((3, "3-fold", "tab:blue"), (4, "4-fold", "tab:orange"), (None, "other fold or no split", "0.6"))
SEED = ("ψ(0) = ψ⁰ (1 + ε Σ_{m=1..8} cos(mφ + θ_m)), ψ⁰ the stationary κ = 10 vortex interpolated onto the "
        "lattice (not the lattice's own stationary state), the phases θ_m drawn from the run's seed")


@dataclass
class SeedRun:
    path: Path
    lattice: str
    placement: str
    seed: int
    epsilon: float
    split: float  # nan where E never passed physics.SPLIT
    end: float
    fold: int  # the dominant m ≥ 2
    runner_up: int  # the strongest m ≥ 2 that is not a multiple of `fold`
    ratio: float  # |c_fold| / |c_runner_up|

    @property
    def split_happened(self):
        return bool(np.isfinite(self.split))

    @property
    def near_tie(self):
        return self.split_happened and self.ratio < physics.NEAR_TIE

    @property
    def category(self):
        """What the run counts as: "3-fold", "4-fold", …, or "no split"."""
        return f"{self.fold}-fold" if self.split_happened else "no split"


def load(path):
    """The runs of one seed-study JSON, their folds recomputed from the amplitudes as physics.py does (and checked
    against the fold decgpe recorded)."""
    runs = []
    for r in read_json(path)["runs"]:
        amplitude = np.asarray(r["amplitudes"], dtype=float)
        m1, m2, ratio = physics.dominant_folds(amplitude)
        if m1 != r["fold"]:
            raise ValueError(f"{path}: {r['lattice']} seed {r['seed']}: fold {r['fold']} is not the largest |c_m|, "
                             f"m ≥ 2 (m = {m1})")
        split = np.nan if r["split_t"] is None else float(r["split_t"])
        runs.append(SeedRun(Path(path), r["lattice"], r["placement"], int(r["seed"]), float(r["epsilon"]), split,
                            float(r["end_t"]), m1, m2, ratio))
    return runs


def load_all(device_dir):
    """({placement: [SeedRun]} in ORDER, the JSON files read)."""
    paths = sorted(Path(device_dir).glob(FILES))
    found = {}
    for path in paths:
        for run in load(path):
            found.setdefault(run.placement, []).append(run)
    order = sorted(found, key=lambda p: (ORDER.index(p) if p in ORDER else len(ORDER), p))
    return {p: found[p] for p in order}, paths


def at(runs, epsilon=EPSILON):
    """{lattice: [SeedRun]} at one ε, in the usual lattice order, seeds ascending."""
    by_lattice = {}
    for run in runs:
        if np.isclose(run.epsilon, epsilon, rtol=1e-9, atol=0):
            by_lattice.setdefault(run.lattice, []).append(run)
    return {name: sorted(by_lattice[name], key=lambda r: r.seed) for name in lattice_order(by_lattice)}


def fold_counts(runs):
    """[(category, count)], the most frequent first."""
    counts = Counter(run.category for run in runs)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def counts_text(runs):
    """"3-fold 8/8" where every run agrees, "3-fold 6, 4-fold 2 of 8" where not."""
    counts = fold_counts(runs)
    if len(counts) == 1:
        return f"{counts[0][0]} {counts[0][1]}/{len(runs)}"
    return ", ".join(f"{category} {n}" for category, n in counts) + f" of {len(runs)}"


def near_tie_text(runs):
    ties = Counter(f"{run.fold}/{run.runner_up}" for run in runs if run.near_tie)
    if not ties:
        return "none"
    return f"{sum(ties.values())} of {len(runs)}: " + ", ".join(
        f"{label} ×{n}" for label, n in sorted(ties.items(), key=lambda item: (-item[1], item[0])))


def eps(value):
    """1e-06 -> "1e-6", 0.0001 -> "1e-4"."""
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def ratio_form(value):
    return f"{value:#.3g}".rstrip(".") if value < 1000 else "> 1000"


def times_text(runs):
    split = [run.split for run in runs if run.split_happened]
    if not split:
        return "—"
    return f"{statistics.median(split):.2f} ({span(split, '.2f')})"


def ratios_text(runs):
    ratios = [run.ratio for run in runs if run.split_happened]
    if not ratios:
        return "—"
    low, high = ratio_form(min(ratios)), ratio_form(max(ratios))
    return low if low == high else f"{low} to {high}" if high.startswith(">") else f"{low}–{high}"


NEAR_TIE_COLUMN = f"near ties (ratio < {physics.NEAR_TIE:g})"


def fold_table(by_lattice):
    header = ["lattice", "runs", "fold counts", NEAR_TIE_COLUMN, "split t: median (min–max)",
              "amplitude ratio fold : next, min–max"]
    rows = [[LABELS.get(name, name), len(runs), counts_text(runs), near_tie_text(runs), times_text(runs),
             ratios_text(runs)] for name, runs in by_lattice.items()]
    return markdown_table(header, rows)


def scan_table(runs):
    """BCC's runs per ε, ascending."""
    by_epsilon = {}
    for run in runs:
        by_epsilon.setdefault(run.epsilon, []).append(run)
    header = ["ε", "runs", "fold counts", "split t: median (min–max)", "amplitude ratio fold : next, min–max"]
    rows = [[eps(e), len(by_epsilon[e]), counts_text(by_epsilon[e]), times_text(by_epsilon[e]),
             ratios_text(by_epsilon[e])] for e in sorted(by_epsilon)]
    return markdown_table(header, rows)


@dataclass
class Fit:
    slope: float  # d t_split / d ln ε
    intercept: float
    points: int
    epsilons: tuple

    @property
    def sigma(self):
        """The growth rate: t_split = const − ln ε / σ."""
        return -1 / self.slope

    def t(self, epsilon):
        return self.intercept + self.slope * np.log(epsilon)

    def crossing(self, t):
        """The ε at which the fit reaches split time t."""
        return float(np.exp((t - self.intercept) / self.slope))


def inside(epsilon, window):
    return window[0] * (1 - 1e-9) <= epsilon <= window[1] * (1 + 1e-9)


def least_squares(runs, window):
    """(Fit, rms residual) of split time against ln ε over every run that split (each seed one point) with ε in
    `window`; (None, nan) with fewer than two such ε."""
    points = [(run.epsilon, run.split) for run in runs if run.split_happened and inside(run.epsilon, window)]
    epsilons = tuple(sorted({e for e, _ in points}))
    if len(epsilons) < 2:
        return None, np.nan
    x, y = np.log([e for e, _ in points]), np.array([t for _, t in points])
    slope, intercept = np.polyfit(x, y, 1)
    rms = float(np.sqrt(np.mean((y - slope * x - intercept) ** 2)))
    return Fit(float(slope), float(intercept), len(points), epsilons), rms


def seeds_spread(runs):
    """The split times' standard deviation over the seeds at the ε with the most of them: the noise a straight line
    in ln ε is held to."""
    by_epsilon = {}
    for run in runs:
        if run.split_happened:
            by_epsilon.setdefault(run.epsilon, []).append(run.split)
    most = max(by_epsilon.values(), key=len)
    return statistics.stdev(most) if len(most) > 1 else 0.0


def window_scan(runs):
    """[(window, Fit, rms residual)] over every run of the scanned ε values at least MIN_DECADES wide."""
    epsilons = sorted({run.epsilon for run in runs if run.split_happened})
    scan = []
    for i, low in enumerate(epsilons):
        for high in epsilons[i + 1:]:
            if np.log10(high / low) >= MIN_DECADES - 1e-9:
                scan.append(((low, high), *least_squares(runs, (low, high))))
    return scan


def fit_window(scan, spread):
    """The rule: of the admissible windows (rms residual ≤ the seeds' spread), the widest, the higher of equal width;
    None where none is."""
    chosen = [w for w, fit, rms in scan if fit is not None and rms <= spread]
    return max(chosen, key=lambda w: (np.log10(w[1] / w[0]), w[0])) if chosen else None


def growth_fit(runs):
    """The fit over the rule's window (fit_window); None where no window is admissible."""
    window = fit_window(window_scan(runs), seeds_spread(runs))
    return None if window is None else least_squares(runs, window)[0]


def window_table(scan, spread, fit):
    header = ["window of ε", "runs", "σ (ω⊥)", "rms residual of the split time", f"admissible (≤ {spread:.3f})"]
    rows = [[f"{eps(w[0])}–{eps(w[1])}" + (" (the rule's)" if fit and fit.epsilons[0] == w[0] and
                                           fit.epsilons[-1] == w[1] else ""),
             "—" if f is None else str(f.points), "—" if f is None else f"{f.sigma:.4f}", f"{rms:.3f}",
             "yes" if f is not None and rms <= spread else "no"] for w, f, rms in scan]
    return markdown_table(header, rows)


def window_note(scan, spread, fit):
    sigmas = [f.sigma for _, f, _ in scan if f is not None]
    admitted = [f.sigma for _, f, rms in scan if f is not None and rms <= spread]
    text = (f"The fit's window of ε, by a stated rule: of the windows of the scanned ε at least {MIN_DECADES} "
            f"decades wide, admissible where the split time is a straight line in ln ε to the seeds' own spread (rms "
            f"residual ≤ {spread:.3f}, the standard deviation of the split times over the seeds at the ε with the "
            "most of them); the rule takes the widest admissible one.")
    if fit is None:
        return text + " No window is admissible."
    text += (f" It gives ε = {eps(fit.epsilons[0])}–{eps(fit.epsilons[-1])}, σ = {fit.sigma:.4f} ω⊥ "
             + ("(the only admissible window)." if len(admitted) == 1 else
                f"({len(admitted)} admissible windows: σ = {min(admitted):.4f}–{max(admitted):.4f})."))
    below = [w[0] for w, f, _ in scan if f is not None and w[0] < fit.epsilons[0]]
    if below:
        edge = max(below)
        near = [(f.sigma, rms) for w, f, rms in scan if f is not None and w[0] == edge]
        text += (f" The windows from ε = {eps(edge)} give σ = {min(s for s, _ in near):.4f}–"
                 f"{max(s for s, _ in near):.4f} (rms {min(r for _, r in near):.3f}–{max(r for _, r in near):.3f}): "
                 f"the boundary seed still bends the split time there; lower still, σ reaches {max(sigmas):.2f}.")
    return text


def bcc_scan(placed):
    """BCC's centred runs, when they cover more than one ε."""
    runs = [run for run in placed.get("centred", []) if run.lattice == "bcc"]
    return runs if len({run.epsilon for run in runs}) > 1 else []


def unseeded_bcc(device_dir):
    """physics/accuracy_bcc.h5, loaded by physics.py (its split: the first diagnostics time with E > 0.01); None
    without it."""
    path = Path(device_dir) / "physics" / "accuracy_bcc.h5"
    return physics.load(path) if path.exists() else None


def jitter(epsilon, index, count):
    """Seeds at one ε side by side on the log axis (±0.08 decade), so that equal split times stay visible."""
    offset = 0 if count == 1 else 0.16 * (index / (count - 1) - 0.5)
    return epsilon * 10**offset


def in_fold(run, fold):
    """Whether a run belongs to the bar segment of `fold` (None: the rest of FOLDS', and the runs with no split)."""
    named = [f for f, _, _ in FOLDS if f is not None]
    if fold is None:
        return not run.split_happened or run.fold not in named
    return run.split_happened and run.fold == fold


def bars_panel(ax, placed):
    names = lattice_order({name for runs in placed.values() for name in at(runs)})
    placements = list(placed)
    width = 0.8 / len(placements)
    ticks, tick_labels = [], []
    top = 0
    for i, name in enumerate(names):
        for j, placement in enumerate(placements):
            runs = at(placed[placement]).get(name, [])
            x = i + (j - (len(placements) - 1) / 2) * width
            ticks.append(x)
            tick_labels.append(placement)
            bottom = 0
            for fold, _, colour in FOLDS:
                chosen = [r for r in runs if in_fold(r, fold)]
                for tie in (False, True):
                    n = sum(r.near_tie == tie for r in chosen)
                    if n:
                        ax.bar(x, n, width * 0.92, bottom=bottom, color=colour, edgecolor="black", linewidth=0.6,
                               hatch="///" if tie else None)
                        bottom += n
            if runs:
                ax.text(x, bottom + 0.15, str(len(runs)), ha="center", va="bottom", fontsize="small")
            top = max(top, bottom)
    ax.set_xticks(ticks, tick_labels, rotation=90, fontsize="small")
    ax.tick_params(axis="x", length=0)
    groups = ax.secondary_xaxis("bottom")
    groups.set_xticks(range(len(names)), [LABELS.get(n, n) for n in names], fontsize="medium")
    groups.tick_params(axis="x", length=0, pad=52)
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_ylim(0, top * 1.5 + 0.5)
    ax.set_ylabel(f"runs at ε = {eps(EPSILON)}")
    handles = [Patch(facecolor=colour, edgecolor="black", linewidth=0.6, label=label) for _, label, colour in FOLDS]
    handles.append(Patch(facecolor="white", edgecolor="black", linewidth=0.6, hatch="///",
                         label=f"near tie (|c_fold| / |c_next| < {physics.NEAR_TIE:g})"))
    ax.legend(handles=handles, fontsize="small", loc="upper center", ncol=2)
    ax.set_title(f"(a) folds over the seeds at ε = {eps(EPSILON)}, per lattice and placement\n"
                 "(number of runs above each bar)", fontsize="medium")


def scan_panel(ax, runs, fit, unseeded):
    by_epsilon = {}
    for run in runs:
        if run.split_happened:
            by_epsilon.setdefault(run.epsilon, []).append(run.split)
    for k, (e, times) in enumerate(sorted(by_epsilon.items())):
        times = sorted(times)
        ax.plot([jitter(e, i, len(times)) for i in range(len(times))], times, "o", color="tab:blue",
                markersize=4.5, markerfacecolor="none", label="one seed each" if k == 0 else None)
    epsilons = sorted(by_epsilon)
    ax.plot(epsilons, [statistics.median(by_epsilon[e]) for e in epsilons], "-", color="tab:blue", linewidth=1.2,
            label="median over the seeds")
    low, high = min(epsilons) / 3, max(epsilons) * 3
    if fit:
        inside = np.geomspace(min(fit.epsilons), max(fit.epsilons), 50)
        ax.plot(inside, fit.t(inside), "-", color="tab:red", linewidth=1.8, alpha=0.7,
                label=f"fit over ε = {eps(fit.epsilons[0])}–{eps(fit.epsilons[-1])} ({fit.points} runs): "
                      "t = a − ln ε / σ,\n"
                      f"σ = {fit.sigma:.3f} ω⊥ ({-fit.slope * np.log(10):.1f} per decade of ε)")
        if unseeded is not None and unseeded.split_happened:  # extended, dotted, to the unseeded split time
            start = max(low, min(fit.crossing(unseeded.split), min(fit.epsilons)))
            outside = np.geomspace(start, min(fit.epsilons), 50)
            ax.plot(outside, fit.t(outside), ":", color="tab:red", linewidth=1.2, alpha=0.8)
    if unseeded is not None and unseeded.split_happened:
        ax.axhline(unseeded.split, color="black", linestyle="--", linewidth=1,
                   label=f"unseeded (physics/accuracy_bcc.h5): t = {unseeded.split:.2f}")
    ax.axvspan(low, BOUNDARY_BELOW, color="0.9", zorder=0,
               label=f"ε < {eps(BOUNDARY_BELOW)}: the boundary seed decides")
    times = [t for ts in by_epsilon.values() for t in ts]
    if unseeded is not None and unseeded.split_happened:
        times.append(unseeded.split)
    ax.set(xscale="log", xlim=(low, high), ylim=(min(times) - 3, max(times) + 4), xlabel="seed amplitude ε",
           ylabel=r"split time  ($1/\omega_\perp$)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="lower left")
    ax.set_title("(b) BCC, lattice centred: split time against the seed amplitude", fontsize="medium")


def seed_counts(placed):
    """Per placement: how many seeds each lattice ran at ε = EPSILON, and BCC's ε scan."""
    parts = []
    for placement, runs in placed.items():
        per = {LABELS.get(n, n): len(r) for n, r in at(runs).items()}
        counts = sorted(set(per.values()))
        text = (f"{placement}: {counts[0]} seeds per lattice" if len(counts) == 1 else
                f"{placement}: {counts[0]}–{counts[-1]} seeds per lattice ("
                + ", ".join(f"{n} {k}" for n, k in per.items()) + ")")
        text += f" at ε = {eps(EPSILON)}"
        scan = Counter(run.epsilon for run in runs if run.lattice == "bcc" and not np.isclose(run.epsilon, EPSILON))
        if scan:
            groups = {}
            for e, n in sorted(scan.items()):
                groups.setdefault(n, []).append(eps(e))
            text += "; BCC also at " + "; ".join(f"ε = {', '.join(listed)} ({n} seed{'s' if n > 1 else ''} each)"
                                                  for n, listed in groups.items())
        parts.append(text)
    return "; ".join(parts)


def boundary_text(runs, unseeded):
    below = [run.split for run in runs if run.split_happened and run.epsilon < BOUNDARY_BELOW * (1 - 1e-9)]
    if not below:
        return f"below ε ≈ {eps(BOUNDARY_BELOW)} the boundary seed decides"
    epsilons = sorted({run.epsilon for run in runs if run.split_happened and run.epsilon < BOUNDARY_BELOW * (1 - 1e-9)})
    text = (f"below ε ≈ {eps(BOUNDARY_BELOW)} the boundary seed (the unseeded run's own: the grid and the domain's "
            f"edges) decides: at ε = {', '.join(eps(e) for e in epsilons)} BCC splits at t = {span(below, '.2f')}")
    if unseeded is not None and unseeded.split_happened:
        text += f", unseeded at {unseeded.split:.2f}"
    return text


def fit_note(fit, unseeded):
    if fit is None:
        return ""
    note = (f"Growth rate: least squares of BCC's split time against ln ε over the {fit.points} centred runs at "
            f"ε = {', '.join(eps(e) for e in fit.epsilons)} (each seed one point): slope {fit.slope:.3f} "
            f"(the split {-fit.slope * np.log(10):.2f} earlier per decade of ε), so σ = {fit.sigma:.3f} ω⊥ "
            "(−1/slope): the seed grows as ε e^(σt) to the same size at the split.")
    if unseeded is not None and unseeded.split_happened:
        note += (f" The fit reaches the unseeded split time t = {unseeded.split:.2f} at ε = "
                 f"{eps(float(f'{fit.crossing(unseeded.split):.2g}'))}.")
    return note


def placements_text(placed):
    count = {1: "One placement", 2: "Two placements"}.get(len(placed), f"{len(placed)} placements")
    return f"{count} ran: " + "; ".join(f"{p}, the {PLACEMENTS.get(p, p)}" for p in placed) + "."


def caption(placed, fit, unseeded, scan):
    lines = [f"Seed: {SEED}. Each run stops at the split (the first diagnostics time with E > {physics.SPLIT}) or at "
             "t = 100.",
             placements_text(placed) + " Seeds: "
             + seed_counts(placed) + ".",
             f"(a) {physics.near_tie_note()}"]
    if scan:
        lines.append(f"(b) Open circles: one seed each (side by side at each ε); {boundary_text(scan, unseeded)}."
                     + (f" Red: the fit over ε = {eps(fit.epsilons[0])}–{eps(fit.epsilons[-1])} (the rule's "
                        "window), dotted down to the unseeded split time; "
                        f"σ = {fit.sigma:.3f} ω⊥." if fit else "")
                     + " t in 1/ω⊥.")
    return "\n".join(lines)


def provenance_note(device_dir, paths):
    """What the splitting folder's provenance says of the commit, where it is more than a commit."""
    record = Path(device_dir) / "splitting" / "provenance.json"
    if not record.exists():
        return ""
    doc = read_json(record)
    parts = []
    commit = doc.get("git_commit")
    if isinstance(commit, str) and " " in commit:
        parts.append(f"Commit: {commit}.")
    commands = {provenance(device_dir, p)["command"] for p in paths}
    if isinstance(doc.get("command"), str) and doc["command"] not in commands:
        parts.append(f"Command: `{doc['command']}`.")
    if isinstance(doc.get("note"), str):
        parts.append(f"Note: {doc['note']}.")
    return ("Provenance (splitting/provenance.json): " + " ".join(parts)) if parts else ""


def render(device_dir, out_dir):
    placed, paths = load_all(device_dir)
    result = Rendered(inputs=list(paths))
    scan = bcc_scan(placed)
    fit = growth_fit(scan) if scan else None
    windows, spread = (window_scan(scan), seeds_spread(scan)) if scan else ([], 0.0)
    unseeded = unseeded_bcc(device_dir) if scan else None
    if unseeded is not None:
        result.inputs.append(unseeded.path)

    panels = 2 if scan else 1
    fig, axes = plt.subplots(1, panels, figsize=(8 * panels, 5.6), constrained_layout=True, squeeze=False)
    bars_panel(axes[0, 0], placed)
    if scan:
        scan_panel(axes[0, 1], scan, fit, unseeded)
    fig.suptitle("Seeded splits: the fold over random seed phases, and BCC's split time against the seed amplitude"
                 if scan else "Seeded splits: the fold over random seed phases")
    note = caption(placed, fit, unseeded, scan)
    footer(fig, device_dir, result.inputs, note)
    result.files += save_figure(fig, out_dir, "seeded-splits")

    sections = []
    for placement, runs in placed.items():
        title = f"Folds at ε = {eps(EPSILON)}, {PLACEMENTS.get(placement, placement)}"
        table = fold_table(at(runs))
        sections.append(f"## {title}\n\n{table}")
        result.tables.append(f"**{title}**\n\n{table}")
    if scan:
        title = "BCC, lattice centred: split time against ε"
        table = scan_table(scan)
        sections.append(f"## {title}\n\n{table}")
        result.tables.append(f"**{title}**\n\n{table}")
        title = "BCC, lattice centred: σ against the fit's window of ε"
        table = window_table(windows, spread, fit)
        sections.append(f"## {title}\n\n{table}")
        result.tables.append(f"**{title}**\n\n{table}")
    notes = [f"Seed: {SEED}; from scripts/seed-study-run.sh. Each run stops at the split (the first diagnostics time "
             f"with E > {physics.SPLIT}) or at t = 100.",
             placements_text(placed) + " Seeds: "
             + seed_counts(placed) + ".",
             "Fold counts: the dominant m ≥ 2 of each run that split. " + physics.near_tie_note()
             + " Amplitude ratio fold : next: |c_fold| / |c_next|, c_next the strongest m ≥ 2 that is not a multiple "
             "of the fold.",
             fit_note(fit, unseeded),
             (f"BCC's split against ε: {boundary_text(scan, unseeded)}; from ε ≥ {eps(fit.epsilons[0])} the "
              "chosen seed does alone (the rule's window)." if scan and fit else ""),
             window_note(windows, spread, fit) if scan else "",
             "" if unseeded is not None or not scan else "No physics/accuracy_bcc.h5: no unseeded split time drawn.",
             provenance_note(device_dir, paths),
             "Units: t in 1/ω⊥, σ in ω⊥ (the paper's eq. 2)."]
    notes = [n for n in notes if n]
    table_path = Path(out_dir) / "seeded-splits.md"
    table_path.write_text("# Seeded splits\n\n" + "\n".join(sections) + "\n" + "\n\n".join(notes) + "\n")
    result.files.append(table_path)
    result.notes += notes
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render, folder_help="reports/data/<device> (with splitting/seed-study-*.json)")
