#!/usr/bin/env python3
"""Where the relevant images rank on a make_clutter_set.py set, split by query kind, and how much the
shared backgrounds take over the top of the ranking. Complements `bovw evaluate`'s N-S and mAP.

Runs `bovw search --index INDEX --top N --format csv` with every image of SET_DIR/GROUPS.csv as a query
(the index must hold the set: `bovw index SET_DIR ...`), then prints, leaving out each query itself:
- object queries (gGGG_v0.jpg, the object alone): pasted views of the same object in the top 3;
- pasted views: images of the same group in the top 3, images with the same background scene (other
  objects pasted into it) in the top 3, and the rank of the object image (median and quartiles).

Usage: clutter_ranks.py SET_DIR INDEX [--bovw build/bovw] [--search-args ARGS] [--csv SEARCH_CSV]
       (--search-args: passed through to bovw search, e.g. "--scoring cosine"; --csv: keep its output)
"""
import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def fail(message):
    sys.exit(f"clutter_ranks: {message}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set")
    parser.add_argument("index")
    parser.add_argument("--bovw", default="build/bovw")
    parser.add_argument("--search-args", default="")
    parser.add_argument("--csv", help="keep the search output here")
    args = parser.parse_args()
    for path in ("GROUPS.csv", "HOMOGRAPHIES.json"):
        if not os.path.isfile(os.path.join(args.set, path)):
            fail(f"{args.set} has no {path}: not a make_clutter_set.py set")
    with open(os.path.join(args.set, "GROUPS.csv"), newline="") as f:
        group = {row["image"]: row["group"] for row in csv.DictReader(f)}
    with open(os.path.join(args.set, "HOMOGRAPHIES.json")) as f:
        info = json.load(f)
    background = {view: entry["background"] for view, entry in info["views"].items()}
    objects = {entry["image"] for entry in info["objects"].values()}

    with tempfile.TemporaryDirectory() as work:
        output = args.csv or os.path.join(work, "search.csv")
        command = [args.bovw, "search", "--index", args.index, "--top", str(len(group)), "--format", "csv",
                   "--quiet", "--output", output] + shlex.split(args.search_args) + \
                  [os.path.join(args.set, image) for image in group]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"bovw search failed (exit {result.returncode}): {shlex.join(command[:9])} ...\n{result.stderr}")
        ranking = {}
        with open(output, newline="") as f:
            for row in csv.DictReader(f):
                ranking.setdefault(os.path.basename(row["query"]), []).append(os.path.basename(row["image"]))

    views_found, object_queries, same_group, same_background, view_queries, object_ranks = 0, 0, 0, 0, 0, []
    for query, ranked in ranking.items():
        others = [image for image in ranked if image != query]
        top3 = others[:3]
        if query in objects:
            object_queries += 1
            views_found += sum(group.get(image) == group[query] for image in top3)
        else:
            view_queries += 1
            same_group += sum(group.get(image) == group[query] for image in top3)
            same_background += sum(background.get(image) == background[query] for image in top3)
            own_object = info["views"][query]["object_image"]
            object_ranks.append(others.index(own_object) + 1 if own_object in others else len(group))
    if not object_ranks:
        fail(f"no pasted view of {args.set} was found in the search output")
    quartiles = statistics.quantiles(object_ranks, n=4)
    print(f"{args.set}, index {args.index}{', search ' + args.search_args if args.search_args else ''}:")
    print(f"- object queries: {views_found} of {3 * object_queries} top-3 places hold a pasted view of the object")
    print(f"- pasted views: {same_group} of {3 * view_queries} top-3 places hold the same object; "
          f"{same_background} of {3 * view_queries} hold another image with the same background scene")
    print(f"- rank of the object image for a pasted view (1 = first after the query): median "
          f"{statistics.median(object_ranks):g}, quartiles {quartiles[0]:g}..{quartiles[2]:g}, "
          f"in the top 3 for {sum(r <= 3 for r in object_ranks)} of {len(object_ranks)} (of {len(group) - 1} others)")
    print("- pasted views whose object image is within the top N (a re-ranking shortlist of N): " +
          ", ".join(f"N = {n}: {sum(r <= n for r in object_ranks)}" for n in (10, 20, 30, 50)) +
          f" of {len(object_ranks)}")


if __name__ == "__main__":
    main()
