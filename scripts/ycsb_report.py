#!/usr/bin/env python3
"""Turns the YCSB outputs of scripts/bench_ycsb.sh into tables and plots.

Input: an index, tab-separated with a header line:
    repeat  threads  server  phase  file  [server_cpu_us_per_op]
one line per YCSB run, `file` (relative to the index's directory) being what
YCSB printed: its summary lines "[OVERALL], Throughput(ops/sec), 1234.5",
"[READ], 99thPercentileLatency(us), 250", "[READ], Return=OK, 950", ...;
server_cpu_us_per_op, where given, the server's CPU time per operation of
the run.

Output on stdout: throughput per phase and thread count, a column per server
(median over repeats), with the ratios teks/skip_list and teks/redis from the
same runs; how throughput grows with threads (ops/s at the most threads over
ops/s at the fewest, per server); p99 latency per phase, operation and thread
count (median over repeats), with teks/skip_list (below 1: TeksTable's is
lower); the server's CPU µs per operation, where the index has it, with
skip_list/teks and teks/redis. With --out, every run's operations as TSV; with --plots DIR,
ycsb-throughput.png (ops/s against threads, a panel per phase, a line per
server) and ycsb-p99.png (p99 against threads, a panel per phase and
operation), which need matplotlib.
"""

import argparse
import os
import statistics
import sys

from text_table import fmt_x, print_table

PHASES = ["load a", "a", "b", "c", "d", "f", "load e", "e"]
SERVERS = ["teks", "skip_list", "redis"]
# YCSB's operations in the order they are shown; CLEANUP (closing the
# connection) is left out.
OPERATIONS = ["INSERT", "READ", "UPDATE", "READ-MODIFY-WRITE", "SCAN"]
RAW_COLUMNS = ["repeat", "threads", "server", "phase", "ops_per_sec", "run_time_ms", "operation",
               "operations", "avg_us", "p50_us", "p95_us", "p99_us"]
LATENCY_METRICS = {"AverageLatency(us)": "avg_us", "50thPercentileLatency(us)": "p50_us",
                   "95thPercentileLatency(us)": "p95_us", "99thPercentileLatency(us)": "p99_us",
                   "Operations": "operations"}


def parse_ycsb(path):
    """{"ops_per_sec", "run_time_ms", "operations": {OP: {metric: value}}} from
    one YCSB output; raises ValueError naming the file if it has no summary."""
    run = {"operations": {}}
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 3 or not parts[0].startswith("["):
                continue
            op, metric, value = parts[0][1:-1], parts[1], parts[2]
            if op == "OVERALL" and metric == "Throughput(ops/sec)":
                run["ops_per_sec"] = float(value)
            elif op == "OVERALL" and metric == "RunTime(ms)":
                run["run_time_ms"] = float(value)
            elif op in OPERATIONS and metric in LATENCY_METRICS:
                number = int(value) if metric == "Operations" else float(value)
                run["operations"].setdefault(op, {})[LATENCY_METRICS[metric]] = number
    if "ops_per_sec" not in run:
        raise ValueError(f"{path}: no [OVERALL] Throughput line; not a YCSB summary")
    return run


def read_runs(index):
    base = os.path.dirname(os.path.abspath(index))
    runs = []
    with open(index) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            row["threads"] = int(row["threads"])
            cpu = row.get("server_cpu_us_per_op")
            row["server_cpu_us_per_op"] = float(cpu) if cpu else None
            row.update(parse_ycsb(os.path.join(base, row["file"])))
            runs.append(row)
    return runs


def ordered(values, order):
    return sorted(set(values), key=lambda v: (order.index(v) if v in order else len(order), v))


def median_of(runs, value_of):
    """{(phase, threads, server): median of value_of(run)} over repeats,
    skipping runs where value_of gives None."""
    groups = {}
    for r in runs:
        v = value_of(r)
        if v is not None:
            groups.setdefault((r["phase"], r["threads"], r["server"]), []).append(v)
    return {k: statistics.median(v) for k, v in groups.items()}


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_num(v):
    return "-" if v is None else f"{v:,.0f}"


def per_server_table(values, phases, threads, servers, unit, fmt, ratios):
    """A line per phase and thread count: `values` {(phase, threads,
    server): value} per server, formatted by `fmt`, then each ratio a/b of
    `ratios` whose servers both ran."""
    header = ["phase", "threads"] + [f"{s} {unit}" for s in servers]
    pairs = [(a, b) for a, b in ratios if a in servers and b in servers]
    header += [f"{a}/{b}" for a, b in pairs]
    rows = []
    for p in phases:
        for t in threads:
            cells = [values.get((p, t, s)) for s in servers]
            if all(c is None for c in cells):
                continue
            rows.append([p, t] + [fmt(c) for c in cells] +
                        [fmt_x(ratio(values.get((p, t, a)), values.get((p, t, b))))
                         for a, b in pairs])
    print_table(header, rows, left_columns=1, group_columns=1)


def throughput_table(runs, phases, threads, servers):
    ops = median_of(runs, lambda r: r["ops_per_sec"])
    per_server_table(ops, phases, threads, servers, "ops/s", fmt_num,
                     [("teks", "skip_list"), ("teks", "redis")])
    return ops


def server_cpu_table(runs, phases, threads, servers):
    cpu = median_of(runs, lambda r: r["server_cpu_us_per_op"])
    per_server_table(cpu, phases, threads, servers, "us/op",
                     lambda c: "-" if c is None else f"{c:.2f}",
                     [("skip_list", "teks"), ("teks", "redis")])


def scaling_table(ops, phases, threads, servers):
    low, high = threads[0], threads[-1]
    header = ["phase"] + [f"{s} {high}t/{low}t" for s in servers]
    rows = []
    for p in phases:
        rows.append([p] + [fmt_x(ratio(ops.get((p, high, s)), ops.get((p, low, s))))
                           for s in servers])
    print_table(header, rows, left_columns=1, group_columns=0)


def p99_table(runs, phases, threads, servers):
    rows = []
    header = ["phase", "operation", "threads"] + [f"{s} p99 us" for s in servers]
    compare = "teks" in servers and "skip_list" in servers
    if compare:
        header.append("teks/skip_list")
    p99s = {}
    for op in OPERATIONS:
        p99s[op] = median_of(runs, lambda r: r["operations"].get(op, {}).get("p99_us"))
    for p in phases:
        for op in OPERATIONS:
            for t in threads:
                cells = [p99s[op].get((p, t, s)) for s in servers]
                if all(c is None for c in cells):
                    continue
                row = [p, op, t] + [fmt_num(c) for c in cells]
                if compare:
                    row.append(fmt_x(ratio(p99s[op].get((p, t, "teks")),
                                           p99s[op].get((p, t, "skip_list")))))
                rows.append(row)
    print_table(header, rows, left_columns=2, group_columns=2)
    return p99s


def write_raw(runs, path):
    with open(path, "w") as f:
        f.write("\t".join(RAW_COLUMNS) + "\n")
        for r in runs:
            for op, m in sorted(r["operations"].items()):
                row = dict(r, operation=op, **m)
                f.write("\t".join(str(row.get(c, "")) for c in RAW_COLUMNS) + "\n")


def plot_lines(panels, threads, servers, ylabel, title, path, log_y=False):
    """panels: [(panel title, {(threads, server): value})]; a line per server."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = 4
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.2 * rows), squeeze=False)
    for ax, (name, values) in zip(axes.flat, panels):
        for s in servers:
            points = [(t, values[(t, s)]) for t in threads if (t, s) in values]
            if points:
                ax.plot([t for t, _ in points], [v for _, v in points], marker="o", label=s)
        ax.set_title(name, fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        if log_y:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel("YCSB threads", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index")
    parser.add_argument("--title", default="YCSB")
    parser.add_argument("--out", help="write every run's operations here (TSV)")
    parser.add_argument("--plots", help="write ycsb-throughput.png and ycsb-p99.png here")
    args = parser.parse_args()

    runs = read_runs(args.index)
    if not runs:
        sys.exit(f"{args.index}: no runs")
    phases = ordered([r["phase"] for r in runs], PHASES)
    threads = sorted({r["threads"] for r in runs})
    servers = ordered([r["server"] for r in runs], SERVERS)

    print(f"{args.title}\n")
    print("Throughput (ops/s, median over repeats; ratios from the same runs)")
    ops = throughput_table(runs, phases, threads, servers)
    if any(r["server_cpu_us_per_op"] is not None for r in runs):
        print("\nServer CPU per operation (us, from /proc: every thread of the server;"
              " median over repeats; skip_list/teks above 1: TeksTable's is lower)")
        server_cpu_table(runs, phases, threads, servers)
    if len(threads) > 1:
        print(f"\nScaling: ops/s at {threads[-1]} threads over ops/s at {threads[0]}")
        scaling_table(ops, phases, threads, servers)
    print("\np99 latency per operation (us, YCSB's HdrHistogram, median over repeats;"
          " teks/skip_list below 1: TeksTable's is lower)")
    p99s = p99_table(runs, phases, threads, servers)

    if args.out:
        write_raw(runs, args.out)
    if args.plots:
        os.makedirs(args.plots, exist_ok=True)
        panels = [(p, {(t, s): v for (ph, t, s), v in ops.items() if ph == p}) for p in phases]
        plot_lines(panels, threads, servers, "ops/s", args.title,
                   os.path.join(args.plots, "ycsb-throughput.png"))
        panels = []
        for p in phases:
            for op in OPERATIONS:
                values = {(t, s): v for (ph, t, s), v in p99s[op].items() if ph == p}
                if values:
                    panels.append((f"{p}: {op}", values))
        plot_lines(panels, threads, servers, "p99 latency (us)", args.title,
                   os.path.join(args.plots, "ycsb-p99.png"), log_y=True)


if __name__ == "__main__":
    main()
