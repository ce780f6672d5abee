#!/usr/bin/env python3
"""A walk-through of bovw in Python, in notebook cells (`# %%`: run it whole, or cell by cell in
Jupyter or VS Code): train a vocabulary on a folder of photos, look at one image's histogram of
visual words, index the folder, search with a photo of an object, find the cluttered scene it is in, and draw
where the verified result's homography puts the query.

Usage: walkthrough.py [IMAGES_DIR] [QUERY_IMAGE] [--output FOLDER]
Defaults: Debian's opencv-doc sample photos (apt install opencv-doc) and their box.png (an object, found in box_in_scene.png);
the figures go to FOLDER (default: the current folder) as walkthrough_*.png.
"""
# %% The inputs
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # figures to files; in a notebook, drop this line to see them inline
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import bovw  # noqa: E402

SAMPLES = "/usr/share/doc/opencv-doc/examples/data"
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("images", nargs="?", default=SAMPLES)
parser.add_argument("query", nargs="?", default=os.path.join(SAMPLES, "box.png"))
parser.add_argument("--output", default=".")
args = parser.parse_args()

# %% A vocabulary: SURF descriptors of the folder's images, clustered into K visual words
vocabulary = bovw.train(args.images, 500, seed=0)
print("vocabulary: %d words of %d dimensions" % (vocabulary.size, vocabulary.dimension))

# %% One image as a bag of words: its descriptors, each counted at its nearest word
keypoints, descriptors = bovw.extract(args.query)
histogrammer = bovw.Histogrammer(vocabulary)
histogram = histogrammer.compute(descriptors)[0]  # one image: a row of K counts
print("%s: %d features over %d distinct words" % (os.path.basename(args.query), len(descriptors),
                                                   np.count_nonzero(histogram)))
figure, axes = plt.subplots(figsize=(10, 3))
axes.bar(np.arange(vocabulary.size), histogram, width=1.0)
axes.set_xlabel("visual word")
axes.set_ylabel("features")
axes.set_title("The query's histogram of visual words")
figure.savefig(os.path.join(args.output, "walkthrough_histogram.png"), dpi=80, bbox_inches="tight")

# %% A database of the folder, with keypoints so that results can be verified geometrically
database = bovw.Database.create(vocabulary, store_keypoints=True)
paths = sorted(os.path.join(args.images, name) for name in os.listdir(args.images))
skipped = database.add(paths)  # (path, why) of the files that are not images
print("indexed %d images (%d files skipped)" % (len(database), len(skipped)))

# %% Search: the bag-of-words ranking of the top 50, re-ranked by one homography each
results = database.search(args.query, top=5, verify=50, exclude_query=True)
for rank, result in enumerate(results, 1):
    print("%d. %-22s score %.3f  bag of words %.3f  inliers %d%s" % (
        rank, os.path.basename(result.name), result.score, result.bow_score, result.inliers,
        "  verified" if result.verified else ""))

# %% Where the best verified result shows the query: its outline mapped by the homography
best = next((r for r in results if r.verified), None)
if best is None:
    print("no result was verified")
    sys.exit(0)
import cv2  # noqa: E402 (Debian's python3-opencv: reading and drawing)

query = cv2.imread(args.query, cv2.IMREAD_GRAYSCALE)
found = cv2.imread(best.name, cv2.IMREAD_GRAYSCALE)
h, w = query.shape
corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]]).reshape(-1, 1, 2)
# homography: query pixel coordinates -> the result's
outline = cv2.perspectiveTransform(corners, np.asarray(best.homography, dtype=np.float64))
figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.imshow(query, cmap="gray")
left.set_title("query: " + os.path.basename(args.query))
right.imshow(found, cmap="gray")
right.plot(*np.vstack([outline[:, 0], outline[:1, 0]]).T, color="lime", linewidth=2)
right.set_title("%s: %d inliers" % (os.path.basename(best.name), best.inliers))
for axes in (left, right):
    axes.axis("off")
figure.savefig(os.path.join(args.output, "walkthrough_match.png"), dpi=80, bbox_inches="tight")
print("figures: walkthrough_histogram.png, walkthrough_match.png in %s" % os.path.abspath(args.output))
