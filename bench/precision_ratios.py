#!/usr/bin/env python3
"""Per-sparsity geomean time ratios of SR-BCRS precisions from spx-bench CSVs.

    python3 bench/precision_ratios.py l8r8.csv l16r8.csv l16r16.csv ... [--ref l8r8]

Every CSV is one `spx-bench srbcrs ... --precision P` run over the same matrices (any baseline
rows; libspx's time `ms` is read once per (matrix, vec, n)). Prints, per precision and sparsity,
the geomean of time(P) / time(ref) over the matrices both ran, and, where some CSV holds
cusparse_csr rows (cuSPARSE CSR int8 on the same matrix), the geomean speedup of P over it.
Cases whose check failed (config starting with FAIL) are left out.
"""
import argparse
import collections
import csv
import math


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--ref", default="l8r8")
    args = ap.parse_args()
    times = collections.defaultdict(dict)  # precision -> (matrix, vec, n) -> ms
    sparsity = {}
    cusparse = {}  # (matrix, vec, n) -> cuSPARSE CSR int8 ms
    for path in args.csv:
        for r in csv.DictReader(open(path)):
            if r["config"].startswith("FAIL"):
                continue
            key = (r["matrix"], r["vec"], r["n"])
            times[r["precision"]][key] = float(r["ms"])
            sparsity[key] = r["sparsity"]
            if r["baseline"] == "cusparse_csr":
                cusparse[key] = float(r["baseline_ms"])
    ref = times.get(args.ref, {})
    levels = sorted({sparsity[k] for k in sparsity}, key=float)
    print(f"{'precision':10} {'sparsity':>8} {'cases':>5} {'time / ' + args.ref:>14} "
          f"{'vs cuSPARSE CSR int8':>21}")
    for prec in sorted(times, key=lambda p: (p != args.ref, p)):
        for level in levels + ["all"]:
            keys = [k for k in times[prec] if level == "all" or sparsity[k] == level]
            ratio = [times[prec][k] / ref[k] for k in keys if k in ref and ref[k] > 0]
            speed = [cusparse[k] / times[prec][k] for k in keys if k in cusparse and times[prec][k] > 0]
            if not keys:
                continue
            print(f"{prec:10} {level:>8} {len(keys):5d} {geomean(ratio):14.3f} {geomean(speed):20.2f}x")


if __name__ == "__main__":
    main()
