"""How bench.py and its sections print figures: medians, numbers with
significant figures, aligned and Markdown tables, CSV files."""
import math
import statistics


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, digits=3):
    """A number with `digits` significant figures, no exponent for ordinary sizes."""
    if x is None:
        return "-"
    if x == 0:
        return "0"
    mag = int(math.floor(math.log10(abs(x))))
    dec = max(0, digits - 1 - mag)
    return "%.*f" % (dec, x)


def fmt_ns(ns):
    if ns is None:
        return "-"
    if abs(ns) >= 999.5e3:
        return fmt(ns / 1e6) + " ms"
    if abs(ns) >= 999.5:
        return fmt(ns / 1e3) + " us"
    return fmt(ns) + " ns"


def table(header, rows):
    """Aligned columns: first column left, the others right."""
    rows = [list(r) + [""] * (len(header) - len(r)) for r in rows]
    cols = [header] + rows
    w = [max(len(str(r[i])) for r in cols) for i in range(len(header))]
    lines = []
    for k, r in enumerate(cols):
        cells = [str(c).ljust(w[i]) if i == 0 else str(c).rjust(w[i])
                 for i, c in enumerate(r)]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * x for x in w))
    return "\n".join(lines)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join("" if c is None else str(c) for c in r) + "\n")
