#!/usr/bin/env python3
"""End-to-end tests of distributed training: `mpirun -np 2 bovw-mpi train` writes the vocabulary that
`bovw train` writes with the same seed, byte for byte.

Usage: as mpi_support.py says, plus unittest options.

The image set is test_retrieval.py's (4 scenes x 4 views). Checked: from images (a sample smaller than
the descriptors seen, so the ranks' shared sampling matters; a corrupt image among them, reported and
skipped by its rank), from a .npy sample (rows split between the ranks), with an uneven and odd
sample size; three ranks too; a request that cannot be met (more words than descriptors, a
vocabulary tree) fails with exit status 1, names the problem, does not hang and writes no file; a
rank killed in the middle of training fails the job, which writes no file.

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import os
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_support as mpi  # noqa: E402 (the launcher and jobs under it)
import test_retrieval as base  # noqa: E402 (the image set and helpers; exits 77 without numpy/cv2)

np = base.np
SET = None


def setUpModule():
    global SET
    SET = base.shared_set("bovw_mpi_train_cli_", vocabulary=False)


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


class DistributedTrain(base.RetrievalTestCase):
    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def assert_same_file(self, single, distributed):
        self.assertEqual(self.read(single), self.read(distributed), "%s and %s differ" % (single, distributed))

    def test_images_give_the_single_process_vocabulary(self):
        common = ["--words", base.WORDS, "--max-descriptors", 1500, "--seed", 11, "--iterations", 12]
        single = self.path("single.bovw")
        result = base.run("train", SET.images, "--output", single, *common)
        self.assertEqual(result.returncode, 0, base.describe(result))
        for ranks in (2, 3):
            distributed = self.path("ranks%d.bovw" % ranks)
            result = mpi.run("train", SET.images, "--output", distributed, *common, ranks=ranks)
            self.assertEqual(result.returncode, 0, base.describe(result))
            self.assert_same_file(single, distributed)
            self.assertIn("on %d ranks" % ranks, result.stderr)  # rank 0's sampling line
            self.assertEqual(result.stdout.count("bovw train:"), 1, "only rank 0 reports")

    def test_a_corrupt_image_is_skipped_by_its_rank(self):
        images = self.path("with_corrupt")
        shutil.copytree(SET.images, images)
        with open(os.path.join(images, "g9_broken.png"), "wb") as f:
            f.write(base.truncated_png())
        common = ["--words", base.WORDS, "--max-descriptors", 2000, "--seed", 4]
        single, distributed = self.path("s.bovw"), self.path("d.bovw")
        self.assertEqual(base.run("train", images, "--output", single, *common).returncode, 0)
        result = mpi.run("train", images, "--output", distributed, *common)
        self.assertEqual(result.returncode, 0, base.describe(result))
        self.assertIn("g9_broken.png", result.stderr)
        self.assert_same_file(single, distributed)

    def test_a_descriptor_file_is_split_between_the_ranks(self):
        rng = np.random.default_rng(23)
        sample = self.path("sample.npy")
        np.save(sample, rng.normal(size=(1999, 37)).astype(np.float32))
        common = ["--descriptors", sample, "--words", 33, "--seed", 5, "--tolerance", -1, "--iterations", 7]
        single, distributed = self.path("s.bovw"), self.path("d.bovw")
        self.assertEqual(base.run("train", "--output", single, *common).returncode, 0)
        result = mpi.run("train", "--output", distributed, *common)
        self.assertEqual(result.returncode, 0, base.describe(result))
        self.assert_same_file(single, distributed)

    def test_impossible_requests_fail_on_every_rank_and_write_nothing(self):
        sample = self.path("small.npy")
        np.save(sample, np.random.default_rng(2).normal(size=(30, 8)).astype(np.float32))
        for extra, expected in ((["--words", 31], "larger than the 30 descriptors"),
                                (["--words", 8, "--tree-branching", 2], "vocabulary tree")):
            output = self.path("never.bovw")
            result = mpi.run("train", "--descriptors", sample, "--output", output, *extra)
            self.assertEqual(result.returncode, 1, base.describe(result))
            self.assertIn(expected, result.stderr)
            self.assertFalse(os.path.exists(output))
            self.assertNoTemporaries()

    def test_a_killed_rank_fails_the_job_and_leaves_no_file(self):
        # A long training (many iterations, never converged) whose rank 1 is killed mid-way.
        sample = self.path("big.npy")
        np.save(sample, np.random.default_rng(8).normal(size=(60000, 32)).astype(np.float32))
        output = self.path("never.bovw")
        launcher = mpi.start("train", "--descriptors", sample, "--words", 200, "--iterations", 100000,
                             "--tolerance", -1, "--quiet", "--output", output)
        try:
            ranks = []
            deadline = time.time() + 30
            while len(ranks) < 2 and time.time() < deadline and launcher.poll() is None:
                time.sleep(0.2)
                ranks = mpi.rank_processes(output)
            self.assertEqual(len(ranks), 2, "the ranks never started")
            time.sleep(1.0)  # well into the Lloyd iterations
            os.kill(max(ranks), signal.SIGKILL)
            _, stderr = launcher.communicate(timeout=60)
        finally:
            if launcher.poll() is None:
                launcher.kill()
        self.assertNotEqual(launcher.returncode, 0, stderr)
        self.assertFalse(os.path.exists(output))
        self.assertNoTemporaries()


if __name__ == "__main__":
    sys.exit(mpi.main("test_mpi_train.py"))
