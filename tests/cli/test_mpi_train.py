#!/usr/bin/env python3
"""End-to-end tests of distributed training: `mpirun -np 2 bovw-mpi train` writes the vocabulary that
`bovw train` writes with the same seed, byte for byte.

Usage: test_mpi_train.py --bovw PATH/TO/bovw --bovw-mpi PATH/TO/bovw-mpi --mpirun "mpirun -n 2 ..."
                         --data tests/data [unittest options]

The image set is test_retrieval.py's (4 scenes x 4 views). Checked: from images (a sample smaller than
the descriptors seen, so the ranks' shared sampling matters; a corrupt image among them, reported and
skipped by its rank), from a .npy sample (rows split between the ranks), with an uneven and odd
sample size; three ranks too; a request that cannot be met (more words than descriptors, a
vocabulary tree) fails with exit status 1, names the problem, does not hang and writes no file; a
rank killed in the middle of training fails the job, which writes no file.

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_retrieval as base  # noqa: E402 (the image set and helpers; exits 77 without numpy/cv2)

np = base.np
BOVW_MPI = None
MPIRUN = None
SET = None


def run_mpi(*args, ranks=None):
    launcher = list(MPIRUN)
    if ranks is not None:  # the rank count follows -n or -np
        flag = next(i for i, a in enumerate(launcher) if a in ("-n", "-np", "--np"))
        launcher[flag + 1] = str(ranks)
    return subprocess.run(launcher + [BOVW_MPI] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=base.TIMEOUT)


def setUpModule():
    global SET
    SET = base.Shared()
    SET.root = tempfile.mkdtemp(prefix="bovw_mpi_train_cli_")
    SET.paths, SET.groups, SET.new_view = base.make_set(SET.root)
    SET.images = os.path.join(SET.root, "images")


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
            result = run_mpi("train", SET.images, "--output", distributed, *common, ranks=ranks)
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
        result = run_mpi("train", images, "--output", distributed, *common)
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
        result = run_mpi("train", "--output", distributed, *common)
        self.assertEqual(result.returncode, 0, base.describe(result))
        self.assert_same_file(single, distributed)

    def test_impossible_requests_fail_on_every_rank_and_write_nothing(self):
        sample = self.path("small.npy")
        np.save(sample, np.random.default_rng(2).normal(size=(30, 8)).astype(np.float32))
        for extra, expected in ((["--words", 31], "larger than the 30 descriptors"),
                                (["--words", 8, "--tree-branching", 2], "vocabulary tree")):
            output = self.path("never.bovw")
            result = run_mpi("train", "--descriptors", sample, "--output", output, *extra)
            self.assertEqual(result.returncode, 1, base.describe(result))
            self.assertIn(expected, result.stderr)
            self.assertFalse(os.path.exists(output))
            self.assertNoTemporaries()

    def test_a_killed_rank_fails_the_job_and_leaves_no_file(self):
        # A long training (many iterations, never converged) whose rank 1 is killed mid-way.
        sample = self.path("big.npy")
        np.save(sample, np.random.default_rng(8).normal(size=(60000, 32)).astype(np.float32))
        output = self.path("never.bovw")
        command = [BOVW_MPI, "train", "--descriptors", sample, "--words", 200, "--iterations", 100000,
                   "--tolerance", -1, "--quiet", "--output", output]
        launcher = subprocess.Popen(MPIRUN + [str(a) for a in command],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            victim = None
            deadline = time.time() + 30
            while victim is None and time.time() < deadline and launcher.poll() is None:
                time.sleep(0.2)
                victim = rank_process(1)
            self.assertIsNotNone(victim, "rank 1 never started")
            time.sleep(1.0)  # well into the Lloyd iterations
            os.kill(victim, signal.SIGKILL)
            _, stderr = launcher.communicate(timeout=60)
        finally:
            if launcher.poll() is None:
                launcher.kill()
        self.assertNotEqual(launcher.returncode, 0, stderr)
        self.assertFalse(os.path.exists(output))
        self.assertNoTemporaries()


def rank_process(rank):
    """The pid of this user's bovw-mpi process that is MPI rank `rank`, or None."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if os.path.basename(f.read().split(b"\0")[0]) != b"bovw-mpi":
                    continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                if b"OMPI_COMM_WORLD_RANK=%d\0" % rank in f.read() + b"\0":
                    return int(pid)
        except OSError:
            continue
    return None


def main():
    global BOVW_MPI, MPIRUN
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--bovw-mpi", required=True, help="path of the bovw-mpi binary")
    parser.add_argument("--mpirun", required=True, help="the launcher with two ranks, one string (split at spaces)")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    options, rest = parser.parse_known_args()
    base.BOVW, base.DATA = os.path.abspath(options.bovw), os.path.abspath(options.data)
    BOVW_MPI, MPIRUN = os.path.abspath(options.bovw_mpi), shlex.split(options.mpirun)
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
