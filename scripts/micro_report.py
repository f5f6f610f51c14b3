#!/usr/bin/env python3
"""Turns tools/memtable_bench's Google Benchmark JSON into a table (and,
with --plot, a PNG): per operation and rep, ns/op and Mops/s (the median
over repetitions when there were several) and the ratio of ops/s to
skip_list's. Benchmark names are "<operation>/<rep>[/...]". Exits 1 if a
benchmark reported an error (e.g. a key not found).
"""

import argparse
import json
import statistics
import sys

from text_table import fmt_x, print_table


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("json", help="memtable_bench --benchmark_out=FILE (JSON)")
    ap.add_argument("--baseline", default="skip_list")
    ap.add_argument("--plot", help="also draw the results into this PNG")
    args = ap.parse_args()
    with open(args.json, encoding="utf-8") as f:
        data = json.load(f)

    runs = {}  # (operation, rep) -> [(ns per op, items per second)]
    operations, reps = [], []
    errors = 0
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            print(f"micro_report: {b['name']}: {b.get('error_message')}", file=sys.stderr)
            errors += 1
            continue
        if b.get("run_type") != "iteration":
            continue
        operation, rep = b["run_name"].split("/")[:2]
        if operation not in operations:
            operations.append(operation)
        if rep not in reps:
            reps.append(rep)
        runs.setdefault((operation, rep), []).append(
            (b["cpu_time"], b["items_per_second"]))
    if not runs:
        print("micro_report: no results", file=sys.stderr)
        return 1

    context = data.get("context", {})
    print(f"memtable_bench: keys={context.get('keys')} value_size={context.get('value_size')} "
          f"({context.get('num_cpus')} CPUs, {context.get('mhz_per_cpu')} MHz)")
    medians = {k: (statistics.median(ns for ns, _ in v), statistics.median(ips for _, ips in v))
               for k, v in runs.items()}
    rows = []
    for op in operations:
        base = medians.get((op, args.baseline))
        for rep in reps:
            if (op, rep) not in medians:
                continue
            ns, ips = medians[(op, rep)]
            rows.append([op, rep, f"{ns:,.0f}", f"{ips / 1e6:.2f}",
                         fmt_x(ips / base[1]) if base else "-"])
    print_table(["operation", "rep", "ns/op (CPU)", "Mops/s", f"vs {args.baseline}"], rows,
                left_columns=2, group_columns=1)
    repeats = max(len(v) for v in runs.values())
    print(f"\n(median of {repeats} repetition(s); CPU time of the benchmark thread only)")

    if args.plot:
        from bench_plot import plot_micro
        plot_micro({k: v[1] for k, v in medians.items()}, operations, reps,
                   f"memtable rep alone, {context.get('keys')} keys", args.plot)
        print(f"plot: {args.plot}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
