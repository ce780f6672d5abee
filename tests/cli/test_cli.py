#!/usr/bin/env python3
"""End-to-end tests of the `bovw` command-line program.

Usage:  test_cli.py --bovw PATH/TO/bovw [--seed S] [unittest options, e.g. -k Histogram]

Runs the real binary on .npy files written with numpy, each test in a fresh temporary directory:
  * `bovw histogram` on random inputs, every backend and every OpenCL kernel variant, against a
    float64 numpy brute force (near-ties excepted, checked in float64), including a vocabulary
    larger than the device's constant buffer;
  * exit statuses: 0 success, 2 usage error (with the valid names), 1 failure with a short message
    on stderr naming the problem and the input, and no output file (nor temporary) left behind;
  * `bovw devices`, `bovw demo`, and `bovw-bench` (the benchmark program built beside bovw).

The random inputs use a fresh seed per run, printed at the start; repeat a run with
BOVW_TEST_SEED=<seed> (or --seed <seed>).  Exit status 77 (CTest: skipped) if numpy is missing.
"""

import argparse
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import unittest
import zlib

try:
    import numpy as np
except ImportError:  # pragma: no cover - environment problem, not a test failure
    print("test_cli.py: numpy is not available to " + sys.executable +
          " (on Debian: apt install python3-numpy); skipping", file=sys.stderr)
    sys.exit(77)

BOVW = None  # path of the binary, set in main()
SEED = None  # base seed of this run, set in main()
VARIANTS = ["baseline", "coalesced", "float4", "local", "constant", "tiled", "tiled-tf32", "tiled-fp16", "auto"]
BACKENDS = ["serial", "openmp", "openmp-tiled", "opencl", "openmp-ann", "auto"]
TIMEOUT = 120  # seconds for one command; the whole file should take well under two minutes
NEAR_TIE_RELATIVE = 1e-5

_device_listing = None


def bench_program():
    """The benchmark program, built beside bovw."""
    return os.path.join(os.path.dirname(BOVW), "bovw-bench")


def run_bovw(*args, env=None, cwd=None, timeout=TIMEOUT, program=None):
    """Runs the binary (or `program`) with `args`; returns the CompletedProcess (text stdout and stderr)."""
    full_env = dict(os.environ)
    full_env.pop("BOVW_DEVICE", None)  # tests choose the device explicitly
    if env:
        full_env.update(env)
    return subprocess.run([program or BOVW] + [str(a) for a in args], capture_output=True, text=True, env=full_env,
                          cwd=cwd, timeout=timeout)


def describe(result):
    return ("exit status %d\n--- command: %s\n--- stdout:\n%s\n--- stderr:\n%s" %
            (result.returncode, " ".join(result.args), result.stdout[-4000:], result.stderr[-4000:]))


def device_listing(env=None):
    """stdout of `bovw devices` (cached for the default environment)."""
    global _device_listing
    if env is None and _device_listing is not None:
        return _device_listing
    result = run_bovw("devices", env=env)
    if result.returncode != 0:
        raise AssertionError("bovw devices failed: " + describe(result))
    if env is None:
        _device_listing = result.stdout
    return result.stdout


def pocl_device(env=None):
    """(spec "P:D", info dict) of the first PoCL device, or (None, None)."""
    platform_is_pocl = False
    current = None
    for line in device_listing(env).splitlines():
        m = re.match(r"Platform (\d+): (.*)", line)
        if m:
            platform_is_pocl = "portable computing language" in m.group(2).lower() or \
                "pocl" in m.group(2).lower()
            continue
        m = re.match(r"\s*\[(\d+):(\d+)\]", line)
        if m and platform_is_pocl and current is None:
            current = {"spec": "%s:%s" % (m.group(1), m.group(2))}
            continue
        if current is not None:
            for key, pattern in [("global_mib", r"global memory (\d+) MiB"),
                                 ("max_allocation_mib", r"max allocation (\d+) MiB"),
                                 ("constant_kib", r"constant memory (\d+) KiB"),
                                 ("local_kib", r"local memory (\d+) KiB"),
                                 ("max_work_group", r"max work-group (\d+)")]:
                mm = re.search(pattern, line)
                if mm:
                    current[key] = int(mm.group(1))
            if re.match(r"\s*\[\d+:\d+\]", line):
                break
    if current is None:
        return None, None
    return current["spec"], current


def has_opencl_device():
    return bool(re.search(r"^\s*\[\d+:\d+\]", device_listing(), re.M))


def float64_distances(x, c):
    """Squared Euclidean distances N x K in float64."""
    x = x.astype(np.float64)
    c = c.astype(np.float64)
    d = (x * x).sum(1)[:, None] - 2.0 * (x @ c.T) + (c * c).sum(1)[None, :]
    return np.maximum(d, 0.0)


def float64_brute_force(x, c):
    """Nearest word of each row (ties: the lower index) and the distances, in float64.

    Exact differences for small problems; otherwise the expansion, with the words near each row's
    minimum scored again from exact differences. The expansion's rounding is absolute (about 1e-16 of
    the norms), so near zero (a row that copies a word that has a duplicate) it alone can rank two
    equal words apart, and which one depends on the BLAS that numpy uses (seen on a fresh machine)."""
    if x.shape[0] * c.shape[0] * x.shape[1] <= 20_000_000:
        diff = x.astype(np.float64)[:, None, :] - c.astype(np.float64)[None, :, :]
        d = (diff * diff).sum(2)
    else:
        d = float64_distances(x, c)
        xs, cs = x.astype(np.float64), c.astype(np.float64)
        margin = 1e-9 * ((xs * xs).sum(1) + (cs * cs).sum(1).max())
        rows, cols = np.nonzero(d <= d.min(1)[:, None] + margin[:, None])
        diff = xs[rows] - cs[cols]
        d[rows, cols] = (diff * diff).sum(1)
    return d.argmin(1), d  # argmin returns the first (lowest) index of equal minima


class CliTestCase(unittest.TestCase):
    """A fresh temporary directory per test, with in/ for inputs and out/ for outputs."""

    maxDiff = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bovw-cli-test-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.indir = os.path.join(self.dir, "in")
        self.outdir = os.path.join(self.dir, "out")
        os.mkdir(self.indir)
        os.mkdir(self.outdir)
        self.rng = np.random.default_rng([SEED, zlib.crc32(self.id().encode())])

    def inpath(self, name):
        return os.path.join(self.indir, name)

    def outpath(self, name):
        return os.path.join(self.outdir, name)

    def save(self, name, array):
        path = self.inpath(name)
        with open(path, "wb") as f:
            np.save(f, array)
        return path

    def write_bytes(self, name, data):
        path = self.inpath(name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def run_ok(self, *args, **kwargs):
        result = run_bovw(*args, **kwargs)
        self.assertEqual(result.returncode, 0, describe(result))
        return result

    def require_opencl(self):
        if not has_opencl_device():
            self.skipTest("no OpenCL device (bovw devices lists none)")

    def assert_no_output(self, directory=None, allowed=()):
        """The output directory holds nothing but `allowed` (no output file, no temporary)."""
        directory = directory or self.outdir
        left = sorted(set(os.listdir(directory)) - set(allowed))
        self.assertEqual(left, [], "files left behind in %s" % directory)

    def assert_no_temporaries(self, directory):
        left = [n for n in os.listdir(directory) if n.startswith(".bovw-tmp")]
        self.assertEqual(left, [], "temporaries left behind in %s" % directory)


# --------------------------------------------------------------------------------------------
# 1. Correctness of `bovw histogram` against a float64 brute force
# --------------------------------------------------------------------------------------------


def random_offsets(rng, n, images, empty_images):
    """I+1 int64 offsets over n rows: `images` images, `empty_images` of them empty (the first and
    the last among them), the others of random non-zero sizes."""
    empty = [0, images - 1][:empty_images]
    middle = list(range(1, images - 1))
    empty += [int(i) for i in rng.choice(middle, size=max(0, empty_images - 2), replace=False)]
    filled = [i for i in range(images) if i not in set(empty)]
    assert filled and n >= len(filled)
    cuts = np.sort(rng.choice(np.arange(1, n), size=len(filled) - 1, replace=False)) if n > 1 else []
    sizes = np.zeros(images, dtype=np.int64)
    sizes[filled] = np.diff(np.concatenate([[0], cuts, [n]]))
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


class HistogramCorrectness(CliTestCase):

    def make_problem(self, n, k, d, images=9, empty_images=4, duplicate_words=True, copies=True):
        rng = self.rng
        # Mixed scales and a shifted mean make the float32 sums less trivial than U(0, 1).
        x = (rng.standard_normal((n, d)) * rng.uniform(0.5, 2.0, size=(1, d)) + 0.25).astype(np.float32)
        c = (rng.standard_normal((k, d)) * 0.8).astype(np.float32)
        self.duplicates = []
        if duplicate_words and k >= 6:
            # Exact duplicate words: equal distances on every path, so the lower index must win.
            for low, high in [(1, k - 1), (2, k // 2 + 1)]:
                if low < high:
                    c[high] = c[low]
                    self.duplicates.append((low, high))
        if copies and n >= 10:
            # Some descriptors are exact copies of words (distance 0).
            for i in rng.choice(n, size=min(10, n), replace=False):
                x[i] = c[rng.integers(0, k)]
        offsets = random_offsets(rng, n, images, empty_images) if images > 1 else None
        return x, c, offsets

    def run_histogram(self, x_path, c_path, o_path, backend, variant=None, extra=()):
        h_path, a_path = self.outpath("H.npy"), self.outpath("A.npy")
        for p in (h_path, a_path):
            if os.path.exists(p):
                os.remove(p)
        args = ["histogram", "--descriptors", x_path, "--vocabulary", c_path, "--output", h_path,
                "--assignments", a_path, "--backend", backend]
        if o_path:
            args += ["--offsets", o_path]
        if variant:
            args += ["--variant", variant]
        args += list(extra)
        self.last_stdout = self.run_ok(*args).stdout
        self.assert_no_temporaries(self.outdir)
        return np.load(h_path), np.load(a_path)

    def check_result(self, x, c, offsets, h, a, reference, distances, label):
        n, k = x.shape[0], c.shape[0]
        images = 1 if offsets is None else len(offsets) - 1
        if offsets is None:
            offsets = np.array([0, n], dtype=np.int64)
        self.assertEqual(a.dtype, np.dtype("<i4"), label)
        self.assertEqual(a.shape, (n,), label)
        self.assertEqual(h.dtype, np.dtype("<i4"), label)
        self.assertEqual(h.shape, (images, k), label)
        if n:
            self.assertTrue(((a >= 0) & (a < k)).all(), "%s: assignment out of [0, K)" % label)
        # Assignments: equal to the float64 brute force, except near-ties verified in float64.
        differ = np.nonzero(a != reference)[0]
        bad = []
        for i in differ:
            d_got, d_ref = distances[i, a[i]], distances[i, reference[i]]
            if abs(d_got - d_ref) > NEAR_TIE_RELATIVE * max(d_ref, d_got):
                bad.append((int(i), int(a[i]), float(d_got), int(reference[i]), float(d_ref)))
        self.assertEqual(bad, [], "%s: %d assignments differ beyond near-ties "
                         "(row, got word, its float64 distance, nearest word, its distance), first: %s"
                         % (label, len(bad), bad[:5]))
        if len(differ):
            print("  %s: %d near-tie(s) accepted" % (label, len(differ)), file=sys.stderr)
        # Ties between exactly equal words go to the lower index on every path.
        for low, high in getattr(self, "duplicates", []):
            self.assertFalse((a == high).any(),
                             "%s: word %d is an exact duplicate of word %d; the lower index must win"
                             % (label, high, low))
        # Histograms: the per-image bincount of the assignments; row sums equal the image sizes.
        expected = np.zeros((images, k), dtype=np.int64)
        for i in range(images):
            expected[i] = np.bincount(a[offsets[i]:offsets[i + 1]], minlength=k)
        np.testing.assert_array_equal(h, expected, err_msg=label + ": H is not the per-image bincount of A")
        np.testing.assert_array_equal(h.sum(1), np.diff(offsets), err_msg=label + ": row sums")

    def check_all_backends(self, n, k, d, configs=None, **problem):
        x, c, offsets = self.make_problem(n, k, d, **problem)
        x_path, c_path = self.save("X.npy", x), self.save("C.npy", c)
        o_path = self.save("O.npy", offsets) if offsets is not None else None
        reference, distances = float64_brute_force(x, c)
        if configs is None:
            configs = [("serial", None, ()), ("openmp", None, ()), ("openmp-tiled", None, ())]
            if has_opencl_device():
                configs += [("opencl", v, ()) for v in VARIANTS]
            else:
                print("  no OpenCL device: only the CPU backends checked", file=sys.stderr)
        for backend, variant, extra in configs:
            label = "N=%d K=%d D=%d %s%s%s" % (n, k, d, backend, " " + variant if variant else "",
                                               " " + " ".join(extra) if extra else "")
            with self.subTest(config=label):
                h, a = self.run_histogram(x_path, c_path, o_path, backend, variant, extra)
                self.check_result(x, c, offsets, h, a, reference, distances, label)

    def test_every_backend_and_variant_d64(self):
        self.check_all_backends(1001, 37, 64)

    def test_every_backend_and_variant_d128(self):
        self.check_all_backends(1001, 37, 128)

    def test_odd_work_group_sizes(self):
        self.require_opencl()
        configs = [("opencl", v, ("--work-group", str(wg)))
                   for v, wg in [("baseline", 37), ("coalesced", 1), ("float4", 13), ("local", 37),
                                 ("constant", 100)]]
        self.check_all_backends(777, 65, 64, configs=configs)

    def test_small_shapes(self):
        # K = 1, one descriptor, N not a multiple of anything, K = 257; one image (no --offsets).
        configs = [("serial", None, ()), ("openmp", None, ())]
        if has_opencl_device():
            configs += [("opencl", "baseline", ()), ("opencl", "constant", ()), ("opencl", "local", ())]
        for n, k, d in [(1, 1, 64), (65, 1, 64), (63, 257, 128)]:
            with self.subTest(shape=(n, k, d)):
                self.check_all_backends(n, k, d, configs=configs, images=1)

    def test_no_descriptors(self):
        # N = 0 with three (empty) images: all-zero histograms and an empty assignment file.
        c = self.rng.standard_normal((5, 64)).astype(np.float32)
        x = np.zeros((0, 64), dtype=np.float32)
        x_path, c_path = self.save("X.npy", x), self.save("C.npy", c)
        o_path = self.save("O.npy", np.zeros(4, dtype=np.int64))
        backends = [("openmp", None)] + ([("opencl", "constant")] if has_opencl_device() else [])
        for backend, variant in backends:
            with self.subTest(backend=backend):
                h, a = self.run_histogram(x_path, c_path, o_path, backend, variant)
                self.assertEqual(h.shape, (3, 5))
                self.assertEqual(h.dtype, np.dtype("<i4"))
                self.assertFalse(h.any())
                self.assertEqual(a.shape, (0,))
                self.assertEqual(a.dtype, np.dtype("<i4"))

    def test_opencl_uploads_descriptors_from_pinned_memory(self):
        # With the OpenCL backend the .npy data is read into pinned memory of the device and uploaded
        # from there in place, over several transfer chunks (97 rows: N is not a multiple): no row goes
        # through the host's staging copy. The CPU backends read into ordinary memory.
        self.require_opencl()
        x, c, offsets = self.make_problem(1001, 37, 64)
        x_path, c_path, o_path = self.save("X.npy", x), self.save("C.npy", c), self.save("O.npy", offsets)
        reference, distances = float64_brute_force(x, c)
        for backend, variant, extra, memory in [
                ("opencl", "tiled", ("--transfer-rows", "97"), r"into pinned memory of .+ \(allocated in [0-9.e+-]+ ms\)"),
                ("opencl", "float4", (), r"into pinned memory of"),
                ("openmp", None, (), r"into ordinary memory")]:
            label = "%s %s %s" % (backend, variant or "", " ".join(extra))
            with self.subTest(config=label):
                h, a = self.run_histogram(x_path, c_path, o_path, backend, variant, extra)
                self.check_result(x, c, offsets, h, a, reference, distances, label)
                self.assertRegex(self.last_stdout, r"read \S*X\.npy in [0-9.e+-]+ ms " + memory)
                self.assertRegex(self.last_stdout, r"host copy into pinned staging [0-9.e+-]+ ms \(0 rows\)")

    def test_device_selected_by_spec_and_environment(self):
        spec, info = pocl_device()
        if not spec:
            self.skipTest("no PoCL device")
        x, c, offsets = self.make_problem(300, 11, 64)
        x_path, c_path, o_path = self.save("X.npy", x), self.save("C.npy", c), self.save("O.npy", offsets)
        reference, distances = float64_brute_force(x, c)
        for label, extra, env in [("--device " + spec, ["--device", spec], None),
                                  ("--device cpu", ["--device", "cpu"], None),
                                  ("BOVW_DEVICE=" + spec, [], {"BOVW_DEVICE": spec})]:
            with self.subTest(device=label):
                args = ["histogram", "--descriptors", x_path, "--vocabulary", c_path, "--offsets", o_path,
                        "--output", self.outpath("H.npy"), "--assignments", self.outpath("A.npy"),
                        "--backend", "opencl", "--variant", "float4"] + extra
                self.run_ok(*args, env=env)
                h, a = np.load(self.outpath("H.npy")), np.load(self.outpath("A.npy"))
                self.check_result(x, c, offsets, h, a, reference, distances, label)

    def test_int32_offsets_accepted(self):
        x, c, offsets = self.make_problem(200, 9, 64)
        x_path, c_path = self.save("X.npy", x), self.save("C.npy", c)
        o_path = self.save("O.npy", offsets.astype(np.int32))
        reference, distances = float64_brute_force(x, c)
        h, a = self.run_histogram(x_path, c_path, o_path, "openmp")
        self.check_result(x, c, offsets, h, a, reference, distances, "int32 offsets")

    def test_constant_variant_vocabulary_larger_than_constant_buffer(self):
        self.require_opencl()
        spec, info = pocl_device()
        # Default (PoCL) device: 2048 KiB of constant memory. Size K from the device actually used.
        constant_kib = 2048
        listing = device_listing()
        m = re.search(r"constant memory (\d+) KiB", listing)
        if info and "constant_kib" in info:
            constant_kib = info["constant_kib"]
        elif m:
            constant_kib = int(m.group(1))
        d = 128
        k = constant_kib * 1024 // (4 * d) + 104  # e.g. 4200 words = 2.15 MB for 2048 KiB
        self.assertGreater(4 * d * k, constant_kib * 1024)
        extra = ("--device", spec) if spec else ()
        configs = [("opencl", "constant", extra), ("opencl", "constant", extra + ("--work-group", "33"))]
        self.check_all_backends(300, k, d, configs=configs, images=7, empty_images=2)


# --------------------------------------------------------------------------------------------
# 2. Help, usage errors and their exit statuses
# --------------------------------------------------------------------------------------------


class UsageAndHelp(CliTestCase):

    def subcommands(self):
        result = self.run_ok("--help")
        section = result.stdout.split("Subcommands:", 1)
        self.assertEqual(len(section), 2, "no Subcommands section in bovw --help:\n" + result.stdout)
        return re.findall(r"^\s{2}(\w[\w-]*)\s", section[1], re.M)

    def test_help_on_main_and_every_subcommand(self):
        names = self.subcommands()
        for required in ["devices", "histogram", "demo"]:
            self.assertIn(required, names)
        self.run_ok("-h")
        for name in names:  # extract is checked too when bovw lists it
            with self.subTest(subcommand=name):
                result = self.run_ok(name, "--help")
                self.assertIn("Usage:", result.stdout)
                self.assertIn(name, result.stdout)

    def test_histogram_help_lists_options_and_names(self):
        out = self.run_ok("histogram", "--help").stdout
        for option in ["--descriptors", "--offsets", "--vocabulary", "--backend", "--variant", "--device",
                       "--work-group", "--output", "--assignments", "--build-options"]:
            self.assertIn(option, out)
        for name in VARIANTS + BACKENDS:
            self.assertIn(name, out)

    def valid_histogram_args(self):
        x = self.save("X.npy", np.zeros((4, 8), np.float32))
        c = self.save("C.npy", np.ones((2, 8), np.float32))
        return ["--descriptors", x, "--vocabulary", c, "--output", self.outpath("H.npy")]

    def assert_usage_error(self, args, must_mention=()):
        result = run_bovw(*args)
        self.assertEqual(result.returncode, 2, describe(result))
        for text in must_mention:
            self.assertIn(text, result.stderr + result.stdout, describe(result))
        self.assert_no_output()
        return result

    def test_unknown_variant_lists_valid_names(self):
        result = self.assert_usage_error(["histogram"] + self.valid_histogram_args() +
                                         ["--backend", "opencl", "--variant", "gpu6"], ["gpu6"])
        for name in VARIANTS:
            self.assertIn(name, result.stderr, describe(result))

    def test_unknown_backend_lists_valid_names(self):
        result = self.assert_usage_error(["histogram"] + self.valid_histogram_args() + ["--backend", "cuda"],
                                         ["cuda"])
        for name in BACKENDS:
            self.assertIn(name, result.stderr, describe(result))

    def test_unknown_variant_in_demo_and_bench(self):
        result = self.assert_usage_error(["demo", "--variant", "fast"], ["fast"])
        for name in VARIANTS:
            self.assertIn(name, result.stderr)
        if os.access(bench_program(), os.X_OK):
            result = run_bovw("--variants", "openmp,fast", "--sizes", "64x2", program=bench_program())
            self.assertEqual(result.returncode, 2, describe(result))
            for name in ["fast", "serial", "openmp"] + VARIANTS:
                self.assertIn(name, result.stderr, describe(result))

    def test_missing_required_options(self):
        args = self.valid_histogram_args()
        for option in ["--descriptors", "--vocabulary", "--output"]:
            with self.subTest(missing=option):
                i = args.index(option)
                result = self.assert_usage_error(["histogram"] + args[:i] + args[i + 2:])
                self.assertIn(option, result.stderr, describe(result))

    def test_other_usage_errors(self):
        args = self.valid_histogram_args()
        for label, argv in [("no subcommand", []),
                            ("unknown subcommand", ["histogramm"]),
                            ("unknown option", ["histogram"] + args + ["--frobnicate", "1"]),
                            ("option without value", ["histogram"] + args + ["--backend"]),
                            ("work-group 0", ["histogram"] + args + ["--work-group", "0"]),
                            ("work-group not a number", ["histogram"] + args + ["--work-group", "many"])]:
            with self.subTest(case=label):
                self.assert_usage_error(argv)


# --------------------------------------------------------------------------------------------
# 3. Bad input: exit 1, a short message naming the problem and the file, no output left behind
# --------------------------------------------------------------------------------------------


def npy_bytes(array):
    import io
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def npy_with_header(header_dict_text, data):
    """A version 1.0 .npy file with a hand-written header dictionary."""
    text = header_dict_text
    unpadded = 10 + len(text) + 1
    text += " " * ((64 - unpadded % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1") + data


class BadInput(CliTestCase):
    N, K, D = 120, 7, 64

    def setUp(self):
        super().setUp()
        rng = self.rng
        self.x = rng.standard_normal((self.N, self.D)).astype(np.float32)
        self.c = rng.standard_normal((self.K, self.D)).astype(np.float32)
        self.offsets = np.array([0, 40, 40, self.N], dtype=np.int64)
        self.x_path = self.save("X.npy", self.x)
        self.c_path = self.save("C.npy", self.c)
        self.o_path = self.save("O.npy", self.offsets)

    def histogram_args(self, x=None, c=None, o=None, output=None, assignments=None, extra=()):
        args = ["histogram", "--descriptors", x or self.x_path, "--vocabulary", c or self.c_path,
                "--offsets", o or self.o_path, "--output", output or self.outpath("H.npy"),
                "--assignments", assignments or self.outpath("A.npy")]
        return args + list(extra)

    def assert_failure(self, args, names, patterns, env=None, max_lines=3, allowed=()):
        """Exit 1, stderr mentions every string of `names` and matches every regex of `patterns`
        (case-insensitive), at most `max_lines` lines of bovw's message, nothing in out/."""
        result = run_bovw(*args, env=env)
        if os.environ.get("BOVW_TEST_SHOW_MESSAGES"):
            print("\n  [%s] exit %d: %s" % (self.id().rsplit(".", 1)[-1], result.returncode,
                                           result.stderr.strip()[:600]), file=sys.stderr)
        self.assertEqual(result.returncode, 1, describe(result))
        stderr = result.stderr
        self.assertTrue(stderr.strip(), "no message on stderr: " + describe(result))
        for name in names:
            self.assertIn(name, stderr, "message does not name %r: %s" % (name, describe(result)))
        for pattern in patterns:
            self.assertRegex(stderr, re.compile(pattern, re.I), describe(result))
        if max_lines is not None:
            lines = [l for l in stderr.splitlines() if l.strip()]
            self.assertLessEqual(len(lines), max_lines, "message is not one line: " + describe(result))
            self.assertIn("error", lines[0].lower(), describe(result))
        self.assert_no_output(allowed=allowed)
        self.assert_no_temporaries(self.indir)
        return result

    def run_backends(self, make_args, names, patterns, **kwargs):
        backends = [("openmp", ())]
        if has_opencl_device():
            backends.append(("opencl", ("--backend", "opencl", "--variant", "constant")))
        for label, extra in backends:
            with self.subTest(backend=label):
                self.assert_failure(make_args(extra), names, patterns, **kwargs)

    # --- malformed .npy files ---------------------------------------------------------------

    def bad_descriptors(self, data, patterns, name="X_bad.npy"):
        path = self.write_bytes(name, data)
        self.assert_failure(self.histogram_args(x=path), [name], patterns)

    def test_truncated_in_header(self):
        data = npy_bytes(self.x)
        self.bad_descriptors(data[:40], [r"truncated|header"])

    def test_truncated_in_magic(self):
        self.bad_descriptors(npy_bytes(self.x)[:4], [r"magic|truncated|npy"])

    def test_empty_file(self):
        self.bad_descriptors(b"", [r"magic|empty|truncated|npy"])

    def test_truncated_in_data(self):
        data = npy_bytes(self.x)
        self.bad_descriptors(data[:len(data) - 100], [r"bytes|truncated|size"])

    def test_truncated_vocabulary(self):
        data = npy_bytes(self.c)
        path = self.write_bytes("C_bad.npy", data[:len(data) - 1])
        self.assert_failure(self.histogram_args(c=path), ["C_bad.npy"], [r"bytes|truncated|size"])

    def test_bad_magic(self):
        data = bytearray(npy_bytes(self.x))
        data[1:6] = b"NUMPX"
        self.bad_descriptors(bytes(data), [r"magic"])

    def test_not_an_npy_file(self):
        self.bad_descriptors(b"x,y\n1,2\n" * 50, [r"magic|npy"], name="X_bad.csv")

    def test_unsupported_version(self):
        data = bytearray(npy_bytes(self.x))
        data[6] = 9
        self.bad_descriptors(bytes(data), [r"version"])

    def test_float64_descriptors(self):
        path = self.save("X64.npy", self.x.astype(np.float64))
        self.assert_failure(self.histogram_args(x=path), ["X64.npy"], [r"dtype|float32|f8"])

    def test_big_endian_descriptors(self):
        path = self.save("Xbe.npy", self.x.astype(">f4"))
        self.assert_failure(self.histogram_args(x=path), ["Xbe.npy"], [r"dtype|endian|float32"])

    def test_int32_vocabulary(self):
        path = self.save("C32.npy", (self.c * 100).astype(np.int32))
        self.assert_failure(self.histogram_args(c=path), ["C32.npy"], [r"dtype|float32|i4"])

    def test_fortran_order(self):
        path = self.save("XF.npy", np.asfortranarray(self.x))
        with open(path, "rb") as f:
            self.assertIn(b"'fortran_order': True", f.read(128))  # precondition
        self.assert_failure(self.histogram_args(x=path), ["XF.npy"], [r"fortran|order"])

    def test_fortran_order_vocabulary(self):
        path = self.save("CF.npy", np.asfortranarray(self.c))
        self.assert_failure(self.histogram_args(c=path), ["CF.npy"], [r"fortran|order"])

    def test_header_shape_bigger_than_data(self):
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (self.N + 5, self.D)
        self.bad_descriptors(npy_with_header(header, self.x.tobytes()), [r"bytes|size|shape"])

    def test_header_shape_smaller_than_data(self):
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (self.N - 5, self.D)
        self.bad_descriptors(npy_with_header(header, self.x.tobytes()), [r"bytes|size|shape"])

    def test_header_absurd_shape(self):
        # A shape whose element count overflows 64 bits, and one whose extent overflows int64.
        for i, dims in enumerate(["4294967296, 4294967296, 64", "99999999999999999999999, 64"]):
            with self.subTest(shape=dims):
                header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
                self.bad_descriptors(npy_with_header(header, self.x.tobytes()), [r"shape|size|large|bytes"],
                                     name="X_shape%d.npy" % i)

    def test_header_without_shape(self):
        header = "{'descr': '<f4', 'fortran_order': False, }"
        self.bad_descriptors(npy_with_header(header, self.x.tobytes()), [r"shape|header"])

    def test_one_dimensional_descriptors(self):
        path = self.save("X1d.npy", self.x.reshape(-1))
        self.assert_failure(self.histogram_args(x=path), ["X1d.npy"], [r"2-D|shape|dimension"])

    def test_three_dimensional_vocabulary(self):
        path = self.save("C3d.npy", self.c.reshape(self.K, 8, 8))
        self.assert_failure(self.histogram_args(c=path), ["C3d.npy"], [r"2-D|shape|dimension"])

    # --- bad values -------------------------------------------------------------------------

    def test_nan_in_descriptors(self):
        x = self.x.copy()
        x[77, 5] = np.nan
        path = self.save("Xnan.npy", x)
        self.run_backends(lambda extra: self.histogram_args(x=path, extra=extra), ["Xnan.npy"], [r"nan"])

    def test_inf_in_descriptors(self):
        x = self.x.copy()
        x[3, 63] = -np.inf
        path = self.save("Xinf.npy", x)
        self.run_backends(lambda extra: self.histogram_args(x=path, extra=extra), ["Xinf.npy"], [r"inf"])

    def test_nan_in_centroids(self):
        c = self.c.copy()
        c[6, 0] = np.nan
        path = self.save("Cnan.npy", c)
        self.run_backends(lambda extra: self.histogram_args(c=path, extra=extra), ["Cnan.npy"], [r"nan"])

    def test_inf_in_centroids(self):
        c = self.c.copy()
        c[0, 0] = np.inf
        path = self.save("Cinf.npy", c)
        self.run_backends(lambda extra: self.histogram_args(c=path, extra=extra), ["Cinf.npy"], [r"inf"])

    def test_dimension_mismatch(self):
        path = self.save("C128.npy", self.rng.standard_normal((self.K, 128)).astype(np.float32))
        self.run_backends(lambda extra: self.histogram_args(c=path, extra=extra), ["C128.npy"],
                          [r"\b64\b", r"\b128\b", r"width|dimension|D ="])

    def test_empty_vocabulary(self):
        path = self.save("C0.npy", np.zeros((0, self.D), np.float32))
        self.assert_failure(self.histogram_args(c=path), ["C0.npy"], [r"K = 0|no words|empty|at least one"])

    def test_zero_width(self):
        x_path = self.save("X0w.npy", np.zeros((self.N, 0), np.float32))
        c_path = self.save("C0w.npy", np.zeros((self.K, 0), np.float32))
        self.assert_failure(self.histogram_args(x=x_path, c=c_path), ["C0w.npy"], [r"D = 0|width|dimension"])

    # --- bad offsets ------------------------------------------------------------------------

    def bad_offsets(self, offsets, patterns, name="O_bad.npy"):
        path = self.save(name, offsets)
        self.run_backends(lambda extra: self.histogram_args(o=path, extra=extra), [name], patterns)

    def test_offsets_decrease(self):
        self.bad_offsets(np.array([0, 50, 30, self.N], np.int64), [r"decreas"])

    def test_offsets_do_not_start_at_zero(self):
        self.bad_offsets(np.array([5, 50, self.N], np.int64), [r"first|start|must be 0"])

    def test_offsets_do_not_end_at_n(self):
        self.bad_offsets(np.array([0, 50, self.N - 1], np.int64), [r"last|end|number of descriptors"])

    def test_offsets_beyond_n(self):
        self.bad_offsets(np.array([0, 50, self.N + 1], np.int64), [r"last|end|number of descriptors"])

    def test_offsets_empty(self):
        self.bad_offsets(np.zeros(0, np.int64), [r"offsets"])

    def test_offsets_wrong_dtype_and_shape(self):
        for name, offsets, pattern in [("Of.npy", np.array([0.0, 50.0, self.N]), r"dtype|int"),
                                       ("O2d.npy", self.offsets.reshape(2, 2), r"1-D|shape")]:
            with self.subTest(name=name):
                path = self.save(name, offsets)
                self.assert_failure(self.histogram_args(o=path), [name], [pattern])

    # --- devices, kernels, memory -----------------------------------------------------------

    def test_unknown_device(self):
        self.assert_failure(self.histogram_args(extra=("--backend", "opencl", "--device", "no-such-device")),
                            ["no-such-device"], [r"device"], max_lines=None)

    def test_bovw_device_names_missing_device(self):
        result = self.assert_failure(self.histogram_args(extra=("--backend", "opencl")), ["no-such-device"],
                                     [r"device"], env={"BOVW_DEVICE": "no-such-device"}, max_lines=None)
        self.assertIn("BOVW_DEVICE", result.stderr, "the message should say the spec came from BOVW_DEVICE")

    def test_device_index_out_of_range(self):
        self.assert_failure(self.histogram_args(extra=("--backend", "opencl", "--device", "17:3")),
                            ["17:3"], [r"device"], max_lines=None)

    def test_kernel_build_failure_shows_log(self):
        self.require_opencl()
        for variant in ["baseline", "constant"]:
            with self.subTest(variant=variant):
                result = self.assert_failure(
                    self.histogram_args(extra=("--backend", "opencl", "--variant", variant,
                                               "--build-options", "-DBOVW_D=oops")),
                    [], [r"fail(ed)? to build|build log", r"oops"], max_lines=None)
                self.assertIn("-DBOVW_D=oops", result.stderr, "the message should show the build options")

    def test_work_group_beyond_device_limit(self):
        self.require_opencl()
        self.assert_failure(self.histogram_args(extra=("--backend", "opencl", "--variant", "baseline",
                                                       "--work-group", "100000")),
                            [], [r"work-group|work-items"])

    def test_local_memory_exceeded(self):
        spec, info = pocl_device()
        if not spec or "local_kib" not in info:
            self.skipTest("no PoCL device")
        d = 1024
        wg = info["local_kib"] * 1024 // (4 * d) + 1  # work-group x D x 4 bytes > local memory
        if wg > info.get("max_work_group", 4096):
            self.skipTest("local memory too large to exceed within the maximum work-group size")
        x = self.save("X1024.npy", self.rng.standard_normal((50, d)).astype(np.float32))
        c = self.save("C1024.npy", self.rng.standard_normal((3, d)).astype(np.float32))
        self.assert_failure(self.histogram_args(x=x, c=c, o=self.save("O50.npy", np.array([0, 50])),
                                                extra=("--backend", "opencl", "--variant", "local",
                                                       "--device", spec, "--work-group", str(wg))),
                            [], [r"local memory"])

    def test_device_out_of_memory(self):
        # The CLI has no option for HistogrammerConfig::device_memory_limit, so shrink PoCL's device
        # instead (POCL_MEMORY_LIMIT, in GiB): 1 GiB of global memory, 256 MiB per allocation. The
        # histogram buffer (images x K int32) is then made larger than one allocation, with tiny
        # input files.
        env = {"POCL_MEMORY_LIMIT": "1"}
        spec, info = pocl_device(env)
        if not spec or info.get("global_mib") != 1024 or "max_allocation_mib" not in info:
            self.skipTest("no PoCL device honouring POCL_MEMORY_LIMIT")
        k, d, n = 16384, 4, 64
        images = info["max_allocation_mib"] * 1024 * 1024 // (4 * k) + 1
        x = self.save("Xs.npy", self.rng.standard_normal((n, d)).astype(np.float32))
        c = self.save("Cbig.npy", self.rng.standard_normal((k, d)).astype(np.float32))
        offsets = np.zeros(images + 1, np.int64)
        offsets[-1] = n
        o = self.save("Omany.npy", offsets)
        self.assert_failure(self.histogram_args(x=x, c=c, o=o, extra=("--backend", "opencl", "--device", spec)),
                            [], [r"memory"], env=env)

    # --- files and output paths -------------------------------------------------------------

    def test_missing_input_files(self):
        missing = self.inpath("nope.npy")
        for role, kwargs in [("descriptors", {"x": missing}), ("vocabulary", {"c": missing}),
                             ("offsets", {"o": missing})]:
            with self.subTest(missing=role):
                self.assert_failure(self.histogram_args(**kwargs), ["nope.npy"],
                                    [r"cannot open|no such file|not found"])

    def test_directory_as_input(self):
        self.assert_failure(self.histogram_args(x=self.indir), [self.indir], [r"."])

    def test_output_in_missing_directory(self):
        output = os.path.join(self.outdir, "no-such-dir", "H.npy")
        self.assert_failure(self.histogram_args(output=output), ["no-such-dir"],
                            [r"cannot|no such file|directory"])

    def test_assignments_in_missing_directory_leaves_no_histogram(self):
        # The histogram file must not be left behind when the second output cannot be written.
        assignments = os.path.join(self.outdir, "no-such-dir", "A.npy")
        self.assert_failure(self.histogram_args(assignments=assignments), ["no-such-dir"],
                            [r"cannot|no such file|directory"])

    def test_existing_outputs_untouched_on_failure(self):
        x = self.x.copy()
        x[0, 0] = np.nan
        nan_path = self.save("Xnan.npy", x)
        truncated = self.write_bytes("Xtrunc.npy", npy_bytes(self.x)[:500])
        cases = [("NaN descriptors", self.histogram_args(x=nan_path)),
                 ("truncated descriptors", self.histogram_args(x=truncated)),
                 ("offsets", self.histogram_args(o=self.save("Obad.npy", np.array([0, 1], np.int64)))),
                 ("assignments directory missing",
                  self.histogram_args(assignments=os.path.join(self.outdir, "nodir", "A.npy")))]
        if has_opencl_device():
            cases.append(("kernel build failure",
                          self.histogram_args(extra=("--backend", "opencl", "--build-options", "-DBOVW_D=oops"))))
            cases.append(("unknown device",
                          self.histogram_args(extra=("--backend", "opencl", "--device", "no-such-device"))))
        old_h, old_a = b"previous histograms, not an npy file\n", npy_bytes(np.arange(3, dtype=np.int32))
        for label, args in cases:
            with self.subTest(case=label):
                with open(self.outpath("H.npy"), "wb") as f:
                    f.write(old_h)
                with open(self.outpath("A.npy"), "wb") as f:
                    f.write(old_a)
                result = run_bovw(*args)
                self.assertEqual(result.returncode, 1, describe(result))
                with open(self.outpath("H.npy"), "rb") as f:
                    self.assertEqual(f.read(), old_h, "H.npy was changed by a failed run")
                with open(self.outpath("A.npy"), "rb") as f:
                    self.assertEqual(f.read(), old_a, "A.npy was changed by a failed run")
                self.assert_no_output(allowed=("H.npy", "A.npy"))

    def test_successful_run_replaces_existing_outputs(self):
        with open(self.outpath("H.npy"), "wb") as f:
            f.write(b"old")
        self.run_ok(*self.histogram_args())
        h = np.load(self.outpath("H.npy"))
        self.assertEqual(h.shape, (3, self.K))
        self.assert_no_output(allowed=("H.npy", "A.npy"))


# --------------------------------------------------------------------------------------------
# 4. devices, demo, bench
# --------------------------------------------------------------------------------------------


class OtherSubcommands(CliTestCase):

    def test_devices_lists_pocl(self):
        result = self.run_ok("devices")
        self.assertRegex(result.stdout, re.compile(r"portable computing language|pocl", re.I), describe(result))
        for field in ["compute units", "global memory", "local memory", "constant memory", "OpenCL C"]:
            self.assertIn(field, result.stdout)

    def test_demo(self):
        self.require_opencl()
        result = self.run_ok("demo")
        self.assertIn("identical to the OpenMP reference", result.stdout, describe(result))
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                result = self.run_ok("demo", "--variant", variant, "--dimension", "128", "--words", "19",
                                     "--seed", str(SEED % 100000))
                self.assertIn("identical to the OpenMP reference", result.stdout, describe(result))

    def require_bench(self):
        if not os.access(bench_program(), os.X_OK):
            self.skipTest("bovw-bench is not built (BOVW_BUILD_BENCH=OFF)")

    def run_bench(self, *args, **kwargs):
        return run_bovw(*args, program=bench_program(), **kwargs)

    def test_bench_json(self):
        self.require_bench()
        self.require_opencl()
        json_path = self.outpath("out.json")
        result = self.run_bench("--sizes", "4096x8", "--variants", "openmp,baseline,constant",
                                "--repetitions", "2", "--warmup", "1", "--json", json_path, cwd=self.outdir)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertTrue(result.stdout.strip(), "bench printed no table")
        with open(json_path) as f:
            report = json.load(f)
        measurements = report.get("measurements")
        self.assertIsInstance(measurements, list, json.dumps(report)[:2000])
        by_contender = {}
        for m in measurements:
            by_contender.setdefault(m.get("contender"), []).append(m)
        self.assertEqual(sorted(by_contender), ["baseline", "constant", "openmp"], json.dumps(report)[:2000])
        for contender, ms in by_contender.items():
            with self.subTest(contender=contender):
                self.assertEqual(len(ms), 1)
                m = ms[0]
                self.assertEqual((m.get("n"), m.get("k"), m.get("d")), (4096, 8, 64))
                self.assertGreater(m.get("kernel_ms", 0), 0, m)
                self.assertGreater(m.get("gflops", 0), 0, m)
                self.assertIn("transpose_ms", m)
                self.assertIn("upload_ms", m)
                self.assertIn("download_ms", m)
        ceilings = report.get("ceilings")
        self.assertIsInstance(ceilings, dict, json.dumps(report)[:2000])
        self.assertGreater(ceilings.get("fp32_gflops", 0), 0, ceilings)
        self.assert_no_temporaries(self.outdir)

    def test_bench_bad_sizes(self):
        self.require_bench()
        for sizes in ["abc", "4096x", "x8", "4096*8", "-5x8"]:
            with self.subTest(sizes=sizes):
                json_path = self.outpath("out.json")
                result = self.run_bench("--sizes", sizes, "--variants", "openmp", "--repetitions", "1",
                                        "--json", json_path)
                self.assertIn(result.returncode, (1, 2), describe(result))
                self.assertIn(sizes, result.stderr, describe(result))
                self.assert_no_output()

    def test_bench_degenerate_sizes(self):
        # N or K of 0 is not a problem size: a clear failure, not a crash or a hang.
        self.require_bench()
        for sizes in ["4096x0", "0x8"]:
            with self.subTest(sizes=sizes):
                result = self.run_bench("--sizes", sizes, "--variants", "openmp", "--repetitions", "1",
                                        "--warmup", "0", timeout=60)
                self.assertIn(result.returncode, (0, 1, 2), describe(result))
                if result.returncode != 0:
                    self.assertRegex(result.stderr, re.escape(sizes) + r"|[NK] = 0", describe(result))
                else:  # accepted: then reported sensibly (skipped, or zero work), not as NaN
                    self.assertNotRegex(result.stdout + result.stderr, re.compile(r"\bnan\b", re.I),
                                        describe(result))


def main():
    global BOVW, SEED
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--seed", type=int, default=None, help="base seed (default: $BOVW_TEST_SEED, else fresh)")
    options, rest = parser.parse_known_args()
    BOVW = os.path.abspath(options.bovw)
    if not os.access(BOVW, os.X_OK):
        print("test_cli.py: %s is not an executable" % BOVW, file=sys.stderr)
        return 1
    SEED = options.seed
    if SEED is None:
        SEED = int(os.environ.get("BOVW_TEST_SEED") or secrets.randbits(31))
    print("test_cli.py: bovw = %s, seed = %d (repeat with BOVW_TEST_SEED=%d)" % (BOVW, SEED, SEED),
          file=sys.stderr)
    sys.stderr.flush()
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    if not program.result.wasSuccessful():
        print("test_cli.py: FAILED; repeat with BOVW_TEST_SEED=%d" % SEED, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
