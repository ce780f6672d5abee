#!/usr/bin/env python3
"""Image retrieval with the bovw Python module: train a vocabulary on a folder of images, index them,
and search the folder with one query image.

Usage: retrieval.py IMAGES_DIR QUERY_IMAGE [--words K] [--top N] [--verify N]
"""
import argparse
import os
import sys

import bovw


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("images", help="a folder of images to index")
    parser.add_argument("query", help="the image to search for")
    parser.add_argument("--words", type=int, default=256, help="vocabulary size K")
    parser.add_argument("--top", type=int, default=5, help="results to show")
    parser.add_argument("--verify", type=int, default=20, help="re-rank this many results by geometry (0: none)")
    args = parser.parse_args(argv)

    vocabulary = bovw.train(args.images, args.words, seed=0)  # SURF features, k-means
    print("trained %d %s words" % (vocabulary.size, vocabulary.descriptor_type))

    database = bovw.Database.create(vocabulary, store_keypoints=args.verify > 0)
    paths = sorted(os.path.join(args.images, name) for name in os.listdir(args.images))
    for path, problem in database.add(paths):  # files that are not images are skipped and reported
        print("skipped %s" % problem, file=sys.stderr)
    print("indexed %d images" % len(database))

    try:
        results = database.search(args.query, top=args.top, verify=args.verify)
    except bovw.Error as e:  # an unreadable query, an empty database: bovw's message says which
        print("retrieval.py: %s" % e, file=sys.stderr)
        return 1
    for rank, result in enumerate(results, 1):
        check = " (%d inliers)" % result.inliers if result.verified else ""
        print("%d. %s  %.4f%s" % (rank, result.name, result.score, check))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
