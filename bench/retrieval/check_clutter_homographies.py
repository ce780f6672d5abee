#!/usr/bin/env python3
"""Checks the homographies of a make_clutter_set.py set against its images: for every pasted view, the
object image warped by the recorded homography must correlate with the view inside the pasted region
(eroded by 2 pixels) better than the same homography shifted by 15 pixels does. Prints the correlations'
spread and the pasted objects' share of the view's area; exits 1 if any view fails.

Usage: check_clutter_homographies.py SET_DIR
"""
import json
import os
import sys

import cv2
import numpy as np


def correlation(a, b):
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    path = os.path.join(folder, "HOMOGRAPHIES.json")
    try:
        with open(path) as f:
            views = json.load(f)["views"]
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"check_clutter_homographies: cannot read {path}: {error}")
    true, shifted, failed, area = [], [], [], []
    shift = np.array([[1, 0, 15], [0, 1, 0], [0, 0, 1]], dtype=np.float64)
    for name, entry in sorted(views.items()):
        obj = cv2.imread(os.path.join(folder, entry["object_image"]), cv2.IMREAD_GRAYSCALE)
        view = cv2.imread(os.path.join(folder, name), cv2.IMREAD_GRAYSCALE)
        if obj is None or view is None:
            sys.exit(f"check_clutter_homographies: cannot read {name} or {entry['object_image']} in {folder}")
        obj, view = obj.astype(np.float32), view.astype(np.float32)
        homography, size = np.array(entry["homography"], dtype=np.float64), (view.shape[1], view.shape[0])
        inside = cv2.warpPerspective(np.ones_like(obj), homography, size) > 0.999
        inside = cv2.erode(inside.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        true.append(correlation(cv2.warpPerspective(obj, homography, size)[inside], view[inside]))
        shifted.append(correlation(cv2.warpPerspective(obj, shift @ homography, size)[inside], view[inside]))
        area.append(cv2.contourArea(np.float32(entry["corners"])) / (size[0] * size[1]))
        if true[-1] <= shifted[-1]:
            failed.append(name)
    print(f"{len(true)} pasted views; correlation with the recorded homography: min {min(true):.2f}, median "
          f"{np.median(true):.2f}, max {max(true):.2f}; shifted by 15 pixels: min {min(shifted):.2f}, median "
          f"{np.median(shifted):.2f}, max {max(shifted):.2f}")
    print(f"object's share of the view's area: min {min(area):.3f}, median {np.median(area):.3f}, max {max(area):.3f}")
    if failed:
        sys.exit(f"check_clutter_homographies: the recorded homography does not fit {', '.join(failed)}")


if __name__ == "__main__":
    main()
