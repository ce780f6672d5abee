#!/usr/bin/env python3
"""End-to-end tests of live databases: `bovw index --live`, `bovw add`, `bovw remove`, `bovw convert`,
`bovw list`, and `bovw search` on them, across processes.

Usage: test_live_database.py --bovw PATH/TO/bovw --data tests/data [unittest options]

The image set is test_retrieval.py's (4 scenes x 4 views). Checked:
- after adds and removes (with a name removed and added back), search ranks exactly as a database
  indexed afresh from the final images (every image's score, all scorings), and `bovw list` names
  exactly the final images; added keypoints verify as in a fresh database with keypoints; `convert`
  of a .bovwdb and of a shard manifest searches as the original;
- `bovw add` killed with SIGKILL at random moments, many times: every add that exited 0 is there,
  the killed one entirely or not at all, and the database opens and searches after each kill;
- searches in other processes while a writer adds and removes pairs of identical images: every
  search succeeds and sees both of a pair or neither, never one;
- two writers at once: both succeed (they take turns), or, adding the same name, one fails naming it;
- refusals: add/remove on a file database or a plain folder, a name that is not there (nothing
  removed), index --live over an existing path or with shards, a truncated data file.
Random choices (kill moments) come from BOVW_TEST_SEED, printed at the start.

Needs numpy and python3-opencv (Debian packages); exit status 77 (CTest: skipped) without them.
"""
import csv
import io
import json
import os
import re
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

SET = None
SEED = None


def setUpModule():
    global SET
    SET = base.shared_set("bovw_live_cli_")


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def scores(stdout):
    """search's csv as {query: {image basename: score}}."""
    result = {}
    for row in csv.DictReader(io.StringIO(stdout)):
        result.setdefault(os.path.basename(row["query"]), {})[os.path.basename(row["image"])] = float(row["score"])
    return result


class LiveTestCase(base.RetrievalTestCase):
    def live(self, images, name="L", keypoints=False):
        """A live database of `images` (a folder), at self.path(name)."""
        path = self.path(name)
        self.ok("index", images, "--vocabulary", SET.vocabulary, "--output", path, "--live", "--quiet",
                *(["--keypoints"] if keypoints else []))
        return path

    def names(self, database):
        return self.ok("list", "--index", database).stdout.splitlines()

    def search_all(self, database, *extra):
        """Every image of the set as a query, every result (scores to 6 digits)."""
        return scores(self.ok("search", "--index", database, "--top", 100, "--quiet", *extra, *SET.paths).stdout)

    def folder_of(self, name, paths):
        folder = self.path(name)
        os.makedirs(folder)
        for p in paths:
            shutil.copy(p, folder)
        return folder


class AddAndRemove(LiveTestCase):
    def test_adds_and_removes_search_as_a_database_indexed_afresh(self):
        first = self.folder_of("first", SET.paths[:8])
        live = self.live(first)
        # Added in two commands (files and a folder), some removed, one of them added back.
        self.ok("add", "--index", live, "--quiet", SET.paths[8], SET.paths[9])
        self.ok("add", "--index", live, "--quiet", self.folder_of("more", SET.paths[10:14]))
        gone = [os.path.join(first, os.path.basename(p)) for p in (SET.paths[1], SET.paths[5])] + \
            [os.path.join(self.path("more"), os.path.basename(SET.paths[12]))]
        self.ok("remove", "--index", live, *gone)
        self.ok("add", "--index", live, "--quiet", gone[0])
        final = [p for p in SET.paths[:14] if p not in (SET.paths[5], SET.paths[12])]
        self.assertEqual(sorted(os.path.basename(n) for n in self.names(live)),
                         sorted(os.path.basename(p) for p in final))
        fresh = self.path("fresh.bovwdb")
        self.ok("index", self.folder_of("final", final), "--vocabulary", SET.vocabulary, "--output", fresh, "--quiet")
        for scoring in ("intersection", "cosine+sqrt", "intersection+log+power0.5"):
            expected = self.search_all(fresh, "--scoring", scoring)
            got = self.search_all(live, "--scoring", scoring)
            self.assertEqual(got.keys(), expected.keys())
            for query in expected:
                self.assertEqual(got[query].keys(), expected[query].keys(), query)
                for image, score in expected[query].items():
                    self.assertAlmostEqual(got[query][image], score, delta=1.5e-6, msg="%s %s" % (query, image))

    def test_convert_of_a_file_and_of_shards_searches_as_the_original(self):
        for output in ("D.bovwdb", "S.bovwshards"):
            original = self.path(output)
            self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", original, "--quiet",
                    *(["--shards", 3] if output.endswith("shards") else []))
            live = self.path(output + ".live")
            self.ok("convert", "--index", original, "--output", live)
            self.assertEqual(self.names(live), self.names(original))
            self.assertEqual(self.ok("search", "--index", live, "--top", 100, "--quiet", *SET.paths).stdout,
                             self.ok("search", "--index", original, "--top", 100, "--quiet", *SET.paths).stdout)

    def test_added_keypoints_verify_as_in_a_database_indexed_afresh(self):
        live = self.live(self.folder_of("first", SET.paths[4:]), keypoints=True)
        self.ok("add", "--index", live, "--quiet", *SET.paths[:4])
        fresh = self.path("fresh.bovwdb")
        self.ok("index", self.folder_of("all", SET.paths[4:] + SET.paths[:4]), "--vocabulary", SET.vocabulary,
                "--output", fresh, "--keypoints", "--quiet")
        search = ("search", "--top", 8, "--verify", 8, "--quiet", "--format", "json", SET.new_view, *SET.paths[:4])
        got = json.loads(self.ok(*search[:1], "--index", live, *search[1:]).stdout)
        expected = json.loads(self.ok(*search[:1], "--index", fresh, *search[1:]).stdout)

        def hits(answer):
            # Sorted: images of equal score may come in either order (their ids differ).
            return [sorted((os.path.basename(h["image"]), h["inliers"], h["verified"], round(h["score"], 6))
                           for h in q["results"]) for q in answer]
        self.assertEqual(hits(got), hits(expected))
        self.assertGreater(sum(h[2] for q in hits(got) for h in q), 0, "nothing verified: the test checks nothing")


class Checkpoint(LiveTestCase):
    @staticmethod
    def damage_checkpoint(live):
        """Flips a bit of the checkpoint's state (inside its generation: its checksum no longer holds),
        and of any earlier one's whose pages LMDB has not reused yet."""
        data = os.path.join(live, "data.mdb")
        with open(data, "rb") as f:
            content = bytearray(f.read())
        states = [m.start() for m in re.finditer(b"BOVWCKPT", content)]
        assert states, "no checkpoint in the data file"
        for state in states:
            content[state + 20] ^= 0x01
        with open(data, "r+b") as f:
            f.write(content)

    def test_a_damaged_checkpoint_is_named_and_the_records_searched_instead(self):
        live = self.live(SET.images)  # index --live writes a checkpoint
        expected = self.ok("search", "--index", live, "--top", 100, "--quiet", *SET.paths)
        self.assertNotIn("warning", expected.stderr)
        self.damage_checkpoint(live)
        got = self.ok("search", "--index", live, "--top", 100, "--quiet", *SET.paths)
        self.assertEqual(got.stdout, expected.stdout)
        self.assertEqual(got.stderr.count("\n"), 1, got.stderr)
        self.assertIn("warning: its checkpoint was not used", got.stderr)
        self.assertIn(live, got.stderr)
        self.assertIn("does not match its checksum", got.stderr)
        # The next write writes a new one (a write due to checkpoint starts the program again first,
        # with malloc in huge pages): the image goes once, and the warning goes.
        names = self.names(live)
        removed = self.ok("remove", "--index", live, names[0])
        self.assertIn("checkpoint was not used", removed.stderr)
        self.assertIn("removed 1 images", removed.stdout)
        self.assertEqual(self.names(live), names[1:])
        after = self.ok("search", "--index", live, "--top", 5, "--quiet", SET.paths[0])
        self.assertNotIn("warning", after.stderr)
        # The same for an add: the image is added once.
        self.damage_checkpoint(live)
        added = self.ok("add", "--index", live, "--quiet", SET.paths[0])
        self.assertIn("added 1 images", added.stdout)
        self.assertEqual(sorted(self.names(live)), sorted(names[1:] + [SET.paths[0]]))
        after = self.ok("search", "--index", live, "--top", 5, "--quiet", SET.paths[0])
        self.assertNotIn("warning", after.stderr)


class Processes(LiveTestCase):
    def test_kill_9_during_adds_leaves_each_add_whole_or_absent(self):
        rng = random.Random(SEED)
        live = self.live(self.folder_of("first", SET.paths[:2]))
        # How long a whole add takes here: the kills aim at its end, where it writes.
        started = time.monotonic()
        self.ok("add", "--index", live, "--quiet", self.folder_of("timed", SET.paths[2:6]))
        duration = time.monotonic() - started
        present = set(os.path.basename(n) for n in self.names(live))
        outcomes = {"finished": 0, "killed, in": 0, "killed, not in": 0}
        for trial in range(14):
            # Each batch: four copies of images under new names, added by one command.
            batch = self.path("batch%d" % trial)
            os.makedirs(batch)
            for i, p in enumerate(rng.sample(SET.paths, 4)):
                shutil.copy(p, os.path.join(batch, "t%d_%d%s" % (trial, i, os.path.splitext(p)[1])))
            names = set(os.listdir(batch))
            process = subprocess.Popen([base.BOVW, "add", "--index", live, "--quiet", batch],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(rng.uniform(0.5, 1.1) * duration)
            process.send_signal(signal.SIGKILL)
            status = process.wait()
            process.stderr.close()
            now = set(os.path.basename(n) for n in self.names(live))
            if status == 0:  # it finished before the kill: its images must all be there
                self.assertEqual(now, present | names, "trial %d" % trial)
                outcomes["finished"] += 1
            else:
                self.assertIn(now, (present, present | names), "trial %d: a killed add left part of its images" % trial)
                outcomes["killed, in" if now != present else "killed, not in"] += 1
            present = now
            self.assertEqual(self.ok("search", "--index", live, "--quiet", SET.paths[0]).returncode, 0)
        print("adds killed at random: %s" % outcomes, file=sys.stderr)

    def test_searches_in_other_processes_see_whole_writes_only(self):
        live = self.live(self.folder_of("first", SET.paths[:12]))
        twin = self.path("twin")
        os.makedirs(twin)
        source = SET.paths[13]
        pair = [os.path.join(twin, "a.png"), os.path.join(twin, "b.png")]
        for p in pair:
            shutil.copy(source, p)
        failures = []

        def writer():
            try:
                for _ in range(6):
                    for args in (("add", "--index", live, "--quiet") + tuple(pair), ("remove", "--index", live) + tuple(pair)):
                        result = base.run(*args)
                        if result.returncode != 0:
                            failures.append(base.describe(result))
            except Exception as e:  # noqa: BLE001 (reported by the test)
                failures.append(repr(e))

        thread = threading.Thread(target=writer)
        thread.start()
        seen = set()
        try:
            while thread.is_alive():
                result = base.run("search", "--index", live, "--top", 100, "--quiet", source)
                self.assertEqual(result.returncode, 0, base.describe(result))
                found = {os.path.basename(r["image"]) for r in csv.DictReader(io.StringIO(result.stdout))} & {"a.png", "b.png"}
                self.assertIn(len(found), (0, 2), "a search saw half of a write:\n" + result.stdout)
                seen.add(len(found))
        finally:
            thread.join()
        self.assertEqual(failures, [])
        print("searches during writes saw %s of the pair" % sorted(seen), file=sys.stderr)

    def test_two_writers_take_turns(self):
        live = self.live(self.folder_of("first", SET.paths[:4]))
        one, two = self.folder_of("one", SET.paths[4:10]), self.folder_of("two", SET.paths[10:16])
        processes = [subprocess.Popen([base.BOVW, "add", "--index", live, "--quiet", folder], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True) for folder in (one, two)]
        for p in processes:
            out, err = p.communicate(timeout=base.TIMEOUT)
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual(len(self.names(live)), 16)
        # The same name from two writers: one adds it, the other fails naming it.
        same = self.folder_of("same", SET.paths[:1])
        processes = [subprocess.Popen([base.BOVW, "add", "--index", live, "--quiet", "--strict", os.path.join(same, n)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for n in (os.path.basename(SET.paths[0]),) * 2]
        results = [(p.communicate(timeout=base.TIMEOUT), p.returncode) for p in processes]
        self.assertEqual(sorted(status for _, status in results), [0, 1], results)
        failed = [err for (out, err), status in results if status == 1][0]
        self.assertIn(os.path.basename(SET.paths[0]), failed)
        self.assertIn("already", failed)
        self.assertEqual(len(self.names(live)), 17)


class Refusals(LiveTestCase):
    def test_what_is_not_a_live_database_is_refused_naming_it(self):
        database = self.path("D.bovwdb")
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", database, "--quiet")
        with open(database, "rb") as f:
            before = f.read()
        self.fails("add", "--index", database, SET.paths[0], names=[database, "not a live database"])
        self.fails("remove", "--index", database, SET.paths[0], names=[database, "not a live database"])
        with open(database, "rb") as f:
            self.assertEqual(f.read(), before)
        folder = self.path("plain")
        os.makedirs(folder)
        self.fails("add", "--index", folder, SET.paths[0], names=[folder])
        self.fails("search", "--index", folder, SET.paths[0], names=[folder])
        self.assertEqual(os.listdir(folder), [])

    def test_a_name_that_is_not_there_removes_nothing(self):
        live = self.live(SET.images)
        names = self.names(live)
        self.fails("remove", "--index", live, names[0], "nothere.png", names=["nothere.png", live])
        self.assertEqual(self.names(live), names)
        self.fails("remove", "--index", live, status=2)

    def test_index_live_refuses_an_existing_path_and_shards(self):
        existing = self.path("exists")
        os.makedirs(existing)
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", existing, "--live", names=[existing])
        self.fails("index", SET.images, "--vocabulary", SET.vocabulary, "--output", self.path("S.bovwshards"),
                   "--live", "--shards", 2, names=["shards"], outputs=[self.path("S.bovwshards")])
        self.assertEqual(sorted(os.listdir(self.dir)), ["exists"])

    def test_a_truncated_data_file_is_refused_naming_the_database(self):
        live = self.live(SET.images)
        data = os.path.join(live, "data.mdb")
        size = os.path.getsize(data)
        with open(data, "r+b") as f:
            f.truncate(size // 2)
        for command in (("search", "--index", live, SET.paths[0]), ("add", "--index", live, SET.paths[0]),
                        ("list", "--index", live)):
            result = self.fails(*command, names=[live])
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, base.describe(result))


def choose_seed():
    global SEED
    SEED = base.choose_seed()


if __name__ == "__main__":
    sys.exit(base.main("test_live_database.py", choose_seed))
