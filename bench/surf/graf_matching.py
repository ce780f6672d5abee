#!/usr/bin/env python3
"""Matching quality of SURF outputs on an image pair with a ground-truth homography.

For each keypoint of the first image, the nearest and second-nearest descriptors of the second
image (L2); Lowe's ratio test keeps a match when nearest < RATIO x second. A kept match is correct
when the first keypoint, projected by the homography, lands within TOL px of the matched keypoint.
Prints one line: matches kept, correct, share correct, and correct matches per first-image keypoint.

Usage: graf_matching.py FIRST.yml.gz SECOND.yml.gz H.xml [--ratio 0.8] [--tol 3] [--label NAME]
(FileStorage files in the golden schema, e.g. from `bovw extract`; H.xml holds one 3x3 matrix.)
"""
import argparse
import json
import sys

import cv2
import numpy as np


def load(path):
    fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    if not fs.isOpened():
        sys.exit(f"cannot open {path}")
    kp = fs.getNode("keypoints_x_y_size_angle_response_octave").mat()
    desc = fs.getNode("descriptors").mat()
    return kp.astype(np.float64), desc.astype(np.float32)


def homography(path):
    fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    root = fs.root()
    for name in root.keys():
        m = root.getNode(name).mat()
        if m is not None and m.shape == (3, 3):
            return m.astype(np.float64)
    sys.exit(f"no 3x3 matrix in {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("first"); ap.add_argument("second"); ap.add_argument("homography")
    ap.add_argument("--ratio", type=float, default=0.8)
    ap.add_argument("--tol", type=float, default=3.0)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    k1, d1 = load(a.first)
    k2, d2 = load(a.second)
    H = homography(a.homography)
    knn = cv2.BFMatcher(cv2.NORM_L2).knnMatch(d1, d2, k=2)
    kept = [m[0] for m in knn if len(m) == 2 and m[0].distance < a.ratio * m[1].distance]
    src = np.array([k1[m.queryIdx, :2] for m in kept]).reshape(-1, 1, 2)
    dst = np.array([k2[m.trainIdx, :2] for m in kept]).reshape(-1, 2)
    proj = cv2.perspectiveTransform(src, H).reshape(-1, 2) if len(kept) else np.zeros((0, 2))
    err = np.linalg.norm(proj - dst, axis=1)
    correct = int((err <= a.tol).sum())
    print(json.dumps({"label": a.label, "keypoints": [len(k1), len(k2)], "ratio": a.ratio, "tol_px": a.tol,
                      "matches": len(kept), "correct": correct,
                      "share_correct": correct / max(len(kept), 1)}))


if __name__ == "__main__":
    main()
