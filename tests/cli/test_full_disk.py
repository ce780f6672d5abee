#!/usr/bin/env python3
"""Every output of the `bovw` program on a full disk: exit 1, one message naming the file and the
system's reason, and neither the file nor a temporary left behind.

Usage:  test_full_disk.py --bovw PATH/TO/bovw --data tests/data [unittest options]

The full disk is a 64 KiB tmpfs mounted for the run, filled up but for a few KiB so that each output
fails part-way through (or filled to the last byte for the small ones). Mounting needs root (and a
container allowed to mount): elsewhere the tests are skipped with a message (exit status 77, CTest:
skipped). Also here, because they need no mount: results on a full standard output, and the
temporary a killed run left behind, removed by the next run writing into the same folder.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
except ImportError:  # pragma: no cover - environment problem, not a test failure
    print("test_full_disk.py: numpy is not available to " + sys.executable + "; skipping", file=sys.stderr)
    sys.exit(77)

BOVW = None
DATA = None
TIMEOUT = 120
TMPFS_BYTES = 64 * 1024
FREE_BYTES = 8 * 1024  # left free for the large outputs, so that they fail part-way through


def run_bovw(*args, stdout=subprocess.PIPE):
    return subprocess.run([BOVW] + [str(a) for a in args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT)


def describe(result):
    return "exit status %d\n--- command: %s\n--- stdout:\n%s\n--- stderr:\n%s" % (
        result.returncode, " ".join(result.args), (result.stdout or "")[-2000:], result.stderr[-2000:])


def mount_tmpfs(folder):
    """Mounts a TMPFS_BYTES tmpfs on `folder`; returns None, or why it cannot."""
    if os.geteuid() != 0:
        return "not running as root"
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % TMPFS_BYTES, "tmpfs", folder],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return "mount -t tmpfs failed: " + (result.stderr.strip() or "exit %d" % result.returncode)
    return None


class Inputs:
    """What the commands read, made once in an ordinary folder: descriptors (20000 x 64, whose
    assignments alone are 80 KB), a training sample, offsets, a vocabulary of 300 words (77 KB, larger
    than the free space), two images, a database."""

    def __init__(self, folder):
        self.folder = folder
        os.mkdir(folder)
        rng = np.random.default_rng(9)
        self.descriptors = self.path("X.npy")
        np.save(self.descriptors, rng.standard_normal((20000, 64)).astype(np.float32))
        self.sample = self.path("T.npy")
        np.save(self.sample, rng.standard_normal((1000, 64)).astype(np.float32))
        self.offsets = self.path("O.npy")
        np.save(self.offsets, np.linspace(0, 20000, 101).astype(np.int64))  # 100 images: H is 120 KB
        self.vocabulary = self.path("V.npy")  # untyped: it serves SURF and the descriptors alike
        np.save(self.vocabulary, rng.standard_normal((300, 64)).astype(np.float32))
        self.images = self.path("images")
        os.mkdir(self.images)
        shutil.copy(os.path.join(DATA, "surf", "box.png"), self.images)
        self.image = os.path.join(self.images, "box.png")
        box = open(self.image, "rb").read()
        with open(os.path.join(self.images, "box_copy.png"), "wb") as f:
            f.write(box)
        self.groups = self.path("groups.csv")
        with open(self.groups, "w") as f:
            f.write("image,group\nbox.png,0\nbox_copy.png,0\n")
        self.database = self.path("D.bovwdb")
        self.check(run_bovw("index", self.images, "--vocabulary", self.vocabulary, "--output", self.database,
                            "--quiet"))

    def path(self, name):
        return os.path.join(self.folder, name)

    @staticmethod
    def check(result):
        if result.returncode != 0:
            raise AssertionError("preparing the inputs failed: " + describe(result))


class FullDisk(unittest.TestCase):
    inputs = None
    disk = None
    work = None

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="bovw_full_disk_")
        cls.disk = os.path.join(cls.work, "disk")
        os.mkdir(cls.disk)
        why = mount_tmpfs(cls.disk)
        if why:
            shutil.rmtree(cls.work)
            raise unittest.SkipTest("no small tmpfs to fill (%s): the full-disk tests need root and mount" % why)
        try:
            cls.inputs = Inputs(os.path.join(cls.work, "inputs"))
        except BaseException:
            cls.tearDownClass()  # unittest does not when setUpClass fails: no mount may stay behind
            raise

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["umount", cls.disk], check=False)
        shutil.rmtree(cls.work, ignore_errors=True)

    def setUp(self):
        for name in os.listdir(self.disk):
            path = os.path.join(self.disk, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)

    def fill(self, free):
        """Fills the disk but for `free` bytes (a multiple of tmpfs's 4 KiB pages)."""
        with open(os.path.join(self.disk, "filler"), "wb") as f:
            f.write(b"\0" * (TMPFS_BYTES - free))
        stat = os.statvfs(self.disk)
        self.assertLessEqual(stat.f_bavail * stat.f_frsize, free, "the filler did not fill the disk")

    def files_on_disk(self):
        found = []
        for root, _, files in os.walk(self.disk):
            found += [os.path.relpath(os.path.join(root, f), self.disk) for f in files if f != "filler"]
        return sorted(found)

    def assert_fails_cleanly(self, args, output, free=FREE_BYTES):
        """`bovw args` on the full disk: exit 1, a one-line message naming `output` (a path on the disk)
        and the reason, no file there (no temporary either)."""
        self.fill(free)
        result = run_bovw(*args)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn(output, result.stderr, describe(result))
        self.assertIn("No space left on device", result.stderr, describe(result))
        self.assertEqual(self.files_on_disk(), [], describe(result))

    def on_disk(self, name):
        return os.path.join(self.disk, name)

    def test_train_in_every_vocabulary_format(self):
        for extension in (".bovw", ".npy", ".yml", ".yml.gz", ".xml", ".xml.gz", ".json"):
            with self.subTest(format=extension):
                output = self.on_disk("V" + extension)
                self.assert_fails_cleanly(["train", "--descriptors", self.inputs.sample, "--words", 64,
                                           "--iterations", 1, "--quiet", "--output", output], output)

    def test_histogram_of_descriptors_and_its_assignments(self):
        output = self.on_disk("H.npy")
        self.assert_fails_cleanly(["histogram", "--descriptors", self.inputs.descriptors, "--offsets",
                                   self.inputs.offsets, "--vocabulary", self.inputs.vocabulary, "--output", output],
                                  output)
        # The assignments (80 KB) fail after the histograms were written fine elsewhere: neither lands.
        elsewhere = os.path.join(self.work, "H_elsewhere.npy")
        output = self.on_disk("A.npy")
        self.assert_fails_cleanly(["histogram", "--descriptors", self.inputs.descriptors, "--offsets",
                                   self.inputs.offsets, "--vocabulary", self.inputs.vocabulary, "--output", elsewhere,
                                   "--assignments", output], output)
        self.assertFalse(os.path.exists(elsewhere), "the histograms landed without their assignments")

    def test_histogram_of_images_and_their_names(self):
        output = self.on_disk("H.npy")  # 2 images x 300 words: 2.4 KB
        self.assert_fails_cleanly(["histogram", "--images", self.inputs.images, "--vocabulary",
                                   self.inputs.vocabulary, "--output", output, "--quiet"], output, free=0)

    def test_extract_as_filestorage_and_npy_and_into_a_folder(self):
        for name in ("E.yml.gz", "E.yml", "E.npy"):
            with self.subTest(output=name):
                output = self.on_disk(name)
                self.assert_fails_cleanly(["extract", self.inputs.image, "-o", output], output)
        folder = self.on_disk("features")
        self.assert_fails_cleanly(["extract", self.inputs.images, "-o", folder], folder)

    def test_index(self):
        output = self.on_disk("D.bovwdb")
        self.assert_fails_cleanly(["index", self.inputs.images, "--vocabulary", self.inputs.vocabulary,
                                   "--output", output, "--quiet"], output)

    def test_search_and_evaluate_reports(self):
        for fmt in ("csv", "json", "html"):
            with self.subTest(format=fmt):
                output = self.on_disk("results." + fmt)
                self.assert_fails_cleanly(["search", "--index", self.inputs.database, "--format", fmt, "--output",
                                           output, self.inputs.image], output, free=0)
        output = self.on_disk("scores.json")
        self.assert_fails_cleanly(["evaluate", "--index", self.inputs.database, "--groups", self.inputs.groups,
                                   "--json", output], output, free=0)


class Streams(unittest.TestCase):
    """Outputs that need no mount."""

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="bovw_streams_")

    def tearDown(self):
        shutil.rmtree(self.folder)

    def test_results_on_a_full_standard_output_fail_the_run(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        x = os.path.join(self.folder, "X.npy")
        np.save(x, np.random.default_rng(1).standard_normal((300, 8)).astype(np.float32))
        with open("/dev/full", "w") as full:
            result = run_bovw("train", "--descriptors", x, "--words", 4, "--output",
                              os.path.join(self.folder, "V.bovw"), "--quiet", stdout=full)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("standard output", result.stderr, describe(result))

    def test_a_killed_runs_temporary_is_removed_by_the_next_run(self):
        x = os.path.join(self.folder, "X.npy")
        np.save(x, np.random.default_rng(2).standard_normal((300, 8)).astype(np.float32))
        out = os.path.join(self.folder, "out")
        os.mkdir(out)
        leftover = os.path.join(out, ".bovw-tmp-999999-0-V.bovw")
        with open(leftover, "wb") as f:
            f.write(b"half a vocabulary from a run killed mid-write")
        result = run_bovw("train", "--descriptors", x, "--words", 4, "--output", os.path.join(out, "V.bovw"),
                          "--quiet")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(os.listdir(out), ["V.bovw"])


def main():
    global BOVW, DATA
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bovw", required=True)
    parser.add_argument("--data", required=True, help="the tests/data folder")
    args, rest = parser.parse_known_args()
    BOVW = os.path.abspath(args.bovw)
    DATA = os.path.abspath(args.data)
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    result = program.result
    if not result.wasSuccessful():
        sys.exit(1)
    skipped = [reason for test, reason in result.skipped if "FullDisk" in str(test)]
    if skipped:
        print("test_full_disk.py: skipped the full-disk tests: " + skipped[0], file=sys.stderr)
        sys.exit(77)


if __name__ == "__main__":
    main()
