"""Known answers of the dynamics per lattice, from the studies' CSV files in a device folder:

- Kohn: kohn/kohn.csv (verify/kohn_study.cpp). The displaced state's centre oscillates at exactly 1 along x and λ
  along z whatever g; the fitted ω's error against them at each mean cell spacing (g = 0, every scheme at half the
  leapfrog's limit) and its order in h, and every scheme's ω(Δt) − ω(Δt_ref) at one spacing (g = 20) and its order in
  Δt from three Δt alone (log₂ of the ratio of successive changes).
- Breathing: breathing/breathing.csv (verify/breathing_study.cpp). ω_B of the quench g = 900 → 1000 against the sum
  rule's √(5 − K/U) and the Thomas–Fermi √5, at three spacings, with ω_B(0) from the quadratic in s² through them.
- Precession: precession/precession.csv (verify/precession_study.cpp). The off-axis vortex's core turns at exactly
  1 − Ω in the frame rotating at Ω (g = 0); per lattice, the measured rate, its error and its order in the spacing.

    known_answers.py reports/data/<device> [--out DIR]
"""

import csv
import math
from pathlib import Path

from common import LABELS, Rendered, markdown_table, registry_entries, run_on_folder, save_sections

KOHN = "kohn/kohn.csv"
BREATHING = "breathing/breathing.csv"
PRECESSION = "precession/precession.csv"


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def by_run(table, part):
    """{(lattice, scheme): [{'x': row, 'z': row}, ...]} of one part, in the file's order."""
    runs = {}
    for r in table:
        if r["part"] != part:
            continue
        series = runs.setdefault((r["lattice"], r["scheme"]), [])
        if not series or r["mode"] in series[-1]:
            series.append({})
        series[-1][r["mode"]] = r
    return runs


def e(value):
    return f"{float(value):.2e}"


def order(value):
    return "—" if value in ("nan", "") or math.isnan(float(value)) else f"{float(value):.2f}"


def space_rows(table):
    """Per lattice and scheme: the error of x and z at the coarsest and finest spacing, the order between the last
    two, and the time error at the finest, ω(Δt) − ω(Δt/2)."""
    halved = by_run(table, "space_half_dt")
    out = []
    for (lattice, scheme), series in by_run(table, "space").items():
        first, last = series[0], series[-1]
        check = halved.get((lattice, scheme), [{}])[0]
        cells = [LABELS.get(lattice, lattice), scheme, f"{float(last['x']['dt']):.3g}"]
        for mode in ("x", "z"):
            time_error = float(last[mode]["omega"]) - float(check[mode]["omega"]) if mode in check else math.nan
            before = series[-2][mode]["error"] if len(series) > 1 else "nan"
            crossed = float(before) * float(last[mode]["error"]) < 0  # through zero: no order to read
            cells += [e(first[mode]["error"]), e(last[mode]["error"]),
                      "— (sign change)" if crossed else order(last[mode]["order"]),
                      "—" if math.isnan(time_error) else e(time_error)]
        out.append(cells)
    return out


SPACE_HEADER = ["lattice", "scheme", "Δt at the finest", "x: error coarsest", "x: error finest", "x: order in h",
                "x: ω(Δt) − ω(Δt/2)", "z: error coarsest", "z: error finest", "z: order in h",
                "z: ω(Δt) − ω(Δt/2)"]


def successive_order(series, mode):
    """log(d₀/d₁)/log(Δt₀/Δt₁) of the last three runs, d the changes of ω between them: the order in Δt without a
    reference."""
    (a, b, c) = (float(run[mode]["omega"]) for run in series[-3:])
    ratio = float(series[-3][mode]["dt"]) / float(series[-2][mode]["dt"])
    return math.log((a - b) / (b - c)) / math.log(ratio)


def time_rows(table):
    """Per lattice and scheme: Δt₀ against the limit, the errors against the reference run at each Δt, and the
    order from the successive changes (the last row's)."""
    orders = {name: entry.get("order") for name, entry in registry_entries("schemes").items()}
    out = []
    for (lattice, scheme), series in by_run(table, "time").items():
        cells = [LABELS.get(lattice, lattice), scheme, orders.get(scheme, "?"), f"{float(series[0]['x']['dt']):.3g} "
                 f"({float(series[0]['x']['dt_over_limit']):.2f})"]
        for mode in ("x", "z"):
            cells += [", ".join(e(run[mode]["error"]) for run in series), order(str(successive_order(series, mode)))]
        out.append(cells)
    return out


TIME_HEADER = ["lattice", "scheme", "registry's order", "Δt₀ (of the limit)", "x: ω(Δt) − ω(Δt_ref), Δt₀, Δt₀/2, …",
               "x: order in Δt", "z: ω(Δt) − ω(Δt_ref), Δt₀, Δt₀/2, …", "z: order in Δt"]


def conditions(table):
    space = [r for r in table if r["part"] == "space"]
    time = [r for r in table if r["part"] == "time"]
    spacings = sorted({float(r["spacing"]) for r in space}, reverse=True)
    return (f"λ = {space[0]['lambda']}, start displaced by (1, 0, 0.5), one period of x sampled 64 times. "
            f"Order in h: g = {space[0]['g']}, mean cell spacings {', '.join(f'{s:g}' for s in spacings)}, every "
            "scheme at the same Δt, half the leapfrog's limit (ω(Δt) − ω(Δt/2) at the finest spacing is ¾ of the time "
            f"error inside the error at order 2). Order in Δt: g = {time[0]['g']}, spacing {time[0]['spacing']}, errors "
            "against the scheme's run at a sixteenth of Δt₀ (the space error cancels); the order is log₂ of the ratio "
            "of the successive changes of ω over the three Δt, free of the reference's own error.")


def render_kohn(device_dir, out_dir):
    path = Path(device_dir) / KOHN
    table = rows(path)
    result = Rendered(inputs=[path])
    save_sections(result, out_dir, "kohn", "Kohn's theorem: the dipole modes per lattice and scheme",
                  [("Kohn: the error of ω against 1 (x) and λ (z), and its order in h", markdown_table(
                      SPACE_HEADER, space_rows(table))),
                   ("Kohn: the time error of ω and its order in Δt", markdown_table(TIME_HEADER, time_rows(table)))],
                  [conditions(table)])
    return result


def extrapolated(spacings, omegas):
    """ω at s = 0 of the quadratic in s² through the three (s, ω) (Lagrange), as test_breathing does."""
    total = 0.0
    for k, (s_k, w_k) in enumerate(zip(spacings, omegas)):
        weight = 1.0
        for j, s_j in enumerate(spacings):
            if j != k:
                weight *= s_j * s_j / (s_j * s_j - s_k * s_k)
        total += weight * w_k
    return total


def breathing_rows(table):
    lattices = {}
    for r in table:
        lattices.setdefault(r["lattice"], []).append(r)
    out = []
    root5 = math.sqrt(5.0)
    for lattice, runs in lattices.items():
        spacings = [float(r["spacing"]) for r in runs]
        omegas = [float(r["omega"]) for r in runs]
        sum_rule = float(runs[-1]["sum_rule"])
        gaps = [float(r["sum_rule"]) - float(r["omega"]) for r in runs]
        gap_order = (math.log(gaps[-2] / gaps[-1]) / math.log(spacings[-2] / spacings[-1])
                     if min(gaps[-2:]) > 0 else math.nan)  # no order of a gap that is not one
        at_zero = extrapolated(spacings[-3:], omegas[-3:]) if len(runs) >= 3 else math.nan
        out.append([LABELS.get(lattice, lattice), ", ".join(f"{w:.5f}" for w in omegas), f"{sum_rule:.5f}",
                    runs[-1]["k_over_u"], order(str(gap_order)), f"{at_zero:.5f}", f"{at_zero - sum_rule:+.1e}",
                    f"{at_zero - root5:+.1e}"])
    return out


BREATHING_HEADER = ["lattice", "ω_B at each spacing", "sum rule √(5 − K/U) (finest)", "K/U", "order of the gap to "
                    "the sum rule (last two)", "ω_B(0), quadratic in s²", "ω_B(0) − sum rule", "ω_B(0) − √5"]


def render_breathing(device_dir, out_dir):
    path = Path(device_dir) / BREATHING
    table = rows(path)
    result = Rendered(inputs=[path])
    spacings = sorted({float(r["spacing"]) for r in table}, reverse=True)
    note = (f"g = 1000 after a quench from 900, domain 11³, the leapfrog at half its limit over three periods of √5, "
            f"mean cell spacings {', '.join(f'{s:g}' for s in spacings)}; ω_B is the least-squares frequency of "
            "⟨r²⟩. The sum rule bounds the exact ω_B from above; √5 is the Thomas–Fermi limit.")
    above = sorted({LABELS.get(r["lattice"], r["lattice"]) for r in table if float(r["omega"]) > float(r["sum_rule"])})
    notes = [note] + ([f"Above the sum rule, where the exact ω_B cannot be, at some spacing: {', '.join(above)}: there "
                       "the grid's and the leapfrog's errors (Δt ∝ h², not separated here) are what is seen."]
                      if above else [])
    save_sections(result, out_dir, "breathing", "The breathing mode per lattice",
                  [("Breathing: ω_B against the sum rule and √5", markdown_table(BREATHING_HEADER,
                                                                                  breathing_rows(table)))], notes)
    return result


PRECESSION_HEADER = ["Ω", "mean cell spacing", "h", "Δt", "rate", "error against 1 − Ω", "order in the spacing"]


def precession_rows(runs):
    """One lattice's rows: per Ω and spacing the rate, its error and the order against the next coarser spacing
    (none where the error changed sign between them)."""
    out = []
    for before, r in zip([None, *runs], runs):
        same_omega = before is not None and before["omega"] == r["omega"]
        crossed = same_omega and float(before["error"]) * float(r["error"]) < 0
        out.append([r["omega"], r["spacing"], f"{float(r['h']):.4g}", f"{float(r['dt']):#.3g}",
                    f"{float(r['rate']):.6f}", f"{float(r['error']):+.2e}",
                    "— (sign change)" if crossed else order(r["order"])])
    return out


def render_precession(device_dir, out_dir):
    path = Path(device_dir) / PRECESSION
    table = rows(path)
    result = Rendered(inputs=[path])
    lattices = {}
    for r in table:
        lattices.setdefault(r["lattice"], []).append(r)
    spacings = sorted({float(r["spacing"]) for r in table}, reverse=True)
    note = ("g = 0, λ = 4: the state (x − 1 + iy)e^(−(ρ² + λz²)/2) superposes the m = 1 and m = 0 oscillator states, "
            "so its core turns at exactly 1 − Ω in the frame rotating at Ω. The core is where the vortex-line "
            "detector's line crosses z = 0 (refined by the zero of ψ's linear fit about it), over one turn sampled 64 "
            "times, the leapfrog at half its limit on openmp; mean cell spacings "
            f"{', '.join(f'{s:g}' for s in spacings)}; the order is log(|error| ratio)/log(spacing ratio) against the "
            "next coarser spacing.")
    sections = [(f"Precession: {LABELS.get(name, name)}", markdown_table(PRECESSION_HEADER, precession_rows(runs)))
                for name, runs in lattices.items()]
    save_sections(result, out_dir, "precession", "The off-axis vortex's precession per lattice", sections, [note])
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render_kohn, render_breathing, render_precession)
