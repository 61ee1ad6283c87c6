#!/usr/bin/env python3
"""Turns spx-bench CSV files into PNG plots, like the papers' figures.

For every (family, op) in the CSV:
  <prefix>_<family>_<op>_speedup.png  libspx speedup over each baseline vs sparsity (one point per
                                      case, a line through the geomean of each sparsity level;
                                      log scale, 1x marked)
  <prefix>_<family>_<op>_tflops.png   dense-equivalent TFLOP/s (2*m*n*k / time) of libspx and of
                                      each baseline vs sparsity, with the instruction ceilings
                                      measured on an H200 as dashed lines

Rows whose config starts with FAIL or BASELINE-WRONG are left out, as in spx-bench's geomeans.

usage: python3 bench/plot.py results.csv [more.csv ...] [-o OUTDIR] [--prefix NAME]
Needs matplotlib (no other dependency).
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

COLUMNS = ("family,op,matrix,m,k,n,sparsity,vec,dtype,precision,baseline,ms,baseline_ms,"
           "speedup,max_rel_err,analyze_ms,config").split(",")

# Dense-equivalent ceilings on an H200 (sm_90), by dtype (vendor peak figures).
CEILINGS = {
    "f32": [("FFMA fp32", 62.6), ("cuBLAS TF32", 402.0)],
    "f16": [("mma.sync f16", 631.0), ("cuBLAS HGEMM", 808.0), ("mma.sp 2:4 f16", 933.0)],
    "bf16": [("mma.sync bf16", 631.0), ("cuBLAS bf16 GEMM", 790.0)],
    "i8": [("mma.sync m16n8k32 s8", 1268.0), ("cuBLAS int8", 1566.0)],
    "i4": [("mma.sync m16n8k32 s8", 1268.0), ("cuBLAS int8", 1566.0)],
    "i16": [("mma.sync m16n8k32 s8", 1268.0)],
}


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"{path}: not an spx-bench CSV (missing {', '.join(missing)})")
            for r in reader:
                try:
                    for key in ("m", "k", "n", "vec"):
                        r[key] = int(r[key])
                    for key in ("sparsity", "ms", "baseline_ms", "speedup", "max_rel_err",
                                "analyze_ms"):
                        r[key] = float(r[key])
                except ValueError as e:
                    print(f"{path}: skipping a malformed row ({e})", file=sys.stderr)
                    continue
                rows.append(r)
    return rows


def counts(row):
    cfg = row["config"]
    return not (cfg.startswith("FAIL") or cfg.startswith("BASELINE-WRONG")) and row["ms"] > 0


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def tflops(row, ms):
    return 2.0 * row["m"] * row["n"] * row["k"] / (ms * 1e-3) / 1e12 if ms > 0 else float("nan")


def case_key(row):
    return (row["matrix"], row["m"], row["k"], row["n"], row["sparsity"], row["vec"],
            row["dtype"], row["precision"])


def series_by_level(points):
    """points: [(sparsity, value)] -> sorted levels and the geomean at each."""
    by = defaultdict(list)
    for s, v in points:
        by[s].append(v)
    levels = sorted(by)
    return levels, [geomean(by[s]) for s in levels]


def plot_group(plt, ticker, family, op, rows, outdir, prefix):
    title = f"libspx {family} {op}"
    dtypes = sorted({r["dtype"] for r in rows})
    baselines = sorted({r["baseline"] for r in rows})
    markers = "os^Dvp*hx+"
    written = []

    # Speedup vs sparsity, one series per baseline.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, b in enumerate(baselines):
        pts = [(r["sparsity"], r["speedup"]) for r in rows if r["baseline"] == b]
        if not pts:
            continue
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=10, alpha=0.3,
                   marker=markers[i % len(markers)], color=f"C{i}")
        levels, g = series_by_level(pts)
        ax.plot(levels, g, marker=markers[i % len(markers)], color=f"C{i}",
                label=f"vs {b} (geomean {geomean([p[1] for p in pts]):.3g}x)")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.set_xlabel("sparsity")
    ax.set_ylabel("speedup (baseline time / libspx time)")
    ax.set_title(f"{title}: speedup ({', '.join(dtypes)})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(outdir, f"{prefix}_{family}_{op}_speedup.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)

    # Dense-equivalent TFLOP/s: libspx (once per case) and each baseline.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    spx = {}
    for r in rows:
        spx.setdefault(case_key(r), (r["sparsity"], tflops(r, r["ms"])))
    levels, g = series_by_level(list(spx.values()))
    ax.scatter([p[0] for p in spx.values()], [p[1] for p in spx.values()], s=10, alpha=0.3,
               color="black")
    ax.plot(levels, g, marker="o", color="black", linewidth=2, label="libspx")
    for i, b in enumerate(baselines):
        pts = [(r["sparsity"], tflops(r, r["baseline_ms"])) for r in rows if r["baseline"] == b]
        levels, g = series_by_level(pts)
        ax.plot(levels, g, marker=markers[i % len(markers)], color=f"C{i}", label=b)
    for dt in dtypes:
        for j, (name, value) in enumerate(CEILINGS.get(dt, [])):
            ax.axhline(value, color="gray", linestyle="--", linewidth=0.8)
            left = j % 2 == 0  # alternate sides so close ceilings (808 / 933) stay readable
            ax.annotate(f"{name} {value:g}", xy=(0.01 if left else 0.99, value),
                        xycoords=("axes fraction", "data"), fontsize=7, color="gray",
                        va="bottom", ha="left" if left else "right")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("sparsity")
    ax.set_ylabel("dense-equivalent TFLOP/s (2mnk / time)")
    ax.set_title(f"{title}: throughput ({', '.join(dtypes)}; ceilings: H200)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(outdir, f"{prefix}_{family}_{op}_tflops.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description="Plot spx-bench CSV results as PNG files.")
    ap.add_argument("csv", nargs="+", help="spx-bench CSV file(s)")
    ap.add_argument("-o", "--outdir", default=None,
                    help="output folder (default: the first CSV's folder)")
    ap.add_argument("--prefix", default=None,
                    help="file name prefix (default: the first CSV's name without .csv)")
    args = ap.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        sys.exit("plot.py needs matplotlib (pip install matplotlib)")

    rows = [r for r in read_rows(args.csv) if counts(r)]
    if not rows:
        sys.exit("no row to plot (empty CSV, or every case FAILed)")
    outdir = args.outdir or os.path.dirname(os.path.abspath(args.csv[0]))
    prefix = args.prefix or os.path.splitext(os.path.basename(args.csv[0]))[0]
    os.makedirs(outdir, exist_ok=True)

    groups = defaultdict(list)
    for r in rows:
        groups[(r["family"], r["op"])].append(r)
    for (family, op), group in sorted(groups.items()):
        for path in plot_group(plt, ticker, family, op, group, outdir, prefix):
            print(path)


if __name__ == "__main__":
    main()
