#!/usr/bin/env python3
"""End-to-end tests of sharded search over MPI ranks: `mpirun -np 2 bovw-mpi search` on a manifest
prints exactly what `bovw search` prints on the same manifest and on the unsharded database.

Usage: test_mpi_search.py --bovw PATH/TO/bovw --bovw-mpi PATH/TO/bovw-mpi --data tests/data
           --mpirun "mpirun -np 2 --oversubscribe --allow-run-as-root" [unittest options]

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
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SHARDS = 3
MPI_TIMEOUT = 60  # a job whose ranks wait for each other forever fails here instead
BOVW_MPI = None
MPIRUN = None
SET = None


def setUpModule():
    global SET
    SET = base.Shared()
    SET.root = tempfile.mkdtemp(prefix="bovw_mpi_search_cli_")
    SET.paths, SET.groups, SET.new_view = base.make_set(SET.root)
    SET.images = os.path.join(SET.root, "images")
    SET.vocabulary = os.path.join(SET.root, "V.bovw")
    SET.database = os.path.join(SET.root, "I.bovwdb")
    SET.manifest = os.path.join(SET.root, "S.bovwshards")
    SET.keypoint_database = os.path.join(SET.root, "K.bovwdb")
    SET.keypoint_manifest = os.path.join(SET.root, "K.bovwshards")
    index = ("index", SET.images, "--vocabulary", SET.vocabulary, "--output")
    for args in (("train", SET.images, "--words", base.WORDS, "--max-descriptors", 4000, "--seed", 1,
                  "--output", SET.vocabulary),
                 index + (SET.database,),
                 index + (SET.manifest, "--shards", SHARDS),
                 index + (SET.keypoint_database, "--keypoints"),
                 index + (SET.keypoint_manifest, "--keypoints", "--shards", SHARDS)):
        result = base.run(*args)
        if result.returncode != 0:
            raise AssertionError("setting up: " + base.describe(result))
    # A few queries: indexed views of two scenes and a new view of the box.
    SET.queries = [SET.paths[0], SET.paths[6], SET.new_view]


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def run_mpi(*args):
    """Runs bovw-mpi under the launcher; a job that does not end within MPI_TIMEOUT fails the test."""
    env = dict(os.environ)
    env.pop("BOVW_DEVICE", None)
    command = MPIRUN + [BOVW_MPI] + [str(a) for a in args]
    try:
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=MPI_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("%s did not end within %d s (ranks waiting for each other?)\n--- stderr:\n%s"
                             % (" ".join(command), MPI_TIMEOUT, e.stderr)) from None


def verification_lines(stderr):
    """The per-query verification reports of a search's stderr, without their times and prefixes."""
    return re.findall(r"info: (.*: \d+ of \d+ results verified), [0-9.]+ ms", stderr)


class MpiSearch(base.RetrievalTestCase):
    def mpi_ok(self, *args):
        result = run_mpi(*args)
        self.assertEqual(result.returncode, 0, base.describe(result))
        return result

    def mpi_fails(self, *args, names=(), once=()):
        """A failure that every rank knows of: exit status 1 without MPI_Abort, rank 0's error line
        naming `names`, and `once` exactly once."""
        result = run_mpi(*args)
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
        self.assertEqual(whole.stdout.splitlines()[0].split(",")[-2:], ["bow_score", "inliers"])
        self.assertTrue(any(int(row.split(",")[-1]) >= 8 for row in whole.stdout.splitlines()[1:]), whole.stdout)
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
        ranks = run_mpi("search", *args)
        self.assertEqual(ranks.returncode, 1, base.describe(ranks))
        self.assertIn(missing, ranks.stderr)
        self.assertEqual(ranks.stdout, one.stdout)
        self.assertEqual(len(one.stdout.splitlines()), 1 + 2 * 4)
        # No query readable: refused alike.
        self.mpi_fails("search", "--index", SET.manifest, "--quiet", missing,
                       once=["no query image could be read"])

    def test_a_missing_or_damaged_shard_fails_the_job_naming_it(self):
        for name in ["S.bovwshards"] + ["S-%d.bovwdb" % s for s in range(SHARDS)]:
            shutil.copy(os.path.join(SET.root, name), self.dir)
        manifest = self.path("S.bovwshards")
        self.mpi_ok("search", "--index", manifest, "--quiet", SET.new_view)
        # Shard 1 is rank 1's, shard 2 rank 0's.
        for shard in (self.path("S-1.bovwdb"), self.path("S-2.bovwdb")):
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


def main():
    global BOVW_MPI, MPIRUN
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--bovw-mpi", required=True, help="path of the bovw-mpi binary")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    parser.add_argument("--mpirun", required=True, help="the launcher with its options for two ranks, one string")
    options, rest = parser.parse_known_args()
    base.BOVW, base.DATA = os.path.abspath(options.bovw), os.path.abspath(options.data)
    BOVW_MPI, MPIRUN = os.path.abspath(options.bovw_mpi), shlex.split(options.mpirun)
    for program in (base.BOVW, BOVW_MPI):
        if not os.access(program, os.X_OK):
            print("test_mpi_search.py: %s is not an executable" % program, file=sys.stderr)
            return 1
    if not MPIRUN:
        print("test_mpi_search.py: --mpirun needs the launcher", file=sys.stderr)
        return 1
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
