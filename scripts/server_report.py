#!/usr/bin/env python3
"""The server scenario's report (scripts/bench_server.sh): reads runs.tsv
(repeat, server, test, ops_per_s), prints per test the median ops/s of
each server and the ratios teks/skip_list and teks/redis, and with --plot
draws those ratios as bars on a linear axis with the 1.0 line.

Usage: server_report.py RUNS_TSV [--title T] [--plot PNG]
"""

import argparse
import csv
import statistics
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_table import fmt_x, print_table  # noqa: E402

SERVERS = ["teks", "skip_list", "redis"]


def medians(path):
    runs = {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            runs.setdefault((row["test"], row["server"]), []).append(float(row["ops_per_s"]))
    return {key: statistics.median(values) for key, values in runs.items()}


def ratio(m, test, a, b):
    return m[(test, a)] / m[(test, b)] if (test, a) in m and (test, b) in m else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs")
    parser.add_argument("--title", default="server scenario")
    parser.add_argument("--plot")
    args = parser.parse_args()
    m = medians(args.runs)
    tests = list(dict.fromkeys(test for test, _ in m))
    servers = [s for s in SERVERS if any((t, s) in m for t in tests)]
    header = ["test"] + [f"{s} ops/s" for s in servers] + ["teks/skip_list", "teks/redis"]
    rows = [[t] + [f"{m[(t, s)]:.0f}" if (t, s) in m else "-" for s in servers]
            + [fmt_x(ratio(m, t, "teks", "skip_list")), fmt_x(ratio(m, t, "teks", "redis"))]
            for t in tests]
    print(args.title)
    print_table(header, rows, 1, 0)
    quoted = ", ".join(f"{t} {fmt_x(ratio(m, t, 'teks', 'skip_list'))}" for t in tests
                       if ratio(m, t, "teks", "skip_list") is not None)
    if quoted:
        print(f"\nteksdb-server on TeksTable vs on skip_list: {quoted}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 3.8))
        width = 0.38
        for i, (other, label) in enumerate([("skip_list", "TeksTable / skip_list"),
                                            ("redis", "TeksTable / redis-server")]):
            values = [ratio(m, t, "teks", other) or 0 for t in tests]
            bars = ax.bar([x + (i - 0.5) * width for x in range(len(tests))], values, width, label=label)
            ax.bar_label(bars, fmt="%.2f", fontsize=8)
        ax.axhline(1.0, color="black", linewidth=1)
        ax.set_xticks(range(len(tests)), tests)
        ax.set_ylabel("throughput ratio (higher: TeksTable faster)")
        ax.set_title(args.title, fontsize=8, wrap=True)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
