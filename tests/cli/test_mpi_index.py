#!/usr/bin/env python3
"""End-to-end tests of distributed indexing: `mpirun -np 2 bovw-mpi index` writes the database that
`bovw index` writes for the same folder, byte for byte.

Usage: as mpi_support.py says, plus unittest options.

The image set is test_retrieval.py's (4 scenes x 4 views, fixed seeds), its vocabulary trained once
by `bovw`. Checked, each against `bovw index` of the same folder: the database (with and without
--keypoints, and under one rank), --shards 3 under 2 ranks (manifest and every shard; written again,
both ranks write the next generation's names and the first generation is removed), a folder with
a corrupt and a non-image file (each reported by the rank that met it, the rest indexed, one summary
over all ranks; as shards too); and failed runs (a shard that one rank alone cannot write, a vocabulary that does
not fit, a missing output folder) exit non-zero, name the problem, end without MPI_Abort (the ranks
agree on the failure), and leave no output and no temporary file; a rank killed mid-run fails the job and no database appears.

Needs numpy, python3-opencv (Debian packages) and MPI; exit status 77 (CTest: skipped) without the
Python modules.
"""
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_support as mpi  # noqa: E402 (the launcher and jobs under it)
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

import numpy as np  # noqa: E402 (test_retrieval has checked it is there)

SHARDS = 3
SET = None


def read(path):
    with open(path, "rb") as f:
        return f.read()


def setUpModule():
    global SET
    SET = base.shared_set("bovw_mpi_index_cli_")
    SET.single = os.path.join(SET.root, "single")
    os.makedirs(SET.single)
    index = ("index", SET.images, "--vocabulary", SET.vocabulary, "--output")
    base.set_up(index + (os.path.join(SET.single, "I.bovwdb"),),
                index + (os.path.join(SET.single, "K.bovwdb"), "--keypoints"),
                index + (os.path.join(SET.single, "S.bovwshards"), "--shards", SHARDS))


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


class MpiIndex(base.RetrievalTestCase):
    def ok_mpi(self, *args, **kwargs):
        result = mpi.run(*args, **kwargs)
        self.assertEqual(result.returncode, 0, base.describe(result))
        return result

    def fails_mpi(self, *args, names=(), outputs=()):
        result = mpi.run(*args)
        self.assertNotEqual(result.returncode, 0, base.describe(result))
        for name in names:
            self.assertIn(str(name), result.stderr, base.describe(result))
        for output in outputs:
            self.assertFalse(os.path.exists(output), "%s left behind by: %s" % (output, base.describe(result)))
        self.assertNoTemporaries(*[os.path.dirname(os.path.abspath(o)) for o in outputs])
        return result

    def test_database_is_the_single_process_database(self):
        for name, extra in (("I.bovwdb", ()), ("K.bovwdb", ("--keypoints",))):
            with self.subTest(database=name):
                out = self.path(name)
                result = self.ok_mpi("index", SET.images, "--vocabulary", SET.vocabulary, "--output", out, *extra)
                self.assertEqual(read(out), read(os.path.join(SET.single, name)), "%s differs" % name)
                # One summary, from rank 0, over every rank's images.
                self.assertEqual(result.stdout.count("bovw index: 16 images"), 1, base.describe(result))
                self.assertIn("devices: rank 0: ", result.stderr)  # rank 0 says which device each rank uses
        self.assertNoTemporaries(self.dir)

    def test_one_rank_is_the_single_process_run(self):
        out = self.path("I.bovwdb")
        result = self.ok_mpi("index", SET.images, "--vocabulary", SET.vocabulary, "--output", out, ranks=1)
        self.assertEqual(read(out), read(os.path.join(SET.single, "I.bovwdb")))
        self.assertNotIn("devices:", result.stderr)

    def test_shards_are_the_single_process_shards(self):
        manifest = self.path("S.bovwshards")
        self.ok_mpi("index", SET.images, "--vocabulary", SET.vocabulary, "--shards", SHARDS, "--output", manifest)
        names = ["S.bovwshards"] + ["S-g1-%d.bovwdb" % s for s in range(SHARDS)]
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(names))
        for name in names:
            self.assertEqual(read(self.path(name)), read(os.path.join(SET.single, name)), "%s differs" % name)
        # Written again: every rank writes its shards under generation 2's names (rank 1 writes
        # shard 1), the manifest names them, and generation 1 is gone.
        self.ok_mpi("index", SET.images, "--vocabulary", SET.vocabulary, "--shards", SHARDS, "--output", manifest)
        second = ["S-g2-%d.bovwdb" % s for s in range(SHARDS)]
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(["S.bovwshards"] + second))
        self.assertEqual(read(manifest), read(os.path.join(SET.single, "S.bovwshards")).replace(b"-g1-", b"-g2-"))
        for s in range(SHARDS):
            self.assertEqual(read(self.path(second[s])), read(os.path.join(SET.single, names[1 + s])))

    def test_bad_images_are_reported_and_the_rest_indexed_as_by_one_process(self):
        # Bad files near each end of the sorted list, so that each of the two ranks meets one.
        folder = self.folder_with("bad", SET.paths + [("a_text.png", b"not an image\n"),
                                                      ("g3_zz_truncated.png", base.truncated_png())])
        single, distributed = self.path("single.bovwdb"), self.path("mpi.bovwdb")
        self.ok("index", folder, "--vocabulary", SET.vocabulary, "--output", single)
        result = self.ok_mpi("index", folder, "--vocabulary", SET.vocabulary, "--output", distributed)
        self.assertEqual(read(distributed), read(single))
        self.assertIn("bovw index: 16 images", result.stdout)
        for name in ("a_text.png", "g3_zz_truncated.png"):
            self.assertEqual(result.stderr.count("skipped '%s" % os.path.join(folder, name)), 1, base.describe(result))
        self.assertIn("bovw[0/2]: warning: skipped '%s" % os.path.join(folder, "a_text.png"), result.stderr)
        self.assertIn("bovw[1/2]: warning: skipped '%s" % os.path.join(folder, "g3_zz_truncated.png"), result.stderr)
        self.assertEqual(result.stderr.count("2 of 18 images could not be used"), 1, base.describe(result))
        # Shards too: which shard an image is in counts the bad files' bytes in both runs alike.
        for where, program in (("single", self.ok), ("mpi", self.ok_mpi)):
            os.makedirs(self.path(where))
            program("index", folder, "--vocabulary", SET.vocabulary, "--shards", SHARDS, "--keypoints", "--quiet",
                    "--output", self.path(where, "B.bovwshards"))
        for name in ["B.bovwshards"] + ["B-g1-%d.bovwdb" % s for s in range(SHARDS)]:
            self.assertEqual(read(self.path("mpi", name)), read(self.path("single", name)), "%s differs" % name)

    def test_failed_runs_leave_no_output_and_no_temporary(self):
        # Shard 1 belongs to rank 1 alone, which cannot write it: no rank commits anything.
        manifest = self.path("J.bovwshards")
        os.makedirs(self.path("J-g1-1.bovwdb"))
        result = self.fails_mpi("index", SET.images, "--vocabulary", SET.vocabulary, "--shards", SHARDS,
                                "--output", manifest, names=["rank 1", "J-g1-1.bovwdb"],
                                outputs=[manifest, self.path("J-g1-0.bovwdb"), self.path("J-g1-2.bovwdb")])
        self.assertNotIn("MPI_ABORT", result.stderr)  # the ranks agreed on the failure and ended normally
        # A vocabulary that does not fit the features (32-wide words for 64-wide SURF descriptors).
        wrong = self.path("narrow.npy")
        np.save(wrong, np.random.default_rng(1).random((base.WORDS, 32), dtype=np.float32))
        out = self.path("W.bovwdb")
        result = self.fails_mpi("index", SET.images, "--vocabulary", wrong, "--output", out, names=[wrong],
                                outputs=[out])
        self.assertEqual(result.stderr.count(wrong), 1, base.describe(result))  # every rank alike: said once
        self.assertNotIn("MPI_ABORT", result.stderr)
        # An output folder that does not exist.
        missing = self.path("no_such_folder", "M.bovwdb")
        result = self.fails_mpi("index", SET.images, "--vocabulary", SET.vocabulary, "--output", missing,
                                names=[missing], outputs=[missing])
        self.assertNotIn("MPI_ABORT", result.stderr)
        self.assertEqual(sorted(os.listdir(self.dir)), ["J-g1-1.bovwdb", "narrow.npy"])

    def test_a_killed_rank_fails_the_job_and_leaves_no_database(self):
        # Enough images that the ranks are still extracting when one of them is killed.
        folder = self.folder_with("many", [])
        for copy in range(8):
            for path in SET.paths:
                shutil.copy(path, os.path.join(folder, "c%d_%s" % (copy, os.path.basename(path))))
        out = self.path("killed.bovwdb")
        job = mpi.start("index", folder, "--vocabulary", SET.vocabulary, "--output", out)
        try:
            # Rank 0 names the ranks' devices once every rank has started, before any image is read.
            seen = ""
            while "devices:" not in seen:
                line = job.stderr.readline()
                self.assertTrue(line, "bovw-mpi ended before its ranks started: " + seen)
                seen += line
            ranks = mpi.rank_processes(folder)
            self.assertEqual(len(ranks), 2, seen)
            os.kill(max(ranks), signal.SIGKILL)
            stdout, stderr = job.communicate(timeout=base.TIMEOUT)
        finally:
            if job.poll() is None:
                job.kill()
                job.communicate()
        self.assertNotEqual(job.returncode, 0, seen + stderr)
        self.assertNotIn("bovw index:", stdout)
        self.assertFalse(os.path.exists(out), "a database was written by a job that lost a rank")
        self.assertNoTemporaries(self.dir)


if __name__ == "__main__":
    sys.exit(mpi.main("test_mpi_index.py"))
