#!/usr/bin/env python3
"""Retrieval quality of bovw over vocabulary sizes and seeds on a grouped set (made by
make_ukbench_set.py or make_clutter_set.py: a folder of images with GROUPS.csv).

For each vocabulary size K and seed s it runs
    bovw train SET --words K --max-descriptors M --seed s --output WORK/K<K>_s<s>.bovw  [TRAIN_ARGS]
    bovw index SET --vocabulary WORK/K<K>_s<s>.bovw --output WORK/K<K>_s<s>.bovwdb      [INDEX_ARGS]
    bovw evaluate --index WORK/K<K>_s<s>.bovwdb --groups SET/GROUPS.csv --json ...      [EVALUATE_ARGS]
and collects the evaluations into one CSV (one line per evaluation row, every field evaluate wrote) and a
Markdown report: a table of every run (K, seed, variant, N-S, mAP) and a summary, mean [min..max] over
the seeds, per K and variant.

evaluate's --json may hold one object (today's bovw), an array of objects, or {"rows": [...]}, e.g. one row
per scoring option; every row is kept. A row's "variant" is made of the fields named by --variant-fields
that it has (default: scoring, verified_top), so rows of different
scorings are summarised apart, not averaged together.

--index-args and --evaluate-args (and --train-args) are passed through word by word (shell-style
quoting), with "=" so that argparse does not take them for its own options: --index-args=--keypoints
"--evaluate-args=--scoring cosine --verify 50".

Usage: quality_sweep.py SET_DIR [--bovw build/bovw] [--words 1000 ...] [--seeds 1 2 ...]
       [--max-descriptors 200000] [--train-args ARGS] [--index-args ARGS] [--evaluate-args ARGS]
       [--csv FILE] [--markdown FILE] [--log FILE] [--work DIR] [--title TEXT]
"""
import argparse
import csv
import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEFAULT_VARIANT_FIELDS = ["scoring", "verified_top"]


def fail(message):
    sys.exit(f"quality_sweep: {message}")


def write_atomically(path, text):
    """Writes text to path through a temporary file in the same folder, renamed over path at the end."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=folder)
    try:
        with os.fdopen(handle, "w", newline="") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


class Runner:
    """Runs bovw steps, logs each command with its output, and stops the sweep at the first failure."""

    def __init__(self, log):
        self.log = log

    def __call__(self, step, command):
        self.log.append("$ " + shlex.join(command))
        start = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True)
        seconds = time.monotonic() - start
        output = (result.stdout + result.stderr).rstrip()
        if output:
            self.log.append(output)
        self.log.append(f"# {step}: exit {result.returncode}, {seconds:.1f} s")
        if result.returncode != 0:
            tail = "\n".join(output.splitlines()[-20:])
            fail(f"bovw {step} failed (exit {result.returncode}):\n  {shlex.join(command)}\n{tail}")
        return seconds


def evaluation_rows(path):
    """The rows of an evaluate --json file: its "scorings" rows (one per scoring, and per verification
    with --verify), each with the report's shared fields; also one object, an array of objects, or
    {"rows": [...]}."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read the evaluation {path}: {error}")
    key = next((k for k in ("scorings", "rows") if isinstance(data, dict) and isinstance(data.get(k), list)), None)
    if key:
        shared = {k: v for k, v in data.items() if k != key and not isinstance(v, (list, dict))}
        rows = [{**shared, **row} for row in data[key]]
    elif isinstance(data, list):
        rows = data
    else:
        rows = [data]
    if not rows or not all(isinstance(row, dict) for row in rows):
        fail(f"{path}: expected an object, an array of objects or {{\"rows\": [...]}}")
    for row in rows:
        if "ns_score" not in row or "mean_ap" not in row:
            fail(f"{path}: a row without ns_score or mean_ap: {json.dumps(row)[:200]}")
    return rows


def spread(values):
    return f"{sum(values) / len(values):.3f} [{min(values):.3f}..{max(values):.3f}]"


def markdown(results, title):
    lines = [f"### {title}", "", "| K | seed | variant | N-S (of 4) | mAP |", "| --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['words']} | {r['seed']} | {r['variant']} | {r['ns_score']:.3f} | {r['mean_ap']:.3f} |")
    lines += ["", "Mean [min..max] over seeds:", "",
              "| K | variant | seeds | N-S (of 4) | mAP |", "| --- | --- | --- | --- | --- |"]
    keys = list(dict.fromkeys((r["words"], r["variant"]) for r in results))
    for words, variant in keys:
        rs = [r for r in results if r["words"] == words and r["variant"] == variant]
        seeds = " ".join(str(r["seed"]) for r in rs)
        lines.append(f"| {words} | {variant} | {seeds} | {spread([r['ns_score'] for r in rs])} | "
                     f"{spread([r['mean_ap'] for r in rs])} |")
    return "\n".join(lines) + "\n"


def to_csv(results):
    columns = list(dict.fromkeys(key for r in results for key in r))
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for r in results:
        writer.writerow({k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in r.items()})
    return text.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", help="folder of images with GROUPS.csv")
    parser.add_argument("--bovw", default="build/bovw", help="the bovw binary")
    parser.add_argument("--words", type=int, nargs="+", default=[1000], help="vocabulary sizes K")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2], help="training seeds")
    parser.add_argument("--max-descriptors", type=int, default=200000, help="training sample size")
    parser.add_argument("--train-args", default="", help="extra bovw train arguments")
    parser.add_argument("--index-args", default="", help="extra bovw index arguments")
    parser.add_argument("--evaluate-args", default="", help="extra bovw evaluate arguments")
    parser.add_argument("--variant-fields", nargs="*", default=DEFAULT_VARIANT_FIELDS,
                        help="evaluation fields that tell rows of one run apart")
    parser.add_argument("--csv", help="write every evaluation row here")
    parser.add_argument("--markdown", help="write the tables here (they are printed too)")
    parser.add_argument("--log", help="write every command and its output here")
    parser.add_argument("--work", help="keep vocabularies, indexes and evaluations here (default: a temporary folder)")
    parser.add_argument("--title", help="heading of the Markdown report")
    args = parser.parse_args()

    groups = os.path.join(args.set, "GROUPS.csv")
    if not os.path.isdir(args.set):
        fail(f"no set folder {args.set}")
    if not os.path.isfile(groups):
        fail(f"{args.set} has no GROUPS.csv (make it with make_ukbench_set.py or make_clutter_set.py)")
    if not (os.path.isfile(args.bovw) and os.access(args.bovw, os.X_OK)):
        fail(f"no bovw binary at {args.bovw} (give --bovw)")
    train_args, index_args, evaluate_args = (shlex.split(a) for a in (args.train_args, args.index_args,
                                                                       args.evaluate_args))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("quality_sweep: terminated"))  # still clean up and log
    log = [f"# quality_sweep.py {shlex.join(sys.argv[1:])}", f"# started {time.strftime('%Y-%m-%d %H:%M:%S %Z')}"]
    run = Runner(log)
    work = args.work or tempfile.mkdtemp(prefix="bovw-sweep-")
    os.makedirs(work, exist_ok=True)
    results = []
    try:
        for words in args.words:
            for seed in args.seeds:
                stem = os.path.join(work, f"K{words}_s{seed}")
                vocabulary, database, evaluation = stem + ".bovw", stem + ".bovwdb", stem + ".json"
                train_s = run("train", [args.bovw, "train", args.set, "--words", str(words), "--max-descriptors",
                                        str(args.max_descriptors), "--seed", str(seed), "--quiet",
                                        "--output", vocabulary] + train_args)
                index_s = run("index", [args.bovw, "index", args.set, "--vocabulary", vocabulary, "--output",
                                        database, "--quiet"] + index_args)
                if os.path.exists(evaluation):
                    os.unlink(evaluation)  # never read an earlier run's scores
                evaluate_s = run("evaluate", [args.bovw, "evaluate", "--index", database, "--groups", groups,
                                              "--json", evaluation, "--quiet"] + evaluate_args)
                for row in evaluation_rows(evaluation):
                    variant = ", ".join(f"{f}={row[f]}" for f in args.variant_fields if f in row) or "-"
                    results.append({"words": words, "seed": seed, "variant": variant,
                                    "ns_score": row["ns_score"], "mean_ap": row["mean_ap"],
                                    "train_args": args.train_args, "index_args": args.index_args,
                                    "evaluate_args": args.evaluate_args, "train_s": round(train_s, 3),
                                    "index_s": round(index_s, 3), "evaluate_s": round(evaluate_s, 3),
                                    **{f"evaluate.{k}": v for k, v in row.items()}})
                print(f"K = {words}, seed {seed}: " + "; ".join(
                    f"{r['variant']}: N-S {r['ns_score']:.3f}, mAP {r['mean_ap']:.3f}"
                    for r in results if r["words"] == words and r["seed"] == seed), file=sys.stderr)
    finally:
        if args.log:
            write_atomically(args.log, "\n".join(log) + "\n")
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    images = sum(1 for line in open(groups)) - 1
    extras = "; ".join(f"{name} `{value}`" for name, value in (("train", args.train_args), ("index", args.index_args),
                                                              ("evaluate", args.evaluate_args)) if value)
    title = args.title or (f"{args.set}: {images} images in GROUPS.csv, --max-descriptors {args.max_descriptors}"
                           + (f"; extra arguments: {extras}" if extras else ""))
    report = markdown(results, title)
    print(report)
    if args.markdown:
        write_atomically(args.markdown, report)
    if args.csv:
        write_atomically(args.csv, to_csv(results))


if __name__ == "__main__":
    main()
