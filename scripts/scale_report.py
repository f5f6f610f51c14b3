#!/usr/bin/env python3
"""The scale scenario's view across sizes: how TeksTable's gain grows with
the entries in the memtable. Stdlib only, matplotlib for --plot.

Input: the raw results bench_report.py wrote for scripts/bench.sh --scenario
scale (--out runs.tsv: a row per run and benchmark, the section naming the
size, "N entries in the memtable"), and --restarts, a TSV of
    memtable  entries  repeat  reopen_s  replay_s  flush_s
(reopen: RocksDB's default open after a kill, the WAL's replay and the
flush of what it rebuilt; replay and flush: measured apart, see bench.sh).

Prints, per size (medians over repeats): teks's speedup over skip_list per
benchmark (ops/s ratios; readrandom also over skip_list+bloom), memtable
bytes per entry and peak RSS per memtable with teks's ratio to the skip
list's, and the restart times with teks's ratio. --plot: the speedups
against entries (log x) beside the memory ratios. --summary FILE: the lines
to quote.
"""

import argparse
import csv
import re
import statistics

from text_table import fmt_x, print_table

SECTION = re.compile(r"^(\d+) entries in the memtable$")
SPEEDUPS = [("fillrandom", "skip_list", "fill"), ("readrandom", "skip_list", "get"),
            ("readrandom", "skip_list+bloom", "get vs +bloom"),
            ("seekrandom", "skip_list", "seek+10 next"), ("readseq", "skip_list", "scan")]


def fmt_count(n):
    """250000 -> 250k, 16000000 -> 16M."""
    for unit, div in (("M", 1_000_000), ("k", 1_000)):
        if n >= div and n % (div // 10) == 0:
            v = n / div
            return f"{v:g}{unit}"
    return str(n)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def number(text):
    return float(text) if text not in ("", None) else None


def read_results(path):
    """{size: {(memtable, benchmark): {ops, memtable_bytes, peak_rss_kb}}}, medians."""
    grouped = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            m = SECTION.match(row["section"])
            if not m or row["bounded_reads"]:
                continue
            key = (int(m.group(1)), row["memtable"], row["benchmark"])
            g = grouped.setdefault(key, {"ops": [], "memtable_bytes": [], "peak_rss_kb": []})
            g["ops"].append(number(row["ops_per_sec"]))
            for field in ("memtable_bytes", "peak_rss_kb"):
                g[field].append(number(row[field]))
    results = {}
    for (size, memtable, benchmark), g in grouped.items():
        results.setdefault(size, {})[(memtable, benchmark)] = {k: median(v) for k, v in g.items()}
    return results


def read_restarts(path):
    """{(memtable, size): (reopen, replay, flush)}, medians."""
    grouped = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            memtable, size, _, reopen, replay, flush = line.rstrip("\n").split("\t")
            grouped.setdefault((memtable, int(size)), []).append(
                (float(reopen), float(replay), float(flush)))
    return {k: tuple(median(list(col)) for col in zip(*v)) for k, v in grouped.items()}


def ratio(a, b):
    return a / b if a is not None and b else None


def speedups(results):
    """{size: {label: teks ops/s over the other's}}."""
    out = {}
    for size, r in results.items():
        teks = {b: v["ops"] for (m, b), v in r.items() if m == "teks"}
        out[size] = {label: ratio(teks.get(b), r.get((other, b), {}).get("ops"))
                     for b, other, label in SPEEDUPS}
    return out


def memory(results):
    """{size: {memtable: (bytes per entry, peak RSS MiB)}} from the fill rows."""
    out = {}
    for size, r in results.items():
        for (m, b), v in r.items():
            if b == "fillrandom":
                per_entry = v["memtable_bytes"] / size if v["memtable_bytes"] else None
                rss = v["peak_rss_kb"] / 1024 if v["peak_rss_kb"] else None
                out.setdefault(size, {})[m] = (per_entry, rss)
    return out


def print_speedups(sizes, gains, mem):
    print("TeksTable's speedup as the memtable grows (ops/s ratios, medians; > 1: teks faster),")
    print("and its memory against the skip list's (< 1.10x: the target)")
    header = ["entries"] + [label for _, _, label in SPEEDUPS] + ["memtable bytes", "peak RSS"]
    rows = []
    for size in sizes:
        teks = mem.get(size, {}).get("teks", (None, None))
        skip = mem.get(size, {}).get("skip_list", (None, None))
        rows.append([fmt_count(size)] + [fmt_x(gains[size][label]) for _, _, label in SPEEDUPS]
                    + [fmt_x(ratio(teks[0], skip[0])), fmt_x(ratio(teks[1], skip[1]))])
    print_table(header, rows, 1, 0)


def print_memory(sizes, mem):
    print("memtable bytes per entry after the fill (rocksdb.cur-size-all-mem-tables / entries)"
          " and peak RSS, medians")
    header = ["entries", "memtable", "B/entry", "vs skip_list", "peak RSS MiB", "vs skip_list"]
    rows = []
    for size in sizes:
        per = mem.get(size, {})
        skip = per.get("skip_list", (None, None))
        for memtable, (per_entry, rss) in per.items():
            rows.append([fmt_count(size), memtable,
                         f"{per_entry:.0f}" if per_entry else "-", fmt_x(ratio(per_entry, skip[0])),
                         f"{rss:,.0f}" if rss else "-", fmt_x(ratio(rss, skip[1]))])
    print_table(header, rows, 2, 1)


def print_restarts(restarts):
    sizes = sorted({s for _, s in restarts})
    print("restart after kill -9, seconds (medians): reopen = RocksDB's default open (the WAL's"
          " replay, then the flush of what it rebuilt); replay and flush measured apart")
    header = ["entries", "memtable", "reopen", "replay", "flush", "reopen vs skip", "replay vs skip",
              "flush vs skip"]
    rows = []
    for size in sizes:
        skip = restarts.get(("plaindb:skip_list", size))
        for memtable in ("plaindb:teks", "plaindb:skip_list"):
            t = restarts.get((memtable, size))
            if t is None:
                continue
            cells = [fmt_x(ratio(t[i], skip[i])) if skip and memtable != "plaindb:skip_list" else ""
                     for i in range(3)]
            rows.append([fmt_count(size), memtable.split(":", 1)[1]]
                        + [f"{v:.2f}" for v in t] + cells)
    print_table(header, rows, 2, 1)


def summary_lines(sizes, gains, mem, restarts):
    first, last = sizes[0], sizes[-1]

    def grow(label):
        a, b = gains[first][label], gains[last][label]
        return f"{label} {fmt_x(a)} -> {fmt_x(b)}"

    lines = [f"TeksTable vs skip_list as the memtable grows from {fmt_count(first)} to "
             f"{fmt_count(last)} entries: " + ", ".join(grow(label) for _, _, label in SPEEDUPS)]
    rss = [ratio(mem[s]["teks"][1], mem[s]["skip_list"][1]) for s in sizes
           if "teks" in mem.get(s, {}) and "skip_list" in mem.get(s, {})]
    rss = [r for r in rss if r is not None]
    if rss:
        lines.append(f"peak RSS against the skip list's: {fmt_x(min(rss))} to {fmt_x(max(rss))}")
    for size in sorted({s for _, s in restarts}):
        t, k = restarts.get(("plaindb:teks", size)), restarts.get(("plaindb:skip_list", size))
        if t and k:
            lines.append(f"restart after kill -9 at {fmt_count(size)} entries: {t[0]:.1f} s against "
                         f"{k[0]:.1f} s ({fmt_x(ratio(t[0], k[0]))}); replay {fmt_x(ratio(t[1], k[1]))},"
                         f" flush {fmt_x(ratio(t[2], k[2]))}")
    return lines


def plot(sizes, gains, mem, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for _, _, label in SPEEDUPS:
        xs = [s for s in sizes if gains[s][label] is not None]
        left.plot(xs, [gains[s][label] for s in xs], marker="o", label=label)
    left.set_xscale("log")
    left.set_xlabel("entries in the memtable")
    left.set_ylabel("TeksTable ops/s / other's (x)")
    left.axhline(1.0, color="grey", linewidth=0.8)
    left.set_title("speedup over the skip list")
    left.legend()
    shown = [1.0, 1.15]
    for index, name in ((0, "memtable bytes"), (1, "peak RSS")):
        xs = [s for s in sizes if "teks" in mem.get(s, {}) and "skip_list" in mem.get(s, {})]
        ys = [ratio(mem[s]["teks"][index], mem[s]["skip_list"][index]) for s in xs]
        right.plot(xs, ys, marker="o", label=name)
        shown += [y for y in ys if y is not None]
    right.axhline(1.10, color="red", linewidth=0.8, linestyle="--", label="1.10x")
    right.set_ylim(min(shown) - 0.02, max(shown) + 0.02)
    right.set_xscale("log")
    right.set_xlabel("entries in the memtable")
    right.set_ylabel("TeksTable / skip list (x)")
    right.set_title("memory against the skip list")
    right.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", help="bench_report.py's raw results (TSV)")
    ap.add_argument("--restarts", help="restart times (TSV, see above)")
    ap.add_argument("--plot", help="draw the speedups and memory ratios into this PNG")
    ap.add_argument("--summary", help="write the lines to quote here")
    ap.add_argument("--title", default="scripts/bench.sh --scenario scale")
    args = ap.parse_args()
    results = read_results(args.runs)
    sizes = sorted(results)
    if not sizes:
        raise SystemExit(f"scale_report: no sized sections in {args.runs}")
    gains, mem = speedups(results), memory(results)
    restarts = read_restarts(args.restarts) if args.restarts else {}
    print()
    print_speedups(sizes, gains, mem)
    print()
    print_memory(sizes, mem)
    if restarts:
        print()
        print_restarts(restarts)
    lines = summary_lines(sizes, gains, mem, restarts)
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    if args.plot:
        plot(sizes, gains, mem, args.title, args.plot)


if __name__ == "__main__":
    main()
