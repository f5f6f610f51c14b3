#!/usr/bin/env python3
"""The server scenario's report (scripts/bench_server.sh): reads runs.tsv
(repeat, server, test, ops_per_s, server_us_per_request) and prints, per
test, the median of each server's throughput and of its own CPU time per
request, with TeksTable's ratios: throughput teks/skip_list and teks/redis
(higher: TeksTable faster), CPU skip_list/teks (higher: TeksTable cheaper)
and teks/redis (TeksTable's CPU in units of Redis's: lower is better),
and with teks_acl, teks_acl/teks (what checking ACL costs).
del100k is one DEL of a 100,000-field hash: its row is the server's own
time for that DEL, in µs. With --plot, draws the CPU ratios as bars.

Usage: server_report.py RUNS_TSV [--title T] [--plot PNG]
"""

import argparse
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_table import fmt_x, print_table  # noqa: E402

SERVERS = ["teks", "teks_acl", "skip_list", "skip_list_bloom", "redis"]
SINGLE_SHOT = {"del100k"}


def medians(path):
    ops, cpu = {}, {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            key = (row["test"], row["server"])
            ops.setdefault(key, []).append(float(row["ops_per_s"]))
            if row.get("server_us_per_request"):
                cpu.setdefault(key, []).append(float(row["server_us_per_request"]))
    return ({k: statistics.median(v) for k, v in ops.items()},
            {k: statistics.median(v) for k, v in cpu.items()})


def ratio(m, test, a, b):
    if (test, a) in m and (test, b) in m and m[(test, b)] > 0:
        return m[(test, a)] / m[(test, b)]
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs")
    parser.add_argument("--title", default="server scenario")
    parser.add_argument("--plot")
    args = parser.parse_args()
    ops, cpu = medians(args.runs)
    tests = list(dict.fromkeys(test for test, _ in ops))
    servers = [s for s in SERVERS if any((t, s) in ops for t in tests)]
    print(args.title)

    timed = [t for t in tests if t not in SINGLE_SHOT]

    def table(title, m, digits, ratios, rows_for):
        print(f"\n{title}")
        header = ["test"] + servers + [f"{a}/{b}" for a, b in ratios]
        rows = [[t] + [f"{m[(t, s)]:.{digits}f}" if (t, s) in m else "-" for s in servers]
                + [fmt_x(ratio(m, t, a, b)) for a, b in ratios] for t in rows_for]
        print_table(header, rows, 1, 0)

    table("throughput (ops/s)", ops, 0, [("teks", "skip_list"), ("teks", "redis")], timed)
    if cpu:
        acl = [("teks_acl", "teks")] if "teks_acl" in servers else []
        table("server CPU per request (µs; del100k: the server's µs for the one DEL)", cpu, 2,
              [("skip_list", "teks"), ("teks", "redis")] + acl, tests)
        quoted = ", ".join(f"{t} {fmt_x(ratio(cpu, t, 'skip_list', 'teks'))}" for t in timed)
        print(f"\nserver CPU per request, skip_list / TeksTable: {quoted}")

    if args.plot and cpu:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 3.8))
        width = 0.38
        for i, (values, label) in enumerate([
                ([ratio(cpu, t, "skip_list", "teks") or 0 for t in timed],
                 "skip_list CPU / TeksTable CPU (higher: TeksTable cheaper)"),
                ([ratio(cpu, t, "teks", "redis") or 0 for t in timed],
                 "TeksTable CPU / redis-server CPU (lower: nearer Redis)")]):
            bars = ax.bar([x + (i - 0.5) * width for x in range(len(timed))], values, width,
                          label=label)
            ax.bar_label(bars, fmt="%.2f", fontsize=8)
        ax.axhline(1.0, color="black", linewidth=1)
        ax.set_xticks(range(len(timed)), timed)
        ax.set_ylabel("ratio of server CPU per request")
        ax.set_title(args.title, fontsize=8, wrap=True)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
