#!/usr/bin/env python3
"""The performance gate's comparison: every benchmark in NEW against the same benchmark in COMMITTED (Google Benchmark
JSON from bench_step). A benchmark is the name up to '/min_time'; its value is the median over repetitions where there
are repetitions. By default the value is DOF-updates per second (per kernel pass); with --per-step it is the time
per iteration (the same steps in both files), for a change that alters the passes a step takes, which the per-pass
rates do not see. Prints one table; exits 1 when any benchmark of COMMITTED is slower in NEW by more than the
tolerance, or (by default) was not measured.

    scripts/perf_compare.py COMMITTED NEW [--tolerance 0.03] [--per-step]
"""
import argparse
import json
import statistics
import sys


def medians(path, key):
    """Benchmark name -> median of `key` over its repetitions."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    samples = {}
    for run in runs:
        if run.get("run_type") == "aggregate" or "error_occurred" in run:
            continue
        samples.setdefault(run["name"].split("/min_time")[0], []).append(run[key])
    return {name: statistics.median(values) for name, values in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("committed")
    parser.add_argument("new")
    parser.add_argument("--tolerance", type=float, default=0.03)
    parser.add_argument("--per-step", action="store_true", help="compare time per iteration, not per-pass rates")
    args = parser.parse_args()
    key = "real_time" if args.per_step else "dof_updates_per_second"
    old, new = medians(args.committed, key), medians(args.new, key)
    failed = 0
    if args.per_step:
        print("| benchmark | before ms/iteration | now | speed-up | |")
    else:
        print("| benchmark | committed G/s | now G/s | change | |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name in sorted(old):
        if name not in new:
            if not args.per_step:
                print(f"| {name} | {old[name] / 1e9:.2f} | not measured | | FAIL |")
                failed += 1
            continue
        if args.per_step:
            speedup = old[name] / new[name]
            slow = speedup < 1.0 - args.tolerance
            print(f"| {name} | {old[name]:.3f} | {new[name]:.3f} | {speedup:.3f}x | {'FAIL' if slow else 'ok'} |")
        else:
            change = new[name] / old[name] - 1.0
            slow = change < -args.tolerance
            print(f"| {name} | {old[name] / 1e9:.2f} | {new[name] / 1e9:.2f} | {100 * change:+.1f}% | "
                  f"{'FAIL' if slow else 'ok'} |")
        failed += slow
    what = "per step than before" if args.per_step else "than the committed JSON"
    print(f"{failed} of {len(old)} benchmarks slower {what} by more than {100 * args.tolerance:.0f}%"
          + ("" if args.per_step else " (or not measured)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
