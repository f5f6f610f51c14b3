"""The plain-text tables and ratio format shared by bench_report.py and
micro_report.py. Stdlib only.
"""


def fmt_x(ratio):
    """A ratio as "1.23x" ("0.0042x" below 0.1), "-" for None."""
    if ratio is None:
        return "-"
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def print_table(header, rows, left_columns, group_columns):
    """Prints rows under header, the first `left_columns` columns
    left-aligned and the rest right-aligned, with a blank line wherever the
    first `group_columns` cells change."""
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def line(cells):
        return "  ".join(str(c).ljust(w) if i < left_columns else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    print(line(header))
    print("  ".join("-" * w for w in widths))
    previous = None
    for r in rows:
        if previous is not None and r[:group_columns] != previous:
            print()
        previous = r[:group_columns]
        print(line(r))
