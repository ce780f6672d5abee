#!/usr/bin/env python3
"""ORB end to end through the `bovw` program, on Debian's opencv-doc sample images: `train --features
orb`, `index`, `search` (which must extract ORB from the queries by itself, from the database's
stored feature spec), `histogram --images` against an independent numpy computation from
python3-opencv's own ORB, the files' recorded types and specs, and the usage errors.

Usage: test_orb.py --bovw PATH/TO/bovw --images /usr/share/doc/opencv-doc/examples/data [unittest options]

Needs numpy, python3-opencv and opencv-doc (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_retrieval import checksum64, read_bovw_vocabulary  # noqa: E402 (exits 77 without cv2/numpy)
import cv2  # noqa: E402
import numpy as np  # noqa: E402

BOVW = None
IMAGES = None
WORDS = 24
TIMEOUT = 300
STATE = None  # the vocabulary and database trained once for all tests (setUpModule)


def run(*args):
    return subprocess.run([BOVW] + [str(a) for a in args], capture_output=True, text=True, timeout=TIMEOUT)


def describe(result):
    return "exit status %d\n--- command: %s\n--- stdout:\n%s\n--- stderr:\n%s" % (
        result.returncode, " ".join(result.args), result.stdout[-3000:], result.stderr[-3000:])


def read_database_header(path):
    """(version, feature spec text, vocabulary block) of a .bovwdb version 3 or 4 (docs/FORMATS.md), its
    checksum recomputed."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, bom, spec_length = struct.unpack_from("<8s3I", data, 0)
    assert magic == b"BOVWDB\0\0" and bom == 0x01020304, path
    assert struct.unpack_from("<Q", data, len(data) - 8)[0] == checksum64(data[:-8]), path
    spec = data[20:20 + spec_length].decode("ascii")
    (vocabulary_length,) = struct.unpack_from("<Q", data, 20 + spec_length)
    start = 28 + spec_length
    return version, spec, data[start:start + vocabulary_length]


def unpacked_orb(path, nfeatures):
    """OpenCV's ORB (python3-opencv) on the image as 8-bit gray, its bits unpacked least significant
    first: the reference for what bovw's ORB extractor gives."""
    gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    _, packed = cv2.ORB_create(nfeatures=nfeatures).detectAndCompute(gray, None)
    return packed, np.unpackbits(packed, axis=1, bitorder="little").astype(np.float64)


class Shared:
    pass


def setUpModule():
    global STATE
    STATE = Shared()
    STATE.root = tempfile.mkdtemp(prefix="bovw_orb_cli_")
    STATE.vocabulary = os.path.join(STATE.root, "V.bovw")
    STATE.index = os.path.join(STATE.root, "I.bovwdb")
    STATE.results = {}
    for args in (("train", IMAGES, "--features", "orb", "--words", WORDS, "--max-descriptors", 6000, "--seed", 3,
                  "--quiet", "--output", STATE.vocabulary),
                 ("index", IMAGES, "--vocabulary", STATE.vocabulary, "--features", "orb", "--quiet", "--output",
                  STATE.index)):
        result = run(*args)
        if result.returncode != 0:
            raise AssertionError(describe(result))
        STATE.results[args[0]] = result


def tearDownModule():
    shutil.rmtree(STATE.root, ignore_errors=True)


class OrbEndToEnd(unittest.TestCase):
    def path(self, name):
        return os.path.join(STATE.root, self.id().split(".")[-1] + "_" + name)

    def test_the_vocabulary_records_orb_and_holds_bit_frequencies(self):
        self.assertIn("orb256-binary", STATE.results["train"].stdout)
        descriptor_type, words = read_bovw_vocabulary(STATE.vocabulary)
        self.assertEqual(descriptor_type, "orb256-binary")
        self.assertEqual(words.shape, (WORDS, 256))
        # Each word is a mean of 0/1 vectors: every value in [0, 1], and not all 0 or 1.
        self.assertTrue(((words >= 0) & (words <= 1)).all())
        self.assertTrue(((words > 0) & (words < 1)).any())

    def test_the_database_stores_the_orb_spec_with_every_parameter(self):
        version, spec, vocabulary = read_database_header(STATE.index)
        self.assertEqual(version, 5)  # .bovwdb format version 5 (docs/FORMATS.md)
        self.assertEqual(spec, "orb edge_threshold=31 fast_threshold=20 nfeatures=500 nlevels=8 patch_size=31 "
                               "scale_factor=1.2")
        with open(STATE.vocabulary, "rb") as f:
            self.assertEqual(vocabulary, f.read())  # the very vocabulary file, embedded

    def test_search_extracts_orb_from_the_queries_by_itself(self):
        queries = [os.path.join(IMAGES, name) for name in ("graf3.png", "box.png", "Blender_Suzanne1.jpg")]
        result = run("search", "--index", STATE.index, "--top", 3, *queries)
        self.assertEqual(result.returncode, 0, describe(result))
        rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
        for query in queries:
            first = [row for row in rows if row[0] == query and row[1] == "1"]
            self.assertEqual(len(first), 1, describe(result))
            self.assertEqual(first[0][2], query)  # an indexed image finds itself first, score 1
            self.assertAlmostEqual(float(first[0][3]), 1.0, places=5)

    def test_histograms_match_opencvs_orb_assigned_in_numpy(self):
        images = os.path.join(STATE.root, "two")
        os.makedirs(images, exist_ok=True)
        names = ["box.png", "graf1.png"]
        for name in names:
            shutil.copy(os.path.join(IMAGES, name), images)
        output = self.path("H.npy")
        result = run("histogram", "--images", images, "--vocabulary", STATE.vocabulary, "--features", "orb",
                     "--quiet", "--output", output)
        self.assertEqual(result.returncode, 0, describe(result))
        histograms = np.load(output)
        _, words = read_bovw_vocabulary(STATE.vocabulary)
        words = words.astype(np.float64)
        for row, name in enumerate(sorted(names)):
            packed, bits = unpacked_orb(os.path.join(images, name), 500)
            # The unpacked bits' squared distances are OpenCV's Hamming distances.
            self.assertEqual(cv2.norm(packed[0], packed[1], cv2.NORM_HAMMING), ((bits[0] - bits[1]) ** 2).sum())
            distances = ((bits[:, None, :] - words[None, :, :]) ** 2).sum(axis=2)
            expected = np.bincount(distances.argmin(axis=1), minlength=WORDS)
            # A descriptor whose two nearest words are closer than float32 rounding may go either way.
            ordered = np.sort(distances, axis=1)
            near_ties = int((ordered[:, 1] - ordered[:, 0] < 1e-3).sum())
            difference = int(np.abs(histograms[row] - expected).sum())
            self.assertLessEqual(difference, 2 * near_ties, "%s: %s vs %s" % (name, histograms[row], expected))
            self.assertEqual(histograms[row].sum(), len(bits))

    def test_feature_parameters_are_stored_and_used(self):
        index = self.path("I.bovwdb")
        result = run("index", IMAGES, "--vocabulary", STATE.vocabulary, "--features", "orb", "--feature-param",
                     "nfeatures=100", "--quiet", "--output", index)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("nfeatures=100 ", read_database_header(index)[1])
        # At most 100 descriptors per image: the postings of an image are at most 100 words.
        postings = int(result.stdout.split(" postings")[0].split()[-1])
        images = int(result.stdout.split(" images")[0].split()[-1])
        self.assertLessEqual(postings, 100 * images)

    def test_a_vocabulary_of_orb_refuses_surf_and_says_what_to_use(self):
        output = self.path("I.bovwdb")
        result = run("index", IMAGES, "--vocabulary", STATE.vocabulary, "--quiet", "--output", output)
        self.assertEqual(result.returncode, 1, describe(result))
        for words in ("orb256-binary", "surf64", "--features orb", os.path.basename(STATE.vocabulary)):
            self.assertIn(words, result.stderr)
        self.assertFalse(os.path.exists(output))

    def test_usage_errors(self):
        base = ["index", IMAGES, "--vocabulary", STATE.vocabulary, "--output", self.path("I.bovwdb")]
        for extra, words in ((["--features", "orb", "--extended"], "--extended"),
                             (["--features", "orb", "--feature-param", "nfeatures=0"], "nfeatures"),
                             (["--features", "orb", "--feature-param", "n_features=10"], "nfeatures"),
                             (["--features", "orb", "--feature-param", "nfeatures"], "NAME=VALUE"),
                             (["--feature-param", "nfeatures=10"], "nfeatures")):  # not a SURF parameter
            result = run(*base, *extra)
            self.assertEqual(result.returncode, 2, describe(result))
            self.assertIn(words, result.stderr, describe(result))


def main():
    global BOVW, IMAGES
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--images", required=True, help="opencv-doc's examples/data folder")
    options, rest = parser.parse_known_args()
    BOVW, IMAGES = os.path.abspath(options.bovw), options.images
    if not os.path.isfile(os.path.join(IMAGES, "graf3.png")):
        print("test_orb.py: no opencv-doc images at %s (apt install opencv-doc); skipping" % IMAGES, file=sys.stderr)
        return 77
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
