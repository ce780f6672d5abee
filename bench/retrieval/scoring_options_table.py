#!/usr/bin/env python3
"""Markdown table of `bovw evaluate --scoring ... --json` reports over several sets (seeds): per
scoring, the mean and [min..max] of N-S, mAP and ranking ms per query, best N-S first.

Usage: scoring_options_table.py EVALUATE.json...
"""
import json
import statistics
import sys


def spread(values, digits):
    return f"{statistics.mean(values):.{digits}f} [{min(values):.{digits}f}..{max(values):.{digits}f}]"


def main(paths):
    rows = {}  # scoring -> list of that scoring's rows, one per report
    for path in paths:
        with open(path) as f:
            for row in json.load(f)["scorings"]:
                rows.setdefault(row["scoring"], []).append(row)
    counts = {len(r) for r in rows.values()}
    if counts != {len(paths)}:
        sys.exit("scoring_options_table.py: the reports do not all hold the same scorings")
    print(f"| scoring | N-S (of 4) | mAP | ms per query |")
    print("| --- | --- | --- | --- |")
    by_ns = sorted(rows.items(), key=lambda item: -statistics.mean(r["ns_score"] for r in item[1]))
    for scoring, runs in by_ns:
        print(f"| {scoring} | {spread([r['ns_score'] for r in runs], 3)} | {spread([r['mean_ap'] for r in runs], 3)} "
              f"| {spread([r['ms_per_query'] for r in runs], 3)} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
