#!/usr/bin/env python3
"""Turns the db_bench / teks_db_bench logs of scripts/bench.sh into tables.

Input: a runs file, one line per benchmark process, tab-separated:
    memtable  threads  repeat  log_file  peak_rss_kb|-  counted  bounded_reads  [section]
where `counted` lists the benchmarks whose results this log contributes
(a bounded process repeats the fill but only its bounded reads count),
`bounded_reads` is the --reads of a bounded process (empty otherwise) and
`section` names the table the rows go in (empty or missing: an untitled
one; the large scenario has a section per variant).

Output on stdout, per section in the order first seen: per thread count and
benchmark, the median over repeats of micros/op and ops/sec and the ratio of
that median ops/sec to the baseline's (skip_list; for a tools/teks_db_bench
memtable, plaindb:skip_list where that ran in the same section) from the
same runs; where the section counts fillrandom, memory: the memtable bytes
after the fill (rocksdb.cur-size-all-mem-tables) and peak RSS; where the logs
have it (levelstats), each run's LSM shape as the reads began (and after the
fill, where that differs), the entries in its memtables then (memstats) and
whether the shapes matched across memtables. With --flush-entries FILE
(lines: memtable, threads, process, flushes, mean entries per flush of a
full write buffer), a table of how many entries a full buffer held, medians
over repeats, against the baseline's. With --out, the raw per-run
results as TSV; with --plot, a PNG of the first section, and with
--plot-sections, one of the others (both need matplotlib). With --summary
FILE, the first section's quotable lines (bench_summary.py) go to FILE, and
with --headline, its headline chart to a PNG.
"""

import argparse
import re
import statistics
import sys

import bench_summary
from text_table import fmt_x, print_table

# fillrandom   :       7.910 micros/op 126391 ops/sec 0.158 seconds 20000 operations;  32.8 MB/s
# readrandom   :       0.625 micros/op 1600870 ops/sec 0.125 seconds ... (12585 of 20000 found)
RESULT = re.compile(
    r"^(?P<bench>\w+)\s+:\s+(?P<us>[0-9.]+) micros/op\s+(?P<ops>[0-9.]+) ops/sec"
    r"(?:\s+(?P<sec>[0-9.]+) seconds)?(?:\s+(?P<n>\d+) operations;)?"
    r".*?(?:\((?P<found>\d+) of \d+ found\))?\s*$")
# memstats
MEMTABLE_BYTES = re.compile(r"^rocksdb\.cur-size-all-mem-tables: (\d+)\s*$")
MEMTABLE_ENTRIES = re.compile(r"^rocksdb\.num-entries-(active-mem-table|imm-mem-tables): (\d+)\s*$")
# levelstats:  "  0        2       50" (level, files, MB) under "Level Files Size(MB)"
LEVEL_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s*$")

# Table order; a counted benchmark not listed here follows them.
BENCHMARKS = ["fillseq", "fillrandom", "overwrite", "readrandom", "readseq", "seekrandom",
              "readwhilewriting", "seekrandomwhilewriting", "readrandomwriterandom", "readrecent"]
# The first section's plot: a panel for each of its first benchmarks in table
# order, then two of memory.
PLOTTED_PANELS = 4
RAW_COLUMNS = ["memtable", "threads", "repeat", "benchmark", "micros_per_op", "ops_per_sec",
               "seconds", "operations", "found", "bounded_reads", "memtable_bytes",
               "peak_rss_kb", "section"]


def parse_log(path):
    """What one process printed: {"results": {benchmark: result fields,
    with "before": the LSM shape and memtable entries last printed before
    its result line}, "memtable_bytes": after the fill (the first memstats)
    or None, "first_shape": the first levelstats or None}. A shape reads
    e.g. "L0 2 files 50 MB, L1 3 files 96 MB"."""
    results, memtable_bytes, first_shape = {}, None, None
    shape, levels, entries = None, None, {}
    with open(path, encoding="utf-8", errors="replace") as f:
        # Progress ("... finished N ops") ends in \r, not \n.
        for line in f.read().replace("\r", "\n").splitlines():
            if line.startswith("Level Files Size(MB)"):
                levels = []
                continue
            if levels is not None:
                m = LEVEL_ROW.match(line)
                if m:
                    if int(m[2]) > 0:
                        levels.append(f"L{m[1]} {m[2]} files {m[3]} MB")
                    continue
                if line.startswith("---"):
                    continue
                shape, levels = ", ".join(levels) or "no files", None
                first_shape = first_shape or shape
            m = MEMTABLE_ENTRIES.match(line)
            if m:
                entries[m[1]] = int(m[2])
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
                    "found": m["found"] or "",
                    "before": (shape, sum(entries.values()) if len(entries) == 2 else None)}
            m = MEMTABLE_BYTES.match(line)
            if m and memtable_bytes is None:
                memtable_bytes = int(m[1])
    if levels is not None:  # the log ends in a levelstats
        shape = ", ".join(levels) or "no files"
        first_shape = first_shape or shape
    return {"results": results, "memtable_bytes": memtable_bytes, "first_shape": first_shape}


def read_runs(path):
    """Raw rows (dicts), a list of problems (missing result lines), the
    sections in the order first seen, and the LSM shapes the logs printed:
    [{section, threads, memtable, repeat, after_fill, as_reads_began,
    entries}] with the state before the first counted read."""
    rows, problems, sections, shapes = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            memtable, threads, repeat, log, rss, counted, bounded = fields[:7]
            section = fields[7] if len(fields) > 7 else ""
            if section not in sections:
                sections.append(section)
            parsed = parse_log(log)
            results = parsed["results"]
            counted = counted.split(",")
            for b in counted:
                r = results.get(b)
                if r is None:
                    problems.append(f"{memtable}, {threads} thread(s), repeat {repeat}: "
                                    f"no result line for {b} in {log}")
                    continue
                row = dict(r, memtable=memtable, threads=int(threads), repeat=int(repeat),
                           benchmark=b, bounded_reads=bounded, section=section,
                           memtable_bytes="", peak_rss_kb="")
                del row["before"]
                if b == "fillrandom":
                    mb = parsed["memtable_bytes"]
                    row["memtable_bytes"] = mb if mb is not None else ""
                    row["peak_rss_kb"] = "" if rss == "-" else int(rss)
                rows.append(row)
            reads = [b for b in counted if b != "fillrandom" and b in results]
            if parsed["first_shape"] is not None and reads:
                shape, entries = results[reads[0]]["before"]
                shapes.append({"section": section, "threads": int(threads), "memtable": memtable,
                               "repeat": int(repeat), "after_fill": parsed["first_shape"],
                               "as_reads_began": shape, "entries": entries})
    return rows, problems, sections, shapes


def median(values):
    values = [v for v in values if v != ""]
    return statistics.median(values) if values else None


def fmt_ops(ops):
    return f"{ops:,.0f}" if ops >= 100 else f"{ops:.3g}"


def fmt_ratio(value, base):
    return fmt_x(value / base) if value is not None and base else "-"


def baseline_of(memtable, baseline, memtables):
    """The memtable whose rows `memtable`'s are compared with: the baseline
    measured by the same tool where it ran (plaindb:skip_list for
    tools/teks_db_bench's plaindb:REP and teksdb:REP), else the baseline."""
    same_tool = f"plaindb:{baseline}"
    if ":" in memtable and same_tool in memtables:
        return same_tool
    return baseline


def summarize(rows, baseline):
    """{(threads, benchmark, memtable): {us, ops, ratio, ...}} of one
    section's rows, its memtables and thread counts in the order first seen."""
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
            "baseline": baseline_of(m, baseline, memtables),
        }
    for (t, b, m), s in summary.items():
        base = summary.get((t, b, s["baseline"]))
        s["ratio"] = s["ops"] / base["ops"] if base and base["ops"] else None
    return summary, memtables, sorted(thread_counts)


def benchmark_order(summary):
    found = []
    for (_, b, _) in summary:
        if b not in found:
            found.append(b)
    return [b for b in BENCHMARKS if b in found] + [b for b in found if b not in BENCHMARKS]


def print_section(summary, memtables, thread_counts, baseline):
    table = []
    for t in thread_counts:
        for b in benchmark_order(summary):
            for m in memtables:
                s = summary.get((t, b, m))
                if s is None:
                    continue
                note = f"bounded: {s['bounded']} ops/thread" if s["bounded"] else ""
                table.append([t, b, m, f"{s['us']:.3f}", fmt_ops(s["ops"]),
                              fmt_x(s["ratio"]), note])
    print_table(["threads", "benchmark", "memtable", "us/op", "ops/s",
                 f"vs {baseline}", "note"], table, left_columns=3, group_columns=2)

    memory = []
    for t in thread_counts:
        for m in memtables:
            s = summary.get((t, "fillrandom", m))
            if s is None:
                continue
            base = summary.get((t, "fillrandom", s["baseline"]), {})
            mb, rss = s["memtable_bytes"], s["peak_rss_kb"]
            memory.append([t, "memory", m,
                           f"{mb / 2**20:,.1f}" if mb is not None else "-",
                           fmt_ratio(mb, base.get("memtable_bytes")),
                           f"{rss / 1024:,.1f}" if rss is not None else "-",
                           fmt_ratio(rss, base.get("peak_rss_kb"))])
    if memory:
        print()
        print_table(["threads", "after fill", "memtable", "memtable MiB", f"vs {baseline}",
                     "peak RSS MiB", f"vs {baseline}"], memory, left_columns=3,
                    group_columns=2)


def print_shapes(shapes):
    """Each run's LSM shape and memtable entries as its reads began, then
    whether the shapes matched across memtables, run by run."""
    print("\nLSM shape as the reads began (rocksdb.levelstats; the fill's, where it differs) "
          "and entries in the memtables then (memstats):")
    width = max(12, *(len(s["memtable"]) for s in shapes))
    for s in sorted(shapes, key=lambda s: (s["threads"], s["memtable"], s["repeat"])):
        line = f"  {s['threads']} thread(s)  {s['memtable']:<{width}} run {s['repeat']}: "
        line += s["as_reads_began"] or "-"
        if s["after_fill"] != s["as_reads_began"]:
            line += f" (after the fill: {s['after_fill']})"
        if s["entries"] is not None:
            line += f"; memtables {s['entries']:,} entries"
        print(line)
    runs = {}
    for s in shapes:
        runs.setdefault((s["threads"], s["repeat"]), {})[s["memtable"]] = s["as_reads_began"]
    compared = {run: set(by_memtable.values()) for run, by_memtable in runs.items()
                if len(by_memtable) > 1}
    differ = sorted(run for run, found in compared.items() if len(found) > 1)
    if compared and not differ:
        print("  shapes as the reads began: the same for every memtable in every run")
    elif differ:
        print("  shapes as the reads began differ between memtables in: "
              + ", ".join(f"run {r} ({t} thread(s))" for t, r in differ))


def plot_sections(sections, summaries, title, path):
    """One panel per benchmark of each section after the first."""
    from bench_plot import plot_sections as draw
    panels, thread_counts = [], []
    for section in sections[1:]:
        summary, memtables, counts = summaries[section]
        thread_counts += [t for t in counts if t not in thread_counts]
        for b in benchmark_order(summary):
            ops = {(t, m): s["ops"] for (t, bb, m), s in summary.items() if bb == b}
            panels.append((f"{b}: {section}", memtables, ops))
    if panels:
        draw(panels, sorted(thread_counts), title, path)
        print(f"plot: {path}", file=sys.stderr)


def print_flush_entries(path, baseline):
    """The entries a full write buffer held when flushed, per process kind,
    thread count and memtable: medians over repeats of each run's mean."""
    runs, order = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            memtable, threads, process, flushes, entries = line.rstrip("\n").split("\t")
            key = (process, int(threads), memtable)
            if key not in runs:
                order.append(key)
            runs.setdefault(key, []).append((int(flushes), int(entries)))
    if not runs:
        return
    rows = []
    for process, threads, memtable in sorted(order, key=lambda k: (k[0], k[1])):
        flushes = median([f for f, _ in runs[(process, threads, memtable)]])
        entries = median([e for _, e in runs[(process, threads, memtable)]])
        base = runs.get((process, threads, baseline))
        ratio = entries / median([e for _, e in base]) if base else None
        rows.append([process, threads, memtable, f"{flushes:,.0f}", f"{entries:,.0f}",
                     fmt_x(ratio)])
    print("\nentries per flush of a full write buffer (medians over repeats)")
    print_table(["process", "threads", "memtable", "flushes", "entries/flush",
                 f"vs {baseline}"], rows, left_columns=3, group_columns=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", help="runs file written by scripts/bench.sh (TSV)")
    ap.add_argument("--baseline", default="skip_list")
    ap.add_argument("--title", default="", help="plot title")
    ap.add_argument("--out", help="also write the raw per-run results here (TSV)")
    ap.add_argument("--plot", help="also draw the first section's results into this PNG")
    ap.add_argument("--plot-sections", help="and the other sections' into this PNG")
    ap.add_argument("--flush-entries", help="entries per flush, per run (TSV, see above)")
    ap.add_argument("--summary", help="write the first section's quotable lines here")
    ap.add_argument("--headline", help="draw the first section's headline chart into this PNG")
    args = ap.parse_args()

    rows, problems, sections, shapes = read_runs(args.runs)
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

    summaries = {}
    for i, section in enumerate(sections):
        summaries[section] = summarize([r for r in rows if r["section"] == section],
                                       args.baseline)
        summary, memtables, thread_counts = summaries[section]
        if i > 0:
            print()
        if section:
            print(f"== {section}\n")
        if summary:
            print_section(summary, memtables, thread_counts, args.baseline)
        section_shapes = [s for s in shapes if s["section"] == section]
        if section_shapes:
            print_shapes(section_shapes)

    if args.flush_entries:
        print_flush_entries(args.flush_entries, args.baseline)

    all_summaries = [s for summary, _, _ in summaries.values() for s in summary.values()]
    repeats = max(s["repeats"] for s in all_summaries)
    has_base = any(m == args.baseline for _, memtables, _ in summaries.values() for m in memtables)
    same_tool = any(s["baseline"] != args.baseline for s in all_summaries)
    print(f"\n(median of {repeats} run(s); ratios are ops/s or bytes relative to {args.baseline}"
          + (f" (plaindb:{args.baseline} for plaindb:/teksdb: rows)" if same_tool else "")
          + f" from the same runs{'' if has_base else ', which was not run'}; "
          "memtable MiB is rocksdb.cur-size-all-mem-tables after fillrandom)")

    if args.plot:
        from bench_plot import plot_db_bench
        summary, memtables, thread_counts = summaries[sections[0]]
        plot_db_bench(summary, memtables, thread_counts,
                      benchmark_order(summary)[:PLOTTED_PANELS], args.title, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr)
    if args.plot_sections:
        plot_sections(sections, summaries, args.title, args.plot_sections)
    if args.summary or args.headline:
        summary, _, thread_counts = summaries[sections[0]]
        head = bench_summary.headline(summary, thread_counts, args.baseline)
        if args.summary:
            with open(args.summary, "w", encoding="utf-8") as f:
                f.write("\n".join(bench_summary.lines(head)) + "\n")
        if args.headline and head is not None:
            from bench_plot import plot_headline
            plot_headline(head, args.title, args.headline)
            print(f"plot: {args.headline}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
