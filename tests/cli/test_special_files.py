#!/usr/bin/env python3
"""End-to-end tests of inputs that are not regular files, or that declare more than they hold
(issue 19): a FIFO as --vocabulary, as --index or as a shard of a manifest, /dev/zero or a FIFO as a
query image or as the image of `bovw extract`, a sparse 2 GB file as a database or a vocabulary, a
folder named like an image. Each run must end within seconds (a run that blocks on a FIFO is killed
by the timeout and fails the test rather than hanging it) with exit 1 and a line naming the input
and what it is.

Usage: test_special_files.py --bovw PATH/TO/bovw --data tests/data [unittest options]

The image set and helpers are test_retrieval.py's. Needs numpy and python3-opencv (Debian
packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SET = None
QUICK = 20  # seconds: a refusal takes milliseconds; a blocked open or a read of /dev/zero never ends


def setUpModule():
    global SET
    SET = base.shared_set("bovw_special_files_cli_")
    SET.database = os.path.join(SET.root, "I.bovwdb")
    SET.manifest = os.path.join(SET.root, "S.bovwshards")
    base.set_up(("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.database),
                ("index", SET.images, "--vocabulary", SET.vocabulary, "--output", SET.manifest, "--shards", 2))


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def quick_run(*args):
    """Runs bovw, failing (not hanging) if it takes more than QUICK seconds; returns the result and
    the seconds it took."""
    start = time.monotonic()
    try:
        result = subprocess.run([base.BOVW] + [str(a) for a in args], capture_output=True, text=True, timeout=QUICK)
    except subprocess.TimeoutExpired:
        raise AssertionError("bovw %s did not end within %d s (blocked on a FIFO? reading a device?)" %
                             (" ".join(str(a) for a in args), QUICK))
    return result, time.monotonic() - start


class SpecialFiles(base.RetrievalTestCase):
    def refused(self, args, name, what, one_line=True):
        """bovw `args` exits 1 within seconds; one stderr line names `name` and says `what` (and
        stderr is that one line when `one_line`)."""
        result, seconds = quick_run(*args)
        self.assertEqual(result.returncode, 1, base.describe(result))
        self.assertLess(seconds, 5, base.describe(result))
        naming = [line for line in result.stderr.splitlines() if "'%s'" % name in line]
        self.assertEqual(len(naming), 1, base.describe(result))
        self.assertIn(what, naming[0])
        if one_line:
            self.assertEqual(result.stderr.strip().count("\n"), 0, base.describe(result))
        return result

    def fifo(self, name):
        path = self.path(name)
        os.mkfifo(path)
        return path

    def sparse(self, name, header=b""):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(header)
            f.truncate((1 << 31) + 12345)
        return path

    def test_a_fifo_as_vocabulary_is_refused(self):
        for extension in (".bovw", ".npy", ".yml"):
            with self.subTest(extension=extension):
                pipe = self.fifo("V" + extension)
                self.refused(("index", SET.images, "--vocabulary", pipe, "--output", self.path("I.bovwdb")), pipe,
                             "is a FIFO (named pipe), not")
                self.refused(("histogram", "--images", SET.images, "--vocabulary", pipe, "--output",
                              self.path("H.npy")), pipe, "is a FIFO")

    def test_a_fifo_as_index_or_as_a_shard_is_refused(self):
        pipe = self.fifo("I.bovwdb")
        self.refused(("search", "--index", pipe, SET.paths[0]), pipe, "is a FIFO (named pipe), not")
        # The manifest's second shard replaced by a FIFO: that shard is named.
        folder = self.path("shards")
        os.makedirs(folder)
        with open(os.path.join(SET.root, "S.bovwshards")) as f:
            first, second = json.load(f)["shards"][:2]  # S-g<G>-0.bovwdb, S-g<G>-1.bovwdb
        for name in ("S.bovwshards", first):
            shutil.copy(os.path.join(SET.root, name), folder)
        shard = os.path.join(folder, second)
        os.mkfifo(shard)
        self.refused(("search", "--index", os.path.join(folder, "S.bovwshards"), SET.paths[0]), shard,
                     "is a FIFO")

    def test_a_device_or_a_fifo_as_an_image_is_refused(self):
        self.refused(("search", "--index", SET.database, "/dev/zero"), "/dev/zero",
                     "is a character device, not an image file", one_line=False)
        pipe = self.fifo("q.png")
        self.refused(("search", "--index", SET.database, pipe), pipe, "is a FIFO (named pipe), not an image file",
                     one_line=False)
        self.refused(("extract", "/dev/zero", "--output", self.path("d.yml.gz")), "/dev/zero",
                     "is a character device, not an image file", one_line=False)
        self.assertFalse(os.path.exists(self.path("d.yml.gz")))

    def test_a_folder_named_like_an_image(self):
        # As a query: a folder of queries (search takes folders), here one without images, named in one
        # line. In a folder of images: not listed at all.
        folder = self.path("x.jpg")
        os.makedirs(folder)
        self.refused(("search", "--index", SET.database, folder), folder, "is a folder that holds no image files")
        images = self.folder_with("images", [SET.paths[0]])
        os.makedirs(os.path.join(images, "y.jpg"))
        os.mkfifo(os.path.join(images, "z.png"))
        result, _ = quick_run("index", images, "--vocabulary", SET.vocabulary, "--output", self.path("I.bovwdb"))
        self.assertEqual(result.returncode, 0, base.describe(result))
        self.assertNotIn("y.jpg", result.stderr)
        self.assertNotIn("z.png", result.stderr)

    def test_a_sparse_2gb_file_is_refused_from_its_first_bytes(self):
        big = self.sparse("big.bovwdb")
        self.refused(("search", "--index", big, SET.paths[0]), big, "wrong magic")
        vocabulary = self.sparse("big.bovw")
        self.refused(("index", SET.images, "--vocabulary", vocabulary, "--output", self.path("I.bovwdb")), vocabulary,
                     "wrong magic")
        matrix = self.sparse("big.npy")
        self.refused(("histogram", "--descriptors", matrix, "--vocabulary", SET.vocabulary, "--output",
                      self.path("H.npy")), matrix, "magic")
        # A database's header in front: the empty blocks the zeros declare end at byte 52.
        with open(SET.database, "rb") as f:
            header = f.read(16)
        framed = self.sparse("framed.bovwdb", header)
        self.refused(("search", "--index", framed, SET.paths[0]), framed,
                     "unexpected bytes after the last block (it ends at byte 52)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    options, rest = parser.parse_known_args()
    base.BOVW, base.DATA = os.path.abspath(options.bovw), os.path.abspath(options.data)
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
