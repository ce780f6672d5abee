#!/usr/bin/env python3
"""Plots N-S score and mAP over the vocabulary size K from a quality_sweep.py CSV: one line per variant
(e.g. scoring), the mean over seeds with bars from the minimum to the maximum, K on a log axis. Where
the CSVs hold several sets (their evaluate.groups column differs), each set gets its own lines.

Needs matplotlib (Debian: python3-matplotlib); without it, says so and exits with status 2.

Usage: plot_ns_curve.py SWEEP_CSV [SWEEP_CSV ...] --output PNG [--title TEXT] [--label-by-file]
       (--label-by-file: prefix each variant with its CSV's file name, to compare sets or builds)
"""
import argparse
import csv
import os
import sys
import tempfile


def fail(message, status=1):
    print(f"plot_ns_curve: {message}", file=sys.stderr)
    sys.exit(status)


def read_sweep(path, prefix):
    """{variant: {K: [(ns, map), ...]}} from a quality_sweep.py CSV."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as error:
        fail(f"cannot read {path}: {error}")
    if not rows or not {"words", "ns_score", "mean_ap"} <= set(rows[0]):
        fail(f"{path}: not a quality_sweep.py CSV (needs the columns words, ns_score, mean_ap)")
    sets = {row.get("evaluate.groups", "") for row in rows}
    curves = {}
    for row in rows:
        variant = prefix + (row.get("variant") or "-")
        if len(sets) > 1:
            variant = os.path.basename(os.path.dirname(row["evaluate.groups"])) + ": " + variant
        curves.setdefault(variant, {}).setdefault(int(row["words"]), []).append(
            (float(row["ns_score"]), float(row["mean_ap"])))
    return curves


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--output", required=True, help="PNG to write")
    parser.add_argument("--title", default="bovw retrieval quality over vocabulary size")
    parser.add_argument("--label-by-file", action="store_true")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is not installed (Debian: apt install python3-matplotlib); no plot written", 2)

    curves = {}
    for path in args.csv:
        prefix = os.path.splitext(os.path.basename(path))[0] + ": " if args.label_by_file else ""
        curves.update(read_sweep(path, prefix))

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for column, (axis, name) in enumerate(zip(axes, ("N-S score (of 4)", "mAP"))):
        for variant, by_k in curves.items():
            ks = sorted(by_k)
            values = [[run[column] for run in by_k[k]] for k in ks]
            means = [sum(v) / len(v) for v in values]
            low = [m - min(v) for m, v in zip(means, values)]
            high = [max(v) - m for m, v in zip(means, values)]
            seeds = max(len(v) for v in values)
            axis.errorbar(ks, means, yerr=[low, high], marker="o", capsize=4,
                          label=f"{variant} ({seeds} seed{'s' if seeds > 1 else ''}, min..max)")
        axis.set_xscale("log")
        axis.set_xlabel("vocabulary size K")
        axis.set_ylabel(name)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    figure.suptitle(args.title)
    figure.tight_layout()

    folder = os.path.dirname(os.path.abspath(args.output))
    handle, temporary = tempfile.mkstemp(prefix=".plot-", suffix=".png", dir=folder)
    os.close(handle)
    try:
        figure.savefig(temporary, dpi=120)
        os.replace(temporary, args.output)
    except BaseException:
        os.unlink(temporary)
        raise
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
