#!/usr/bin/env python3
"""What a newcomer meets first, each checked against an independent reference:

- `bovw --version` names the version in CMakeLists.txt's project();
- `train` says once whether k-means converged, and warns when it stopped at --iterations first
  (the per-iteration log only with --verbose); its time counts the extraction too (the wall clock
  of the run, measured here, is the reference);
- `search` takes a folder of queries (the same results as the images one by one) and leaves the query
  itself out with --exclude-query (the plain ranking without it is the reference), writes several
  outputs from one search (each equal to that format on its own), and its JSON gives the query's own
  score as 1 exactly.

Usage: test_newcomer.py --bovw PATH/TO/bovw --source-dir REPO
Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import cli_support

cv2, np = cli_support.require_opencv_and_numpy("test_newcomer.py")

BOVW = None
SOURCE = None
TIMEOUT = 180
SEED = int(os.environ.get("BOVW_TEST_SEED", time.time_ns() % 1000003))


def run(*args, cwd=None):
    return cli_support.run(BOVW, *args, cwd=cwd, timeout=TIMEOUT)


describe = cli_support.describe


def texture(seed, size=(200, 240)):
    return cli_support.texture(seed, size, block=8)


def setUpModule():
    global TMP, IMAGES, VOCABULARY, DATABASE
    TMP = tempfile.TemporaryDirectory(prefix="bovw-newcomer-")
    IMAGES = os.path.join(TMP.name, "images")
    os.mkdir(IMAGES)
    for i in range(5):
        assert cv2.imwrite(os.path.join(IMAGES, "img%d.png" % i), texture(SEED + i))
    VOCABULARY = os.path.join(TMP.name, "v.bovw")
    result = run("train", IMAGES, "--words", 10, "--output", VOCABULARY, "--seed", 1, "--quiet")
    assert result.returncode == 0, describe(result)
    DATABASE = os.path.join(TMP.name, "db.bovwdb")
    result = run("index", IMAGES, "--vocabulary", VOCABULARY, "--output", DATABASE, "--quiet")
    assert result.returncode == 0, describe(result)


def tearDownModule():
    TMP.cleanup()


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text, newline="")))


class Version(unittest.TestCase):
    def test_version_is_the_projects(self):
        with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
            version = re.search(r"project\(bovw VERSION ([0-9.]+)", f.read()).group(1)
        result = run("--version")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(result.stdout.strip(), "bovw " + version)


class Train(unittest.TestCase):
    def train(self, *extra):
        output = os.path.join(TMP.name, "t.bovw")
        start = time.monotonic()
        result = run("train", IMAGES, "--words", 10, "--output", output, "--seed", 2, *extra)
        wall = time.monotonic() - start
        self.assertEqual(result.returncode, 0, describe(result))
        return result, wall

    def test_converged_run_says_so_once(self):
        result, wall = self.train("--iterations", 200, "--tolerance", 1e-3)
        self.assertEqual(len(re.findall(r"k-means on .*: converged after \d+ iterations", result.stderr)), 1,
                         describe(result))
        self.assertNotIn("k-means iteration", result.stderr)
        self.assertNotIn("warning", result.stderr)
        # The reported time is the whole run's (extraction included): close to the wall clock.
        seconds = float(re.search(r" in ([0-9.]+) s \(k-means ([0-9.]+) s\)", result.stdout).group(1))
        self.assertGreater(seconds, 0.5 * wall - 0.2, (seconds, wall))
        self.assertLessEqual(seconds, wall + 0.1)

    def test_iteration_limit_is_a_warning(self):
        result, _ = self.train("--iterations", 1, "--tolerance", 0)
        self.assertRegex(result.stderr, r"warning: k-means stopped at --iterations 1 before converging")

    def test_verbose_logs_every_iteration(self):
        result, _ = self.train("--iterations", 3, "--tolerance", 0, "--verbose")
        self.assertEqual(len(re.findall(r"k-means iteration \d+:", result.stderr)), 3, describe(result))


class Search(unittest.TestCase):
    def search(self, *args):
        result = run("search", "--index", DATABASE, *args)
        self.assertEqual(result.returncode, 0, describe(result))
        return result.stdout

    def test_a_folder_of_queries_is_its_images_one_by_one(self):
        folder = csv_rows(self.search("--top", 3, IMAGES))
        one_by_one = []
        for name in sorted(os.listdir(IMAGES)):
            one_by_one += csv_rows(self.search("--top", 3, os.path.join(IMAGES, name)))
        self.assertEqual(folder, one_by_one)
        self.assertEqual(len({row["query"] for row in folder}), 5)

    def test_exclude_query_leaves_out_the_query_only(self):
        query = os.path.join(IMAGES, "img2.png")
        plain = csv_rows(self.search("--top", 5, query))
        self.assertEqual(plain[0]["image"], query)  # indexed too: it finds itself first
        excluded = csv_rows(self.search("--top", 4, "--exclude-query", query))
        self.assertEqual([r["image"] for r in excluded], [r["image"] for r in plain[1:5]])
        self.assertEqual([r["score"] for r in excluded], [r["score"] for r in plain[1:5]])
        # Another path to the same file is the query itself too.
        other_path = os.path.join(IMAGES, ".", "img2.png")
        excluded_again = csv_rows(self.search("--top", 4, "--exclude-query", other_path))
        self.assertNotIn(query, [r["image"] for r in excluded_again])

    def test_several_outputs_from_one_search(self):
        query = os.path.join(IMAGES, "img1.png")
        outputs = [os.path.join(TMP.name, "r." + ext) for ext in ("csv", "json", "html")]
        result = run("search", "--index", DATABASE, "--top", 3, "--output", outputs[0], "--output", outputs[1],
                     "--output", outputs[2], query)
        self.assertEqual(result.returncode, 0, describe(result))
        with open(outputs[0], newline="") as f:
            self.assertEqual(csv_rows(f.read()), csv_rows(self.search("--top", 3, query)))
        with open(outputs[1]) as f:
            self.assertEqual(json.load(f), json.loads(self.search("--top", 3, "--format", "json", query)))
        with open(outputs[2]) as f:
            self.assertIn("<!DOCTYPE html>", f.read())
        # Several queries after the outputs are queries, not more outputs; a query is never an output.
        before = {name: open(os.path.join(IMAGES, name), "rb").read() for name in os.listdir(IMAGES)}
        queries = [os.path.join(IMAGES, "img%d.png" % i) for i in range(4)]
        result = run("search", "--index", DATABASE, "--top", 2, "--output", outputs[0], "--output", outputs[1],
                     *queries)
        self.assertEqual(result.returncode, 0, describe(result))
        with open(outputs[1]) as f:
            self.assertEqual([q["query"] for q in json.load(f)], queries)
        result = run("search", "--index", DATABASE, "--output", queries[1], queries[0], queries[1])
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("it would be overwritten", result.stderr)
        self.assertEqual({name: open(os.path.join(IMAGES, name), "rb").read() for name in os.listdir(IMAGES)}, before)

    def test_json_gives_the_querys_own_score_as_one(self):
        query = os.path.join(IMAGES, "img0.png")
        entry = json.loads(self.search("--top", 2, "--format", "json", query))[0]
        self.assertEqual(entry["results"][0]["image"], query)
        self.assertEqual(entry["results"][0]["score"], 1.0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bovw", required=True)
    parser.add_argument("--source-dir", required=True)
    args, rest = parser.parse_known_args()
    BOVW = os.path.abspath(args.bovw)
    SOURCE = args.source_dir
    print("test_newcomer.py: seed %d (BOVW_TEST_SEED to repeat)" % SEED, file=sys.stderr)
    unittest.main(argv=[sys.argv[0]] + rest)
