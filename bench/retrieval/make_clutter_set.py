#!/usr/bin/env python3
"""Builds a retrieval test set of small objects in clutter: groups of 1 + V images of one object (the
object alone, and V views where it is pasted, small and transformed, into a different background
scene), plus GROUPS.csv (`image,group`, as make_ukbench_set.py writes it) for `bovw evaluate`, and
HOMOGRAPHIES.json with the true object-to-view homography of every pasted view.

Construction (all draws from one seeded numpy generator, so the same seed gives the same set):
- Sources are images of Debian's opencv-doc package (/usr/share/doc/opencv-doc/examples/data) or of
  the folder given with --source, downscaled to --max-side. They are split into object sources and a
  pool of background scenes (curated lists below; with --source, the last 8 images by name are the
  backgrounds unless --backgrounds names them). No background belongs to the family of an object source (box.png and
  box_in_scene.png are one family, graf1/graf3, leuvenA/B, ... are others), so a background never
  shows another group's object.
- Objects: box.png is used whole (it is an object photographed alone); from every other object
  source a textured region is cut: the best, by ORB keypoint count, of 12 random crops of 40-65% of
  each side. A source whose object has fewer than --min-keypoints ORB keypoints (a flat crop) is
  skipped and the next candidate tried; the first --objects sources that pass make the groups.
  View 0 of each group (gGGG_v0.jpg, JPEG quality 95) is the object image itself, the "database" view.
- Pasted views (gGGG_v1.jpg ... gGGG_vV.jpg): for each, a background scene drawn from the shared pool
  (the V views of one group use V different scenes, and every group draws from the same pool, so
  background words do not identify the group), randomly cropped to 75-100% of each side; the object
  is changed in illumination (gain 0.6-1.4, gamma 0.7-1.4), then mapped by a homography made of a
  scale (the object's longer side becomes 0.25-0.6 of the scene's shorter side; --scale MIN MAX),
  a rotation (any angle), a mild perspective (each corner moved by up to 8% of the object's scaled longer side) and a
  translation that keeps the whole object inside the scene; it is anti-aliased before the warp and
  blended in with its warped (soft-edged) mask. The whole view then gets blur (sigma 0.5-1.2), noise
  (sigma 2-6) or nothing, and is saved as JPEG at quality 40-85. Like box_in_scene.png: a small
  object in clutter.
- HOMOGRAPHIES.json: {"views": {"g000_v1.jpg": {"group", "object_image", "background", "homography",
  "corners", ...}}, "objects": {...}}. "homography" is the 3x3 matrix H (row-major) from the pixel
  coordinates of the object image (gGGG_v0.jpg, as saved) to those of the view, in OpenCV's
  convention (x right, y down, pixel centres at integer coordinates): view = cv2.warpPerspective(
  object, H, view_size) before the blending and photometric changes. "corners" are the object
  image's corners (0,0), (w-1,0), (w-1,h-1), (0,h-1) mapped into the view; "scale" is the linear
  scale from object pixels to view pixels, before the perspective.

Usage: make_clutter_set.py OUT_DIR [--source DIR] [--seed 5] [--objects 20] [--views 3]
       [--max-side 640] [--min-keypoints 300] [--scale 0.25 0.6]
       [--object-sources NAME ...] [--backgrounds NAME ...]
"""
import argparse
import csv
import json
import os
import shutil
import sys
import tempfile

import cv2
import numpy as np

DEFAULT_SOURCE = "/usr/share/doc/opencv-doc/examples/data"
# Object sources of the opencv-doc samples, in the order they are tried: box.png first, then textured
# scenes a region of which makes a distinctive object (random-dot and noise patterns last).
DEFAULT_OBJECTS = [
    "box.png", "graf1.png", "baboon.jpg", "butterfly.jpg", "starry_night.jpg", "board.jpg", "cards.png",
    "chicky_512.png", "squirrel_cls.jpg", "sudoku.png", "fruits.jpg", "imageTextN.png",
    "Blender_Suzanne1.jpg", "ml.png", "digits.png", "building.jpg", "aero1.jpg", "aloeL.jpg", "HappyFish.jpg",
    "smarties.png", "pca_test1.jpg", "ellipses.jpg", "pic2.png",
]
# Cluttered, textured scenes shared by every group as backgrounds.
DEFAULT_BACKGROUNDS = [
    "basketball1.png", "home.jpg", "left.jpg", "left01.jpg", "leuvenA.jpg", "messi5.jpg",
    "rubberwhale1.png",
]
# Images of the same scene or object: one family may not give both an object and a background.
FAMILIES = [
    ["box.png", "box_in_scene.png"], ["graf1.png", "graf3.png"], ["leuvenA.jpg", "leuvenB.jpg"],
    ["aero1.jpg", "aero3.jpg"], ["basketball1.png", "basketball2.png"], ["rubberwhale1.png", "rubberwhale2.png"],
    ["aloeL.jpg", "aloeR.jpg", "aloeGT.png"], ["Blender_Suzanne1.jpg", "Blender_Suzanne2.jpg"],
    ["ela_original.jpg", "ela_modified.jpg"], ["text_defocus.jpg", "text_motion.jpg"],
    ["imageTextN.png", "imageTextR.png"], ["left.jpg", "right.jpg"],
    [f"{side}{i:02d}.jpg" for side in ("left", "right") for i in range(1, 15)],
]
WHOLE_OBJECTS = {"box.png"}  # used as they are, not cropped

ORB = cv2.ORB_create(nfeatures=20000)


def fail(message):
    sys.exit(f"make_clutter_set: {message}")


def family(name):
    for members in FAMILIES:
        if name in members:
            return members[0]
    return name


def read_scaled(path, max_side):
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        fail(f"cannot read {path}")
    scale = max_side / max(image.shape[:2])
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return image


def keypoints(image):
    return len(ORB.detect(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), None))


def cut_object(name, image, rng):
    """The object of a source: the whole image, or its most textured of 12 random crops.
    Returns (object image, crop [x, y, w, h] in the scaled source, ORB keypoint count)."""
    h, w = image.shape[:2]
    if name in WHOLE_OBJECTS:
        return image, [0, 0, w, h], keypoints(image)
    best = None
    for _ in range(12):
        cw, ch = int(w * rng.uniform(0.40, 0.65)), int(h * rng.uniform(0.40, 0.65))
        x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        crop = image[y:y + ch, x:x + cw]
        count = keypoints(crop)
        if best is None or count > best[2]:
            best = (crop.copy(), [x, y, cw, ch], count)
    return best


def illumination(image, rng):
    gain, gamma = rng.uniform(0.6, 1.4), rng.uniform(0.7, 1.4)
    return np.clip(255.0 * (image / 255.0) ** gamma * gain, 0, 255).astype(np.uint8)


def blur(image, rng):
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(0.5, 1.2))


def noise(image, rng):
    return np.clip(image + rng.normal(0, rng.uniform(2, 6), image.shape), 0, 255).astype(np.uint8)


def unchanged(image, rng):
    return image


VIEW_CHANGES = [blur, noise, unchanged]


def crop_background(scene, rng):
    h, w = scene.shape[:2]
    ch, cw = int(h * rng.uniform(0.75, 1.0)), int(w * rng.uniform(0.75, 1.0))
    y, x = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    return scene[y:y + ch, x:x + cw].copy()


def placement(object_shape, view_shape, scale_range, rng):
    """Homography from object pixels to view pixels: scale, rotation, mild perspective, translation."""
    oh, ow = object_shape[:2]
    vh, vw = view_shape[:2]
    corners = np.float32([[0, 0], [ow - 1, 0], [ow - 1, oh - 1], [0, oh - 1]])
    for _ in range(100):
        side = rng.uniform(*scale_range) * min(vh, vw)  # the object's longer side in the view
        scale = side / max(ow, oh)
        angle = np.deg2rad(rng.uniform(-180, 180))
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        centred = (corners - [(ow - 1) / 2, (oh - 1) / 2]) * scale
        moved = centred @ rotation.T + rng.uniform(-0.08, 0.08, size=(4, 2)) * side
        low, high = moved.min(axis=0), moved.max(axis=0)
        if high[0] - low[0] > vw - 2 or high[1] - low[1] > vh - 2:
            continue  # does not fit: draw again
        offset = [rng.uniform(-low[0], vw - 1 - high[0]), rng.uniform(-low[1], vh - 1 - high[1])]
        target = np.float32(moved + offset)
        return cv2.getPerspectiveTransform(corners, target), target, scale
    fail(f"an object of {ow}x{oh} does not fit a {vw}x{vh} scene")


def paste(obj, scene, homography, scale):
    """The object warped by the homography and blended into the scene with its soft-edged mask."""
    vh, vw = scene.shape[:2]
    if scale < 1:  # anti-alias before shrinking (from sigma 0.5 to 0.5 after the scale change)
        obj = cv2.GaussianBlur(obj, (0, 0), 0.5 * np.sqrt(1 / scale ** 2 - 1))
    warped = cv2.warpPerspective(obj, homography, (vw, vh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    mask = cv2.warpPerspective(np.full(obj.shape[:2], 255, np.uint8), homography, (vw, vh),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    alpha = (mask.astype(np.float32) / 255.0)[:, :, None]
    return (warped * alpha + scene * (1 - alpha) + 0.5).astype(np.uint8)


def choose_sources(args):
    if args.source == DEFAULT_SOURCE:
        objects, backgrounds = args.object_sources or DEFAULT_OBJECTS, args.backgrounds or DEFAULT_BACKGROUNDS
    else:  # another folder: every image its own family; the last 8 by name are the backgrounds
        names = sorted(f for f in os.listdir(args.source) if f.lower().endswith((".jpg", ".jpeg", ".png")))
        backgrounds = args.backgrounds or names[-8:]
        objects = args.object_sources or [n for n in names if n not in backgrounds]
    clash = sorted({family(b) for b in backgrounds} & {family(o) for o in objects})
    if clash:
        fail(f"object sources and backgrounds share the families {clash}")
    if len(backgrounds) < args.views:
        fail(f"{len(backgrounds)} backgrounds in {args.source} for {args.views} views per object: need one each")
    return objects, backgrounds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--object-sources", nargs="*", help="object source names in --source, tried in order")
    parser.add_argument("--backgrounds", nargs="*", help="background scene names in --source")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--objects", type=int, default=20, help="groups (objects)")
    parser.add_argument("--views", type=int, default=3, help="pasted views per object")
    parser.add_argument("--max-side", type=int, default=640, help="downscale sources larger than this")
    parser.add_argument("--min-keypoints", type=int, default=300, help="ORB keypoints an object needs")
    parser.add_argument("--scale", type=float, nargs=2, default=[0.25, 0.6], metavar=("MIN", "MAX"),
                        help="the object's longer side in a view, as a fraction of the scene's shorter side")
    args = parser.parse_args()
    if not 0 < args.scale[0] <= args.scale[1] <= 0.7:
        fail(f"--scale {args.scale[0]} {args.scale[1]}: need 0 < MIN <= MAX <= 0.7 (larger objects do not fit rotated)")
    if not os.path.isdir(args.source):
        fail(f"no source folder {args.source} (apt install opencv-doc, or give --source)")

    earlier_set = os.path.isfile(os.path.join(args.out, "HOMOGRAPHIES.json"))
    if os.path.isdir(args.out) and os.listdir(args.out) and not earlier_set:
        fail(f"{args.out} exists and is not a set made by make_clutter_set.py: give a new folder")
    object_names, background_names = choose_sources(args)
    rng = np.random.default_rng(args.seed)
    scenes = {name: read_scaled(os.path.join(args.source, name), args.max_side) for name in background_names}

    objects = []  # (source name, object image, crop, keypoints)
    skipped = []
    for name in object_names:
        if len(objects) == args.objects:
            break
        obj, crop, count = cut_object(name, read_scaled(os.path.join(args.source, name), args.max_side), rng)
        if count < args.min_keypoints:
            skipped.append(f"{name} ({count} ORB keypoints)")
            continue
        objects.append((name, obj, crop, count))
    if len(objects) < args.objects:
        fail(f"only {len(objects)} of the {len(object_names)} object sources in {args.source} have "
             f"{args.min_keypoints} ORB keypoints; --objects {args.objects} asked (skipped: {', '.join(skipped)})")

    # Everything is written into a temporary folder beside OUT_DIR, then moved into place.
    parent = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".clutter-", dir=parent)
    try:
        rows, views, object_info = [], {}, {}
        for index, (name, obj, crop, count) in enumerate(objects):
            group = f"g{index:03d}"
            file = f"{group}_v0.jpg"
            cv2.imwrite(os.path.join(work, file), obj, [cv2.IMWRITE_JPEG_QUALITY, 95])
            rows.append((file, group))
            object_info[group] = {"image": file, "source": name, "crop": crop, "size": [obj.shape[1], obj.shape[0]],
                                  "orb_keypoints": count}
            for v, background in enumerate(rng.choice(background_names, size=args.views, replace=False), start=1):
                scene = crop_background(scenes[background], rng)
                homography, corners, scale = placement(obj.shape, scene.shape, args.scale, rng)
                view = paste(illumination(obj, rng), scene, homography, scale)
                change = VIEW_CHANGES[rng.integers(len(VIEW_CHANGES))]
                view = change(view, rng)
                quality = int(rng.integers(40, 86))
                file = f"{group}_v{v}.jpg"
                cv2.imwrite(os.path.join(work, file), view, [cv2.IMWRITE_JPEG_QUALITY, quality])
                rows.append((file, group))
                views[file] = {"group": group, "object_image": f"{group}_v0.jpg", "background": str(background),
                               "size": [view.shape[1], view.shape[0]],
                               "homography": (homography / homography[2, 2]).tolist(),
                               "corners": corners.tolist(), "scale": scale, "view_change": change.__name__,
                               "jpeg_quality": quality}
        with open(os.path.join(work, "GROUPS.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["image", "group"])
            writer.writerows(rows)
        with open(os.path.join(work, "HOMOGRAPHIES.json"), "w") as f:
            json.dump({"generator": "bench/retrieval/make_clutter_set.py", "seed": args.seed,
                       "convention": "homography: object image pixels (x right, y down, pixel centres at "
                                     "integers) to view pixels, row-major, as cv2.warpPerspective takes it",
                       "backgrounds": list(background_names), "objects": object_info, "views": views}, f, indent=1)
        if os.path.isdir(args.out):  # replace an earlier set, but nothing else
            if os.listdir(args.out) and not os.path.isfile(os.path.join(args.out, "HOMOGRAPHIES.json")):
                fail(f"{args.out} exists and is not a set made by make_clutter_set.py: give a new folder")
            shutil.rmtree(args.out)
        os.replace(work, args.out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    print(f"wrote {len(rows)} images in {len(objects)} groups ({args.views} pasted views each, "
          f"{len(background_names)} shared backgrounds) to {args.out}"
          + (f"; skipped flat sources: {', '.join(skipped)}" if skipped else ""))


if __name__ == "__main__":
    main()
