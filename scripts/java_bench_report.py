#!/usr/bin/env python3
"""The table of scripts/bench_java.sh: JMH JSON results of MemtableBenchmark
(one file per run), the median over runs of each benchmark's ns/op for teks
and skip_list, and skip_list/teks (how many times faster TeksTable is).

Usage: scripts/java_bench_report.py RUN.json [RUN.json ...]
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_table import fmt_x, print_table  # noqa: E402


def main(paths):
    scores = {}  # (benchmark, keys) -> memtable -> [ns/op per run]
    for path in paths:
        with open(path) as f:
            for result in json.load(f):
                name = result["benchmark"].rsplit(".", 1)[-1]
                params = result["params"]
                metric = result["primaryMetric"]
                if metric["scoreUnit"] != "ns/op":
                    sys.exit(f"java_bench_report: {path}: unit {metric['scoreUnit']}, not ns/op")
                by_memtable = scores.setdefault((name, params["keys"]), {})
                by_memtable.setdefault(params["memtable"], []).append(metric["score"])
    rows = []
    for (name, keys), by_memtable in sorted(scores.items()):
        teks = statistics.median(by_memtable["teks"]) if "teks" in by_memtable else None
        skip = statistics.median(by_memtable["skip_list"]) if "skip_list" in by_memtable else None
        runs = min(len(v) for v in by_memtable.values())
        rows.append([name, keys, runs, f"{teks:.0f}" if teks else "-",
                     f"{skip:.0f}" if skip else "-",
                     fmt_x(skip / teks) if teks and skip else "-"])
    print_table(["benchmark", "keys", "runs", "teks ns/op", "skip_list ns/op", "skip_list/teks"],
                rows, 1, 0)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
