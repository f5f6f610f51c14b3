#!/usr/bin/env python3
"""Turns the db_bench logs of scripts/bench.sh into a comparison table.

Input: a runs file, one line per db_bench process, tab-separated:
    memtable  repeat  log_file  peak_rss_kb
Output: the table on stdout; with --out, the raw per-run results as TSV.

For each memtable and benchmark the table shows the median over repeats of
micros/op and ops/sec, and the ratio of that median ops/sec to the
baseline's (skip_list by default); the peak-RSS row shows the median peak
RSS and its ratio to the baseline's. Stdlib only.
"""

import argparse
import re
import statistics
import sys

# fillrandom   :       7.910 micros/op 126391 ops/sec 0.158 seconds 20000 operations;  32.8 MB/s
# readrandom   :       0.625 micros/op 1600870 ops/sec 0.125 seconds ... (12585 of 20000 found)
RESULT = re.compile(
    r"^(?P<bench>\w+)\s+:\s+(?P<us>[0-9.]+) micros/op\s+(?P<ops>[0-9.]+) ops/sec"
    r"(?:\s+(?P<sec>[0-9.]+) seconds)?(?:\s+(?P<n>\d+) operations;)?"
    r".*?(?:\((?P<found>\d+) of \d+ found\))?\s*$")

RAW_COLUMNS = ["memtable", "repeat", "benchmark", "micros_per_op", "ops_per_sec",
               "seconds", "operations", "found", "peak_rss_kb"]


def parse_log(path):
    """{benchmark: {micros_per_op, ops_per_sec, seconds, operations, found}}."""
    results = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        # Progress ("... finished N ops") ends in \r, not \n.
        for line in f.read().replace("\r", "\n").splitlines():
            m = RESULT.match(line)
            if m:
                results[m["bench"]] = {
                    "micros_per_op": m["us"],
                    "ops_per_sec": m["ops"],
                    "seconds": m["sec"] or "",
                    "operations": m["n"] or "",
                    "found": m["found"] or "",
                }
    return results


def fmt_ratio(value, base):
    if not base:
        return "-"
    r = value / base
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.2g}x"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", help="runs file: memtable, repeat, log, peak_rss_kb (TSV)")
    ap.add_argument("--benchmarks", required=True, help="comma-separated, in table order")
    ap.add_argument("--baseline", default="skip_list")
    ap.add_argument("--out", help="also write the raw per-run results here (TSV)")
    args = ap.parse_args()
    benchmarks = args.benchmarks.split(",")

    memtables = []  # in first-seen order
    ops, us, rss = {}, {}, {}  # (memtable, bench) -> [values]; memtable -> [kb]
    raw = []
    missing = []
    with open(args.runs, encoding="utf-8") as f:
        for line in f:
            memtable, repeat, log, peak_kb = line.rstrip("\n").split("\t")
            if memtable not in memtables:
                memtables.append(memtable)
            results = parse_log(log)
            rss.setdefault(memtable, []).append(int(peak_kb))
            for b in benchmarks:
                r = results.get(b)
                if r is None:
                    missing.append(f"{memtable} (repeat {repeat}): no result line for {b} in {log}")
                    continue
                ops.setdefault((memtable, b), []).append(float(r["ops_per_sec"]))
                us.setdefault((memtable, b), []).append(float(r["micros_per_op"]))
                raw.append([memtable, repeat, b, r["micros_per_op"], r["ops_per_sec"],
                            r["seconds"], r["operations"], r["found"], peak_kb])
    for m in missing:
        print(f"bench_report: {m}", file=sys.stderr)

    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\t".join(RAW_COLUMNS) + "\n")
            for row in raw:
                f.write("\t".join(str(v) for v in row) + "\n")

    def median(values):
        return statistics.median(values) if values else None

    has_base = args.baseline in memtables
    rows = []
    for b in benchmarks:
        base = median(ops.get((args.baseline, b), [])) if has_base else None
        for m in memtables:
            o = median(ops.get((m, b), []))
            u = median(us.get((m, b), []))
            if o is None:
                rows.append([b, m, "missing", "missing", "-"])
                continue
            rows.append([b, m, f"{u:.3f}", f"{o:,.0f}", fmt_ratio(o, base) if base else "-"])
    base_rss = median(rss.get(args.baseline, [])) if has_base else None
    for m in memtables:
        r = median(rss[m])
        rows.append(["peak RSS", m, "-", f"{r / 1024:,.1f} MiB",
                     fmt_ratio(r, base_rss) if base_rss else "-"])

    header = ["benchmark", "memtable", "us/op", "ops/s",
              f"vs {args.baseline}" if has_base else "ratio"]
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    def line(cells):
        return "  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    print(line(header))
    print("  ".join("-" * w for w in widths))
    previous = None
    for r in rows:
        if previous is not None and r[0] != previous:
            print()
        previous = r[0]
        print(line(r))
    repeats = max(len(v) for v in rss.values())
    print(f"\n(median of {repeats} run(s) per memtable; ratio = ops/s "
          f"{'or peak RSS ' if has_base else ''}relative to {args.baseline}"
          f"{'' if has_base else ', which was not run'})")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
