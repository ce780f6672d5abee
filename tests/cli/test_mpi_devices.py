#!/usr/bin/env python3
"""End-to-end tests of how the ranks of `bovw-mpi` pick their devices, of the results they stream
to rank 0 while they work, and of `--profile`, under mpirun -np 2 and -np 3 on PoCL (issue 27).

Checked: with no device spec every rank takes PoCL's one CPU device (the default's fallback when
there is no GPU) and nothing is said but the devices line; a spec that pins that device (--device 0:0,
or $BOVW_DEVICE=cpu) gives it to every rank, and rank 0 says so in one warning line naming the
device and every rank; with PoCL showing two devices (POCL_DEVICES="pthread pthread"), --device cpu
spreads two ranks over 0:0 and 0:1 without a warning, and a third rank goes back to 0:0, the warning
naming ranks 0 and 2 only. Every database is byte for byte `bovw index`'s of the same folder, the
ranks streaming batches of 3 images (with and without --keypoints). --profile prints one table on
rank 0, a line per rank and the sum and max over ranks, whose images add up to the folder's.

Usage: as mpi_support.py says, plus unittest options. Needs numpy, python3-opencv and MPI; exit
status 77 (CTest: skipped) without the Python modules.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_support as mpi  # noqa: E402 (the launcher and jobs under it)
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SET = None
TWO_POCL_DEVICES = {"POCL_DEVICES": "pthread pthread"}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def setUpModule():
    global SET
    SET = base.shared_set("bovw_mpi_devices_cli_")
    SET.single = os.path.join(SET.root, "single")
    os.makedirs(SET.single)
    index = ("index", SET.images, "--vocabulary", SET.vocabulary, "--output")
    base.set_up(index + (os.path.join(SET.single, "I.bovwdb"),),
                index + (os.path.join(SET.single, "K.bovwdb"), "--keypoints"))


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def devices_of_ranks(stderr):
    """{rank: "P:D"} from rank 0's devices line."""
    lines = [line for line in stderr.splitlines() if ": info: devices: " in line]
    assert len(lines) == 1, "one devices line expected:\n" + stderr
    return {int(r): d for r, d in re.findall(r"rank (\d+): (\d+:\d+) ", lines[0])}


def warnings_about_devices(stderr):
    return [line for line in stderr.splitlines() if ": warning: devices: " in line]


class MpiDevices(base.RetrievalTestCase):
    def index(self, ranks, *extra, env=None, database="I.bovwdb"):
        """bovw-mpi index of the set under `ranks` ranks, in batches of 3 images; its database must
        be `bovw index`'s byte for byte."""
        out = self.path("r%d.bovwdb" % ranks)
        result = mpi.run("index", SET.images, "--vocabulary", SET.vocabulary, "--batch", 3, "--output", out, *extra,
                         ranks=ranks, env=env)
        self.assertEqual(result.returncode, 0, base.describe(result))
        self.assertEqual(read(out), read(os.path.join(SET.single, database)), "%d ranks: %s differs" % (ranks, database))
        self.assertEqual(result.stdout.count("bovw index: 16 images"), 1, base.describe(result))
        os.remove(out)
        return result

    def test_the_default_gives_every_rank_the_cpu_device_and_says_nothing_more(self):
        for ranks in (2, 3):
            with self.subTest(ranks=ranks):
                result = self.index(ranks)
                self.assertEqual(devices_of_ranks(result.stderr), {r: "0:0" for r in range(ranks)}, result.stderr)
                self.assertEqual(warnings_about_devices(result.stderr), [], result.stderr)

    def test_a_spec_pinning_one_device_gives_it_to_every_rank_and_warns_once(self):
        for ranks, extra, env, origin in ((2, ("--device", "0:0"), None, "--device '0:0'"),
                                          (3, (), {"BOVW_DEVICE": "cpu"}, "$BOVW_DEVICE 'cpu'")):
            with self.subTest(ranks=ranks, spec=origin):
                result = self.index(ranks, *extra, env=env)
                self.assertEqual(devices_of_ranks(result.stderr), {r: "0:0" for r in range(ranks)}, result.stderr)
                warnings = warnings_about_devices(result.stderr)
                self.assertEqual(len(warnings), 1, result.stderr)
                self.assertTrue(warnings[0].startswith("bovw[0/%d]: warning: devices: ranks %s share 0:0 "
                                                       % (ranks, ", ".join(str(r) for r in range(ranks)))), warnings[0])
                self.assertIn("(%s matches 1 device there for %d ranks)" % (origin, ranks), warnings[0])

    def test_a_spec_matching_two_devices_spreads_the_ranks_over_them(self):
        listed = subprocess.run([base.BOVW, "devices"], capture_output=True, text=True,
                                env=mpi.environment(TWO_POCL_DEVICES), timeout=base.TIMEOUT)
        if "[0:1]" not in listed.stdout:
            self.skipTest("PoCL shows no second device with POCL_DEVICES='pthread pthread': " + listed.stdout)
        result = self.index(2, "--device", "cpu", env=TWO_POCL_DEVICES)
        self.assertEqual(devices_of_ranks(result.stderr), {0: "0:0", 1: "0:1"}, result.stderr)
        self.assertEqual(warnings_about_devices(result.stderr), [], result.stderr)
        # A third rank goes back to the first device: ranks 0 and 2 share it, rank 1 has its own.
        result = self.index(3, "--device", "cpu", "--keypoints", env=TWO_POCL_DEVICES, database="K.bovwdb")
        self.assertEqual(devices_of_ranks(result.stderr), {0: "0:0", 1: "0:1", 2: "0:0"}, result.stderr)
        warnings = warnings_about_devices(result.stderr)
        self.assertEqual(len(warnings), 1, result.stderr)
        self.assertIn(": warning: devices: ranks 0, 2 share 0:0 ", warnings[0])
        self.assertIn("(--device 'cpu' matches 2 devices there for 3 ranks)", warnings[0])
        self.assertNotIn("0:1", warnings[0])

    def test_streamed_keypoints_are_the_single_process_database(self):
        for ranks in (2, 3):
            with self.subTest(ranks=ranks):
                self.index(ranks, "--keypoints", database="K.bovwdb")

    def test_profile_prints_one_table_of_the_ranks_on_rank_0(self):
        for ranks in (1, 3):
            with self.subTest(ranks=ranks):
                result = self.index(ranks, "--profile")
                number = r" +(\d+\.\d+)"
                rows = re.findall(r"^profile: +(\d+|sum|max)" + number * 7 + r" +(\d+) +(\d+\.\d+)(?: +(\d+(?:\.\d+)?))?$",
                                  result.stderr, re.MULTILINE)
                self.assertEqual([row[0] for row in rows], [str(r) for r in range(ranks)] + ["sum", "max"],
                                 result.stderr)
                self.assertEqual(result.stderr.count("profile:   rank  start-up"), 1, result.stderr)
                by_rank = rows[:ranks]
                self.assertEqual(sum(int(row[8]) for row in by_rank), 16, result.stderr)  # images
                self.assertEqual(int(rows[ranks][8]), 16, result.stderr)
                for row in by_rank:
                    phases = [float(v) for v in row[1:7]]
                    total = float(row[7])
                    # The phases follow one another: their sum is the rank's total (to the printed digits).
                    self.assertAlmostEqual(sum(phases), total, delta=0.01, msg=result.stderr)
                    self.assertGreater(phases[0], 0, result.stderr)  # start-up
                self.assertGreater(float(rows[0][6]), 0, result.stderr)  # rank 0 writes


if __name__ == "__main__":
    sys.exit(mpi.main("test_mpi_devices.py"))
