#!/usr/bin/env python3
"""Builds a UKBench-style retrieval test set: groups of 4 images of one scene (the original and
3 synthetic views), plus GROUPS.csv (`image,group`) for `bovw evaluate`.

The base images come from Debian's opencv-doc package (/usr/share/doc/opencv-doc/examples/data) or any
folder given with --source. Each synthetic view combines a geometric change (perspective, rotation with
scale, or crop) with a photometric one (illumination and gamma, blur, or noise) and is saved as JPEG
at a random quality, all drawn from one seeded generator, so the set is reproducible.

Usage: make_ukbench_set.py OUT_DIR [--source DIR] [--seed 7] [--views 3] [--max-side 640]
"""
import argparse
import csv
import os
import sys

import cv2
import numpy as np

DEFAULT_SOURCE = "/usr/share/doc/opencv-doc/examples/data"
# Natural or textured scenes of the opencv-doc samples; near-duplicate series (left01..14) and
# synthetic patterns (chessboards, gradients, text) are left out so each group is one scene.
DEFAULT_BASES = [
    "aero1.jpg", "aloeL.jpg", "apple.jpg", "baboon.jpg", "basketball1.png", "Blender_Suzanne1.jpg",
    "board.jpg", "box.png", "building.jpg", "butterfly.jpg", "cards.png", "chicky_512.png",
    "ela_original.jpg", "fruits.jpg", "graf1.png", "HappyFish.jpg", "home.jpg", "leuvenA.jpg",
    "licenseplate_motion.jpg", "messi5.jpg", "orange.jpg", "pca_test1.jpg", "rubberwhale1.png",
    "smarties.png", "squirrel_cls.jpg", "starry_night.jpg", "stuff.jpg", "sudoku.png", "left01.jpg",
    "text_defocus.jpg",
]


def perspective(image, rng):
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(0.05, 0.15, size=(4, 2)) * [w, h] * rng.choice([-1, 1], size=(4, 2))
    target = np.float32(corners + jitter)
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, target), (w, h),
                               borderMode=cv2.BORDER_REFLECT)


def rotate_scale(image, rng):
    h, w = image.shape[:2]
    angle = rng.uniform(10, 45) * rng.choice([-1, 1])
    scale = rng.uniform(0.7, 1.3)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    return cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def crop(image, rng):
    h, w = image.shape[:2]
    keep = rng.uniform(0.65, 0.85)
    ch, cw = int(h * keep), int(w * keep)
    y, x = rng.integers(0, h - ch + 1), rng.integers(0, w - cw + 1)
    return cv2.resize(image[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_LINEAR)


def illumination(image, rng):
    gain, gamma = rng.uniform(0.6, 1.4), rng.uniform(0.7, 1.4)
    scaled = np.clip(255.0 * (image / 255.0) ** gamma * gain, 0, 255)
    return scaled.astype(np.uint8)


def blur(image, rng):
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(1.0, 2.0))


def noise(image, rng):
    return np.clip(image + rng.normal(0, rng.uniform(3, 8), image.shape), 0, 255).astype(np.uint8)


GEOMETRIC = [perspective, rotate_scale, crop]
PHOTOMETRIC = [illumination, blur, noise]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--bases", nargs="*", help="base image names in --source (default: a curated list)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--views", type=int, default=3, help="synthetic views per base image")
    parser.add_argument("--max-side", type=int, default=640, help="downscale bases larger than this")
    args = parser.parse_args()

    bases = args.bases or (DEFAULT_BASES if args.source == DEFAULT_SOURCE else
                           sorted(f for f in os.listdir(args.source) if f.lower().endswith((".jpg", ".png"))))
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for group, name in enumerate(bases):
        image = cv2.imread(os.path.join(args.source, name), cv2.IMREAD_COLOR)
        if image is None:
            sys.exit(f"make_ukbench_set: cannot read {os.path.join(args.source, name)}")
        scale = args.max_side / max(image.shape[:2])
        if scale < 1:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        views = [image]
        for v in range(args.views):
            geometric = GEOMETRIC[v % len(GEOMETRIC)]
            photometric = PHOTOMETRIC[rng.integers(len(PHOTOMETRIC))]
            views.append(photometric(geometric(image, rng), rng))
        for v, view in enumerate(views):
            file = f"g{group:03d}_v{v}.jpg"
            quality = 95 if v == 0 else int(rng.integers(30, 80))
            cv2.imwrite(os.path.join(args.out, file), view, [cv2.IMWRITE_JPEG_QUALITY, quality])
            rows.append((file, f"g{group:03d}"))
    with open(os.path.join(args.out, "GROUPS.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "group"])
        writer.writerows(rows)
    print(f"wrote {len(rows)} images in {len(bases)} groups to {args.out}")


if __name__ == "__main__":
    main()
