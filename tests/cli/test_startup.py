"""End-to-end tests of start-up and the default backend (python3 unittest + numpy):

- `--backend auto`, the default: `bovw devices` says what it runs here, and a default `bovw histogram`
  writes what the backend it names writes (identical to the golden `openmp`'s output); a device named
  for auto that matches nothing is reported, not passed over in silence;
- the on-disk program cache: `bovw histogram --backend opencl` with a cold cache, a warm one, and
  BOVW_KERNEL_CACHE=off writes identical histograms; off writes no entry; two processes filling one
  cache folder at once leave entries that a third loads without a word; a damaged entry is rebuilt.
Usage: test_startup.py --bovw PATH [unittest options]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
except ImportError:
    print("test_startup.py: needs python3-numpy; skipping", file=sys.stderr)
    sys.exit(77)

BOVW = None
TIMEOUT = 180


def run_bovw(*args, env=None):
    full_env = dict(os.environ)
    full_env.pop("BOVW_DEVICE", None)  # the default device, as a user without settings has
    full_env.pop("BOVW_KERNEL_CACHE", None)
    full_env.update(env or {})
    return subprocess.run([BOVW] + [str(a) for a in args], capture_output=True, text=True, env=full_env,
                          timeout=TIMEOUT)


def describe(result):
    return "exit status %d\n--- command: %s\n--- stdout:\n%s\n--- stderr:\n%s" % (
        result.returncode, " ".join(result.args), result.stdout[-3000:], result.stderr[-3000:])


def device_types():
    """The type of every device `bovw devices` lists ("GPU", "CPU", ...)."""
    listing = run_bovw("devices")
    assert listing.returncode == 0, describe(listing)
    return re.findall(r"^\s*\[\d+:\d+\] .* \((GPU|CPU|accelerator|other), ", listing.stdout, re.M), listing.stdout


class StartupTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bovw-startup-test-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        rng = np.random.default_rng(20261126)
        self.x = os.path.join(self.dir, "X.npy")
        self.c = os.path.join(self.dir, "C.npy")
        self.offsets = os.path.join(self.dir, "O.npy")
        np.save(self.x, rng.standard_normal((2000, 64)).astype(np.float32))
        np.save(self.c, rng.standard_normal((50, 64)).astype(np.float32))
        np.save(self.offsets, np.array([0, 700, 700, 2000], np.int64))

    def histogram(self, name, *options, env=None):
        """Runs bovw histogram; returns (histograms, assignments, the run)."""
        h = os.path.join(self.dir, name + ".npy")
        a = os.path.join(self.dir, name + ".words.npy")
        result = run_bovw("histogram", "--descriptors", self.x, "--offsets", self.offsets, "--vocabulary", self.c,
                          "--output", h, "--assignments", a, *options, env=env)
        self.assertEqual(result.returncode, 0, describe(result))
        return np.load(h), np.load(a), result

    # --- --backend auto ---

    def test_devices_says_what_auto_runs(self):
        types, listing = device_types()
        expected = "opencl" if "GPU" in types else "openmp-tiled"
        self.assertRegex(listing, r"(?m)^--backend auto: %s( on |$)" % re.escape(expected), listing)
        if "GPU" not in types:
            self.assertIn("--backend auto: openmp-tiled on the CPU (no OpenCL GPU)", listing)
        # $BOVW_DEVICE naming the CPU device: the CPU path, whatever else is installed.
        if "CPU" in types:
            with_cpu = run_bovw("devices", env={"BOVW_DEVICE": "cpu"})
            self.assertIn("--backend auto: openmp-tiled on the CPU ($BOVW_DEVICE 'cpu' is not a GPU)",
                          with_cpu.stdout, describe(with_cpu))

    def test_the_default_backend_is_auto_and_computes_what_its_choice_computes(self):
        types, _ = device_types()
        chosen = "opencl" if "GPU" in types else "openmp-tiled"
        h, a, result = self.histogram("default")
        self.assertIn(" on " + chosen, result.stdout, describe(result))  # the report names what ran
        h_auto, a_auto, _ = self.histogram("auto", "--backend", "auto")
        h_chosen, a_chosen, _ = self.histogram("chosen", "--backend", chosen)
        h_golden, a_golden, _ = self.histogram("golden", "--backend", "openmp")
        for other_h, other_a in [(h_auto, a_auto), (h_chosen, a_chosen), (h_golden, a_golden)]:
            np.testing.assert_array_equal(other_a, a)
            np.testing.assert_array_equal(other_h, h)
        self.assertEqual(h.sum(), 2000)

    def test_a_device_named_for_auto_that_matches_nothing_is_reported(self):
        # $BOVW_DEVICE or --device with a typo (or a platform not installed): auto runs on the CPU, and
        # says why, in the command's own run and in `bovw devices`.
        golden = self.histogram("golden", "--backend", "openmp")
        for name, options, env in (("env", [], {"BOVW_DEVICE": "no-such-device-xyz"}),
                                   ("flag", ["--device", "no-such-device-xyz"], None)):
            h, a, result = self.histogram(name, *options, env=env)
            self.assertIn("'no-such-device-xyz' matches no OpenCL device", result.stderr, describe(result))
            self.assertIn("--backend auto runs on the CPU", result.stderr, describe(result))
            np.testing.assert_array_equal(h, golden[0])
            np.testing.assert_array_equal(a, golden[1])
        listing = run_bovw("devices", env={"BOVW_DEVICE": "no-such-device-xyz"})
        self.assertEqual(listing.returncode, 0, describe(listing))
        self.assertIn("($BOVW_DEVICE 'no-such-device-xyz' matches no device)", listing.stdout)
        # A spec that matches a device gives no such line.
        types, _ = device_types()
        if "CPU" in types:
            _, _, matched = self.histogram("cpu", "--device", "cpu")
            self.assertNotIn("matches no", matched.stderr, describe(matched))

    # --- the program cache ---

    def require_opencl(self):
        types, _ = device_types()
        if not types:
            self.skipTest("no OpenCL device (bovw devices lists none)")

    def entries(self, folder):
        return sorted(os.listdir(folder)) if os.path.isdir(folder) else []

    def test_cached_programs_give_the_same_histograms_and_off_writes_nothing(self):
        self.require_opencl()
        cache = os.path.join(self.dir, "cache")
        opencl = ["--backend", "opencl", "--variant", "tiled"]
        off = self.histogram("off", *opencl, env={"BOVW_CACHE_DIR": cache, "BOVW_KERNEL_CACHE": "off"})
        self.assertEqual(self.entries(cache), [])
        self.assertFalse(os.path.exists(cache))
        cold = self.histogram("cold", *opencl, env={"BOVW_CACHE_DIR": cache})
        written = self.entries(cache)
        self.assertTrue(written and all(re.fullmatch(r"tiled-[0-9a-f]{32}\.bin", n) for n in written), written)
        warm = self.histogram("warm", *opencl, env={"BOVW_CACHE_DIR": cache})
        self.assertEqual(warm[2].stderr, "", describe(warm[2]))
        self.assertEqual(self.entries(cache), written)  # loaded, not written again under another name
        golden = self.histogram("golden", "--backend", "openmp")
        for run in (off, cold, warm):
            np.testing.assert_array_equal(run[0], golden[0])
            np.testing.assert_array_equal(run[1], golden[1])

        # A damaged entry: one line on stderr, the same histograms, and the entry whole again.
        path = os.path.join(cache, written[0])
        with open(path, "r+b") as f:
            f.seek(os.path.getsize(path) // 2)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 0x40]))
        damaged = self.histogram("damaged", *opencl, env={"BOVW_CACHE_DIR": cache})
        notes = damaged[2].stderr.strip().splitlines()
        self.assertEqual(len(notes), 1, describe(damaged[2]))
        self.assertRegex(notes[0], r"^bovw: kernel cache: '.*' is unusable \(checksum mismatch\)")
        np.testing.assert_array_equal(damaged[0], golden[0])
        again = self.histogram("again", *opencl, env={"BOVW_CACHE_DIR": cache})
        self.assertEqual(again[2].stderr, "", describe(again[2]))

    def test_two_processes_filling_one_cache_at_once(self):
        self.require_opencl()
        cache = os.path.join(self.dir, "cache")
        env = dict(os.environ, BOVW_CACHE_DIR=cache)
        env.pop("BOVW_DEVICE", None)
        env.pop("BOVW_KERNEL_CACHE", None)
        processes = []
        for i in range(2):
            h = os.path.join(self.dir, "both%d.npy" % i)
            processes.append((h, subprocess.Popen(
                [BOVW, "histogram", "--descriptors", self.x, "--offsets", self.offsets, "--vocabulary", self.c,
                 "--output", h, "--backend", "opencl", "--variant", "coalesced"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)))
        for h, process in processes:
            out, err = process.communicate(timeout=TIMEOUT)
            self.assertEqual(process.returncode, 0, out + err)
            self.assertEqual(err, "")
        written = self.entries(cache)
        # coalesced: its histogram program and the transpose; no temporary left behind
        self.assertEqual(len(written), 2, written)
        self.assertTrue(all(n.endswith(".bin") and not n.startswith(".") for n in written), written)
        later = self.histogram("later", "--backend", "opencl", "--variant", "coalesced", env={"BOVW_CACHE_DIR": cache})
        self.assertEqual(later[2].stderr, "", describe(later[2]))
        for h, _ in processes:
            np.testing.assert_array_equal(np.load(h), later[0])


def main():
    global BOVW
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True)
    options, rest = parser.parse_known_args()
    BOVW = os.path.abspath(options.bovw)
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
