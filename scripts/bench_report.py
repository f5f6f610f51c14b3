#!/usr/bin/env python3
"""Turns the db_bench / teks_db_bench logs of scripts/bench.sh into tables.

Input: a runs file, one line per benchmark process, tab-separated:
    memtable  threads  repeat  log_file  peak_rss_kb|-  counted  bounded_reads
where `counted` lists the benchmarks whose results this log contributes
(a bounded process repeats the fill but only its bounded reads count) and
`bounded_reads` is the --reads of a bounded process (empty otherwise).

Output on stdout: per thread count and benchmark, the median over repeats of
micros/op and ops/sec and the ratio of that median ops/sec to the
baseline's (skip_list) from the same runs; then memory: the memtable bytes
after the fill (rocksdb.cur-size-all-mem-tables) and peak RSS; then, where
the logs have it (db_bench levelstats), each run's LSM shape. With --out,
the raw per-run results as TSV; with --plot, a PNG (needs matplotlib).
"""

import argparse
import re
import statistics
import sys

from text_table import fmt_x, print_table

# fillrandom   :       7.910 micros/op 126391 ops/sec 0.158 seconds 20000 operations;  32.8 MB/s
# readrandom   :       0.625 micros/op 1600870 ops/sec 0.125 seconds ... (12585 of 20000 found)
RESULT = re.compile(
    r"^(?P<bench>\w+)\s+:\s+(?P<us>[0-9.]+) micros/op\s+(?P<ops>[0-9.]+) ops/sec"
    r"(?:\s+(?P<sec>[0-9.]+) seconds)?(?:\s+(?P<n>\d+) operations;)?"
    r".*?(?:\((?P<found>\d+) of \d+ found\))?\s*$")
MEMTABLE_BYTES = re.compile(r"^rocksdb\.cur-size-all-mem-tables: (\d+)\s*$")
# levelstats:  "  0        2       50" (level, files, MB) under "Level Files Size(MB)"
LEVEL_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s*$")

BENCHMARKS = ["fillrandom", "readrandom", "readseq", "seekrandom"]
RAW_COLUMNS = ["memtable", "threads", "repeat", "benchmark", "micros_per_op", "ops_per_sec",
               "seconds", "operations", "found", "bounded_reads", "memtable_bytes",
               "peak_rss_kb"]


def parse_log(path):
    """({benchmark: result fields}, memtable bytes after the fill or None,
    the LSM's shape from the first levelstats, e.g. "L0 2 files 50 MB, L1 3
    files 96 MB", or None)."""
    results, memtable_bytes, levels, in_levelstats = {}, None, None, False
    with open(path, encoding="utf-8", errors="replace") as f:
        # Progress ("... finished N ops") ends in \r, not \n.
        for line in f.read().replace("\r", "\n").splitlines():
            if line.startswith("Level Files Size(MB)") and levels is None:
                in_levelstats, levels = True, []
                continue
            if in_levelstats:
                m = LEVEL_ROW.match(line)
                if m:
                    if int(m[2]) > 0:
                        levels.append(f"L{m[1]} {m[2]} files {m[3]} MB")
                    continue
                if not line.startswith("---"):
                    in_levelstats = False
            m = RESULT.match(line)
            if m:
                # db_bench truncates ops/sec to an integer; a bounded run of
                # a few slow operations needs operations / seconds (whose
                # 3-decimal seconds are the less exact for fast runs).
                ops = float(m["ops"])
                if ops < 1000 and m["n"] and m["sec"] and float(m["sec"]) > 0:
                    ops = int(m["n"]) / float(m["sec"])
                results[m["bench"]] = {
                    "micros_per_op": float(m["us"]), "ops_per_sec": ops,
                    "seconds": m["sec"] or "", "operations": m["n"] or "",
                    "found": m["found"] or ""}
            m = MEMTABLE_BYTES.match(line)
            if m and memtable_bytes is None:
                memtable_bytes = int(m[1])
    shape = None if levels is None else (", ".join(levels) or "no files")
    return results, memtable_bytes, shape


def read_runs(path):
    """Raw rows (dicts), a list of problems (missing result lines) and the
    LSM shapes the logs printed: [(threads, memtable, repeat, shape)]."""
    rows, problems, shapes = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            memtable, threads, repeat, log, rss, counted, bounded = line.rstrip("\n").split("\t")
            results, memtable_bytes, shape = parse_log(log)
            if shape is not None:
                shapes.append((int(threads), memtable, int(repeat), shape))
            counted = counted.split(",")
            for b in BENCHMARKS:
                if b not in counted:
                    continue
                r = results.get(b)
                if r is None:
                    problems.append(f"{memtable}, {threads} thread(s), repeat {repeat}: "
                                    f"no result line for {b} in {log}")
                    continue
                row = dict(r, memtable=memtable, threads=int(threads), repeat=int(repeat),
                           benchmark=b, bounded_reads=bounded,
                           memtable_bytes="", peak_rss_kb="")
                if b == "fillrandom":
                    row["memtable_bytes"] = memtable_bytes if memtable_bytes is not None else ""
                    row["peak_rss_kb"] = "" if rss == "-" else int(rss)
                rows.append(row)
    return rows, problems, shapes


def median(values):
    values = [v for v in values if v != ""]
    return statistics.median(values) if values else None


def fmt_ops(ops):
    return f"{ops:,.0f}" if ops >= 100 else f"{ops:.3g}"


def fmt_ratio(value, base):
    return fmt_x(value / base) if value is not None and base else "-"


def summarize(rows, baseline):
    """{(threads, benchmark, memtable): {us, ops, ratio, note}} plus memory."""
    memtables, thread_counts = [], []
    for row in rows:
        if row["memtable"] not in memtables:
            memtables.append(row["memtable"])
        if row["threads"] not in thread_counts:
            thread_counts.append(row["threads"])
    groups = {}
    for row in rows:
        groups.setdefault((row["threads"], row["benchmark"], row["memtable"]), []).append(row)
    summary = {}
    for (t, b, m), rs in groups.items():
        summary[(t, b, m)] = {
            "us": median([r["micros_per_op"] for r in rs]),
            "ops": median([r["ops_per_sec"] for r in rs]),
            "bounded": rs[0]["bounded_reads"],
            "repeats": len(rs),
            "memtable_bytes": median([r["memtable_bytes"] for r in rs]),
            "peak_rss_kb": median([r["peak_rss_kb"] for r in rs]),
        }
    for (t, b, m), s in summary.items():
        base = summary.get((t, b, baseline))
        s["ratio"] = s["ops"] / base["ops"] if base and base["ops"] else None
    return summary, memtables, sorted(thread_counts)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", help="runs file written by scripts/bench.sh (TSV)")
    ap.add_argument("--baseline", default="skip_list")
    ap.add_argument("--title", default="", help="plot title")
    ap.add_argument("--out", help="also write the raw per-run results here (TSV)")
    ap.add_argument("--plot", help="also draw the results into this PNG")
    args = ap.parse_args()

    rows, problems, shapes = read_runs(args.runs)
    for p in problems:
        print(f"bench_report: {p}", file=sys.stderr)
    if not rows:
        print("bench_report: no results", file=sys.stderr)
        return 1
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\t".join(RAW_COLUMNS) + "\n")
            for row in rows:
                f.write("\t".join(str(row[c]) for c in RAW_COLUMNS) + "\n")

    summary, memtables, thread_counts = summarize(rows, args.baseline)
    has_base = args.baseline in memtables
    table = []
    for t in thread_counts:
        for b in BENCHMARKS:
            for m in memtables:
                s = summary.get((t, b, m))
                if s is None:
                    continue
                note = f"bounded: {s['bounded']} ops/thread" if s["bounded"] else ""
                table.append([t, b, m, f"{s['us']:.3f}", fmt_ops(s["ops"]),
                              fmt_x(s["ratio"]), note])
    print_table(["threads", "benchmark", "memtable", "us/op", "ops/s",
                 f"vs {args.baseline}", "note"], table, left_columns=3, group_columns=2)

    print()
    memory = []
    for t in thread_counts:
        base = summary.get((t, "fillrandom", args.baseline), {})
        for m in memtables:
            s = summary.get((t, "fillrandom", m))
            if s is None:
                continue
            mb, rss = s["memtable_bytes"], s["peak_rss_kb"]
            memory.append([t, "memory", m,
                           f"{mb / 2**20:,.1f}" if mb is not None else "-",
                           fmt_ratio(mb, base.get("memtable_bytes")),
                           f"{rss / 1024:,.1f}" if rss is not None else "-",
                           fmt_ratio(rss, base.get("peak_rss_kb"))])
    print_table(["threads", "after fill", "memtable", "memtable MiB", f"vs {args.baseline}",
                 "peak RSS MiB", f"vs {args.baseline}"], memory, left_columns=3, group_columns=2)

    if shapes:
        print("\nLSM shape as the reads began (rocksdb.levelstats after fillrandom):")
        for t, m, r, shape in sorted(shapes):
            print(f"  {t} thread(s)  {m:<12} run {r}: {shape}")

    repeats = max(s["repeats"] for s in summary.values())
    print(f"\n(median of {repeats} run(s); ratios are ops/s or bytes relative to "
          f"{args.baseline} from the same runs{'' if has_base else ', which was not run'}; "
          "memtable MiB is rocksdb.cur-size-all-mem-tables after fillrandom)")

    if args.plot:
        from bench_plot import plot_db_bench
        plot_db_bench(summary, memtables, thread_counts, BENCHMARKS, args.title, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
