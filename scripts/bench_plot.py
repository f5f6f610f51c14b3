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
"""

import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
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
