#!/usr/bin/env python3
"""Geometric verification through the `bovw` program, on Debian's opencv-doc sample images: `index
--keypoints` then `search --verify N`: box_in_scene.png must find box.png (a small object in clutter
that the bag of words alone ranks low) and graf3.png must find graf1.png, verified; the output's
scores are the inliers plus the plain search's bag-of-words score; the re-ranked order follows them;
JSON reports what was verified; and the errors: --verify on a database without keypoints (exit 1,
naming the file and the fix), --verify 0 and --min-inliers without --verify (usage errors, exit 2);
--expand N (query expansion) in search's JSON and evaluate's rows, and without --verify (exit 2);
`search --profile`: its parts add up to the process's wall time as measured from outside; a CPU
backend's search, and auto's for up to 16 query images, load no OpenCL platform.

Usage: test_verify.py --bovw PATH/TO/bovw --images /usr/share/doc/opencv-doc/examples/data [unittest options]

Needs numpy, python3-opencv and opencv-doc (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import csv
import io
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_retrieval import describe  # noqa: E402 (exits 77 without cv2/numpy)
import cv2  # noqa: E402
import numpy as np  # noqa: E402

BOVW = None
IMAGES = None
TIMEOUT = 300
# Pairs with a partner in the set, and distractors.
NAMES = ["box.png", "box_in_scene.png", "graf1.png", "graf3.png", "leuvenA.jpg", "leuvenB.jpg", "building.jpg",
         "fruits.jpg", "baboon.jpg", "aero1.jpg", "messi5.jpg", "left.jpg"]
STATE = None


class Shared:
    pass


def run(*args, env=None):
    full_env = dict(os.environ)
    full_env.pop("BOVW_DEVICE", None)
    full_env.update(env or {})
    return subprocess.run([BOVW] + [str(a) for a in args], capture_output=True, text=True, timeout=TIMEOUT,
                          env=full_env)


def setUpModule():
    global STATE
    STATE = Shared()
    STATE.root = tempfile.mkdtemp(prefix="bovw_verify_cli_")
    STATE.images = os.path.join(STATE.root, "images")
    os.mkdir(STATE.images)
    for name in NAMES:
        shutil.copy(os.path.join(IMAGES, name), STATE.images)
    STATE.vocabulary = os.path.join(STATE.root, "V.bovw")
    STATE.plain = os.path.join(STATE.root, "plain.bovwdb")
    STATE.index = os.path.join(STATE.root, "keypoints.bovwdb")
    for args in (("train", STATE.images, "--words", 300, "--max-descriptors", 40000, "--seed", 1, "--quiet",
                  "--output", STATE.vocabulary),
                 ("index", STATE.images, "--vocabulary", STATE.vocabulary, "--quiet", "--output", STATE.plain),
                 ("index", STATE.images, "--vocabulary", STATE.vocabulary, "--keypoints", "--quiet",
                  "--output", STATE.index)):
        result = run(*args)
        if result.returncode != 0:
            raise AssertionError("setup failed: " + describe(result))


def tearDownModule():
    if STATE is not None:
        shutil.rmtree(STATE.root, ignore_errors=True)


def image(name):
    return os.path.join(STATE.images, name)


def rows(output):
    return list(csv.DictReader(io.StringIO(output)))


class Verify(unittest.TestCase):
    def search(self, *args):
        result = run("search", "--quiet", *args)
        self.assertEqual(result.returncode, 0, describe(result))
        return result

    def test_a_small_object_in_clutter_and_a_viewpoint_change_are_verified(self):
        # With the default estimator (fast) and with MAGSAC++ (--estimator magsac) alike.
        for estimator in ((), ("--estimator", "magsac")):
            for query, partner in (("box_in_scene.png", "box.png"), ("graf3.png", "graf1.png"),
                                   ("box.png", "box_in_scene.png")):
                results = rows(self.search("--index", STATE.index, "--top", 5, "--verify", 12, *estimator,
                                           image(query)).stdout)
                ranked = [os.path.basename(r["image"]) for r in results]
                self.assertEqual(ranked[0], query, estimator)  # the query is indexed too
                self.assertEqual(ranked[1], partner, (estimator, results))
                self.assertGreaterEqual(int(results[1]["inliers"]), 12)
                for r in results[2:]:
                    self.assertLess(int(r["inliers"]), 12, (estimator, r))  # unrelated images do not verify

    def test_scores_are_inliers_plus_the_plain_bag_of_words_score_and_give_the_order(self):
        query = image("box_in_scene.png")
        plain = {r["image"]: float(r["score"]) for r in rows(self.search("--index", STATE.plain, "--top", 12, query).stdout)}
        verified = rows(self.search("--index", STATE.index, "--top", 12, "--verify", 12, "--scoring", "intersection",
                                    query).stdout)
        self.assertEqual(set(r["image"] for r in verified), set(plain))
        for r in verified:
            self.assertAlmostEqual(float(r["bow_score"]), plain[r["image"]], places=6)
            inliers = int(r["inliers"])
            expected = inliers + float(r["bow_score"]) if inliers >= 12 else float(r["bow_score"])
            self.assertAlmostEqual(float(r["score"]), expected, places=5)
        scores = [float(r["score"]) for r in verified]
        self.assertEqual(scores, sorted(scores, reverse=True))
        # Without --verify and by words, the keypoint database ranks exactly as the plain one.
        again = rows(self.search("--index", STATE.index, "--top", 12, "--scoring", "intersection", query).stdout)
        self.assertEqual([(r["image"], r["score"]) for r in again],
                         [(r["image"], r["score"]) for r in rows(self.search("--index", STATE.plain, "--top", 12, query).stdout)])
        self.assertNotIn("inliers", again[0])
        # By default a database with keypoints ranks by Hamming embedding (hamming20+log), one without by
        # intersection: `auto` is each of them, spelt out.
        by_default = rows(self.search("--index", STATE.index, "--top", 12, query).stdout)
        spelt_out = rows(self.search("--index", STATE.index, "--top", 12, "--scoring", "hamming20+log", query).stdout)
        self.assertEqual([(r["image"], r["score"]) for r in by_default], [(r["image"], r["score"]) for r in spelt_out])
        self.assertNotEqual([r["score"] for r in by_default], [r["score"] for r in again])
        self.assertEqual(rows(self.search("--index", STATE.plain, "--top", 12, query).stdout),
                         rows(self.search("--index", STATE.plain, "--top", 12, "--scoring", "intersection", query).stdout))

    def test_csv_and_html_show_what_was_verified(self):
        """csv has a verified column (1/0), consistent with the inliers and the order; html draws the
        query's outline, where the homography puts it, over each verified result and no other."""
        query = image("box_in_scene.png")
        results = rows(self.search("--index", STATE.index, "--top", 6, "--verify", 12, query).stdout)
        flags = [r["verified"] for r in results]
        self.assertEqual(flags[:2], ["1", "1"])  # itself and box.png
        self.assertEqual(set(flags[2:]), {"0"})
        for r in results:
            if r["verified"] == "1":
                self.assertGreaterEqual(int(r["inliers"]), 12)
        page = os.path.join(STATE.root, "verified.html")
        self.search("--index", STATE.index, "--top", 6, "--verify", 12, "--output", page, query)
        with open(page) as f:
            html = f.read()
        self.assertEqual(html.count("<polygon points="), flags.count("1"), html[:2000])
        # The query against itself: the outline is its own border (the identity, within a pixel).
        first = html.split("<polygon points=\"", 1)[1].split("\"", 1)[0]
        corners = [tuple(float(v) for v in p.split(",")) for p in first.split()]
        width, height = cv2.imread(query, cv2.IMREAD_GRAYSCALE).shape[::-1]
        for got, want in zip(corners, [(0, 0), (width, 0), (width, height), (0, height)]):
            self.assertLess(abs(got[0] - want[0]) + abs(got[1] - want[1]), 2.0, corners)

    def test_json_reports_what_was_verified(self):
        result = self.search("--index", STATE.index, "--top", 3, "--verify", 6, "--format", "json",
                             image("graf3.png"), image("fruits.jpg"))
        queries = json.loads(result.stdout)
        self.assertEqual(len(queries), 2)
        for q in queries:
            report = q["verification"]
            self.assertEqual(report["checked"], 6)
            # Verified results rank first: the first min(verified, 3) shown are the verified ones.
            shown = [r["verified"] for r in q["results"]]
            self.assertEqual(shown, [i < report["verified"] for i in range(len(shown))])
            self.assertGreaterEqual(report["milliseconds"], 0)
            self.assertEqual(len(q["results"]), 3)
        self.assertGreaterEqual(queries[0]["verification"]["verified"], 2)  # itself and graf1
        self.assertIn("results verified", result.stderr)
        for q in queries:
            for r in q["results"]:
                self.assertEqual("homography" in r, r["verified"], r)

    def test_json_homography_maps_the_query_onto_the_result(self):
        """A verified result's homography maps the query's pixels onto the result's. The reference is
        the ground truth of the graffiti pair that OpenCV ships (H1to3p.xml: graf1 -> graf3): points of
        graf1 mapped to graf3 by it and back by bovw's homography (graf3 -> graf1) land where they
        started, within a few pixels; the query against itself gives the identity."""
        truth_file = os.path.join(IMAGES, "H1to3p.xml")
        if not os.path.exists(truth_file):
            self.skipTest("opencv-doc's H1to3p.xml is missing")
        fs = cv2.FileStorage(truth_file, cv2.FILE_STORAGE_READ)
        h13 = fs.getNode("H13").mat()
        result = self.search("--index", STATE.index, "--top", 3, "--verify", 6, "--format", "json", image("graf3.png"))
        hits = {os.path.basename(r["image"]): r for r in json.loads(result.stdout)[0]["results"]}
        self.assertTrue(hits["graf1.png"]["verified"], hits)
        h31 = np.array(hits["graf1.png"]["homography"], np.float64)
        itself = np.array(hits["graf3.png"]["homography"], np.float64)
        points = np.array([[x, y, 1.0] for x in (250, 400, 550) for y in (200, 320, 440)]).T  # inside both views
        in_graf3 = h13 @ points
        back = h31 @ (in_graf3 / in_graf3[2])
        errors = np.linalg.norm(back[:2] / back[2] - points[:2], axis=0)
        self.assertLess(errors.max(), 4.0, errors)
        same = itself @ points
        self.assertLess(np.linalg.norm(same[:2] / same[2] - points[:2], axis=0).max(), 1.0)

    def test_verify_needs_a_database_with_keypoints(self):
        result = run("search", "--index", STATE.plain, "--verify", 5, image("box.png"))
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn(STATE.plain, result.stderr)
        self.assertIn("--keypoints", result.stderr)

    def test_weak_geometry_scores_every_image_at_most_its_hamming_score(self):
        query = image("box_in_scene.png")
        scores = {}
        for scoring in ("hamming20+log", "hamming20+log+wgc"):
            results = rows(self.search("--index", STATE.index, "--top", 12, "--scoring", scoring, query).stdout)
            scores[scoring] = {os.path.basename(r["image"]): float(r["score"]) for r in results}
            self.assertEqual(os.path.basename(results[0]["image"]), "box_in_scene.png", results)
        wgc, hamming = scores["hamming20+log+wgc"], scores["hamming20+log"]
        self.assertIn("box.png", wgc)
        self.assertLessEqual(set(wgc), set(hamming))  # an image without consistent pairs drops out
        for name, score in wgc.items():
            self.assertLessEqual(score, hamming[name] * (1 + 1e-9), name)
        # Some image loses pairs of inconsistent geometry.
        self.assertTrue(any(score < hamming[name] * 0.999 for name, score in wgc.items()), (wgc, hamming))

    def test_weak_geometry_refuses_a_version_4_database_and_other_similarities(self):
        old = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "formats", "v4_keypoints.bovwdb")
        result = run("search", "--index", old, "--scoring", "hamming20+log+wgc", image("box.png"))
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("v4_keypoints.bovwdb", result.stderr)
        self.assertIn("index the images again", result.stderr)
        result = run("search", "--index", old, "--scoring", "hamming20+log", "--top", 1, image("box.png"))
        self.assertEqual(result.returncode, 0, describe(result))  # Hamming embedding alone still works
        result = run("search", "--index", STATE.index, "--scoring", "cosine+wgc", image("box.png"))
        self.assertNotEqual(result.returncode, 0, describe(result))
        self.assertIn("hamming[BITS][+TERM]+wgc", result.stderr)

    def test_usage_errors(self):
        for args in (("--verify", 0), ("--min-inliers", 20), ("--verify", 5, "--min-inliers", 2),
                     ("--verify", 5, "--max-error", -1), ("--expand", 3), ("--verify", 5, "--expand", -1),
                     ("--verify", 5, "--estimator", "ransac"), ("--estimator", "magsac")):
            result = run("search", "--index", STATE.index, *args, image("box.png"))
            self.assertEqual(result.returncode, 2, describe(result))
        result = run("evaluate", "--index", STATE.index, "--groups", "GROUPS.csv", "--expand", 3)
        self.assertEqual(result.returncode, 2, describe(result))
        self.assertIn("--expand requires --verify", result.stderr)

    def test_expand_searches_again_with_the_verified_results(self):
        """--expand N: the JSON says how many verified results expanded the query (the query's own
        indexed file is passed over: box_in_scene.png expands with box.png only); verified results stay
        first and verified against the query (its partner keeps its place); --expand 0 is the search
        without it, exactly."""
        query = image("box_in_scene.png")
        args = ("--index", STATE.index, "--top", 12, "--verify", 12, "--format", "json", query)
        plain = json.loads(self.search(*args).stdout)[0]
        expanded = self.search("--expand", 3, *args)
        report = json.loads(expanded.stdout)[0]
        self.assertEqual(plain["verification"]["expanded"], 0)
        self.assertEqual(report["verification"]["expanded"], 1, report["verification"])
        self.assertIn("expanded with 1", expanded.stderr)
        ranked = [os.path.basename(r["image"]) for r in report["results"]]
        self.assertEqual(ranked[:2], ["box_in_scene.png", "box.png"], ranked)
        self.assertEqual([r["verified"] for r in report["results"]][:2], [True, True])
        self.assertEqual(set(ranked), set(os.path.basename(r["image"]) for r in plain["results"]))
        zero = json.loads(self.search("--expand", 0, *args).stdout)[0]
        zero["verification"].pop("milliseconds")
        plain["verification"].pop("milliseconds")
        self.assertEqual(zero, plain)

    def test_evaluate_reports_each_scoring_plain_and_verified(self):
        groups = os.path.join(STATE.root, "groups.csv")
        partner = {"box_in_scene.png": "box.png", "graf3.png": "graf1.png", "leuvenB.jpg": "leuvenA.jpg"}
        with open(groups, "w") as f:
            f.write("image,group\n")
            for name in NAMES:
                f.write("%s,%s\n" % (name, partner.get(name, name)))
        report = os.path.join(STATE.root, "evaluate.json")
        result = run("evaluate", "--index", STATE.index, "--groups", groups, "--scoring", "intersection,cosine",
                     "--verify", 12, "--quiet", "--json", report)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("intersection verify12", result.stdout)
        with open(report) as f:
            rows = json.load(f)["scorings"]
        self.assertEqual([(r["scoring"], r["verified_top"]) for r in rows],
                         [("intersection", 0), ("intersection", 12), ("cosine", 0), ("cosine", 12)])
        for plain, verified in (rows[0:2], rows[2:4]):
            # Every pair of the set is found and verified (box.png ranks low without verification).
            self.assertGreater(verified["mean_ap"], plain["mean_ap"])
            self.assertAlmostEqual(verified["mean_ap"], 1.0)
            # Each query verifies itself and its partner, nothing else: 12 + 2 x 3 verified, none
            # outside its group.
            self.assertEqual((verified["verified"], verified["falsely_verified"]), (18, 0), verified)
            self.assertNotIn("verified", plain)
        self.assertIn("verified (outside the group)", result.stdout)
        # --expand M adds a third row per scoring: verified and expanded.
        result = run("evaluate", "--index", STATE.index, "--groups", groups, "--scoring", "intersection",
                     "--verify", 12, "--expand", 2, "--quiet", "--json", report)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("intersection verify12 expand2", result.stdout)
        with open(report) as f:
            expanded_rows = json.load(f)["scorings"]
        self.assertEqual([(r["verified_top"], r["expand"]) for r in expanded_rows], [(0, 0), (12, 0), (12, 2)])
        self.assertEqual(expanded_rows[1]["mean_ap"], rows[1]["mean_ap"])  # the verified row as without --expand
        # auto names the database's default, here Hamming embedding: listed beside intersection, it is a
        # row of its own; its rows are those of hamming20+log spelt out.
        result = run("evaluate", "--index", STATE.index, "--groups", groups, "--scoring", "auto,intersection",
                     "--quiet", "--json", report)
        self.assertEqual(result.returncode, 0, describe(result))
        with open(report) as f:
            auto_rows = json.load(f)["scorings"]
        self.assertEqual([r["scoring"] for r in auto_rows], ["hamming20+log", "intersection"])
        run("evaluate", "--index", STATE.index, "--groups", groups, "--scoring", "hamming20+log", "--quiet",
            "--json", report)
        with open(report) as f:
            self.assertEqual(json.load(f)["scorings"][0]["mean_ap"], auto_rows[0]["mean_ap"])
        self.assertEqual(run("evaluate", "--index", STATE.index, "--groups", groups, "--scoring", "auto,bad").returncode, 2)
        self.assertGreaterEqual(expanded_rows[2]["verified"], 12)  # each query verifies itself at least
        # The same views put in different groups: their two verified matches count as outside.
        with open(groups, "w") as f:
            f.write("image,group\n")
            for name in NAMES:
                f.write("%s,%s\n" % (name, partner.get(name, name) if name != "graf3.png" else "graf3.png"))
        result = run("evaluate", "--index", STATE.index, "--groups", groups, "--scoring", "intersection",
                     "--verify", 12, "--quiet", "--json", report)
        self.assertEqual(result.returncode, 0, describe(result))
        with open(report) as f:
            verified = json.load(f)["scorings"][1]
        self.assertEqual((verified["verified"], verified["falsely_verified"]), (18, 2), verified)
        result = run("evaluate", "--index", STATE.plain, "--groups", groups, "--verify", 12)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("--keypoints", result.stderr)

    def test_keypoints_make_the_database_larger_by_their_count(self):
        # 16 bytes per keypoint plus 12 per image; the plain database has none of it.
        extra = os.path.getsize(STATE.index) - os.path.getsize(STATE.plain)
        self.assertGreater(extra, 16 * 1000 * len(NAMES) // 4)


# The numbers of `search --profile`'s line, in its order: the total, then each part.
PROFILE = re.compile(
    r"^profile: ([0-9.]+) s since the process started: ([0-9.]+) s before the command .*?, ([0-9.]+) s choosing the "
    r"backend .*?, ([0-9.]+) s opening the database, ([0-9.]+) s making the extractor and histogrammer, ([0-9.]+) s "
    r"searching \(queries: (\d+); reading them ([0-9.]+) s.*?; ranking (-?[0-9.]+) s; verification ([0-9.]+) s\), "
    r"([0-9.]+) s writing the results$", re.M)


class SearchProfile(unittest.TestCase):
    def test_the_parts_add_up_to_the_wall_time_measured_outside(self):
        query = image("box_in_scene.png")
        plain = run("search", "--quiet", "--index", STATE.index, "--verify", 6, query)
        self.assertEqual(plain.returncode, 0, describe(plain))
        started = time.monotonic()
        profiled = run("search", "--quiet", "--profile", "--index", STATE.index, "--verify", 6, query)
        outside = time.monotonic() - started
        self.assertEqual(profiled.returncode, 0, describe(profiled))
        self.assertEqual(profiled.stdout, plain.stdout)  # the profile changes no result
        found = PROFILE.search(profiled.stderr)
        self.assertIsNotNone(found, profiled.stderr)
        total, before, choosing, opening, making, searching = (float(found.group(i)) for i in range(1, 7))
        queries, reading, ranking, verification, writing = (float(found.group(i)) for i in range(7, 12))
        self.assertEqual(queries, 1)
        # The process's start is known to the kernel's tick (10 ms); the rest to the microsecond, and
        # each figure is printed to the millisecond (so a sum of n of them is off by up to n / 2 ms).
        tick = 0.011
        self.assertAlmostEqual(before + choosing + opening + making + searching + writing, total, delta=0.0035)
        self.assertLessEqual(total, outside + tick)
        self.assertGreater(before, 0)
        self.assertGreater(verification, 0)  # 6 results verified
        self.assertGreaterEqual(ranking, 0)
        self.assertAlmostEqual(reading + ranking + verification, searching, delta=0.0025)

    def test_a_cpu_backend_and_a_few_queries_load_no_opencl_platform(self):
        # The dynamic loader names every library loaded (LD_DEBUG=files): an OpenCL platform is one the
        # ICD loader (libOpenCL) opens. A named CPU backend loads none, and neither does --backend auto
        # for up to 16 query images (the CPU is faster than a GPU's start-up for them); for 17 auto looks
        # at the platforms: the control, where one is installed.
        env = {"LD_DEBUG": "files"}
        loaded_by_icd = re.compile(r"dynamically loaded by \S*libOpenCL")
        few = [image("box.png")] * 16
        cpu = run("search", "--quiet", "--backend", "openmp-tiled", "--index", STATE.plain, *few, env=env)
        self.assertEqual(cpu.returncode, 0, describe(cpu))
        self.assertIsNone(loaded_by_icd.search(cpu.stderr), [l for l in cpu.stderr.splitlines() if "libOpenCL" in l])
        automatic = run("search", "--quiet", "--index", STATE.plain, *few, env=env)
        self.assertEqual(automatic.returncode, 0, describe(automatic))
        self.assertEqual(automatic.stdout, cpu.stdout)
        self.assertIsNone(loaded_by_icd.search(automatic.stderr), "auto loaded an OpenCL platform for 16 queries")
        many = run("search", "--quiet", "--index", STATE.plain, *(few + [image("box.png")]), env=env)
        self.assertEqual(many.returncode, 0, describe(many))
        self.assertEqual(many.stdout.splitlines()[1:], (cpu.stdout.splitlines()[1:] + cpu.stdout.splitlines()[1:11]))
        vendors = os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
        if os.path.isdir(vendors) and any(n.endswith(".icd") for n in os.listdir(vendors)):
            self.assertIsNotNone(loaded_by_icd.search(many.stderr), "auto loaded no OpenCL platform for 17 queries")

def main():
    global BOVW, IMAGES
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--images", required=True, help="opencv-doc's examples/data folder")
    options, rest = parser.parse_known_args()
    BOVW, IMAGES = os.path.abspath(options.bovw), options.images
    if not all(os.path.isfile(os.path.join(IMAGES, n)) for n in NAMES):
        print("test_verify.py: no opencv-doc images at %s (apt install opencv-doc); skipping" % IMAGES, file=sys.stderr)
        return 77
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
