#!/usr/bin/env python3
"""Retrieval quality and speed of bovw against OpenCV's BOW pipeline on a UKBench-style set.

For each vocabulary size K and seed: bovw (`train`, `index`, `evaluate` with cosine and intersection
scoring; files-to-histograms rate from `bovw histogram --images`) and the OpenCV baseline
(`opencv_bow_baseline`: BOWKMeansTrainer + BOWImgDescriptorExtractor on the same SURF descriptors,
TF-IDF cosine). Prints a Markdown table of means over seeds (min..max in brackets) and writes --json.

Usage: compare_with_opencv_bow.py SET_DIR [--build build] [--words 200 1000] [--seeds 1 2 3]
       [--backends openmp opencl]   (SET_DIR made by make_ukbench_set.py, with GROUPS.csv)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run(command):
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return result.stdout, time.monotonic() - start


def spread(values):
    return f"{sum(values) / len(values):.3f} [{min(values):.3f}..{max(values):.3f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set")
    parser.add_argument("--build", default="build")
    parser.add_argument("--words", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--backends", nargs="+", default=["openmp", "opencl"])
    parser.add_argument("--json")
    args = parser.parse_args()
    bovw = os.path.join(args.build, "bovw")
    baseline = os.path.join(args.build, "bench", "retrieval", "opencv_bow_baseline")
    groups = os.path.join(args.set, "GROUPS.csv")
    images = sum(1 for f in os.listdir(args.set) if f.endswith(".jpg"))
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for k in args.words:
            for seed in args.seeds:
                vocabulary, database = os.path.join(work, "v.bovw"), os.path.join(work, "db")
                _, train_s = run([bovw, "train", args.set, "--words", str(k), "--seed", str(seed), "--quiet",
                                  "--output", vocabulary])
                run([bovw, "index", args.set, "--vocabulary", vocabulary, "--output", database, "--quiet"])
                row = {"words": k, "seed": seed, "bovw_train_s": train_s}
                for scoring in ("cosine", "intersection"):
                    scores = os.path.join(work, "e.json")
                    run([bovw, "evaluate", "--index", database, "--groups", groups, "--scoring", scoring,
                         "--json", scores, "--quiet"])
                    with open(scores) as f:
                        e = json.load(f)
                    row[f"bovw_{scoring}_ns"], row[f"bovw_{scoring}_map"] = e["ns_score"], e["mean_ap"]
                for backend in args.backends:
                    _, seconds = run([bovw, "histogram", "--images", args.set, "--vocabulary", vocabulary, "--quiet",
                                      "--backend", backend, "--output", os.path.join(work, "h.npy")])
                    row[f"bovw_{backend}_images_per_s"] = images / seconds
                out, _ = run([baseline, args.set, groups, "--words", str(k), "--seed", str(seed)])
                b = json.loads(out)
                row.update({"opencv_ns": b["ns_score"], "opencv_map": b["mean_ap"], "opencv_train_s": b["train_seconds"],
                            "opencv_images_per_s": b["files_to_histograms_images_per_second"]})
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    print(f"{images} images, seeds {args.seeds}; mean [min..max] over seeds\n")
    print("| K | pipeline | N-S (of 4) | mAP | train s | files->histograms img/s |")
    print("|---|---|---|---|---|---|")
    for k in args.words:
        r = [row for row in rows if row["words"] == k]
        col = lambda key: [row[key] for row in r]
        for scoring in ("cosine", "intersection"):
            rate = " / ".join(f"{b} {spread(col(f'bovw_{b}_images_per_s'))}" for b in args.backends)
            print(f"| {k} | bovw, TF-IDF {scoring} | {spread(col(f'bovw_{scoring}_ns'))} | "
                  f"{spread(col(f'bovw_{scoring}_map'))} | {spread(col('bovw_train_s'))} | {rate} |")
        print(f"| {k} | OpenCV BOW, TF-IDF cosine | {spread(col('opencv_ns'))} | {spread(col('opencv_map'))} | "
              f"{spread(col('opencv_train_s'))} | {spread(col('opencv_images_per_s'))} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
