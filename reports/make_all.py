"""Every table and figure that reports/data/ holds data for, rendered into reports/out/<device>/, and
reports/out/index.md listing each with the provenance of its data.

    make_all.py [--data DIR] [--out DIR]        defaults: reports/data, reports/out

A report is one entry of REPORTS: a title, the data files it needs (glob patterns inside a device folder, every one
of which must match) and a render function (device folder, output folder) -> common.Rendered. Where a device folder
lacks what a report needs, index.md says so in place of the report. Exit status 1 if any report failed.
"""

import argparse
import shutil
import sys
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import integrators
import isotropy
import physics
import roofline
import scaling
import speedup
from common import provenance, short_commit


@dataclass(frozen=True)
class Report:
    title: str
    needs: tuple  # glob patterns relative to reports/data/<device>/
    render: Callable  # (device folder, output folder) -> common.Rendered


REPORTS = (  # in the paper's order
    Report("Fig 5: error and RMSE of the vortex split per lattice; convergence of cubic and BCC",
           ("physics/accuracy_*.h5",), physics.render_error),
    Report("Accuracy per lattice; Table 1: dual-edge lengths relative to cubic", ("physics/accuracy_*.h5",),
           physics.render_tables),
    Report("Fig 6: density on z = 0 at the split; azimuthal amplitudes", ("physics/accuracy_*.h5",),
           physics.render_density),
    Report("Fig 7: GPU speedup over one CPU core and over all host cores", ("bench-*.json",), speedup.render),
    Report("Fig 8: roofline of the step kernel", ("bench-*.json",), roofline.render),
    Report("Fig 9: strong and weak scaling over GPUs", ("scaling_gpu.csv",), scaling.render_scaling),
    Report("Fig 10: time units per second on CPU MPI ranks and on GPUs", ("scaling_gpu.csv", "scaling_cpu_mpi.csv"),
           scaling.render_rate),
    Report("Isotropy: dispersion error of the DEC Laplacian over the sphere", ("isotropy.h5",), isotropy.render),
    Report("Integrators: work-precision of every scheme on cubic, BCC, C15 and cubic4; the fastest per error target",
           ("integrators/work_precision.json",), integrators.render),
)

REPO = Path(__file__).resolve().parent.parent


def shown(path):
    """A path as index.md names it: from the repository root where it lies inside, so the index reads the same on
    every machine."""
    try:
        return Path(path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def provenance_table(device_dir, inputs):
    lines = ["| data file | git commit | device | date | command |", "|---|---|---|---|---|"]
    for path in inputs:
        p = provenance(device_dir, path)
        lines.append(f"| `{path.relative_to(device_dir).as_posix()}` | `{short_commit(p['git_commit'])}` "
                     f"| {p['device']} | {p['date']} | `{p['command']}` |")
    return "\n".join(lines) + "\n"


def render_device(device_dir, out_root):
    """Renders every report for one device folder; returns its index.md section and whether all went well."""
    out_dir = out_root / device_dir.name
    shutil.rmtree(out_dir, ignore_errors=True)  # generated: stale figures must not outlive their data
    section = [f"## {device_dir.name}\n", f"Data: `{shown(device_dir)}/`\n"]
    ok = True
    for report in REPORTS:
        section.append(f"### {report.title}\n")
        missing = [pattern for pattern in report.needs if not any(device_dir.glob(pattern))]
        if missing:
            section.append(f"Skipped: needs `{'`, `'.join(missing)}` in `{shown(device_dir)}/`, not found.\n")
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        try:
            result = report.render(device_dir, out_dir)
        except Exception:  # one broken report must not hide the others; the exit status still says it failed
            ok = False
            error = traceback.format_exc()
            print(f"make_all: {report.title} ({device_dir.name}) failed:\n{error}", file=sys.stderr)
            section.append(f"**Failed:** `{error.strip().splitlines()[-1]}`\n")
            continue
        links = [f"[{f.name}]({f.relative_to(out_root).as_posix()})" for f in result.files]
        section += [f"![{f.stem}]({f.relative_to(out_root).as_posix()})\n" for f in result.files if f.suffix == ".png"]
        if links:
            section.append("Files: " + " · ".join(links) + "\n")
        section += result.tables
        section += [f"> {note}\n" for note in result.notes]
        section += ["Provenance:\n", provenance_table(device_dir, result.inputs)]
    return "\n".join(section), ok


def main(argv=None):
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=here / "data")
    parser.add_argument("--out", type=Path, default=here / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    devices = sorted(d for d in args.data.iterdir() if d.is_dir())
    sections = [render_device(d, args.out) for d in devices]
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    index = args.out / "index.md"
    index.write_text(f"# decgpe reports\n\nRendered {stamp} by `reports/make_all.py` from `{shown(args.data)}/` "
                     f"({len(devices)} device folders).\n\n" + "\n".join(text for text, _ in sections))
    print(f"make_all: wrote {shown(index)}")
    return 0 if all(ok for _, ok in sections) else 1


if __name__ == "__main__":
    sys.exit(main())
