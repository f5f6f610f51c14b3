"""Plots for scripts/bench.sh (imported by bench_report.py and
micro_report.py; needs matplotlib, which bench.sh installs into a venv).

plot_db_bench: one panel per db_bench benchmark (ops/s, log scale) and one
for each memory measure the runs have, a group of bars per memtable, one
bar per thread count; bars of bounded runs (fewer operations) are hatched.
plot_sections: the large scenario's variants and the mixed scenario's
rate-limited runs, one panel (ops/s) per section and benchmark, a group of
bars per memtable, one bar per thread count.
plot_micro: memtable_bench's operations, a group per operation, a bar per rep.
plot_hot_keys: one panel per hot-key benchmark, cost per operation against
versions per key (both log scales), a line per memtable.
plot_headline: the chart a person reads at a glance, bench_summary.headline
drawn: a panel per thread count, TeksTable's and the hash memtable's
speedup over the skip list per operation on a linear axis with the 1.0 line,
bounded operations as notes with an arrow instead of bars, memory below.
"""

import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402


def _bars(ax, memtables, thread_counts, value_of, bounded_of=lambda t, m: False):
    width = 0.8 / len(thread_counts)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, t in enumerate(thread_counts):
        for j, m in enumerate(memtables):
            v = value_of(t, m)
            if v is None:
                continue
            ax.bar(j + (i - (len(thread_counts) - 1) / 2) * width, v, width,
                   color=colors[i % len(colors)],
                   hatch="//" if bounded_of(t, m) else None, edgecolor="black", linewidth=0.3)
    ax.set_xticks(range(len(memtables)))
    ax.set_xticklabels(memtables, rotation=45, ha="right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def _thread_legend(fig, thread_counts, extra=()):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    handles = [Patch(color=colors[i % len(colors)], label=f"{t} thread(s)")
               for i, t in enumerate(thread_counts)]
    fig.legend(handles=handles + list(extra), loc="upper right", fontsize=9)


def plot_db_bench(summary, memtables, thread_counts, benchmarks, title, path):
    memory = [(key, name, scale) for key, name, scale in
              [("memtable_bytes", "memtable MiB after fill", 2**20),
               ("peak_rss_kb", "peak RSS MiB", 1024)]
              if any(s.get(key) is not None for s in summary.values())]
    columns = 3
    rows = math.ceil((len(benchmarks) + len(memory)) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(15, 4.25 * rows), squeeze=False)
    panels = iter(axes.flat)
    for ax, b in zip(panels, benchmarks):
        def ops(t, m, b=b):
            s = summary.get((t, b, m))
            return s["ops"] / 1e6 if s else None
        _bars(ax, memtables, thread_counts, ops,
              lambda t, m, b=b: bool(summary.get((t, b, m), {}).get("bounded")))
        ax.set_yscale("log")
        ax.set_title(b)
        ax.set_ylabel("Mops/s (log)")
    for ax, (key, name, scale) in zip(panels, memory):
        def mib(t, m, key=key, scale=scale):
            s = summary.get((t, "fillrandom", m))
            return s[key] / scale if s and s[key] is not None else None
        _bars(ax, memtables, thread_counts, mib)
        ax.set_title(name)
        ax.set_ylabel("MiB")
    for ax in panels:
        ax.axis("off")
    _thread_legend(fig, thread_counts, [Patch(facecolor="white", edgecolor="black", hatch="//",
                                              label="bounded op count (see table)")])
    fig.suptitle(f"{title}: median ops/s per memtable (higher is better)"
                 + ("; memory (lower is better)" if memory else ""))
    fig.tight_layout(rect=(0, 0, 0.9, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_sections(panels, thread_counts, title, path):
    """panels: [(title, memtables, {(threads, memtable): ops/s})]."""
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5 * columns, 4.3 * rows), squeeze=False)
    for ax, (name, memtables, ops) in zip(axes.flat, panels):
        _bars(ax, memtables, thread_counts,
              lambda t, m, ops=ops: ops[(t, m)] / 1e6 if (t, m) in ops else None)
        ax.set_title(textwrap.fill(name, 50), fontsize=8)
        ax.set_ylabel("Mops/s")
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    _thread_legend(fig, thread_counts)
    fig.suptitle(f"{title}: median ops/s per memtable (higher is better)")
    fig.tight_layout(rect=(0, 0, 0.9, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_micro(results, operations, reps, title, path):
    """results: {(operation, rep): items per second}."""
    fig, ax = plt.subplots(figsize=(11, 5))
    width = 0.8 / len(reps)
    for i, rep in enumerate(reps):
        xs, ys = [], []
        for j, op in enumerate(operations):
            v = results.get((op, rep))
            if v is not None:
                xs.append(j + (i - (len(reps) - 1) / 2) * width)
                ys.append(v / 1e6)
        ax.bar(xs, ys, width, label=rep, edgecolor="black", linewidth=0.3)
    ax.set_xticks(range(len(operations)))
    ax.set_xticklabels(operations)
    ax.set_yscale("log")
    ax.set_ylabel("Mops/s (log), higher is better")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=9)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_hot_keys(medians, versions, memtables, benchmarks, title, path):
    """medians[(versions, benchmark, memtable)] = micros/op."""
    fig, axes = plt.subplots(1, len(benchmarks), figsize=(4.2 * len(benchmarks), 4.2))
    for ax, b in zip(axes, benchmarks):
        for m in memtables:
            points = [(v, medians[(v, b, m)]) for v in versions if (v, b, m) in medians]
            ax.plot([v for v, _ in points], [us for _, us in points], marker="o", label=m)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(b)
        ax.set_xlabel("versions per key")
        ax.set_ylabel("micros/op (log)")
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=9)
    fig.suptitle(f"{title}: median micros/op (lower is better)")
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=110)


# The operations in the order a reader expects them, and what each is.
HEADLINE_OPERATIONS = [("fill", "fillrandom"), ("get", "readrandom"), ("scan", "readseq"),
                       ("seek", "seekrandom")]


def _memtable_label(m):
    return "TeksTable (teks)" if m == "teks" else m


def plot_headline(head, title, path):
    """head: bench_summary.headline's result."""
    memtables = ["teks"] + head["others"][1:]
    thread_counts = head["threads"]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(1, len(thread_counts), figsize=(6 * len(thread_counts), 5.4),
                             sharey=True, squeeze=False)
    # Bars of bounded operations are too small to see: notes instead.
    drawn = {k: v for k, v in head["speedup"].items() if k not in head["bounded"]}
    top = max([1.0] + list(drawn.values())) * 1.3
    width = 0.8 / len(memtables)
    for ax, t in zip(axes[0], thread_counts):
        for j, (name, _) in enumerate(HEADLINE_OPERATIONS):
            for i, m in enumerate(memtables):
                x = j + (i - (len(memtables) - 1) / 2) * width
                v = head["speedup"].get((m, t, name))
                if v is None:
                    continue
                if (m, t, name) in head["bounded"]:
                    n, seconds = head["bounded"][(m, t, name)]
                    above = max([1.0] + [drawn.get((mm, t, name), 0) for mm in memtables])
                    ax.annotate(f"{m} {name}:\n1/{1 / v:,.0f} of skip_list's ops/s\n({seconds:.2g} s each,"
                                f"\nbounded to {n}/thread)", xy=(x, 0), xytext=(j, above + 0.1 * top),
                                ha="center", va="bottom", fontsize=8, annotation_clip=False,
                                bbox=dict(boxstyle="round", facecolor=colors[i % len(colors)],
                                          alpha=0.15),
                                arrowprops=dict(arrowstyle="->", color=colors[i % len(colors)]))
                    continue
                ax.bar(x, v, width, color=colors[i % len(colors)], edgecolor="black",
                       linewidth=0.3, zorder=2)
                ax.text(x, v, f"{v:.2f}x", ha="center", va="bottom", fontsize=9,
                        fontweight="bold" if m == "teks" else "normal")
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, zorder=1)
        ax.set_xticks(range(len(HEADLINE_OPERATIONS)))
        ax.set_xticklabels([f"{name}\n({benchmark})" for name, benchmark in HEADLINE_OPERATIONS])
        ax.set_xlim(-0.6, len(HEADLINE_OPERATIONS) - 0.4)
        ax.set_ylim(0, top)
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(f"{t} thread" + ("" if t == 1 else "s"))
        memory = [f"{_memtable_label(m)} {head['memory'][(m, t)]:.2f}x" for m in memtables
                  if (m, t) in head["memory"]]
        if memory:
            ax.set_xlabel("memtable bytes after the fill vs skip_list (lower is smaller):\n"
                          + ", ".join(memory), fontsize=9)
    axes[0][0].set_ylabel("ops/s over skip_list's (linear)")
    handles = [Patch(color=colors[i % len(colors)], label=_memtable_label(m))
               for i, m in enumerate(memtables)]
    handles.append(Line2D([], [], color="black", linestyle="--",
                          label=f"{head['others'][0]} (RocksDB's default) = 1.0"))
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=9,
               bbox_to_anchor=(0.5, 0.95))
    fig.suptitle(f"{title}: speedup over the skip list, higher is better")
    fig.tight_layout(rect=(0, 0, 1, 0.91))
    fig.savefig(path, dpi=110)
    plt.close(fig)
