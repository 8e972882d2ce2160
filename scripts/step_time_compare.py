#!/usr/bin/env python3
"""Time per step of every benchmark in NEW against the same benchmark in BEFORE (Google Benchmark JSON from bench_step,
the same steps per iteration in both): the comparison for a change that alters the passes a step takes, which the
per-pass rates of perf_compare.py do not see. Prints one table; exits 1 when a benchmark is slower by more than the
tolerance.

    scripts/step_time_compare.py BEFORE NEW [--tolerance 0.03]
"""
import argparse
import json
import statistics
import sys


def times(path):
    """Benchmark name -> median iteration time (its repetitions)."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    samples = {}
    for run in runs:
        if run.get("run_type") == "aggregate" or "error_occurred" in run:
            continue
        samples.setdefault(run["name"].split("/min_time")[0], []).append(run["real_time"])
    return {name: statistics.median(values) for name, values in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("new")
    parser.add_argument("--tolerance", type=float, default=0.03)
    args = parser.parse_args()
    old, new = times(args.before), times(args.new)
    failed = 0
    print("| benchmark | before ms/iteration | now | speed-up | |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name in sorted(old):
        if name not in new:
            continue
        speedup = old[name] / new[name]
        slow = speedup < 1.0 - args.tolerance
        failed += slow
        print(f"| {name} | {old[name]:.3f} | {new[name]:.3f} | {speedup:.3f}x | {'FAIL' if slow else 'ok'} |")
    print(f"{failed} of {len(old)} benchmarks slower per step than before by more than {100 * args.tolerance:.0f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
