#!/usr/bin/env python3
"""Turns `bovw-bench --json` (and optionally pytorch_peer.py --json) output into Markdown tables
for docs/PERFORMANCE.md: kernel ms per contender and size, with GFLOP/s and % of measured peak."""
import argparse
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench")
    parser.add_argument("--pytorch")
    args = parser.parse_args()
    with open(args.bench) as f:
        bench = json.load(f)
    peer = {}
    if args.pytorch:
        with open(args.pytorch) as f:
            torch = json.load(f)
        peer = {(m["n"], m["k"]): m for m in torch["measurements"]}
    contenders = list(dict.fromkeys(m["contender"] for m in bench["measurements"]))
    sizes = sorted(dict.fromkeys((m["n"], m["k"]) for m in bench["measurements"]))
    cell = {(m["contender"], m["n"], m["k"]): m for m in bench["measurements"]}
    header = ["N", "K"] + contenders + (["PyTorch"] if peer else []) + ["transpose"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for n, k in sizes:
        row = [f"{n:,}", str(k)]
        for c in contenders:
            m = cell.get((c, n, k))
            row.append("skipped" if m is None or "skipped" in m else f"{m['kernel_ms']:.3f}")
        if peer:
            p = peer.get((n, k))
            row.append(f"{p['ms']:.3f}" if p else "-")
        transposes = [cell[(c, n, k)].get("transpose_ms", 0) for c in contenders if (c, n, k) in cell]
        row.append(f"{max(transposes):.3f}")
        print("| " + " | ".join(row) + " |")
    print()
    print("GFLOP/s (and % of the measured FP32 FMA peak) at the largest size run by each:")
    print()
    for c in contenders:
        runs = [m for m in bench["measurements"] if m["contender"] == c and "skipped" not in m]
        if runs:
            m = max(runs, key=lambda r: r["n"] * r["k"])
            share = f", {100 * m['fraction_of_peak']:.1f}% of peak" if m.get("fraction_of_peak") else ""
            print(f"- {c}: {m['gflops']:.0f} GFLOP/s at {m['n']:,} x {m['k']}{share}")


if __name__ == "__main__":
    main()
