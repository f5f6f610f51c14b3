"""The answer of a db_bench scenario of scripts/bench.sh in a few lines a
person can quote, e.g.

    TeksTable vs skip_list, 1 thread: get 6.10x, seek 1.50x, scan 1.40x, fill 1.90x, memory 1.18x

per thread count, against the skip list (RocksDB's default) and against the
stock hash memtable with the most gets/s among those that ran. Operation
ratios are TeksTable's ops/s over the other memtable's from the same runs
(medians over repeats; higher: TeksTable faster); memory is TeksTable's
memtable bytes after the fill over the other's (lower: TeksTable smaller).
bench_report.py writes the lines (--summary) and hands `headline` to
bench_plot.plot_headline (--headline). Stdlib only.
"""

import math

SUBJECT = "teks"
# The operations quoted, in order, and the db_bench benchmark each one is.
OPERATIONS = [("get", "readrandom"), ("seek", "seekrandom"), ("scan", "readseq"),
              ("fill", "fillrandom")]
HASH_MEMTABLES = ["hash_linkedlist", "prefix_hash"]


def fmt_ratio(ratio):
    """"6.10x", "0.35x", "81,000x", "0.0021x": two decimals, or two
    significant digits below 0.1, never an exponent."""
    if ratio >= 100:
        return f"{ratio:,.0f}x"
    if ratio >= 0.1:
        return f"{ratio:.2f}x"
    return f"{ratio:.{1 - math.floor(math.log10(ratio))}f}x"


def threads_label(t):
    return f"{t} thread" if t == 1 else f"{t} threads"


def _ops(summary, t, benchmark, memtable):
    s = summary.get((t, benchmark, memtable))
    return s["ops"] if s and s["ops"] else None


def best_hash(summary, thread_counts):
    """The stock hash memtable with the most gets/s (geometric mean over the
    thread counts where it ran), or None if none ran."""
    best, best_ops = None, 0.0
    for m in HASH_MEMTABLES:
        ops = [_ops(summary, t, "readrandom", m) for t in thread_counts]
        ops = [o for o in ops if o]
        if ops and math.prod(ops) ** (1 / len(ops)) > best_ops:
            best, best_ops = m, math.prod(ops) ** (1 / len(ops))
    return best


def headline(summary, thread_counts, baseline="skip_list"):
    """What the summary lines and the headline chart say, or None if
    TeksTable and the baseline did not both run:
      others       [baseline, the best hash memtable (if one ran)]
      threads      the thread counts
      vs           {(other, threads): {operation or "memory": TeksTable over other}}
      speedup      {(memtable, threads, operation): ops/s over the baseline's}
                   for TeksTable and the hash memtable
      memory       {(memtable, threads): memtable bytes over the baseline's}
      bounded      {(memtable, threads, operation): (ops per thread, seconds per op)}
                   for operations that ran a bounded number of times
    """
    if not any(m == SUBJECT for (_, _, m) in summary) or \
            not any(m == baseline for (_, _, m) in summary):
        return None
    hashed = best_hash(summary, thread_counts)
    others = [baseline] + ([hashed] if hashed else [])
    result = {"others": others, "threads": thread_counts, "vs": {}, "speedup": {},
              "memory": {}, "bounded": {}}

    def bytes_of(t, m):
        s = summary.get((t, "fillrandom", m))
        return s["memtable_bytes"] if s and s["memtable_bytes"] else None

    for t in thread_counts:
        for other in others:
            vs = {}
            for name, benchmark in OPERATIONS:
                mine, theirs = _ops(summary, t, benchmark, SUBJECT), _ops(summary, t, benchmark, other)
                if mine and theirs:
                    vs[name] = mine / theirs
            mine, theirs = bytes_of(t, SUBJECT), bytes_of(t, other)
            if mine and theirs:
                vs["memory"] = mine / theirs
            result["vs"][(other, t)] = vs
        base_bytes = bytes_of(t, baseline)
        for m in [SUBJECT] + others[1:]:
            for name, benchmark in OPERATIONS:
                mine, base = _ops(summary, t, benchmark, m), _ops(summary, t, benchmark, baseline)
                if mine and base:
                    result["speedup"][(m, t, name)] = mine / base
                s = summary.get((t, benchmark, m))
                if s and s["bounded"]:
                    result["bounded"][(m, t, name)] = (int(s["bounded"]), s["us"] / 1e6)
            if bytes_of(t, m) and base_bytes:
                result["memory"][(m, t)] = bytes_of(t, m) / base_bytes
    return result


def lines(head):
    """The summary: one line per other memtable and thread count, then
    what the ratios mean and which rows were bounded."""
    if head is None:
        return ["(no summary: TeksTable (teks) and skip_list did not both run)"]
    out = []
    for other in head["others"]:
        for t in head["threads"]:
            vs = head["vs"][(other, t)]
            quoted = [f"{name} {fmt_ratio(vs[name])}"
                      for name in [n for n, _ in OPERATIONS] + ["memory"] if name in vs]
            out.append(f"TeksTable vs {other}, {threads_label(t)}: " + ", ".join(quoted))
    out.append("(ops/s ratios from the same runs, higher: TeksTable faster; memory: memtable bytes "
               "after the fill, lower: TeksTable smaller)")
    # Only the hash memtables' seeks are bounded among the memtables quoted.
    for m, name, n in sorted({(m, name, n) for (m, _, name), (n, _) in head["bounded"].items()}):
        out.append(f"({m} ran {n} {name}s per thread (bounded): each copies the whole memtable "
                   "into a skip list)")
    return out
