"""Every table and figure that reports/data/ holds data for, rendered into reports/out/<device>/, and
reports/out/index.md listing them by the paper's figure and table (Fig 5 … Fig 10, Table 1; an extension of a
figure, such as Seeded splits of Fig 6, right after it), then this repository's own, each with the device folders it
was rendered for and the provenance of its data.

    make_all.py [--data DIR] [--out DIR]        defaults: reports/data, reports/out

A report is one entry of REPORTS: its figure or table ("Fig 5"), a title, the data files it needs (glob patterns
inside a device folder, every one of which must match) and a render function (device folder, output folder) ->
common.Rendered. Each report is one entry, rendered for the device folders that hold all it needs and naming only
those: a folder without its data is left out, not listed as skipped. Exit status 1 if any report failed.

Every folder directly under reports/data/ is a device folder, named for the machine that computed what it holds
(nvidia-h100-80gb-hbm3, cpu-2core-vm, …), with no exception for data whose numbers no machine changes (the lattices'
isotropy, the continuum Bogoliubov spectrum): a study's files go in a folder of their own inside it
(cpu-2core-vm/kohn/), so that a second machine's run of the same study is one more device folder, not a clash.
"""

import argparse
import shutil
import sys
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import bogoliubov
import hybrid
import integrators
import isotropy
import known_answers
import physics
import precision
import roofline
import rotating_frame
import scaleout
import scaling
import speedup
import splitting
import splitting_refinement
import stationary_start
import time_to_solution
import vortex_lattice
import vortex_split
from common import provenance, short_commit


@dataclass(frozen=True)
class Report:
    figure: str  # "Fig 5", "Table 1": the paper's; anything else is ours
    title: str
    needs: tuple  # glob patterns relative to reports/data/<device>/
    render: Callable  # (device folder, output folder) -> common.Rendered


REPORTS = (  # the paper's figures and tables in its order (a figure's extension right after it), then ours
    Report("Fig 5", "error and RMSE of the vortex split per lattice; convergence of cubic and BCC",
           ("physics/accuracy_*.h5",), physics.render_error),
    Report("Fig 6", "density on z = 0 at the split; azimuthal amplitudes", ("physics/accuracy_*.h5",),
           physics.render_density),
    Report("Seeded splits", "Fig 6's fold over controlled seeds: counts per lattice and placement; BCC's split time "
           "against the seed amplitude", (splitting.FILES,), splitting.render),
    Report("Stationary start", "Fig 5 and Fig 6's folds from the lattice's own stationary state: μ_h, fold counts "
           "and growth rates over seeds, the three RMSEs", (stationary_start.FILES,), stationary_start.render),
    Report("Split convergence", "the seeded split from the stationary state at two refinements, cubic and BCC: split "
           "time and σ₃ against the work per time unit, their convergence ratio, Richardson where it holds",
           (stationary_start.FILES, splitting_refinement.FILES), splitting_refinement.render),
    Report("Vortex split", "the split told by the vortex lines: the first separation against E > 0.01, the lines at "
           "the split (number, charges, crossings of z = 0 and their azimuthal order), lines against time, the lines "
           "in 3D", (vortex_split.FILE,), vortex_split.render),
    Report("Fig 7", "GPU speedup over one CPU core and over all host cores", (speedup.FILE,), speedup.render),
    Report("Fig 8", "roofline of the step kernel", ("bench-*.json",), roofline.render),
    Report("Fig 9", "strong and weak scaling over GPUs", ("scaling_gpu.csv",), scaling.render_scaling),
    Report("Fig 10", "time units per second on CPU MPI ranks and on GPUs", ("scaling_gpu.csv", "scaling_cpu_mpi.csv"),
           scaling.render_rate),
    Report("Table 1", "dual-edge lengths relative to cubic, and where they differ from the paper's",
           ("physics/accuracy_*.h5",), physics.render_table1),
    Report("Accuracy", "split time, fold, both RMSEs and the grid per lattice", ("physics/accuracy_*.h5",),
           physics.render_accuracy),
    Report("Time to solution", "the accuracy cases to the split on a GPU with eq. 11's Δt and with the spectral "
           "limit's", (time_to_solution.FILE,), time_to_solution.render),
    Report("Isotropy", "dispersion error of the DEC Laplacian over the sphere", (isotropy.FILE,), isotropy.render),
    Report("Integrators", "work-precision of every scheme on cubic, BCC, C15 and cubic4; the fastest per error "
           "target", ("integrators/work_precision.json",), integrators.render),
    Report("Deep halos", "time of the steps against the halo depth k on MPI ranks", (scaleout.FILES,),
           scaleout.render),
    Report("Bogoliubov", "the continuum Bogoliubov spectrum of the κ = 10 vortex: growth rate per mode, its "
           "convergence in h", (bogoliubov.FILE,), bogoliubov.render),
    Report("Kohn", "the dipole modes' frequency error per lattice and scheme (x at 1, z at λ): its order in h and in "
           "Δt", (known_answers.KOHN,), known_answers.render_kohn),
    Report("Breathing", "the breathing mode per lattice against the sum rule √(5 − K/U) and √5",
           (known_answers.BREATHING,), known_answers.render_breathing),
    Report("Precession", "the off-axis vortex's precession rate per lattice against 1 − Ω (g = 0): its error and its "
           "order in the spacing", (known_answers.PRECESSION,), known_answers.render_precession),
    Report("Vortex lattice", "the rotating quasi-2D ground state per lattice: its vortices against Feynman's count "
           "and spacing", vortex_lattice.FILES, vortex_lattice.render),
    Report("Rotating frame", "the rotating frame's step against the lab frame's per lattice on a GPU (leapfrog, RK4): "
           "their ratio and the share of the copy rate", (rotating_frame.FILE,), rotating_frame.render),
    Report("Precision", "single and mixed precision against double on a GPU: the step's rate per lattice and the "
           "accuracy case to the split (split time, phase, drifts)", (*precision.SPEED, precision.ACCURACY),
           precision.render),
    Report("Precision drifts", "single and mixed precision against double on a CPU: the drifts of the norm and the "
           "invariant over 1e5 steps per lattice and scheme", (precision.DRIFTS,), precision.render_drifts),
    Report("Hybrid ranks", "one GPU rank beside OpenMP ranks against the GPU alone, on a case that fits the GPU and "
           "one that does not", (hybrid.FILES,), hybrid.render),
)
PAPER = tuple(r.figure for r in REPORTS if r.figure.startswith(("Fig", "Table")))

REPO = Path(__file__).resolve().parent.parent


def shown(path):
    """A path as index.md names it: from the repository root where it lies inside, so the index reads the same on
    every machine."""
    try:
        return Path(path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def provenance_rows(device_dir, inputs):
    rows = []
    for path in inputs:
        p = provenance(device_dir, path)
        rows.append(f"| {device_dir.name} | `{path.relative_to(device_dir).as_posix()}` | "
                    f"`{short_commit(p['git_commit'])}` | {p['device']} | {p['date']} | `{p['command']}` |")
    return rows


def render_one(report, device_dir, out_root):
    """The subsection of one report for one device folder, its files, and whether it rendered."""
    out_dir = out_root / device_dir.name
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        result = report.render(device_dir, out_dir)
    except Exception:  # one broken report must not hide the others; the exit status still says it failed
        error = traceback.format_exc()
        print(f"make_all: {report.figure} ({device_dir.name}) failed:\n{error}", file=sys.stderr)
        return [f"### {device_dir.name}\n", f"**Failed:** `{error.strip().splitlines()[-1]}`\n"], [], [], False
    section = [f"### {device_dir.name}\n"]
    section += [f"![{f.stem}]({f.relative_to(out_root).as_posix()})\n" for f in result.files if f.suffix == ".png"]
    links = [f"[{f.name}]({f.relative_to(out_root).as_posix()})" for f in result.files]
    if links:
        section.append("Files: " + " · ".join(links) + "\n")
    section += result.tables
    section += [f"> {note}\n" for note in result.notes]
    return section, links, provenance_rows(device_dir, result.inputs), True


def render_report(report, devices, out_root):
    """One section of index.md: the report for every device folder that has its data, and the provenance of
    everything it drew, device folder by device folder; a folder without the data is not named. Returns the
    section, the files per device folder that rendered it, and whether all went well."""
    section = [f"## {report.figure}: {report.title}\n"]
    files, provenance_lines, ok = {}, [], True
    for device_dir in devices:
        if not all(any(device_dir.glob(pattern)) for pattern in report.needs):
            continue
        text, links, rows, rendered = render_one(report, device_dir, out_root)
        section += text
        files[device_dir.name] = [link for link in links if not link.endswith(".pdf)")] if rendered else ["failed"]
        provenance_lines += rows
        ok &= rendered
    if not files:  # said once, so that an empty section does not read as a rendering that lost its figures
        section.append(f"No device folder has `{'`, `'.join(report.needs)}`.\n")
    if provenance_lines:
        section += ["Provenance:\n", "| device folder | data file | git commit | device | date | command |",
                    "|---|---|---|---|---|---|", *provenance_lines, ""]
    return "\n".join(section), files, ok


def contents(rendered):
    """The table at the top of index.md: one row per figure or table, naming the device folders that rendered it
    and their files."""
    lines = ["| figure or table | what | rendered for |", "|---|---|---|"]
    for report in REPORTS:
        anchor = f"#{report.figure.lower().replace(' ', '-')}-" + "-".join(
            "".join(c for c in word.lower() if c.isalnum() or c == "-") for word in report.title.split())
        cell = "<br>".join(f"`{device}`: " + (" · ".join(files) or "notes only")
                           for device, files in rendered[report.figure].items()) or "no data"
        lines.append(f"| [{report.figure}]({anchor}) | {report.title} | {cell} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=here / "data")
    parser.add_argument("--out", type=Path, default=here / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    devices = sorted(d for d in args.data.iterdir() if d.is_dir())
    for device_dir in devices:  # generated: stale figures must not outlive their data
        shutil.rmtree(args.out / device_dir.name, ignore_errors=True)
    sections, rendered, ok = [], {}, True
    for report in REPORTS:
        text, files, fine = render_report(report, devices, args.out)
        sections.append(text)
        rendered[report.figure] = files
        ok &= fine
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    index = args.out / "index.md"
    last = max(i for i, r in enumerate(REPORTS) if r.figure in PAPER)
    extensions = [f"{r.figure} after {REPORTS[i - 1].figure}" for i, r in enumerate(REPORTS[:last])
                  if r.figure not in PAPER]
    ours = [r.figure for r in REPORTS[last + 1:]]
    index.write_text(
        f"# decgpe reports\n\nRendered {stamp} by `reports/make_all.py` from `{shown(args.data)}/` "
        f"({len(devices)} device folders: {', '.join(f'`{d.name}`' for d in devices)}). The paper's figures and "
        f"table in its order ({', '.join(PAPER)}"
        + (f"; {', '.join(extensions)}, which extends it" if extensions else "")
        + f"), then ours ({', '.join(ours)}); each is one entry that names the device "
        "folders holding its data, with the provenance (git commit, device, date, command) of every data file it "
        "drew.\n\n" + contents(rendered) + "\n" + "\n".join(sections))
    print(f"make_all: wrote {shown(index)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
