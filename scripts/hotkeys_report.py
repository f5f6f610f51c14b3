#!/usr/bin/env python3
"""The hot-key table of scripts/bench.sh (--scenario hotkeys): reads the
TSV its runs append to (versions per key, memtable, run, benchmark,
micros/op) and prints, per versions-per-key count and benchmark, the
median micros/op of each memtable and its speed relative to the baseline
(baseline micros / its micros: above 1.00x is faster). With --plot, a PNG
of cost against versions per key (needs matplotlib). Stdlib otherwise.
"""

import argparse
import statistics
import sys

from text_table import fmt_x, print_table


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("tsv", help="rows: versions<TAB>memtable<TAB>run<TAB>benchmark<TAB>micros/op")
    ap.add_argument("--baseline", default="plaindb:skip_list")
    ap.add_argument("--title", default="hot keys")
    ap.add_argument("--plot", help="also draw the results into this PNG")
    args = ap.parse_args()

    runs = {}  # (versions, benchmark, memtable) -> [micros/op]
    versions, memtables, benchmarks = [], [], []
    with open(args.tsv, encoding="utf-8") as f:
        for line in f:
            v, m, _run, b, us = line.rstrip("\n").split("\t")
            v = int(v)
            for seen, x in ((versions, v), (memtables, m), (benchmarks, b)):
                if x not in seen:
                    seen.append(x)
            runs.setdefault((v, b, m), []).append(float(us))
    if not runs:
        print("hotkeys_report: no results", file=sys.stderr)
        return 1
    medians = {k: statistics.median(us) for k, us in runs.items()}

    rows = []
    for v in sorted(versions):
        for b in benchmarks:
            base = medians.get((v, b, args.baseline))
            for m in memtables:
                us = medians.get((v, b, m))
                if us is None:
                    continue
                ratio = base / us if base is not None and us > 0 else None
                rows.append([f"{v:,}", b, m, f"{us:.3f}", len(runs[(v, b, m)]), fmt_x(ratio)])
    print_table(["versions/key", "benchmark", "memtable", "micros/op", "runs",
                 f"vs {args.baseline}"], rows, 3, 2)
    if args.plot:
        from bench_plot import plot_hot_keys
        plot_hot_keys(medians, sorted(versions), memtables, benchmarks, args.title, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
