#!/usr/bin/env python3
"""End-to-end tests of sharded databases: `bovw index --shards`, then `bovw search` and `bovw evaluate`
on the manifest give the same results as on the unsharded database of the same images.

Usage: test_shards.py --bovw PATH/TO/bovw --data tests/data [unittest options]

The image set and helpers are test_retrieval.py's (4 scenes x 4 views, fixed seeds). Checked: the
manifest (format, version, shard files of generation 1 beside it, relative paths), search's CSV
ranking (names and scores to 6 digits) for several scorings and evaluate's N-S and mAP equal the
unsharded database's; search --verify and evaluate --verify over shards give the unsharded
database's results; a failed index run leaves no manifest, no shard and no temporary; a missing or
damaged shard is named; --output without .bovwshards and --verify on shards without keypoints are
refused; a manifest naming one file twice (./S-0, a link) is refused.

Replacing a database (docs/FORMATS.md, "Replacing a sharded database"): each write a new generation,
the old one's files removed after the switch and nothing else (a user's files of similar names
stay, shards of earlier bovw's names are removed); `index --shards` killed (SIGKILL) at moments
aimed at its write phase (temporaries appearing, the first new shard in place) and at random:
every time the manifest on disk searches as the old database or the new one, each checked against
an unsharded index of the same images, never a mix, and the next write removes the leftovers;
searches running while the database is replaced again and again each give the old or the new
results.

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import csv
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SHARDS = 3
SET = None


def shard_names(stem, generation, shards=SHARDS):
    """The shard files of one generation of STEM.bovwshards."""
    return ["%s-g%d-%d.bovwdb" % (stem, generation, s) for s in range(shards)]


def setUpModule():
    global SET
    SET = base.shared_set("bovw_shards_cli_")
    SET.database = os.path.join(SET.root, "I.bovwdb")
    SET.manifest = os.path.join(SET.root, "S.bovwshards")
    # A second database of other images (the last 10 of the 16), for replacing one database by
    # another: its first shard differs from the other's too.
    SET.fewer = os.path.join(SET.root, "fewer")
    os.makedirs(SET.fewer)
    for path in SET.paths[6:]:
        shutil.copy(path, SET.fewer)
    SET.fewer_database = os.path.join(SET.root, "F.bovwdb")
    base.set_up(("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.database),
                ("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.manifest, "--shards", SHARDS),
                ("index", SET.fewer, "--vocabulary", SET.vocabulary, "--output", SET.fewer_database))


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
        self.assertEqual(manifest["shards"], shard_names("S", 1))
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
        os.makedirs(self.path("J-g1-1.bovwdb"))  # a shard's target cannot be replaced
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", manifest, "--shards", SHARDS,
                   names=["J-g1-1.bovwdb"],
                   outputs=[manifest, self.path("J-g1-0.bovwdb"), self.path("J-g1-2.bovwdb")])
        plain = self.path("J.bovwdb")
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", plain, "--shards", 2,
                   names=[plain, ".bovwshards"], outputs=[plain, self.path("J-g1-0.bovwdb")])
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", manifest, "--shards", 0,
                   status=2, outputs=[manifest])

    def test_missing_or_damaged_shards_are_named(self):
        for name in ["S.bovwshards"] + shard_names("S", 1):
            shutil.copy(os.path.join(SET.root, name), self.dir)
        manifest = self.path("S.bovwshards")
        self.ok("search", "--index", manifest, "--quiet", SET.new_view)
        shard = self.path("S-g1-1.bovwdb")
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
        self.assertEqual(whole[0][-3:], ["bow_score", "inliers", "verified"])
        self.assertTrue(any(row[-1] == "1" and int(row[-2]) >= 8 for row in whole[1:]), whole)  # something was verified
        self.assertEqual(csv_rows(self.ok("search", "--index", manifest, *args).stdout), whole)
        def scores(index):
            out = self.ok("evaluate", "--index", index, "--groups", SET.groups_csv, "--verify", 6, "--quiet").stdout
            return [(name, ns, ap) for name, ns, ap, _ in base.evaluate_rows(out)]
        self.assertEqual(scores(manifest), scores(database))
        # Shards without keypoints: refused, naming the manifest.
        self.fails("search", "--index", SET.manifest, "--verify", 5, "--quiet", SET.new_view,
                   names=[SET.manifest, "no keypoints"])

    def test_one_file_listed_twice_under_another_name_is_refused(self):
        for name in ["S.bovwshards"] + shard_names("S", 1):
            shutil.copy(os.path.join(SET.root, name), self.dir)
        manifest = self.path("S.bovwshards")
        with open(manifest) as f:
            contents = json.load(f)
        os.symlink("S-g1-0.bovwdb", self.path("link.bovwdb"))
        for twice in ("./S-g1-0.bovwdb", "link.bovwdb", self.path("S-g1-0.bovwdb")):
            with self.subTest(twice=twice):
                with open(manifest, "w") as f:
                    json.dump(dict(contents, shards=contents["shards"] + [twice]), f)
                for command in (("search", "--index", manifest, "--quiet", SET.new_view),
                                ("evaluate", "--index", manifest, "--groups", SET.groups_csv, "--quiet")):
                    self.fails(*command, names=[manifest, twice, "are the same file"])


class Replacing(base.RetrievalTestCase):
    QUERIES = None

    def results(self, index):
        """search's CSV over every image and two more queries: what tells two databases apart."""
        args = ("--top", 100, "--scoring", "cosine+sqrt", "--quiet", SET.new_view, SET.paths[0], SET.paths[12])
        return self.ok("search", "--index", index, *args).stdout

    def expected(self):
        # Independent references: unsharded indexes of the same two image sets.
        if Replacing.QUERIES is None:
            Replacing.QUERIES = {"all": self.results(SET.database), "fewer": self.results(SET.fewer_database)}
            self.assertNotEqual(Replacing.QUERIES["all"], Replacing.QUERIES["fewer"])
        return Replacing.QUERIES

    def index(self, which, manifest, shards):
        folder = SET.images if which == "all" else SET.fewer
        return ("index", folder, "--vocabulary", SET.vocabulary, "--output", manifest, "--shards", shards, "--quiet")

    def test_each_write_is_a_new_generation_and_only_the_old_ones_files_go(self):
        expected = self.expected()
        manifest = self.path("X.bovwshards")
        # A user's files beside it, named like shards but not of this manifest's generations.
        mine = ["X-9.bovwdb", "X-g1-0.bovwdb.bak", "Y-g1-0.bovwdb", "X-g1.bovwdb", "X-g2-g1-0.bovwdb"]
        for name in mine:
            with open(self.path(name), "w") as f:
                f.write("mine")
        for generation, (which, shards) in enumerate((("all", 3), ("fewer", 2), ("all", 4)), start=1):
            with self.subTest(generation=generation):
                self.ok(*self.index(which, manifest, shards))
                with open(manifest) as f:
                    self.assertEqual(json.load(f)["shards"], shard_names("X", generation, shards))
                self.assertEqual(sorted(os.listdir(self.dir)),
                                 sorted(["X.bovwshards"] + shard_names("X", generation, shards) + mine))
                self.assertEqual(self.results(manifest), expected[which])

    def test_shards_of_earlier_bovw_names_are_replaced_too(self):
        # A database as bovw wrote it before generations: L-0.bovwdb .. L-2.bovwdb.
        with open(SET.manifest) as f:
            contents = json.load(f)
        for s, name in enumerate(contents["shards"]):
            shutil.copy(os.path.join(SET.root, name), self.path("L-%d.bovwdb" % s))
        manifest = self.path("L.bovwshards")
        with open(manifest, "w") as f:
            json.dump(dict(contents, shards=["L-%d.bovwdb" % s for s in range(SHARDS)]), f)
        with open(self.path("L-7.bovwdb"), "w") as f:  # named like one, but the manifest does not list it
            f.write("mine")
        self.assertEqual(self.results(manifest), self.expected()["all"])
        self.ok(*self.index("fewer", manifest, 2))
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(["L.bovwshards", "L-7.bovwdb"] + shard_names("L", 1, 2)))
        self.assertEqual(self.results(manifest), self.expected()["fewer"])

    def shard_files(self):
        """The .bovwdb files in the test's folder and their inodes: a new one, or one renamed over."""
        return {entry.name: entry.inode() for entry in os.scandir(self.dir)
                if entry.name.endswith(".bovwdb") and not entry.name.startswith(".bovw-tmp")}

    def test_a_killed_overwrite_leaves_the_old_or_the_new_database(self):
        expected = self.expected()
        manifest = self.path("K.bovwshards")
        # One image a shard: every shard differs between the two databases, so a mix of any shards
        # of both would change the results.
        shards = {"all": 16, "fewer": 10}
        current = "all"
        started = time.monotonic()
        self.ok(*self.index(current, manifest, shards[current]))
        duration = time.monotonic() - started
        rng = random.Random(19)
        # When to kill: as soon as the write phase begins (temporaries appear), when the first new
        # shard is in place (bovw used to rename the new shards over the old ones there, one by one),
        # as soon as the manifest is switched (before the old shards are removed), or at a random
        # time of a run.
        moments = ["temporaries", "first shard", "switch", "random"] * 2
        outcomes = {"old": 0, "new": 0}
        for attempt, moment in enumerate(moments):
            new = "fewer" if current == "all" else "all"
            with self.subTest(attempt=attempt, moment=moment):
                old_shards = self.shard_files()
                old_manifest = os.stat(manifest).st_ino
                job = subprocess.Popen([base.BOVW] + [str(a) for a in self.index(new, manifest, shards[new])],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                deadline = time.monotonic() + base.TIMEOUT
                delay = rng.uniform(0, 0.002) if moment == "temporaries" else 0
                killed_at = rng.uniform(0.1, 1.2) * duration
                started = time.monotonic()
                while job.poll() is None and time.monotonic() < deadline:
                    if moment == "temporaries" and any(n.startswith(".bovw-tmp") for n in os.listdir(self.dir)):
                        break
                    if moment == "first shard" and self.shard_files() != old_shards:
                        break
                    if moment == "switch" and os.stat(manifest).st_ino != old_manifest:
                        break
                    if moment == "random" and time.monotonic() - started >= killed_at:
                        break
                time.sleep(delay)
                if job.poll() is None:
                    job.send_signal(signal.SIGKILL)
                job.wait()
                got = self.results(manifest)
                self.assertTrue(got in (expected[current], expected[new]), "a mix of two databases:\n" + got[:800])
                if moment == "switch":
                    self.assertEqual(got, expected[new], "the manifest was switched: the new database")
                outcomes["new" if got == expected[new] else "old"] += 1
                if got == expected[new]:
                    current = new
        print("killed overwrites: %(old)d left the old database, %(new)d the new" % outcomes, file=sys.stderr)
        # One clean write removes every leftover of the killed ones.
        new = "fewer" if current == "all" else "all"
        self.ok(*self.index(new, manifest, 5))
        with open(manifest) as f:
            names = json.load(f)["shards"]
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(["K.bovwshards"] + names))
        self.assertEqual(self.results(manifest), expected[new])

    def test_searches_while_the_database_is_replaced_see_one_database(self):
        expected = self.expected()
        manifest = self.path("R.bovwshards")
        self.ok(*self.index("all", manifest, 16))
        failures = []

        def write():
            for which in ("fewer", "all") * 3:
                result = base.run(*self.index(which, manifest, 16 if which == "all" else 10))
                if result.returncode != 0:
                    failures.append(base.describe(result))

        writer = threading.Thread(target=write)
        writer.start()
        seen = set()
        try:
            while writer.is_alive():
                result = base.run("search", "--index", manifest, "--top", 100, "--scoring", "cosine+sqrt", "--quiet",
                                  SET.new_view, SET.paths[0], SET.paths[12])
                self.assertEqual(result.returncode, 0, base.describe(result))
                self.assertTrue(result.stdout in (expected["all"], expected["fewer"]),
                                "a mix of two databases:\n" + result.stdout[:800])
                seen.add(result.stdout)
        finally:
            writer.join()
        self.assertEqual(failures, [])
        print("searches during replacement saw %d of the 2 databases" % len(seen), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(base.main("test_shards.py"))
