#!/usr/bin/env python3
"""End-to-end tests of the retrieval commands: `bovw train`, `bovw histogram --images`, `bovw index`,
`bovw search` and `bovw evaluate`, on a tiny UKBench-style set built by the test.

Usage: test_retrieval.py --bovw PATH/TO/bovw --data tests/data [unittest options, e.g. -k Search]

The set: 4 scenes (box.png, two crops of graf1_gray.png, a seeded random texture) x 4 views (the
original, rotated and scaled, a perspective tilt made brighter, a blurred crop), PNG and JPEG, about
300 px a side, written with OpenCV into a temporary folder with its groups CSV. The scenes are fixed
(fixed seeds), so every number here is reproducible.

Checked: the vocabulary formats (.bovw parsed here, .npy with numpy, .yml.gz with cv2.FileStorage),
reproducibility by seed and OpenCL (PoCL) against OpenMP training, histogram rows against
`bovw extract` + `bovw histogram --descriptors`, search output formats, evaluate's scores (one row per
--scoring, each equal to a run with that scoring alone), SIFT,
and the bad inputs: exit 1 naming the input (2 for usage errors), no output and no .bovw-tmp-*
file left behind; a folder with bad files still finishes the good ones. Every run's stderr is
checked for progress-bar carriage returns (the tests run with pipes, where the bar must be off); a
pseudo-terminal run checks the bar does appear on a terminal.

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import csv
import io
import json
import os
import pty
import re
import secrets
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

try:
    import cv2
    import numpy as np
except ImportError:
    # The interpreter CMake found may lack OpenCV (pyenv, venv): Debian's has it when installed.
    if sys.executable != "/usr/bin/python3" and os.access("/usr/bin/python3", os.X_OK) and \
            subprocess.run(["/usr/bin/python3", "-c", "import cv2, numpy"], capture_output=True).returncode == 0:
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("test_retrieval.py: needs python3-opencv and python3-numpy; skipping", file=sys.stderr)
    sys.exit(77)

BOVW = None
DATA = None
TIMEOUT = 120
WORDS = 20
SET = None  # the shared image set and the vocabulary and index built on it (setUpModule)


def run(*args, cwd=None, env=None):
    """Runs bovw; fails the calling test if stderr holds a progress-bar carriage return (stderr is
    a pipe here, where the bar must stay off)."""
    full_env = dict(os.environ)
    full_env.pop("BOVW_DEVICE", None)
    if env:
        full_env.update(env)
    result = subprocess.run([BOVW] + [str(a) for a in args], capture_output=True, text=True, cwd=cwd, env=full_env,
                            timeout=TIMEOUT)
    if "\r" in result.stderr:
        raise AssertionError("progress bar drawn on a pipe: " + describe(result))
    return result


def evaluate_rows(stdout):
    """`bovw evaluate`'s table: [(scoring, N-S, mAP, ms per query)] in printed order."""
    return [(m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4))) for m in
            re.finditer(r"^  (\S+) +([0-9]+\.[0-9]+) +([0-9]+\.[0-9]+) +([0-9]+\.[0-9]+)$", stdout, re.M)]


def describe(result):
    return "exit status %d\n--- command: %s\n--- stdout:\n%s\n--- stderr:\n%s" % (
        result.returncode, " ".join(result.args), result.stdout[-3000:], result.stderr[-3000:])


def checksum64(data):
    """bovw's Checksum64 (docs/FORMATS.md), written again from its description."""
    mask = (1 << 64) - 1
    state = 0x243f6a8885a308d3

    def mix(state, word):
        state = ((state ^ word) * 0x9e3779b97f4a7c15) & mask
        return state ^ (state >> 29)

    for (word,) in struct.iter_unpack("<Q", data + b"\0" * (-len(data) % 8)):
        state = mix(state, word)
    h = mix(state, len(data))
    h = ((h ^ (h >> 30)) * 0xbf58476d1ce4e5b9) & mask
    h = ((h ^ (h >> 27)) * 0x94d049bb133111eb) & mask
    return h ^ (h >> 31)


def read_bovw_vocabulary(path):
    """(descriptor type, K x D float32) of a .bovw file (version 2), parsed from its documented
    layout, its closing checksum recomputed."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, bom, dtype, k, d, type_length = struct.unpack_from("<8s6I", data, 0)
    assert magic == b"BOVWVOC\0" and version == 2 and bom == 0x01020304 and dtype == 1, path
    end = 32 + type_length + 4 * k * d
    assert len(data) == end + 8 and struct.unpack_from("<Q", data, end)[0] == checksum64(data[:end]), path
    descriptor_type = data[32:32 + type_length].decode("ascii")
    centroids = np.frombuffer(data, dtype="<f4", count=k * d, offset=32 + type_length).reshape(k, d)
    return descriptor_type, centroids


def read_filestorage_vocabulary(path):
    fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    try:
        return fs.getNode("vocabulary").mat()
    finally:
        fs.release()


# ------------------------------------------------------------------------------------------------
# The image set


def texture(rng, width, height):
    image = np.full((height, width), 128, np.uint8)
    for i in range(150):
        x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
        size, grey = int(rng.integers(4, 40)), int(rng.integers(0, 256))
        if i % 3 == 0:
            cv2.rectangle(image, (x, y), (x + size, y + int(rng.integers(4, 40))), grey, -1)
        elif i % 3 == 1:
            cv2.circle(image, (x, y), size // 2, grey, -1)
        else:
            cv2.line(image, (x, y), (int(rng.integers(0, width)), int(rng.integers(0, height))), grey, 2)
    return cv2.GaussianBlur(image, (3, 3), 0.8)


def rotate(image, degrees, scale):
    h, w = image.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, scale)
    return cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def tilt_brighter(image, gain):
    h, w = image.shape
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[0.06 * w, 0.04 * h], [0.96 * w, 0], [w, h], [0.03 * w, 0.93 * h]])
    warped = cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst), (w, h), borderMode=cv2.BORDER_REFLECT)
    return np.clip(warped * gain, 0, 255).astype(np.uint8)


def blurred_crop(image):
    h, w = image.shape
    cropped = cv2.resize(image[int(0.1 * h):int(0.9 * h), int(0.12 * w):int(0.92 * w)], (w, h))
    return cv2.GaussianBlur(cropped, (3, 3), 0.7)


def make_set(root):
    """4 scenes x 4 views in root/images, root/groups.csv; returns (image paths, groups)."""
    surf = os.path.join(DATA, "surf")
    box = cv2.imread(os.path.join(surf, "box.png"), cv2.IMREAD_GRAYSCALE)
    graf = cv2.imread(os.path.join(surf, "graf1_gray.png"), cv2.IMREAD_GRAYSCALE)
    assert box is not None and graf is not None, "test images missing in " + surf
    scenes = [box, cv2.resize(graf[80:560, 0:400], (300, 360)), cv2.resize(graf[80:560, 400:800], (300, 360)),
              texture(np.random.default_rng(5), 320, 240)]
    images = os.path.join(root, "images")
    os.makedirs(images)
    paths, groups = [], []
    for g, scene in enumerate(scenes):
        views = [scene, rotate(scene, 15, 0.9), tilt_brighter(scene, 1.2), blurred_crop(scene)]
        for v, view in enumerate(views):
            path = os.path.join(images, "g%d_v%d.%s" % (g, v, "png" if v % 2 == 0 else "jpg"))
            if v == 1:  # some colour files: the pipeline decodes them to grey
                view = cv2.cvtColor(view, cv2.COLOR_GRAY2BGR)
            assert cv2.imwrite(path, view)
            paths.append(path)
            groups.append(g)
    with open(os.path.join(root, "groups.csv"), "w") as f:
        f.write("image,group\n")
        for path, g in zip(paths, groups):
            f.write("%s,scene%d\n" % (os.path.basename(path), g))
    # A view of scene 0 that is not in the index, for queries.
    extra = os.path.join(root, "box_new_view.png")
    cv2.imwrite(extra, rotate(box, -25, 1.1))
    return paths, groups, extra


class Shared:
    pass


def set_up(*commands):
    """Runs each of `commands` (argument tuples) with bovw; a failure stops the module's setup."""
    for args in commands:
        result = run(*args)
        if result.returncode != 0:
            raise AssertionError("setting up: " + describe(result))


def shared_set(prefix, vocabulary=True):
    """The image set in a new temporary folder (root, paths, groups, new_view, images, groups_csv),
    with a vocabulary trained on it (seed 1) at `vocabulary` unless told not to: what the other CLI
    test files build their databases from."""
    s = Shared()
    s.root = tempfile.mkdtemp(prefix=prefix)
    s.paths, s.groups, s.new_view = make_set(s.root)
    s.images = os.path.join(s.root, "images")
    s.groups_csv = os.path.join(s.root, "groups.csv")
    s.vocabulary = os.path.join(s.root, "V.bovw")
    if vocabulary:
        set_up(("train", s.images, "--words", WORDS, "--max-descriptors", 4000, "--seed", 1, "--output", s.vocabulary))
    return s


def setUpModule():
    global SET
    SET = Shared()
    SET.root = tempfile.mkdtemp(prefix="bovw_retrieval_cli_")
    SET.paths, SET.groups, SET.new_view = make_set(SET.root)
    SET.images = os.path.join(SET.root, "images")
    SET.groups_csv = os.path.join(SET.root, "groups.csv")
    # One vocabulary (seed 1) in every format: the formats must hold the same words.
    SET.vocabularies = {}
    for name in ("V.bovw", "V.npy", "V.yml.gz", "V.yml"):
        path = os.path.join(SET.root, name)
        result = run("train", SET.images, "--words", WORDS, "--max-descriptors", 4000, "--seed", 1, "--output", path)
        if result.returncode != 0:
            raise AssertionError("bovw train failed on the test set: " + describe(result))
        SET.vocabularies[name] = path
        if name == "V.bovw":
            SET.train_result = result
    SET.vocabulary = SET.vocabularies["V.bovw"]
    SET.index = os.path.join(SET.root, "I.bovwdb")
    result = run("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.index)
    if result.returncode != 0:
        raise AssertionError("bovw index failed on the test set: " + describe(result))
    SET.index_result = result


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


class RetrievalTestCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bovw_retrieval_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def ok(self, *args, **kwargs):
        result = run(*args, **kwargs)
        self.assertEqual(result.returncode, 0, describe(result))
        return result

    def fails(self, *args, status=1, names=(), outputs=(), **kwargs):
        """The command exits with `status`, its stderr names each of `names`, and none of `outputs`
        (nor any temporary file in their folders or the test folder) exists afterwards."""
        result = run(*args, **kwargs)
        self.assertEqual(result.returncode, status, describe(result))
        for name in names:
            self.assertIn(str(name), result.stderr, describe(result))
        for output in outputs:
            self.assertFalse(os.path.exists(output), "%s left behind by: %s" % (output, describe(result)))
        self.assertNoTemporaries(*[os.path.dirname(os.path.abspath(o)) for o in outputs])
        return result

    def assertNoTemporaries(self, *folders):
        for folder in set(folders) | {self.dir}:
            if os.path.isdir(folder):
                left = [n for n in os.listdir(folder) if n.startswith(".bovw-tmp")]
                self.assertEqual(left, [], "temporary files left in " + folder)

    def folder_with(self, name, files):
        """A folder holding copies of `files` (paths) under their own names, plus (name, bytes) pairs."""
        folder = self.path(name)
        os.makedirs(folder)
        for f in files:
            if isinstance(f, tuple):
                with open(os.path.join(folder, f[0]), "wb") as out:
                    out.write(f[1])
            else:
                shutil.copy(f, folder)
        return folder


def truncated_png():
    with open(os.path.join(DATA, "surf", "box.png"), "rb") as f:
        data = f.read()
    return data[:len(data) // 3]


# ------------------------------------------------------------------------------------------------


class Train(RetrievalTestCase):
    def test_every_vocabulary_format_loads_with_k_rows_of_64(self):
        self.assertIn("%d surf64 words" % WORDS, SET.train_result.stdout)
        descriptor_type, bovw = read_bovw_vocabulary(SET.vocabulary)
        self.assertEqual(descriptor_type, "surf64")
        self.assertEqual(bovw.shape, (WORDS, 64))
        self.assertTrue(np.isfinite(bovw).all())
        # The same seed to the other formats: the same words.
        npy = np.load(SET.vocabularies["V.npy"])
        self.assertEqual(npy.dtype, np.float32)
        self.assertEqual(npy.shape, (WORDS, 64))
        for name in ("V.yml.gz", "V.yml"):
            yml = read_filestorage_vocabulary(SET.vocabularies[name])
            self.assertIsNotNone(yml, name + " has no 'vocabulary' node")
            self.assertEqual(yml.shape, (WORDS, 64))
            np.testing.assert_array_equal(yml, npy)
        np.testing.assert_array_equal(bovw, npy)
        self.assertNoTemporaries(SET.root)

    def test_same_seed_same_bytes_other_seed_other_words(self):
        for name, seed in (("a.bovw", 7), ("b.bovw", 7), ("c.bovw", 8)):
            self.ok("train", SET.images, "--words", WORDS, "--max-descriptors", 3000, "--seed", seed, "--quiet",
                    "--output", self.path(name))
        with open(self.path("a.bovw"), "rb") as a, open(self.path("b.bovw"), "rb") as b, \
                open(self.path("c.bovw"), "rb") as c:
            first, second, other = a.read(), b.read(), c.read()
        self.assertEqual(first, second, "same seed, same images: the vocabulary must be byte-identical")
        self.assertNotEqual(first, other)

    def test_opencl_training_matches_openmp_on_pocl(self):
        devices = run("devices")
        if devices.returncode != 0 or not re.search(r"^\s*\[\d+:\d+\]", devices.stdout, re.M):
            self.skipTest("no OpenCL device (Debian: apt install pocl-opencl-icd)")
        for name, backend in (("openmp.npy", "openmp"), ("opencl.npy", "opencl")):
            self.ok("train", SET.images, "--words", WORDS, "--max-descriptors", 3000, "--seed", 3, "--quiet",
                    "--backend", backend, "--output", self.path(name))
        openmp, opencl = np.load(self.path("openmp.npy")), np.load(self.path("opencl.npy"))
        self.assertEqual(opencl.shape, (WORDS, 64))
        # Same sample, same seeding, the same nearest-word rule (ties to the lower index) on both:
        # identical unless a descriptor is a float32 near-tie between two words, which these few
        # thousand descriptors do not have.
        np.testing.assert_array_equal(opencl, openmp)

    def test_every_command_reads_every_vocabulary_format(self):
        histograms = {}
        for name in ("V.bovw", "V.npy", "V.yml.gz"):
            vocabulary = SET.vocabularies[name]
            out = self.path("H_%s.npy" % name.replace(".", "_"))
            self.ok("histogram", "--images", SET.images, "--vocabulary", vocabulary, "--output", out)
            histograms[name] = np.load(out)
            self.ok("index", SET.images, "--vocabulary", vocabulary, "--output", self.path("I_" + name))
        np.testing.assert_array_equal(histograms["V.npy"], histograms["V.bovw"])
        np.testing.assert_array_equal(histograms["V.yml.gz"], histograms["V.bovw"])


class Histogram(RetrievalTestCase):
    def test_one_row_per_image_with_names_in_row_order(self):
        out = self.path("H.npy")
        self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", out)
        h = np.load(out)
        self.assertEqual(h.dtype, np.int32)
        self.assertEqual(h.shape, (len(SET.paths), WORDS))
        self.assertTrue((h.sum(axis=1) > 0).all(), h.sum(axis=1))
        with open(self.path("H.names.txt")) as f:
            names = f.read().splitlines()
        self.assertEqual(names, sorted(SET.paths))

    def test_rows_equal_extract_then_histogram_of_the_descriptors(self):
        # The independent path: `bovw extract` each image to .npy, `bovw histogram --descriptors`.
        out = self.path("H.npy")
        self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", out)
        h = np.load(out)
        with open(self.path("H.names.txt")) as f:
            names = f.read().splitlines()
        for row in (0, 5, 15):
            descriptors = self.path("d%d.npy" % row)
            self.ok("extract", names[row], "-o", descriptors)
            single = self.path("h%d.npy" % row)
            self.ok("histogram", "--descriptors", descriptors, "--vocabulary", SET.vocabulary, "--output", single)
            np.testing.assert_array_equal(np.load(single)[0], h[row], "row %d (%s)" % (row, names[row]))
            self.assertEqual(h[row].sum(), np.load(descriptors).shape[0])

    def test_same_rows_for_any_worker_count_batch_size_and_backend(self):
        reference = self.path("H.npy")
        self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", reference)
        variants = [["--workers", 1, "--batch", 1], ["--workers", 2, "--batch", 5], ["--backend", "serial"]]
        devices = run("devices")
        if devices.returncode == 0 and re.search(r"^\s*\[\d+:\d+\]", devices.stdout, re.M):
            variants += [["--backend", "opencl", "--batch", 3], ["--backend", "opencl", "--variant", "baseline"]]
        for i, extra in enumerate(variants):
            with self.subTest(options=" ".join(map(str, extra))):
                out = self.path("H%d.npy" % i)
                self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", out, *extra)
                np.testing.assert_array_equal(np.load(out), np.load(reference))
        # The index file does not depend on how the work was split either.
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", self.path("I1"), "--workers", 1,
                "--batch", 1)
        with open(self.path("I1"), "rb") as a, open(SET.index, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_profile_reports_the_steps_since_the_process_started_and_changes_no_row(self):
        reference = self.path("H.npy")
        self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", reference)
        out = self.path("P.npy")
        result = self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", out,
                         "--profile", "--quiet")
        np.testing.assert_array_equal(np.load(out), np.load(reference))
        line = [l for l in result.stderr.splitlines() if "since the process started" in l]
        self.assertEqual(len(line), 1, result.stderr)
        total = float(re.search(r"profile: ([0-9.]+) s since the process started:", line[0]).group(1))
        steps = re.findall(r"(?:: |, )([0-9.]+) s ([a-z][^,]*)", line[0].split("started", 1)[1])
        names = [name for _, name in steps]
        for expected in ["before the command", "reading the vocabulary", "making the extractor",
                         "making the histogrammer", "listing the images", "the pipeline", "completing the outputs"]:
            self.assertTrue(any(name.startswith(expected) for name in names), (expected, names))
        # The steps are the whole run: they add up to the total (each printed to a millisecond).
        self.assertAlmostEqual(sum(float(seconds) for seconds, _ in steps), total, delta=0.001 * len(steps) + 1e-9)
        self.assertGreater(total, 0)

    def test_threads_option_of_the_commands_that_extract(self):
        """--threads (OpenMP and, where images are read, OpenCV's threads and the extraction workers)
        gives the same results with 1 and 2 threads; a negative or non-number count is a usage error."""
        for threads in (1, 2):
            out = self.path("H%d.npy" % threads)
            self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output", out,
                    "--threads", threads)
            self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", self.path("I%d" % threads),
                    "--threads", threads)
            self.ok("train", SET.images, "--words", 8, "--max-descriptors", 3000, "--seed", 3, "--quiet",
                    "--output", self.path("V%d.npy" % threads), "--threads", threads)
            result = self.ok("search", "--index", SET.index, "--top", 3, "--format", "csv", "--threads", threads,
                             *SET.paths[:4])
            if threads == 1:
                search_1 = result.stdout
        np.testing.assert_array_equal(np.load(self.path("H1.npy")), np.load(self.path("H2.npy")))
        for name in ("I", "V"):
            suffix = ".npy" if name == "V" else ""
            with open(self.path(name + "1" + suffix), "rb") as a, open(self.path(name + "2" + suffix), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        self.assertEqual(result.stdout, search_1)
        for bad in ("-1", "two", "1.5"):
            with self.subTest(threads=bad):
                out = self.path("bad.npy")
                result = self.fails("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output",
                                    out, "--threads", bad, status=2, names=["--threads"], outputs=[out])
                self.assertIn("thread count must be a whole number >= 0 (0: all cores), got '%s'" % bad,
                              result.stderr)

    def test_an_image_without_features_gives_a_zero_row(self):
        folder = self.folder_with("imgs", [SET.paths[0]])
        cv2.imwrite(os.path.join(folder, "flat.png"), np.full((200, 260), 128, np.uint8))
        out = self.path("H.npy")
        self.ok("histogram", "--images", folder, "--vocabulary", SET.vocabulary, "--output", out)
        h = np.load(out)
        with open(self.path("H.names.txt")) as f:
            names = [os.path.basename(n) for n in f.read().splitlines()]
        self.assertEqual(names, ["flat.png", "g0_v0.png"])
        self.assertEqual(h[0].sum(), 0)
        self.assertGreater(h[1].sum(), 0)


    def test_sixteen_bit_and_colour_copies_give_the_same_row(self):
        folder = self.folder_with("imgs", [SET.paths[0]])
        gray = cv2.imread(SET.paths[0], cv2.IMREAD_GRAYSCALE)
        cv2.imwrite(os.path.join(folder, "g0_v0_16bit.png"), gray.astype(np.uint16) * 257)
        cv2.imwrite(os.path.join(folder, "g0_v0_colour.png"), cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR))
        out = self.path("H.npy")
        self.ok("histogram", "--images", folder, "--vocabulary", SET.vocabulary, "--output", out)
        h = np.load(out)
        with open(self.path("H.names.txt")) as f:
            names = [os.path.basename(n) for n in f.read().splitlines()]
        self.assertEqual(names, ["g0_v0.png", "g0_v0_16bit.png", "g0_v0_colour.png"])
        np.testing.assert_array_equal(h[1], h[0])
        np.testing.assert_array_equal(h[2], h[0])


class Search(RetrievalTestCase):
    def parse_csv(self, text):
        rows = list(csv.reader(io.StringIO(text)))
        self.assertEqual(rows[0], ["query", "rank", "image", "score"])
        return rows[1:]

    def test_csv_ranks_from_one_and_an_indexed_query_finds_itself_first(self):
        self.assertIn("%d images" % len(SET.paths), SET.index_result.stdout)
        queries = [SET.paths[0], SET.paths[6], SET.paths[13]]
        result = self.ok("search", "--index", SET.index, "--top", 3, "--format", "csv", *queries)
        rows = self.parse_csv(result.stdout)
        self.assertEqual(len(rows), 3 * len(queries))
        for q, query in enumerate(queries):
            mine = rows[3 * q:3 * q + 3]
            self.assertEqual([r[0] for r in mine], [query] * 3)
            self.assertEqual([r[1] for r in mine], ["1", "2", "3"])
            self.assertEqual(mine[0][2], query, "an indexed query comes back first")
            self.assertAlmostEqual(float(mine[0][3]), 1.0, places=5)
            scores = [float(r[3]) for r in mine]
            self.assertEqual(scores, sorted(scores, reverse=True))
            self.assertTrue(all(0 < s <= 1.0 + 1e-6 for s in scores))
        # csv is the default format.
        self.assertEqual(self.ok("search", "--index", SET.index, "--top", 3, *queries).stdout, result.stdout)

    def test_a_new_view_finds_its_scene(self):
        result = self.ok("search", "--index", SET.index, "--top", 3, SET.new_view)
        rows = self.parse_csv(result.stdout)
        top = [os.path.basename(r[2]) for r in rows]
        self.assertTrue(top[0].startswith("g0_"), "a new view of box.png ranked %s first" % top)

    def test_intersection_scoring(self):
        result = self.ok("search", "--index", SET.index, "--top", 3, "--scoring", "intersection", SET.paths[5])
        rows = self.parse_csv(result.stdout)
        self.assertEqual(rows[0][2], SET.paths[5])
        self.assertAlmostEqual(float(rows[0][3]), 1.0, places=5)
        result = self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv, "--scoring", "intersection")
        rows = evaluate_rows(result.stdout)
        self.assertEqual([r[0] for r in rows], ["intersection"], result.stdout)
        self.assertGreater(rows[0][1], 2.0, result.stdout)

    def test_burstiness_and_power_law_scorings(self):
        for scoring in ("cosine+sqrt", "intersection+log+power0.5", "cosine+power0.3"):
            with self.subTest(scoring=scoring):
                result = self.ok("search", "--index", SET.index, "--top", 3, "--scoring", scoring, SET.paths[6])
                rows = self.parse_csv(result.stdout)
                self.assertEqual(rows[0][2], SET.paths[6])
                self.assertAlmostEqual(float(rows[0][3]), 1.0, places=5)

    def test_json_parses(self):
        queries = [SET.paths[1], SET.paths[9]]
        result = self.ok("search", "--index", SET.index, "--top", 4, "--format", "json", *queries)
        data = json.loads(result.stdout)
        self.assertEqual([q["query"] for q in data], queries)
        for q in data:
            self.assertEqual([r["rank"] for r in q["results"]], [1, 2, 3, 4])
            self.assertEqual(q["results"][0]["image"], q["query"])
            self.assertAlmostEqual(q["results"][0]["score"], 1.0, places=6)
        # --output writes the same to a file.
        self.ok("search", "--index", SET.index, "--top", 4, "--format", "json", "--output", self.path("r.json"),
                *queries)
        with open(self.path("r.json")) as f:
            self.assertEqual(json.load(f), data)

    def test_html_is_one_self_contained_page(self):
        queries = [SET.paths[2], SET.new_view]
        page = self.path("page.html")
        self.ok("search", "--index", SET.index, "--top", 3, "--format", "html", "--output", page, *queries)
        with open(page) as f:
            html = f.read()
        self.assertTrue(html.lstrip().lower().startswith("<!doctype html>"))
        self.assertIn('<img src="data:image/jpeg;base64,', html)
        self.assertEqual(html.count('<img src="data:image/jpeg;base64,'), len(queries) * (1 + 3))
        for q in queries:
            self.assertIn(q, html)
        # Nothing is loaded from elsewhere: every src and href is a data URI.
        self.assertEqual([u for u in re.findall(r'(?:src|href)="([^"]*)"', html) if not u.startswith("data:")], [])
        # Without --output the page goes to bovw-search.html in the working folder.
        self.ok("search", "--index", SET.index, "--format", "html", SET.paths[0], cwd=self.dir)
        self.assertTrue(os.path.exists(self.path("bovw-search.html")))

    def test_a_query_without_features_has_no_results(self):
        flat = self.path("flat.png")
        cv2.imwrite(flat, np.full((200, 260), 128, np.uint8))
        result = self.ok("search", "--index", SET.index, flat)
        self.assertEqual(self.parse_csv(result.stdout), [])
        self.assertIn("no features", result.stderr, describe(result))  # said, not silent
        self.assertIn(flat, result.stderr, describe(result))
        result = self.ok("search", "--index", SET.index, "--format", "json", flat)
        self.assertEqual(json.loads(result.stdout), [{"query": flat, "results": []}])

    def test_names_with_commas_quotes_and_markup_survive_csv_and_html(self):
        folder = self.path("odd")
        os.makedirs(folder)
        names = ["a, b.png", 'q"uote.png', "x&<y>.png"]
        for name, source in zip(names, (SET.paths[0], SET.paths[4], SET.paths[8])):
            shutil.copy(source, os.path.join(folder, name))
        index = self.path("odd.bovwdb")
        self.ok("index", folder, "--vocabulary", SET.vocabulary, "--output", index)
        queries = [os.path.join(folder, n) for n in names]
        rows = self.parse_csv(self.ok("search", "--index", index, "--top", 1, *queries).stdout)
        self.assertEqual([(r[0], r[1], r[2]) for r in rows], [(q, "1", q) for q in queries])
        page = self.path("odd.html")
        self.ok("search", "--index", index, "--top", 1, "--format", "html", "--output", page, *queries)
        with open(page) as f:
            html = f.read()
        self.assertIn("x&amp;&lt;y&gt;.png", html)
        self.assertNotIn("<y>", html)

    def test_a_bad_query_is_named_and_fails_the_run(self):
        folder = self.folder_with("q", [("broken.png", truncated_png())])
        broken = os.path.join(folder, "broken.png")
        result = run("search", "--index", SET.index, SET.paths[0], broken)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("broken.png", result.stderr)
        self.fails("search", "--index", SET.index, broken, names=["broken.png"])


class Evaluate(RetrievalTestCase):
    def test_prints_ns_and_map_and_the_same_in_json(self):
        out = self.path("E.json")
        result = self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv, "--json", out)
        rows = evaluate_rows(result.stdout)
        self.assertEqual(len(rows), 1, result.stdout)
        scoring, ns, mean_ap, ms = rows[0]
        self.assertEqual(scoring, "intersection")  # the default
        with open(out) as f:
            data = json.load(f)
        self.assertEqual(data["scoring"], "intersection")
        self.assertAlmostEqual(data["ns_score"], ns, delta=0.0005 + 1e-9)
        self.assertAlmostEqual(data["mean_ap"], mean_ap, delta=0.0005 + 1e-9)
        self.assertEqual(data["scorings"], [{"scoring": "intersection", "verified_top": 0, "expand": 0,
                                             "ns_score": data["ns_score"], "mean_ap": data["mean_ap"],
                                             "ms_per_query": data["scorings"][0]["ms_per_query"]}])
        self.assertAlmostEqual(data["scorings"][0]["ms_per_query"], ms, delta=0.00005 + 1e-9)
        self.assertGreater(ms, 0.0)
        self.assertLess(data["extraction_seconds"], data["seconds"])
        self.assertEqual(data["queries"], len(SET.paths))
        # Chance is 1 + 3 * 3/15 = 1.6 of 4; the views of this set are easy.
        self.assertGreater(ns, 2.0, result.stdout)
        self.assertLessEqual(ns, 4.0)
        self.assertGreater(mean_ap, 0.5)
        self.assertLessEqual(mean_ap, 1.0)

    def test_groups_by_full_path_give_the_same_scores(self):
        groups = self.path("groups.csv")
        with open(groups, "w") as f:
            f.write("image,group\n")
            for p, g in zip(SET.paths, SET.groups):
                f.write("%s,%d\n" % (p, g))
        a = evaluate_rows(self.ok("evaluate", "--index", SET.index, "--groups", groups).stdout)
        b = evaluate_rows(self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv).stdout)
        self.assertEqual([r[:3] for r in a], [r[:3] for r in b])  # the times differ from run to run

    def test_all_scorings_side_by_side_equal_single_runs(self):
        every = ["intersection", "intersection+sqrt", "intersection+log", "intersection+power0.5",
                 "cosine", "cosine+sqrt", "cosine+log", "cosine+power0.5"]
        out = self.path("all.json")
        result = self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv, "--scoring", "all", "--json", out)
        rows = evaluate_rows(result.stdout)
        self.assertEqual([r[0] for r in rows], every, result.stdout)
        with open(out) as f:
            data = json.load(f)
        self.assertEqual([r["scoring"] for r in data["scorings"]], every)
        self.assertEqual((data["scoring"], data["ns_score"]), (every[0], data["scorings"][0]["ns_score"]))
        for row, printed in zip(data["scorings"], rows):
            with self.subTest(scoring=row["scoring"]):
                self.assertAlmostEqual(row["ns_score"], printed[1], delta=0.0005 + 1e-9)
                self.assertGreater(row["ms_per_query"], 0.0)
                self.assertGreater(row["ns_score"], 2.0)  # chance is 1.6
                single = self.path(row["scoring"] + ".json")
                self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv, "--scoring", row["scoring"],
                        "--json", single)
                with open(single) as f:
                    alone = json.load(f)
                self.assertEqual((alone["ns_score"], alone["mean_ap"]), (row["ns_score"], row["mean_ap"]))

    def test_a_list_of_scorings_keeps_its_order(self):
        result = self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv,
                         "--scoring", "cosine+log+power0.3,intersection")
        self.assertEqual([r[0] for r in evaluate_rows(result.stdout)], ["cosine+log+power0.3", "intersection"])

    def test_an_image_that_is_not_indexed_is_named(self):
        groups = self.path("groups.csv")
        shutil.copy(SET.groups_csv, groups)
        with open(groups, "a") as f:
            f.write("not_there.png,scene9\n")
        self.fails("evaluate", "--index", SET.index, "--groups", groups, "--json", self.path("E.json"),
                   names=["not_there.png"], outputs=[self.path("E.json")])

    def test_an_image_listed_twice_under_two_spellings_is_refused(self):
        # readGroupsCsv refuses the same name twice; evaluate matches entries by path or by file name,
        # so "g0_v0.png" and "<folder>/g0_v0.png" are the same indexed image listed twice (here even
        # in two groups): the scores would count that image as two queries.
        groups = self.path("groups.csv")
        shutil.copy(SET.groups_csv, groups)
        with open(groups, "a") as f:
            f.write("%s,scene3\n" % SET.paths[0])
        self.fails("evaluate", "--index", SET.index, "--groups", groups, names=["g0_v0.png"])

    def test_malformed_groups_files_name_the_file(self):
        for name, text in (("noheader.csv", "g0_v0.png,1\n"), ("nocomma.csv", "image,group\ng0_v0.png\n"),
                           ("empty.csv", ""), ("twice.csv", "image,group\ng0_v0.png,1\ng0_v0.png,2\n")):
            groups = self.path(name)
            with open(groups, "w") as f:
                f.write(text)
            self.fails("evaluate", "--index", SET.index, "--groups", groups, names=[name])
        self.fails("evaluate", "--index", SET.index, "--groups", self.path("missing.csv"), names=["missing.csv"])


class Sift(RetrievalTestCase):
    def test_sift_vocabulary_is_recorded_and_works_with_sift_features(self):
        vocabulary = self.path("S.bovw")
        result = self.ok("train", SET.images, "--features", "sift", "--words", WORDS, "--max-descriptors", 3000,
                         "--quiet", "--output", vocabulary)
        self.assertIn("sift128", result.stdout)
        descriptor_type, words = read_bovw_vocabulary(vocabulary)
        self.assertEqual(descriptor_type, "sift128")
        self.assertEqual(words.shape, (WORDS, 128))
        # With --features sift it indexes, and search extracts SIFT from the queries by itself.
        index = self.path("S.bovwdb")
        self.ok("index", SET.images, "--vocabulary", vocabulary, "--features", "sift", "--output", index)
        result = self.ok("search", "--index", index, "--top", 2, SET.paths[4])
        self.assertEqual(result.stdout.splitlines()[1].split(",")[2], SET.paths[4])

    def test_sift_vocabulary_refused_for_surf_features_says_why(self):
        vocabulary = self.path("S.bovw")
        self.ok("train", SET.images, "--features", "sift", "--words", WORDS, "--max-descriptors", 3000, "--quiet",
                "--output", vocabulary)
        # With SURF (the default) it is refused, by width and, for 128-D SURF, by type.
        for extra in ([], ["--extended"]):
            out = self.path("I%d" % len(extra))
            result = self.fails("index", SET.images, "--vocabulary", vocabulary, "--output", out, *extra,
                                names=["S.bovw"], outputs=[out])
            # The vocabulary records what it was trained on: the message should say so (sift128),
            # not only that the widths differ, so the user knows to pass --features sift.
            self.assertIn("sift", result.stderr.lower(), describe(result))
            self.assertIn("surf", result.stderr.lower(), describe(result))
            result = self.fails("histogram", "--images", SET.images, "--vocabulary", vocabulary, "--output",
                                self.path("H.npy"), *extra, names=["S.bovw"],
                                outputs=[self.path("H.npy"), self.path("H.names.txt")])
            self.assertIn("sift", result.stderr.lower(), describe(result))


class BadInput(RetrievalTestCase):
    def test_empty_folder(self):
        empty = self.path("empty")
        os.makedirs(empty)
        with open(os.path.join(empty, "notes.txt"), "w") as f:
            f.write("not an image\n")
        self.fails("train", empty, "--words", 5, "--output", self.path("V.bovw"), names=["empty"],
                   outputs=[self.path("V.bovw")])
        self.fails("histogram", "--images", empty, "--vocabulary", SET.vocabulary, "--output", self.path("H.npy"),
                   names=["empty"], outputs=[self.path("H.npy"), self.path("H.names.txt")])
        self.fails("index", empty, "--vocabulary", SET.vocabulary, "--output", self.path("I"), names=["empty"],
                   outputs=[self.path("I")])

    def test_out_of_range_surf_settings_are_usage_errors_before_any_file_is_read(self):
        for option, value, field in (("--hessian", -5, "hessian"), ("--octaves", 0, "octaves"),
                                     ("--layers", 65, "octave_layers")):
            result = run("index", self.path("missing"), "--vocabulary", self.path("missing.bovw"), "--output",
                         self.path("I"), option, value)
            self.assertEqual(result.returncode, 2, describe(result))
            self.assertIn(field, result.stderr, describe(result))
            self.assertNotIn("missing.bovw", result.stderr, describe(result))  # the settings, not a file, are blamed
            self.assertFalse(os.path.exists(self.path("I")))

    def test_missing_folder(self):
        missing = self.path("missing")
        self.fails("train", missing, "--words", 5, "--output", self.path("V.bovw"), names=["missing"],
                   outputs=[self.path("V.bovw")])
        self.fails("index", missing, "--vocabulary", SET.vocabulary, "--output", self.path("I"), names=["missing"],
                   outputs=[self.path("I")])

    def test_folder_with_only_unreadable_images(self):
        folder = self.folder_with("bad", [("cut.png", truncated_png()), ("text.jpg", b"not a jpeg\n")])
        for args, outputs in ((["train", folder, "--words", 5, "--output", self.path("V.bovw")], [self.path("V.bovw")]),
                              (["histogram", "--images", folder, "--vocabulary", SET.vocabulary, "--output",
                                self.path("H.npy")], [self.path("H.npy"), self.path("H.names.txt")]),
                              (["index", folder, "--vocabulary", SET.vocabulary, "--output", self.path("I")],
                               [self.path("I")])):
            self.fails(*args, names=["cut.png", "text.jpg", folder], outputs=outputs)

    def test_one_bad_image_among_good_ones_is_reported_and_the_rest_finish(self):
        folder = self.folder_with("mixed", SET.paths[:8] + [("bad.png", truncated_png())])
        result = self.ok("train", folder, "--words", 10, "--max-descriptors", 2000, "--quiet", "--output",
                         self.path("V.bovw"))
        self.assertIn("bad.png", result.stderr)
        result = self.ok("histogram", "--images", folder, "--vocabulary", SET.vocabulary, "--output",
                         self.path("H.npy"))
        self.assertIn("bad.png", result.stderr)
        self.assertEqual(np.load(self.path("H.npy")).shape, (8, WORDS))
        with open(self.path("H.names.txt")) as f:
            names = [os.path.basename(n) for n in f.read().splitlines()]
        self.assertEqual(names, sorted(os.path.basename(p) for p in SET.paths[:8]))
        result = self.ok("index", folder, "--vocabulary", SET.vocabulary, "--output", self.path("I"))
        self.assertIn("bad.png", result.stderr)
        self.assertIn("8 images", result.stdout)
        # --strict stops at it instead.
        self.fails("index", folder, "--vocabulary", SET.vocabulary, "--output", self.path("J"), "--strict",
                   names=["bad.png"], outputs=[self.path("J")])

    def test_more_words_than_descriptors(self):
        out = self.path("V.bovw")
        result = self.fails("train", SET.images, "--words", 5000, "--max-descriptors", 100, "--quiet", "--output",
                            out, outputs=[out])
        self.assertIn("5000", result.stderr)
        self.assertIn("100", result.stderr)

    def damaged_vocabularies(self):
        """(path, what) of truncated or corrupt vocabularies in every format."""
        damaged = []
        v = SET.vocabularies
        for source, keep in ((v["V.bovw"], 0.5), (v["V.bovw"], 0.01), (v["V.npy"], 0.5), (v["V.npy"], 0.05),
                             (v["V.yml"], 0.5), (v["V.yml.gz"], 0.5)):
            with open(source, "rb") as f:
                data = f.read()
            name = "cut%d_%s" % (len(damaged), os.path.basename(source))
            with open(self.path(name), "wb") as f:
                f.write(data[:max(1, int(len(data) * keep))])
            damaged.append(self.path(name))
        for name, data in (("garbage.bovw", b"BOVWVOC\0" + b"\xff" * 100), ("garbage.npy", b"\x93NUMPY garbage"),
                           ("garbage.yml", b"%YAML:1.0\nvocabulary: [1, 2\n"), ("empty.yml.gz", b""),
                           ("nowords.yml", b"%YAML:1.0\n---\nother: 1\n")):
            with open(self.path(name), "wb") as f:
                f.write(data)
            damaged.append(self.path(name))
        np.save(self.path("float64.npy"), np.random.default_rng(1).random((WORDS, 64)))
        damaged.append(self.path("float64.npy"))
        return damaged

    def test_corrupt_or_truncated_vocabularies(self):
        for vocabulary in self.damaged_vocabularies():
            name = os.path.basename(vocabulary)
            with self.subTest(vocabulary=name):
                self.fails("index", SET.images, "--vocabulary", vocabulary, "--output", self.path("I"),
                           names=[name], outputs=[self.path("I")])
                self.fails("histogram", "--images", SET.images, "--vocabulary", vocabulary, "--output",
                           self.path("H.npy"), names=[name], outputs=[self.path("H.npy"), self.path("H.names.txt")])

    def test_vocabulary_that_hung_opencv(self):
        """The 33-byte YAML file on which cv::FileStorage loops forever (docs/FUZZING.md): bovw's own
        reader refuses it at once, in one line naming it."""
        vocabulary = self.path("hang.yml")
        with open(vocabulary, "wb") as f:
            f.write(b"%YAML:1.0.\n   rt: M\nML:%YAML:1.\n-")
        for args, outputs in ((["index", SET.images], [self.path("I")]),
                              (["histogram", "--images", SET.images], [self.path("H.npy"), self.path("H.names.txt")])):
            with self.subTest(command=args[0]):
                result = subprocess.run([BOVW] + [str(a) for a in args] + ["--vocabulary", vocabulary, "--output",
                                        outputs[0]], capture_output=True, text=True, timeout=20)
                self.assertEqual(result.returncode, 1, describe(result))
                self.assertIn("hang.yml", result.stderr, describe(result))
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, describe(result))
                for output in outputs:
                    self.assertFalse(os.path.exists(output))

    def test_vocabulary_of_the_wrong_width(self):
        vocabulary = self.path("wide.npy")
        np.save(vocabulary, np.random.default_rng(2).random((WORDS, 128)).astype(np.float32))
        for args, outputs in ((["index", SET.images], [self.path("I")]),
                              (["histogram", "--images", SET.images], [self.path("H.npy"), self.path("H.names.txt")])):
            result = self.fails(*args, "--vocabulary", vocabulary, "--output", outputs[0], names=["wide.npy"],
                                outputs=outputs)
            self.assertIn("128", result.stderr)
            self.assertIn("64", result.stderr)

    def test_corrupt_or_truncated_index(self):
        with open(SET.index, "rb") as f:
            data = f.read()
        cases = {"half.bovwdb": data[:len(data) // 2], "head.bovwdb": data[:20], "tail.bovwdb": data[:-1],
                 "longer.bovwdb": data + b"\0", "empty.bovwdb": b""}
        flipped = bytearray(data)
        flipped[len(data) - 40] ^= 0xFF  # inside the checksummed index block
        cases["flipped.bovwdb"] = bytes(flipped)
        for name, content in cases.items():
            with self.subTest(index=name):
                path = self.path(name)
                with open(path, "wb") as f:
                    f.write(content)
                self.fails("search", "--index", path, SET.paths[0], names=[name])
                self.fails("evaluate", "--index", path, "--groups", SET.groups_csv, "--json", self.path("E.json"),
                           names=[name], outputs=[self.path("E.json")])
        self.fails("search", "--index", self.path("missing.bovwdb"), SET.paths[0], names=["missing.bovwdb"])

    def test_search_on_a_file_that_is_not_a_database(self):
        for path in (SET.vocabulary, SET.paths[0], SET.groups_csv):
            with self.subTest(index=os.path.basename(path)):
                self.fails("search", "--index", path, SET.paths[0], names=[os.path.basename(path)])

    def test_unknown_features_is_a_usage_error(self):
        for args in (["train", SET.images, "--words", 5, "--output", self.path("V.bovw")],
                     ["histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--output",
                      self.path("H.npy")],
                     ["index", SET.images, "--vocabulary", SET.vocabulary, "--output", self.path("I")]):
            result = self.fails(*args, "--features", "brisk", status=2, outputs=[args[-1]])
            self.assertIn("brisk", result.stderr)
            for valid in ("orb", "sift", "surf"):
                self.assertIn(valid, result.stderr)

    def test_other_usage_errors(self):
        self.fails("train", SET.images, "--output", self.path("V.bovw"), status=2)   # no --words
        self.fails("train", SET.images, "--words", 0, "--output", self.path("V.bovw"), status=2)
        self.fails("search", "--index", SET.index, status=2)                         # no query
        self.fails("search", "--index", SET.index, "--format", "xml", SET.paths[0], status=2)
        self.fails("search", "--index", SET.index, "--top", 0, SET.paths[0], status=2)
        self.fails("evaluate", "--index", SET.index, status=2)                       # no --groups

    def test_bad_scorings_are_usage_errors_naming_them(self):
        evaluate = ["evaluate", "--index", SET.index, "--groups", SET.groups_csv, "--json", self.path("E.json")]
        search = ["search", "--index", SET.index, SET.paths[0], "--scoring"]
        for args in (search, evaluate + ["--scoring"]):
            for bad in ("l3", "cosine+bogus", "sqrt+cosine", "cosine+count"):
                with self.subTest(command=args[0], scoring=bad):
                    result = self.fails(*args, bad, status=2, names=["'%s'" % bad], outputs=[self.path("E.json")])
                    for valid in ("cosine", "intersection", "sqrt", "log", "power"):
                        self.assertIn(valid, result.stderr)
            for bad in ("cosine+power0", "intersection+power1.5", "cosine+power-1"):
                with self.subTest(command=args[0], scoring=bad):
                    self.fails(*args, bad, status=2, names=["'%s'" % bad, "alpha"], outputs=[self.path("E.json")])
        # search ranks with one scoring; evaluate takes `all` alone and each scoring once.
        self.fails(*search, "all", status=2, names=["'all'"])
        self.fails(*search, "cosine,intersection", status=2, names=["'cosine,intersection'"])
        self.fails(*evaluate, "--scoring", "all,cosine", status=2, names=["'all'"])
        self.fails(*evaluate, "--scoring", "cosine,cosine+power1", status=2, names=["twice"])

    def test_unknown_vocabulary_extension_is_refused_before_any_work(self):
        out = self.path("V.txt")
        result = self.fails("train", SET.images, "--words", 5, "--output", out, names=["V.txt"], outputs=[out])
        self.assertNotIn("k-means", result.stderr)


class Progress(RetrievalTestCase):
    def test_quiet_is_accepted_everywhere(self):
        self.ok("train", SET.images, "--words", 5, "--max-descriptors", 500, "--quiet", "--output",
                self.path("V.bovw"))
        self.ok("histogram", "--images", SET.images, "--vocabulary", SET.vocabulary, "--quiet", "--output",
                self.path("H.npy"))
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--quiet", "--output", self.path("I"))
        self.ok("search", "--index", SET.index, "--quiet", SET.paths[0])
        self.ok("evaluate", "--index", SET.index, "--groups", SET.groups_csv, "--quiet")

    def run_on_terminal(self, *args):
        """Runs bovw with stderr on a pseudo-terminal; returns (exit status, what it wrote there)."""
        master, slave = pty.openpty()
        try:
            process = subprocess.Popen([BOVW] + [str(a) for a in args], stdout=subprocess.DEVNULL, stderr=slave,
                                       stdin=subprocess.DEVNULL)
        finally:
            os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the program closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(master)
        return process.wait(timeout=TIMEOUT), b"".join(chunks).decode("utf-8", "replace")

    def test_progress_bar_on_a_terminal_and_not_with_quiet(self):
        status, text = self.run_on_terminal("index", SET.images, "--vocabulary", SET.vocabulary, "--output",
                                            self.path("I"))
        self.assertEqual(status, 0, text)
        # The bar redraws in place: "\rindex [=====>    ] 7/16 images  ..." ending at 16/16.
        self.assertRegex(text, r"\rindex \[[=> ]*\] \d+/%d images" % len(SET.paths))
        self.assertIn("%d/%d images" % (len(SET.paths), len(SET.paths)), text)
        status, text = self.run_on_terminal("index", SET.images, "--vocabulary", SET.vocabulary, "--output",
                                            self.path("J"), "--quiet")
        self.assertEqual(status, 0, text)
        self.assertNotIn("images  ", text)
        self.assertNotRegex(text, r"\r[^\n]")  # a terminal ends lines with \r\n; the bar's \r starts one


def choose_seed():
    """The seed of a test file's random choices: BOVW_TEST_SEED, else a fresh one, printed so that a
    run can be repeated."""
    seed = int(os.environ.get("BOVW_TEST_SEED") or secrets.randbits(31))
    print("random choices from BOVW_TEST_SEED=%d" % seed, file=sys.stderr)
    return seed


def main(script="test_retrieval.py", prepare=None):
    """The command line of every test file built on this image set (this one, test_shards.py,
    test_live_database.py): --bovw, --data, then unittest's options for the tests of the file run
    (__main__); `prepare` runs once the options are read."""
    global BOVW, DATA
    parser = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    options, rest = parser.parse_known_args()
    BOVW, DATA = os.path.abspath(options.bovw), os.path.abspath(options.data)
    if not os.access(BOVW, os.X_OK):
        print("%s: %s is not an executable" % (script, BOVW), file=sys.stderr)
        return 1
    if prepare:
        prepare()
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
