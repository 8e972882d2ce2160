"""The rotating frame's step against the lab frame's on a GPU: a table per scheme of the G DOF-updates/s of each
lattice in both frames, their ratio (issue 32 asks for at least 0.8 on the GPU) and the fraction of the same run's
device-to-device copy rate each reaches.

    rotating_frame.py reports/data/<device> [--out DIR]
"""

import json
from pathlib import Path

from common import GPU, LABELS, Rendered, markdown_table, run_on_folder, save_sections

FILE = "rotation/rotating-step-rk4.json"
HEADER = ("lattice", "lab G/s", "rotating G/s", "rotating / lab", "lab % of copy", "rotating % of copy")
SCHEMES = {"step": "leapfrog", "rk4": "RK4 (per DOF-update of a stage)"}
GOAL = 0.8


def medians(path):
    """{(scheme, lattice, omega): the median benchmark} of bench_step's JSON, GPU rows only."""
    found = {}
    for b in json.loads(Path(path).read_text())["benchmarks"]:
        parts = b["name"].split("/")
        if b.get("aggregate_name") != "median" or parts[1] != GPU:
            continue
        omega = next((float(p[1:]) for p in parts if p.startswith("w")), 0.0)
        found[parts[0], parts[2], omega] = b
    return found


def scheme_rows(found, scheme):
    """A row per lattice that ran in both frames, in the registry's order, and the Ω of the rotating runs."""
    rows, omegas = [], set()
    for lattice in LABELS:
        lab = found.get((scheme, lattice, 0.0))
        rotating = [(w, b) for (s, name, w), b in found.items() if s == scheme and name == lattice and w != 0.0]
        if lab is None or len(rotating) != 1:
            continue
        omega, turned = rotating[0]
        omegas.add(omega)
        ratio = turned["dof_updates_per_second"] / lab["dof_updates_per_second"]
        rows.append((LABELS[lattice], f"{lab['dof_updates_per_second'] / 1e9:.2f}",
                     f"{turned['dof_updates_per_second'] / 1e9:.2f}",
                     f"{ratio:.3f}" + ("" if ratio >= GOAL else " (below 0.8)"),
                     f"{100 * lab['copy_fraction']:.1f}", f"{100 * turned['copy_fraction']:.1f}"))
    return rows, omegas


def render(device_dir, out_dir):
    path = Path(device_dir) / FILE
    found = medians(path)
    context = json.loads(path.read_text())["context"]
    result = Rendered(inputs=[path])
    sections, omegas = [], set()
    for scheme, title in SCHEMES.items():
        rows, seen = scheme_rows(found, scheme)
        omegas |= seen
        if rows:
            sections.append((f"Rotating frame: {title}", markdown_table(HEADER, rows)))
    dofs = sorted({f"{b['dofs'] / 1e6:.0f}M" for b in found.values()})
    note = (f"{context.get('gpu_name', 'GPU')}, {GPU}, Ω = {', '.join(f'{w:g}' for w in sorted(omegas))} about the "
            f"trap's axis, {', '.join(dofs)} DOFs, medians of bench_step's repetitions "
            "(CUDA events, cold L2); the copy rate is the same run's device-to-device copy "
            f"({float(context['gpu_copy_bytes_per_second']) / 1e12:.2f} TB/s), against 48 B a leapfrog update and 64 B an "
            "RK4 stage's. The rotating step forms the magnetic "
            "Laplacian as W ψ_i − Σ_F w_F e^(−iθ_F) ψ_j with each cell's w e^(−iθ) computed once per sweep "
            "(docs/gpu.md, 'The rotating frame').")
    save_sections(result, out_dir, "rotating-frame", "The rotating frame's step against the lab frame's", sections,
                  [note])
    return result


if __name__ == "__main__":
    run_on_folder(__doc__, render)
