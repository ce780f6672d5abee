#!/usr/bin/env python3
"""Where the relevant images rank on a make_clutter_set.py set, split by query kind, and how much the
shared backgrounds take over the top of the ranking. Complements `bovw evaluate`'s N-S and mAP.

Runs `bovw search --index INDEX --top N --format csv` with every image of SET_DIR/GROUPS.csv as a query
(the index must hold the set: `bovw index SET_DIR ...`), then prints, leaving out each query itself:
- object queries (gGGG_v0.jpg, the object alone): pasted views of the same object in the top 3;
- pasted views: images of the same group in the top 3, images with the same background scene (other
  objects pasted into it) in the top 3, and the rank of the object image (median and quartiles).

With --vocabulary, also the "scene finds its object" protocol, box_in_scene.png against box.png: the
object images alone (gGGG_v0.jpg) are indexed with that vocabulary (`bovw index` of a temporary folder
linking to them, with --index-args), every pasted view searches that index, and the rank of its own
object among the objects is reported. Pasted views sharing a background cannot compete there.

Usage: clutter_ranks.py SET_DIR INDEX [--bovw build/bovw] [--search-args ARGS] [--csv SEARCH_CSV]
       [--vocabulary VOCABULARY [--index-args ARGS]]
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


def search(bovw, index, queries, top, output, search_args):
    """{query file name: [result file names, best first]} from bovw search."""
    command = [bovw, "search", "--index", index, "--top", str(top), "--format", "csv", "--quiet",
               "--output", output] + shlex.split(search_args) + queries
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"bovw search failed (exit {result.returncode}): {shlex.join(command[:10])} ...\n{result.stderr}")
    ranking = {}
    with open(output, newline="") as f:
        for row in csv.DictReader(f):
            ranking.setdefault(os.path.basename(row["query"]), []).append(os.path.basename(row["image"]))
    return ranking


def object_only_ranks(args, info, work):
    """Ranks of each pasted view's own object among the object images alone, indexed with --vocabulary."""
    folder = os.path.join(work, "objects")
    os.makedirs(folder)
    for entry in info["objects"].values():
        os.symlink(os.path.abspath(os.path.join(args.set, entry["image"])), os.path.join(folder, entry["image"]))
    database = os.path.join(work, "objects.bovwdb")
    command = [args.bovw, "index", folder, "--vocabulary", args.vocabulary, "--output", database,
               "--quiet"] + shlex.split(args.index_args)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"bovw index of the object images failed (exit {result.returncode}): {shlex.join(command)}\n"
             f"{result.stderr}")
    views = sorted(info["views"])
    ranking = search(args.bovw, database, [os.path.join(args.set, v) for v in views], len(info["objects"]),
                     os.path.join(work, "objects.csv"), args.search_args)
    ranks = []
    for view in views:
        ranked = ranking.get(view, [])
        own = info["views"][view]["object_image"]
        ranks.append(ranked.index(own) + 1 if own in ranked else len(info["objects"]))
    return ranks


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set")
    parser.add_argument("index")
    parser.add_argument("--bovw", default="build/bovw")
    parser.add_argument("--search-args", default="")
    parser.add_argument("--csv", help="keep the search output here")
    parser.add_argument("--vocabulary", help="also rank the pasted views against the object images alone")
    parser.add_argument("--index-args", default="", help="with --vocabulary: extra bovw index arguments")
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
        ranking = search(args.bovw, args.index, [os.path.join(args.set, image) for image in group], len(group),
                         args.csv or os.path.join(work, "search.csv"), args.search_args)
        alone = object_only_ranks(args, info, work) if args.vocabulary else None

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
    if alone:
        n = len(info["objects"])
        print(f"- scene finds its object (pasted views against the {n} object images alone, vocabulary "
              f"{args.vocabulary}{', index ' + args.index_args if args.index_args else ''}): own object first for "
              f"{sum(r == 1 for r in alone)}, in the top 3 for {sum(r <= 3 for r in alone)}, in the top 5 for "
              f"{sum(r <= 5 for r in alone)} of {len(alone)}; median rank {statistics.median(alone):g} of {n} "
              f"(a random ranking: first for 1 in {n}, median rank {(n + 1) / 2:g})")


if __name__ == "__main__":
    main()
