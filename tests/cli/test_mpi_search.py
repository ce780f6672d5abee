#!/usr/bin/env python3
"""End-to-end tests of sharded search over MPI ranks: `mpirun -np 2 bovw-mpi search` on a manifest
prints exactly what `bovw search` prints on the same manifest and on the unsharded database.

Usage: as mpi_support.py says, plus unittest options.

The image set and helpers are test_retrieval.py's (4 scenes x 4 views, fixed seeds); the databases
are written by single-process `bovw index` (whole, and --shards 3: with 2 ranks, rank 0 holds
shards 0 and 2, rank 1 shard 1). Checked: CSV and JSON output of several scorings, and with
--keypoints databases --verify's re-ranked output and its per-query stderr lines, equal to
`bovw search`'s; a single .bovwdb (rank 1 holds nothing) too; an unreadable query among good ones
is reported and the rest answered as by `bovw search`, with exit status 1; a missing or damaged
shard of either rank fails the job with exit status 1 and names the shard once on stderr (rank 0's
error line), within the time limit (no rank is left waiting) and without MPI_Abort (the ranks agree
on the failure and end normally).

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_support as mpi  # noqa: E402 (the launcher and jobs under it)
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SHARDS = 3
SET = None


def setUpModule():
    global SET
    SET = base.shared_set("bovw_mpi_search_cli_")
    SET.database = os.path.join(SET.root, "I.bovwdb")
    SET.manifest = os.path.join(SET.root, "S.bovwshards")
    SET.keypoint_database = os.path.join(SET.root, "K.bovwdb")
    SET.keypoint_manifest = os.path.join(SET.root, "K.bovwshards")
    index = ("index", SET.images, "--vocabulary", SET.vocabulary, "--output")
    base.set_up(index + (SET.database,),
                index + (SET.manifest, "--shards", SHARDS),
                index + (SET.keypoint_database, "--keypoints"),
                index + (SET.keypoint_manifest, "--keypoints", "--shards", SHARDS))
    # A few queries: indexed views of two scenes and a new view of the box.
    SET.queries = [SET.paths[0], SET.paths[6], SET.new_view]


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def verification_lines(stderr):
    """The per-query verification reports of a search's stderr, without their times and prefixes."""
    return re.findall(r"info: (.*: \d+ of \d+ results verified), [0-9.]+ ms", stderr)


class MpiSearch(base.RetrievalTestCase):
    def mpi_ok(self, *args):
        result = mpi.run(*args)
        self.assertEqual(result.returncode, 0, base.describe(result))
        return result

    def mpi_fails(self, *args, names=(), once=()):
        """A failure that every rank knows of: exit status 1 without MPI_Abort, rank 0's error line
        naming `names`, and `once` exactly once."""
        result = mpi.run(*args)
        self.assertEqual(result.returncode, 1, base.describe(result))
        for name in names:
            self.assertIn(str(name), result.stderr, base.describe(result))
        for name in once:
            self.assertEqual(result.stderr.count(str(name)), 1, base.describe(result))
        self.assertNotIn("MPI_ABORT", result.stderr, base.describe(result))
        return result

    def test_ranks_print_what_one_process_prints(self):
        for scoring in ("intersection", "cosine+sqrt", "intersection+log+power0.5"):
            with self.subTest(scoring=scoring):
                args = ("--top", 7, "--scoring", scoring, "--format", "csv", "--quiet", *SET.queries)
                whole = self.ok("search", "--index", SET.database, *args).stdout
                self.assertGreater(len(whole.splitlines()), len(SET.queries))
                self.assertEqual(self.ok("search", "--index", SET.manifest, *args).stdout, whole)
                self.assertEqual(self.mpi_ok("search", "--index", SET.manifest, *args).stdout, whole)
        # JSON, and a single database file (rank 1 holds no shard).
        args = ("--top", 5, "--format", "json", "--quiet", *SET.queries)
        whole = self.ok("search", "--index", SET.database, *args).stdout
        self.assertEqual([q["query"] for q in json.loads(whole)], SET.queries)
        self.assertEqual(self.mpi_ok("search", "--index", SET.manifest, *args).stdout, whole)
        self.assertEqual(self.mpi_ok("search", "--index", SET.database, *args).stdout, whole)

    def test_verified_search_over_ranks_gives_the_unsharded_results(self):
        args = ("--verify", 8, "--min-inliers", 8, "--top", 10, "--quiet", SET.new_view, SET.paths[5])
        whole = self.ok("search", "--index", SET.keypoint_database, *args)
        self.assertEqual(whole.stdout.splitlines()[0].split(",")[-3:], ["bow_score", "inliers", "verified"])
        self.assertTrue(any(int(row.split(",")[-2]) >= 8 for row in whole.stdout.splitlines()[1:]), whole.stdout)
        ranks = self.mpi_ok("search", "--index", SET.keypoint_manifest, *args)
        self.assertEqual(ranks.stdout, whole.stdout)
        # The same per-query reports on stderr, from rank 0 only.
        self.assertEqual(len(verification_lines(whole.stderr)), 2, whole.stderr)
        self.assertEqual(verification_lines(ranks.stderr), verification_lines(whole.stderr), ranks.stderr)
        # Shards without keypoints: refused on every rank, naming the manifest.
        self.mpi_fails("search", "--index", SET.manifest, "--verify", 5, "--quiet", SET.new_view,
                       names=[SET.manifest], once=["no keypoints"])

    def test_an_unreadable_query_is_reported_and_the_others_answered(self):
        missing = self.path("missing.png")
        args = ("--index", SET.manifest, "--top", 4, "--quiet", SET.paths[3], missing, SET.new_view)
        one = self.fails("search", *args, names=[missing])
        ranks = mpi.run("search", *args)
        self.assertEqual(ranks.returncode, 1, base.describe(ranks))
        self.assertIn(missing, ranks.stderr)
        self.assertNotIn("MPI_ABORT", ranks.stderr)  # every rank learns the status: no abort
        self.assertEqual(ranks.stdout, one.stdout)
        self.assertEqual(len(one.stdout.splitlines()), 1 + 2 * 4)
        # No query readable: refused alike.
        self.mpi_fails("search", "--index", SET.manifest, "--quiet", missing,
                       once=["no query image could be read"])

    def test_a_missing_or_damaged_shard_fails_the_job_naming_it(self):
        for name in ["S.bovwshards"] + ["S-g1-%d.bovwdb" % s for s in range(SHARDS)]:
            shutil.copy(os.path.join(SET.root, name), self.dir)
        manifest = self.path("S.bovwshards")
        self.mpi_ok("search", "--index", manifest, "--quiet", SET.new_view)
        # Shard 1 is rank 1's, shard 2 rank 0's.
        for shard in (self.path("S-g1-1.bovwdb"), self.path("S-g1-2.bovwdb")):
            with self.subTest(shard=os.path.basename(shard)):
                with open(shard, "rb") as f:
                    data = f.read()
                os.remove(shard)
                self.mpi_fails("search", "--index", manifest, "--quiet", SET.new_view, names=[shard], once=[shard])
                with open(shard, "wb") as f:
                    f.write(data[:-5])
                self.mpi_fails("search", "--index", manifest, "--quiet", SET.new_view, names=[shard], once=[shard])
                with open(shard, "wb") as f:
                    f.write(data)
        self.mpi_ok("search", "--index", manifest, "--quiet", SET.new_view)


if __name__ == "__main__":
    sys.exit(mpi.main("test_mpi_search.py"))
