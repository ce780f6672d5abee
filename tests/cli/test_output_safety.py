#!/usr/bin/env python3
"""What bovw writes must hold every name it accepts and respect the files it replaces:

- image names (paths) that no output can hold without loss (not UTF-8, control characters such as a
  newline or a carriage return) are refused where they enter, naming the file with its bytes escaped,
  and the other images finish; names with commas, quotes, spaces and non-ASCII letters round-trip
  through CSV (Python's csv module as the reader), JSON and H.names.txt;
- a rewritten output keeps its permission bits, and an output path that is a symbolic link stays a
  link while the file it names is replaced;
- html thumbnails go through the guarded image reader: a result whose file now declares 20000 x 20000
  pixels is not decoded (a warning, "image not readable" on the page, and the run ends in seconds);
- numeric options say what they need ("--work-group: must be positive, not 0");
- every output of every command (and bovw-bench's) is checked before the work: a missing folder, a file
  where the folder should be, a folder no file can be created in (without write permission, or a
  read-only tmpfs when running as root) and an existing folder are each one line naming the option, the
  path and the problem, exit 1, nothing written and no image read; an output that is an input is refused;
- html thumbnails of a database's relative image names are found from another folder (beside the
  database, or under --root); an image found nowhere is one warning and "image not found" on the page.

Usage: test_output_safety.py --bovw PATH/TO/bovw --data tests/data [--bovw-bench PATH/TO/bovw-bench]
Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import argparse
import csv
import io
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

import cli_support

cv2, np = cli_support.require_opencv_and_numpy("test_output_safety.py")

BOVW = None
BOVW_BENCH = None
DATA = None
TIMEOUT = 120
SEED = int(os.environ.get("BOVW_TEST_SEED", time.time_ns() % 1000003))


def run(*args, cwd=None):
    return cli_support.run(BOVW, *args, cwd=cwd, timeout=TIMEOUT)


describe = cli_support.describe


def texture(seed, size=(220, 260)):
    """A random blocky texture: plenty of SURF keypoints, different for every seed."""
    return cli_support.texture(seed, size)


def png_declaring(width, height):
    """A tiny PNG whose header declares width x height pixels (its data is a stub): a decompression bomb
    for any reader that trusts the header."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


class Fixture:
    """A folder of textures (some with awkward but valid names), a vocabulary and a database."""

    def __init__(self, root):
        self.root = root
        self.images = os.path.join(root, "images")
        os.mkdir(self.images)
        self.good_names = ["plain.png", "comma, and \"quote\".png", "space and ünïcödé 画像.png", "semi;colon.jpg"]
        self.bad_names = [b"new\nline.png", b"carriage\rreturn.png", b"latin1-caf\xe9.png", b"tab\there.png"]
        for i, name in enumerate(self.good_names):
            assert cv2.imwrite(os.path.join(self.images, name), texture(SEED + i))
        for i, name in enumerate(self.bad_names):
            with open(os.path.join(os.fsencode(self.images), name), "wb") as f:
                f.write(cv2.imencode(".png", texture(SEED + 100 + i))[1].tobytes())
        self.vocabulary = os.path.join(root, "vocabulary.bovw")
        result = run("train", self.images, "--words", 8, "--output", self.vocabulary, "--seed", 3, "--quiet")
        assert result.returncode == 0, describe(result)
        self.database = os.path.join(root, "index.bovwdb")
        self.index_result = run("index", self.images, "--vocabulary", self.vocabulary, "--output", self.database,
                                "--keypoints", "--quiet")


FIXTURE = None


def setUpModule():
    global FIXTURE, TMP
    TMP = tempfile.TemporaryDirectory(prefix="bovw-output-safety-")
    FIXTURE = Fixture(TMP.name)


def tearDownModule():
    TMP.cleanup()


class Names(unittest.TestCase):
    def test_index_refuses_names_no_output_can_hold(self):
        result = FIXTURE.index_result
        self.assertEqual(result.returncode, 0, describe(result))
        warnings = [line for line in result.stderr.splitlines() if "skipped" in line]
        self.assertEqual(len(warnings), len(FIXTURE.bad_names), describe(result))
        for escaped in ("new\\x0aline.png", "carriage\\x0dreturn.png", "latin1-caf\\xe9.png", "tab\\x09here.png"):
            self.assertTrue(any(escaped in w for w in warnings), (escaped, warnings))
        self.assertTrue(all("rename the file" in w for w in warnings), warnings)

    def test_strict_index_stops_at_a_bad_name_before_reading_images(self):
        output = os.path.join(FIXTURE.root, "strict.bovwdb")
        result = run("index", FIXTURE.images, "--vocabulary", FIXTURE.vocabulary, "--output", output, "--strict",
                     "--quiet")
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, describe(result))
        self.assertIn("is not valid UTF-8" if "caf" in result.stderr else "control character", result.stderr)
        self.assertFalse(os.path.exists(output))

    def search(self, fmt, query):
        result = run("search", "--index", FIXTURE.database, "--top", 10, "--format", fmt, query)
        self.assertEqual(result.returncode, 0, describe(result))
        return result.stdout

    def test_csv_and_json_round_trip_every_accepted_name(self):
        for name in FIXTURE.good_names:
            query = os.path.join(FIXTURE.images, name)
            rows = list(csv.DictReader(io.StringIO(self.search("csv", query), newline="")))
            images = {os.path.basename(row["image"]) for row in rows}
            self.assertEqual(images, set(FIXTURE.good_names), rows)
            self.assertEqual({row["query"] for row in rows}, {query})
            self.assertEqual(os.path.basename(rows[0]["image"]), name)  # the query is indexed: rank 1
            entry = json.loads(self.search("json", query))[0]
            self.assertEqual(entry["query"], query)
            self.assertEqual({os.path.basename(r["image"]) for r in entry["results"]}, set(FIXTURE.good_names))

    def test_query_with_a_bad_name_fails_naming_it(self):
        query = os.path.join(os.fsencode(FIXTURE.images), FIXTURE.bad_names[0])
        result = run("search", "--index", FIXTURE.database, "--format", "json", query)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("new\\x0aline.png", result.stderr)
        self.assertNotIn("new\nline", result.stderr)

    def test_histogram_names_file_has_one_line_per_row(self):
        output = os.path.join(FIXTURE.root, "H.npy")
        result = run("histogram", "--images", FIXTURE.images, "--vocabulary", FIXTURE.vocabulary, "--output",
                     output, "--quiet")
        self.assertEqual(result.returncode, 0, describe(result))
        histograms = np.load(output)
        with open(os.path.join(FIXTURE.root, "H.names.txt"), encoding="utf-8") as f:
            names = f.read().split("\n")
        self.assertEqual(names[-1], "")
        self.assertEqual(len(names) - 1, histograms.shape[0])
        self.assertEqual(sorted(os.path.basename(n) for n in names[:-1]), sorted(FIXTURE.good_names))


class ReplacedFiles(unittest.TestCase):
    def index_to(self, output):
        result = run("index", FIXTURE.images, "--vocabulary", FIXTURE.vocabulary, "--output", output, "--quiet")
        self.assertEqual(result.returncode, 0, describe(result))

    def test_rewrite_keeps_permission_bits(self):
        output = os.path.join(FIXTURE.root, "private.bovwdb")
        self.index_to(output)
        os.chmod(output, 0o600)
        before = os.stat(output).st_ino
        self.index_to(output)
        self.assertNotEqual(os.stat(output).st_ino, before)  # replaced (atomically), not written in place
        self.assertEqual(stat.S_IMODE(os.stat(output).st_mode), 0o600)
        os.chmod(output, 0o640)
        self.index_to(output)
        self.assertEqual(stat.S_IMODE(os.stat(output).st_mode), 0o640)

    def test_symbolic_link_output_stays_a_link(self):
        folder = os.path.join(FIXTURE.root, "linked")
        os.makedirs(os.path.join(folder, "real"))
        target = os.path.join(folder, "real", "db.bovwdb")
        link = os.path.join(folder, "current.bovwdb")
        os.symlink(os.path.join("real", "db.bovwdb"), link)  # relative, and dangling until the first write
        self.index_to(link)
        self.assertTrue(os.path.islink(link))
        self.assertTrue(os.path.isfile(target))
        with open(target, "rb") as f:
            self.assertEqual(f.read(6), b"BOVWDB")
        os.chmod(target, 0o600)
        self.index_to(link)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o600)
        result = run("search", "--index", link, os.path.join(FIXTURE.images, "plain.png"))
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual([f for f in os.listdir(folder) if f.startswith(".bovw-tmp")], [])
        self.assertEqual([f for f in os.listdir(os.path.join(folder, "real")) if f.startswith(".bovw-tmp")], [])

    def test_link_loop_is_refused_naming_the_output(self):
        loop = os.path.join(FIXTURE.root, "loop.bovwdb")
        os.symlink("loop.bovwdb", loop)
        result = run("index", FIXTURE.images, "--vocabulary", FIXTURE.vocabulary, "--output", loop, "--quiet")
        self.assertEqual(result.returncode, 1, describe(result))
        errors = [line for line in result.stderr.splitlines() if "error" in line]
        self.assertEqual(len(errors), 1, describe(result))
        self.assertIn(loop, errors[0])
        self.assertIn("Too many levels of symbolic links", errors[0])


class Thumbnails(unittest.TestCase):
    def test_html_does_not_decode_a_huge_result(self):
        folder = os.path.join(FIXTURE.root, "thumbs")
        os.mkdir(folder)
        for i in range(3):
            assert cv2.imwrite(os.path.join(folder, "t%d.png" % i), texture(SEED + 200 + i))
        database = os.path.join(FIXTURE.root, "thumbs.bovwdb")
        result = run("index", folder, "--vocabulary", FIXTURE.vocabulary, "--output", database, "--quiet")
        self.assertEqual(result.returncode, 0, describe(result))
        query = os.path.join(FIXTURE.root, "query.png")
        assert cv2.imwrite(query, texture(SEED + 200))
        with open(os.path.join(folder, "t1.png"), "wb") as f:  # after indexing: now a 400-megapixel bomb
            f.write(png_declaring(20000, 20000))
        page = os.path.join(FIXTURE.root, "thumbs.html")
        start = time.monotonic()
        result = run("search", "--index", database, "--format", "html", "--output", page, query)
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("no thumbnail of '%s'" % os.path.join(folder, "t1.png"), result.stderr)
        self.assertIn("20000x20000", result.stderr)
        with open(page, encoding="utf-8") as f:
            html = f.read()
        self.assertEqual(html.count("image not readable"), 1)
        self.assertEqual(html.count("data:image/jpeg;base64,"), 3)  # the query and the two readable results


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_only_folder(folder):
    """Makes `folder` one that no file can be created in; returns the system's reason, or None if it cannot.
    Without write permission, except as root (root ignores permissions): there a read-only tmpfs is mounted."""
    os.mkdir(folder)
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        return "Permission denied"
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", folder], capture_output=True)
    return "Read-only file system" if result.returncode == 0 else None


def release_read_only_folder(folder):
    if os.path.ismount(folder):
        subprocess.run(["umount", folder], check=False)
    elif os.path.isdir(folder):
        os.chmod(folder, 0o755)


class UnwritableOutputs(unittest.TestCase):
    """Each command's outputs are checked before its work. The folder of images holds one that cannot be
    read: a run that got to the images would say so, so one line on stderr (the error) and nothing on
    stdout (the report) prove that the check came first."""

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(FIXTURE.root, "unwritable")
        cls.images = os.path.join(cls.root, "images")
        os.makedirs(cls.images)
        for i in range(5):
            assert cv2.imwrite(os.path.join(cls.images, "view%d.png" % i), texture(SEED + 300 + i))
        with open(os.path.join(cls.images, "broken.png"), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n but not an image")
        cls.image = os.path.join(cls.images, "view0.png")
        cls.database = os.path.join(cls.root, "views.bovwdb")
        result = run("index", cls.images, "--vocabulary", FIXTURE.vocabulary, "--output", cls.database, "--quiet")
        assert result.returncode == 0 and "broken.png" in result.stderr, describe(result)
        cls.groups = os.path.join(cls.root, "groups.csv")
        with open(cls.groups, "w") as f:
            f.write("image,group\n" + "".join("%s,%d\n" % (os.path.join(cls.images, "view%d.png" % i), i // 2)
                                              for i in range(5)))
        cls.descriptors = os.path.join(cls.root, "X.npy")
        np.save(cls.descriptors, np.random.default_rng(SEED).random((50, 64), dtype=np.float32))
        cls.missing = os.path.join(cls.root, "missing")
        cls.file = os.path.join(cls.root, "a-file")
        with open(cls.file, "w") as f:
            f.write("not a folder\n")
        cls.read_only = os.path.join(cls.root, "read-only")
        cls.read_only_reason = read_only_folder(cls.read_only)

    @classmethod
    def tearDownClass(cls):
        release_read_only_folder(cls.read_only)

    def commands(self):
        """(what, option, extension, command line for an output path): every command's every output."""
        vocabulary, images, database = FIXTURE.vocabulary, self.images, self.database
        good = os.path.join(self.root, "good")
        commands = [
            ("train", "--output", ".bovw",
             lambda out: (BOVW, "train", images, "--words", 4, "--output", out, "--quiet")),
            ("histogram --images", "--output", ".npy",
             lambda out: (BOVW, "histogram", "--images", images, "--vocabulary", vocabulary, "--output", out,
                          "--quiet")),
            ("histogram --assignments", "--assignments", ".npy",
             lambda out: (BOVW, "histogram", "--descriptors", self.descriptors, "--vocabulary", vocabulary,
                          "--output", good + ".npy", "--assignments", out)),
            ("index", "--output", ".bovwdb",
             lambda out: (BOVW, "index", images, "--vocabulary", vocabulary, "--output", out, "--quiet")),
            ("index --shards", "--output", ".bovwshards",
             lambda out: (BOVW, "index", images, "--vocabulary", vocabulary, "--output", out, "--shards", 2,
                          "--quiet")),
            ("search", "--output", ".json",
             lambda out: (BOVW, "search", "--index", database, "--output", good + ".csv", "--output", out, images)),
            ("evaluate", "--json", ".json",
             lambda out: (BOVW, "evaluate", "--index", database, "--groups", self.groups, "--json", out)),
            ("extract", "--output", ".yml.gz", lambda out: (BOVW, "extract", self.image, "-o", out)),
        ]
        if BOVW_BENCH:
            commands.append(("bovw-bench", "--json", ".json",
                             lambda out: (BOVW_BENCH, "--sizes", "64x8", "--variants", "serial", "--json", out)))
            commands.append(("bovw-bench --tune", "--save-tuning", ".json",
                             lambda out: (BOVW_BENCH, "--tune", "64x8", "--save-tuning", out)))
        return commands, good

    def places(self, extension):
        """(case, output path, problem): every kind of output that cannot be written."""
        places = [("missing folder", os.path.join(self.missing, "out" + extension),
                   "the folder '%s' does not exist" % self.missing),
                  ("folder is a file", os.path.join(self.file, "out" + extension),
                   "'%s' is not a folder" % self.file),
                  ("path is a folder", os.path.join(self.root, "a-folder" + extension), "it is a directory")]
        if self.read_only_reason:
            places.append(("read-only folder", os.path.join(self.read_only, "out" + extension),
                           "cannot write in folder '%s': %s" % (self.read_only, self.read_only_reason)))
        return places

    def assertFailsFast(self, command, message, cwd=None):
        start = time.monotonic()
        result = cli_support.run(command[0], *command[1:], cwd=cwd, timeout=TIMEOUT)
        seconds = time.monotonic() - start
        self.assertEqual(result.returncode, 1, describe(result))
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, describe(result))  # no image was read: broken.png would be reported
        self.assertIn("error", lines[0])
        self.assertIn(message, lines[0])
        self.assertEqual(result.stdout, "", describe(result))
        self.assertLess(seconds, 20)
        return lines[0]

    def test_every_output_is_checked_before_the_work(self):
        if not self.read_only_reason:
            print("test_output_safety.py: no read-only folder to test (not root, or mount failed)", file=sys.stderr)
        commands, good = self.commands()
        for what, option, extension, command in commands:
            for case, out, problem in self.places(extension):
                if what == "extract" and case == "path is a folder":
                    continue  # an existing folder is where extract puts one file per image
                with self.subTest(command=what, case=case):
                    if case == "path is a folder":
                        os.makedirs(out, exist_ok=True)
                    line = self.assertFailsFast(command(out), "%s '%s': %s" % (option, out, problem))
                    self.assertEqual(line.count(out), 1, line)
                    if case == "path is a folder":
                        self.assertEqual(os.listdir(out), [])
                    else:
                        self.assertFalse(os.path.lexists(out))
                    for name in ("good.npy", "good.csv"):  # the other outputs are not written either
                        self.assertFalse(os.path.exists(os.path.join(self.root, name)), name)
                    self.assertEqual([f for f in os.listdir(self.root) if f.startswith(".bovw-tmp")], [])

    def test_the_checked_outputs_are_written_when_they_can_be(self):
        commands, good = self.commands()
        folder = os.path.join(self.root, "writable")
        os.mkdir(folder)
        for what, option, extension, command in commands:
            if what.startswith("bovw-bench --tune"):
                continue  # needs an OpenCL device
            with self.subTest(command=what):
                out = os.path.join(folder, "out" + extension)
                result = cli_support.run(*command(out), timeout=TIMEOUT)
                self.assertIn(result.returncode, (0, 1), describe(result))  # 1: broken.png
                self.assertTrue(os.path.isfile(out), describe(result))
                self.assertEqual([f for f in os.listdir(folder) if f.startswith(".bovw-tmp")], [])
                for name in ("good.npy", "good.csv"):
                    if os.path.exists(os.path.join(self.root, name)):
                        os.remove(os.path.join(self.root, name))

    def test_extract_to_a_folder_that_cannot_be_written(self):
        if not self.read_only_reason:
            self.skipTest("no read-only folder (not root, or mount failed)")
        # A folder to create inside it, and the folder itself: its first image's output is tried.
        created = os.path.join(self.read_only, "features")
        self.assertFailsFast((BOVW, "extract", self.images, "-o", created),
                             "--output '%s': cannot create the folder: %s" % (created, self.read_only_reason))
        first = os.path.join(self.read_only, "broken.yml.gz")
        self.assertFailsFast((BOVW, "extract", self.images, "-o", self.read_only),
                             "--output '%s': cannot write in folder '%s': %s" % (first, self.read_only,
                                                                                 self.read_only_reason))

    def test_search_html_in_a_folder_that_cannot_be_written(self):
        if not self.read_only_reason:
            self.skipTest("no read-only folder (not root, or mount failed)")
        self.assertFailsFast((BOVW, "search", "--index", self.database, "--format", "html", self.images),
                             "--output 'bovw-search.html': cannot write in folder '.': " + self.read_only_reason,
                             cwd=self.read_only)

    def test_an_output_that_is_an_input_is_refused(self):
        vocabulary = os.path.join(self.root, "inputs-vocabulary.bovw")
        shutil.copyfile(FIXTURE.vocabulary, vocabulary)
        copy = os.path.join(self.root, "inputs-image.png")
        shutil.copyfile(self.image, copy)
        both = os.path.join(self.root, "both.npy")
        cases = [
            ((BOVW, "index", self.images, "--vocabulary", vocabulary, "--output", vocabulary),
             "--output '%s' is --vocabulary '%s': it would be overwritten" % (vocabulary, vocabulary)),
            ((BOVW, "search", "--index", self.database, "--output", self.database, self.images),
             "--output '%s' is --index '%s': it would be overwritten" % (self.database, self.database)),
            ((BOVW, "evaluate", "--index", self.database, "--groups", self.groups, "--json", self.groups),
             "--json '%s' is --groups '%s': it would be overwritten" % (self.groups, self.groups)),
            ((BOVW, "extract", copy, "-o", copy),
             "--output '%s' is the image '%s': it would be overwritten" % (copy, copy)),
            ((BOVW, "histogram", "--descriptors", self.descriptors, "--vocabulary", vocabulary, "--output", both,
              "--assignments", both),
             "--output '%s' and --assignments '%s' are the same file" % (both, both)),
        ]
        before = {path: read_bytes(path) for path in (vocabulary, self.database, self.groups, copy)}
        for command, message in cases:
            with self.subTest(command=command[1]):
                self.assertFailsFast(command, message)
        self.assertEqual({path: read_bytes(path) for path in before}, before)
        self.assertFalse(os.path.exists(both))


class RelativeNames(unittest.TestCase):
    """A database holds the image names that `bovw index` was given: relative to the folder it ran in.
    html thumbnails find them from anywhere: beside the database, or under --root."""

    @classmethod
    def setUpClass(cls):
        cls.project = os.path.join(FIXTURE.root, "project")
        os.makedirs(os.path.join(cls.project, "photos"))
        os.makedirs(os.path.join(cls.project, "databases"))
        cls.elsewhere = os.path.join(FIXTURE.root, "elsewhere")
        os.mkdir(cls.elsewhere)
        cls.names = ["photos/p%d.png" % i for i in range(4)]
        for i, name in enumerate(cls.names):
            assert cv2.imwrite(os.path.join(cls.project, name), texture(SEED + 400 + i))
        for output in ("beside.bovwdb", "databases/apart.bovwdb"):
            result = run("index", "photos", "--vocabulary", FIXTURE.vocabulary, "--output", output, "--quiet",
                         cwd=cls.project)
            assert result.returncode == 0, describe(result)
        cls.query = os.path.join(cls.project, "photos", "p0.png")

    def search_html(self, database, *options):
        page = os.path.join(self.elsewhere, "page.html")
        if os.path.exists(page):
            os.remove(page)
        result = run("search", "--index", database, "--top", 4, "--output", page, *options, self.query,
                     os.path.join(self.project, "photos", "p1.png"), cwd=self.elsewhere)
        self.assertEqual(result.returncode, 0, describe(result))
        with open(page, encoding="utf-8") as f:
            return f.read(), result.stderr

    def test_names_are_stored_as_given(self):
        result = run("search", "--index", os.path.join(self.project, "beside.bovwdb"), "--top", 4, "--format", "json",
                     self.query, cwd=self.elsewhere)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(sorted(r["image"] for r in json.loads(result.stdout)[0]["results"]), self.names)

    def test_beside_the_database_from_another_folder(self):
        html, stderr = self.search_html(os.path.join(self.project, "beside.bovwdb"))
        self.assertEqual(html.count("data:image/jpeg;base64,"), 2 + 2 * 4)  # two queries, four results each
        self.assertNotIn("image not", html)
        self.assertNotIn("warn", stderr)
        # A relative --index: its folder, relative to the current one.
        html, stderr = self.search_html(os.path.join("..", "project", "beside.bovwdb"))
        self.assertEqual(html.count("data:image/jpeg;base64,"), 10)
        self.assertNotIn("warn", stderr)

    def test_found_nowhere_is_one_warning_per_image(self):
        html, stderr = self.search_html(os.path.join(self.project, "databases", "apart.bovwdb"))
        self.assertEqual(html.count("data:image/jpeg;base64,"), 2)  # the queries, given from here
        self.assertEqual(html.count("image not found"), 8)
        for name in self.names:
            self.assertIn('title="%s"' % name, html)  # the name is shown, without a broken image
            warnings = [line for line in stderr.splitlines() if "'%s'" % name in line]
            self.assertEqual(len(warnings), 1, stderr)  # once, though both queries show it
            self.assertIn("warn", warnings[0])
            self.assertIn("not found from the current folder nor from the database's folder", warnings[0])
            self.assertIn("--root", warnings[0])
        self.assertEqual(len(stderr.splitlines()), 4 + 1, stderr)  # and the "wrote" line

    def test_root_names_the_folder_of_the_names(self):
        html, stderr = self.search_html(os.path.join(self.project, "databases", "apart.bovwdb"), "--root",
                                        self.project)
        self.assertEqual(html.count("data:image/jpeg;base64,"), 10)
        self.assertNotIn("warn", stderr)
        html, stderr = self.search_html(os.path.join(self.project, "databases", "apart.bovwdb"), "--root",
                                        os.path.join("..", "project"))
        self.assertEqual(html.count("data:image/jpeg;base64,"), 10)
        # --root overrides the fallback: a wrong one finds nothing, and says where it looked.
        html, stderr = self.search_html(os.path.join(self.project, "beside.bovwdb"), "--root", self.elsewhere)
        self.assertEqual(html.count("image not found"), 8)
        self.assertEqual(len([l for l in stderr.splitlines() if "warn" in l]), 4, stderr)
        self.assertIn(os.path.join(self.elsewhere, "photos", "p2.png"), stderr)

    def test_root_must_be_a_folder(self):
        result = run("search", "--index", os.path.join(self.project, "beside.bovwdb"), "--root",
                     os.path.join(self.project, "nowhere"), self.query)
        self.assertEqual(result.returncode, 2, describe(result))
        self.assertIn("--root", result.stderr)


class OptionMessages(unittest.TestCase):
    def test_numeric_options_say_what_they_need(self):
        cases = [(("histogram", "--descriptors", "x.npy", "--vocabulary", "v.npy", "--output", "h.npy",
                   "--work-group", "0"), "--work-group: must be positive, not 0"),
                 (("search", "--index", "x.bovwdb", "--top", "-3", "q.png"), "--top: must be positive, not -3"),
                 (("train", FIXTURE.images, "--words", "abc", "--output", "v.bovw"), "'abc' is not a number")]
        for args, message in cases:
            result = run(*args)
            self.assertEqual(result.returncode, 2, describe(result))
            self.assertIn(message, result.stderr)
            self.assertNotIn("1797693", result.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bovw", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--bovw-bench")
    args, rest = parser.parse_known_args()
    BOVW = os.path.abspath(args.bovw)
    BOVW_BENCH = os.path.abspath(args.bovw_bench) if args.bovw_bench else None
    DATA = args.data
    print("test_output_safety.py: seed %d (BOVW_TEST_SEED to repeat)" % SEED, file=sys.stderr)
    unittest.main(argv=[sys.argv[0]] + rest)
