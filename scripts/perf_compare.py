#!/usr/bin/env python3
"""The performance gate's comparison: DOF-updates per second of every benchmark in NEW against the same benchmark in
COMMITTED (Google Benchmark JSON from bench_step). A benchmark is the name up to '/min_time'; its rate is the median
over repetitions where there are repetitions. Prints one table; exits 1 when any benchmark of COMMITTED is slower in
NEW by more than the tolerance, or was not measured.

    scripts/perf_compare.py COMMITTED NEW [--tolerance 0.03]
"""
import argparse
import json
import statistics
import sys


def rates(path):
    """Benchmark name -> median DOF-updates per second (over its repetitions)."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    samples = {}
    for run in runs:
        if run.get("run_type") == "aggregate" or "error_occurred" in run:
            continue
        name = run["name"].split("/min_time")[0]
        samples.setdefault(name, []).append(run["dof_updates_per_second"])
    return {name: statistics.median(values) for name, values in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("committed")
    parser.add_argument("new")
    parser.add_argument("--tolerance", type=float, default=0.03)
    args = parser.parse_args()
    old, new = rates(args.committed), rates(args.new)
    failed = 0
    print(f"| benchmark | committed G/s | now G/s | change | |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name in sorted(old):
        if name not in new:
            print(f"| {name} | {old[name] / 1e9:.2f} | not measured | | FAIL |")
            failed += 1
            continue
        change = new[name] / old[name] - 1.0
        slow = change < -args.tolerance
        failed += slow
        print(f"| {name} | {old[name] / 1e9:.2f} | {new[name] / 1e9:.2f} | {100 * change:+.1f}% | "
              f"{'FAIL' if slow else 'ok'} |")
    print(f"{failed} of {len(old)} benchmarks slower than the committed JSON by more than "
          f"{100 * args.tolerance:.0f}% (or not measured)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
