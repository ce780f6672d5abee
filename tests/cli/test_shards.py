#!/usr/bin/env python3
"""End-to-end tests of sharded databases: `bovw index --shards`, then `bovw search` and `bovw evaluate`
on the manifest give the same results as on the unsharded database of the same images.

Usage: test_shards.py --bovw PATH/TO/bovw --data tests/data [unittest options]

The image set and helpers are test_retrieval.py's (4 scenes x 4 views, fixed seeds). Checked: the
manifest (format, version, shard files beside it, relative paths), search's CSV ranking (names and
scores to 6 digits) for several scorings and evaluate's N-S and mAP equal the unsharded database's;
search --verify and evaluate --verify over shards give the unsharded database's results; a failed
index run leaves no manifest, no shard and no temporary; a missing or damaged shard is named;
--output without .bovwshards and --verify on shards without keypoints are refused.

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import csv
import io
import json
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SHARDS = 3
SET = None


def setUpModule():
    global SET
    SET = base.shared_set("bovw_shards_cli_")
    SET.database = os.path.join(SET.root, "I.bovwdb")
    SET.manifest = os.path.join(SET.root, "S.bovwshards")
    base.set_up(("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.database),
                ("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.manifest, "--shards", SHARDS))


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


class Shards(base.RetrievalTestCase):
    def test_manifest_lists_the_shards_beside_it(self):
        with open(SET.manifest) as f:
            manifest = json.load(f)
        self.assertEqual(manifest["format"], "bovw shards")
        self.assertEqual(manifest["version"], 1)
        self.assertEqual(manifest["words"], base.WORDS)
        self.assertEqual(manifest["shards"], ["S-%d.bovwdb" % s for s in range(SHARDS)])
        self.assertRegex(manifest["vocabulary_fingerprint"], "^[0-9a-f]{16}$")
        self.assertTrue(manifest["features"].startswith("surf "))
        # Contiguous parts of the folder's (sorted) images: each image's name in exactly one shard,
        # every shard holding some, in order.
        owners = []
        for shard in manifest["shards"]:
            with open(os.path.join(SET.root, shard), "rb") as f:
                data = f.read()
            owners.append([p for p in SET.paths if p.encode() in data])
            self.assertTrue(owners[-1], shard + " holds no image")
        self.assertEqual(sum(owners, []), sorted(SET.paths))
        self.assertNoTemporaries(SET.root)

    def test_search_ranks_as_the_unsharded_database(self):
        queries = SET.paths + [SET.new_view]
        for scoring in ("intersection", "cosine", "cosine+sqrt", "intersection+log+power0.5"):
            with self.subTest(scoring=scoring):
                args = ("--top", len(SET.paths), "--scoring", scoring, "--quiet", *queries)
                whole = csv_rows(self.ok("search", "--index", SET.database, *args).stdout)
                sharded = csv_rows(self.ok("search", "--index", SET.manifest, *args).stdout)
                self.assertGreater(len(whole), len(queries))
                self.assertEqual(sharded, whole)
        # Every image is in some shard: a self-query over all of them finds all 16.
        rows = csv_rows(self.ok("search", "--index", SET.manifest, "--top", 100, "--quiet", SET.paths[0]).stdout)
        self.assertEqual(sorted(r[2] for r in rows[1:]), sorted(SET.paths))

    def test_evaluate_scores_as_the_unsharded_database(self):
        def scores(index):
            out = self.ok("evaluate", "--index", index, "--groups", SET.groups_csv, "--scoring", "all", "--quiet").stdout
            return [(name, ns, ap) for name, ns, ap, _ in base.evaluate_rows(out)]
        whole = scores(SET.database)
        self.assertEqual(len(whole), 8)
        self.assertEqual(scores(SET.manifest), whole)

    def test_a_failed_run_leaves_no_manifest_and_no_shard(self):
        manifest = self.path("J.bovwshards")
        os.makedirs(self.path("J-1.bovwdb"))  # a shard's target cannot be replaced
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", manifest, "--shards", SHARDS,
                   names=["J-1.bovwdb"], outputs=[manifest, self.path("J-0.bovwdb"), self.path("J-2.bovwdb")])
        plain = self.path("J.bovwdb")
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", plain, "--shards", 2,
                   names=[plain, ".bovwshards"], outputs=[plain, self.path("J-0.bovwdb")])
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", manifest, "--shards", 0,
                   status=2, outputs=[manifest])

    def test_missing_or_damaged_shards_are_named(self):
        for name in ["S.bovwshards"] + ["S-%d.bovwdb" % s for s in range(SHARDS)]:
            shutil.copy(os.path.join(SET.root, name), self.dir)
        manifest = self.path("S.bovwshards")
        self.ok("search", "--index", manifest, "--quiet", SET.new_view)
        shard = self.path("S-1.bovwdb")
        with open(shard, "rb") as f:
            data = f.read()
        with open(shard, "wb") as f:
            f.write(data[:-5])
        self.fails("search", "--index", manifest, "--quiet", SET.new_view, names=[shard])
        os.remove(shard)
        self.fails("search", "--index", manifest, "--quiet", SET.new_view, names=[shard])
        self.fails("evaluate", "--index", manifest, "--groups", SET.groups_csv, "--quiet", names=[shard])

    def test_verify_over_shards_gives_the_unsharded_results(self):
        database, manifest = self.path("K.bovwdb"), self.path("K.bovwshards")
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", database, "--keypoints")
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", manifest, "--keypoints",
                "--shards", SHARDS)
        args = ("--verify", 8, "--min-inliers", 8, "--top", 10, "--quiet", SET.new_view, SET.paths[5])
        whole = csv_rows(self.ok("search", "--index", database, *args).stdout)
        self.assertEqual(whole[0][-2:], ["bow_score", "inliers"])
        self.assertTrue(any(int(row[-1]) >= 8 for row in whole[1:]), whole)  # something was verified
        self.assertEqual(csv_rows(self.ok("search", "--index", manifest, *args).stdout), whole)
        def scores(index):
            out = self.ok("evaluate", "--index", index, "--groups", SET.groups_csv, "--verify", 6, "--quiet").stdout
            return [(name, ns, ap) for name, ns, ap, _ in base.evaluate_rows(out)]
        self.assertEqual(scores(manifest), scores(database))
        # Shards without keypoints: refused, naming the manifest.
        self.fails("search", "--index", SET.manifest, "--verify", 5, "--quiet", SET.new_view,
                   names=[SET.manifest, "no keypoints"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    options, rest = parser.parse_known_args()
    base.BOVW, base.DATA = os.path.abspath(options.bovw), os.path.abspath(options.data)
    if not os.access(base.BOVW, os.X_OK):
        print("test_shards.py: %s is not an executable" % base.BOVW, file=sys.stderr)
        return 1
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
