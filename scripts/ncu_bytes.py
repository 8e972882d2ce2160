#!/usr/bin/env python3
"""What Nsight Compute counted in scripts/kernel-study.sh's profiles, a cell at a time: for each file (ncu --csv --page
details --print-units base with METRICS, after bench_step's own output), the L2's and DRAM's throughput as % of their
peaks, and the bytes a cell that the SMs asked of the L2, that the L2 handled in all, and that DRAM moved. The sweep
is bound by the L2 where the SMs ask it for far more than DRAM's bytes (docs/gpu.md, "The sweep is bound by the L2").

    scripts/ncu_bytes.py out/kernel-study/ncu-bcc-sweep.csv ...
"""
import csv
import io
import re
import sys
from pathlib import Path

SECTOR_BYTES = 32
# The metrics kernel-study.sh asks for besides its sections (ncu --metrics).
METRICS = ("lts__t_sectors_srcunit_tex.sum", "lts__t_sectors.sum", "dram__bytes.sum")
SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}


def number(text):
    """ncu's value ("1,412,766", "76.16") as a float; None for another ("n/a", "no data")."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def cells(text):
    """The DOFs of the profiled run: the dofs counter of bench_step's median line (e.g. dofs=63.9999M)."""
    found = re.findall(r"_median\s.*?\bdofs=([\d.]+)([kMG]?)\b", text)
    if not found:
        raise ValueError("no bench_step median line with a dofs counter")
    value, unit = found[-1]
    return float(value) * SCALE[unit]


def metrics(text):
    """{metric name: value} of the first profiled kernel in the CSV part of the file, and its kernel name."""
    start = text.find('"ID",')
    if start < 0:
        raise ValueError("no ncu CSV (a line starting with \"ID\")")
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    if not rows:
        raise ValueError("ncu profiled no kernel")
    first = [r for r in rows if r["ID"] == rows[0]["ID"]]
    values = {r["Metric Name"]: number(r["Metric Value"]) for r in first}
    return {name: v for name, v in values.items() if v is not None}, rows[0]["Kernel Name"]


def summary(path):
    """One line: the file, the L2's and DRAM's throughput, and the bytes a cell."""
    text = Path(path).read_text(errors="replace")
    values, kernel = metrics(text)
    missing = [m for m in METRICS + ("L2 Cache Throughput", "DRAM Throughput") if m not in values]
    if missing:
        raise ValueError(f"{path}: no {', '.join(missing)} (ncu --metrics {','.join(METRICS)})")
    n = cells(text)
    return (f"{Path(path).stem:32} {values['L2 Cache Throughput']:5.1f}% {values['DRAM Throughput']:5.1f}%"
            f" {values['lts__t_sectors_srcunit_tex.sum'] * SECTOR_BYTES / n:8.1f}"
            f" {values['lts__t_sectors.sum'] * SECTOR_BYTES / n:8.1f} {values['dram__bytes.sum'] / n:8.1f}"
            f"   {kernel.split('(')[0][:60]}")


def main(paths):
    print(f"{'profile':32} {'L2':>6} {'DRAM':>6} {'SMs→L2':>8} {'all L2':>8} {'DRAM':>8}   (B a cell)")
    status = 0
    for path in paths:
        try:
            print(summary(path))
        except (OSError, ValueError) as error:
            print(f"{Path(path).stem:32} {error}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
