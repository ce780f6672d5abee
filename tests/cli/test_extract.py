#!/usr/bin/env python3
"""End-to-end tests of `bovw extract` (SURF): the golden-schema output, folders with bad files,
--strict, .npy output, exit statuses and atomic outputs.

Usage: test_extract.py --bovw PATH/TO/bovw --data tests/data/surf [unittest options]
The reference comparison uses the golden box.png data shipped in tests/data/surf; python3-opencv and
numpy (Debian packages) read the outputs. Exit status 77 (CTest: skipped) if they are missing.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import cv2
    import numpy as np
except ImportError:
    print("test_extract.py: needs python3-opencv and python3-numpy; skipping", file=sys.stderr)
    sys.exit(77)

BOVW = None
DATA = None


def run(*args):
    return subprocess.run([BOVW, "extract"] + [str(a) for a in args], capture_output=True, text=True, timeout=120)


def read_yml(path):
    fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    keypoints = fs.getNode("keypoints_x_y_size_angle_response_octave").mat()
    descriptors = fs.getNode("descriptors").mat()
    fs.release()
    return keypoints, descriptors


class Extract(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bovw_extract_")
        self.box = os.path.join(DATA, "box.png")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def test_single_image_matches_the_opencv_reference(self):
        out = self.path("box.yml.gz")
        result = run(self.box, "-o", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        keypoints, descriptors = read_yml(out)
        ref_keypoints, ref_descriptors = read_yml(os.path.join(DATA, "box.default.yml.gz"))
        self.assertEqual(keypoints.shape, ref_keypoints.shape)
        self.assertEqual(descriptors.shape, (keypoints.shape[0], 64))
        # Positions and descriptors agree to float rounding (the order may swap equal responses).
        order = np.lexsort((keypoints[:, 1], keypoints[:, 0]))
        ref_order = np.lexsort((ref_keypoints[:, 1], ref_keypoints[:, 0]))
        self.assertLess(np.abs(keypoints[order, :2] - ref_keypoints[ref_order, :2]).max(), 0.01)
        distances = np.linalg.norm(descriptors[order] - ref_descriptors[ref_order], axis=1)
        self.assertLess(np.median(distances), 0.01)

    def test_npy_and_extended(self):
        out = self.path("box.npy")
        result = run(self.box, "-o", out, "--extended")
        self.assertEqual(result.returncode, 0, result.stderr)
        descriptors = np.load(out)
        self.assertEqual(descriptors.dtype, np.float32)
        self.assertEqual(descriptors.shape[1], 128)
        self.assertTrue(np.allclose(np.linalg.norm(descriptors, axis=1), 1.0, atol=1e-4))

    def test_folder_reports_bad_files_and_finishes_the_good_ones(self):
        images = self.path("images")
        os.mkdir(images)
        shutil.copy(self.box, os.path.join(images, "a.png"))
        shutil.copy(self.box, os.path.join(images, "c.png"))
        with open(self.box, "rb") as f:
            data = f.read()
        with open(os.path.join(images, "b.png"), "wb") as f:
            f.write(data[: len(data) // 3])  # truncated
        with open(os.path.join(images, "notes.txt"), "w") as f:
            f.write("not an image\n")  # skipped by extension, not an error
        out = self.path("out")
        result = run(images, "-o", out)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("b.png", result.stderr)
        self.assertNotIn("notes.txt", result.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["a.yml.gz", "c.yml.gz"])

        strict_out = self.path("strict")
        result = run(images, "-o", strict_out, "--strict")
        self.assertEqual(result.returncode, 1)
        self.assertIn("b.png", result.stderr)
        self.assertNotIn("c.yml.gz", os.listdir(strict_out) if os.path.isdir(strict_out) else [])

    def test_bad_inputs_exit_1_and_leave_nothing(self):
        flat = self.path("flat.png")
        cv2.imwrite(flat, np.full((200, 300), 128, np.uint8))
        result = run(flat, "-o", self.path("flat.npy"))
        self.assertEqual(result.returncode, 0, result.stderr)  # no features is a valid answer
        self.assertEqual(np.load(self.path("flat.npy")).shape[0], 0)

        garbage = self.path("garbage.jpg")
        with open(garbage, "wb") as f:
            f.write(b"\xff\xd8 this is not a jpeg")
        for args in ([garbage, "-o", self.path("g.yml.gz")],
                     [self.path("missing.png"), "-o", self.path("m.yml.gz")],
                     [self.box, "-o", self.path("big.yml.gz"), "--max-pixels", "1000"]):
            result = run(*args)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(os.path.basename(args[0]), result.stderr)
            self.assertFalse(os.path.exists(args[2]))
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith(".bovw-tmp")], [])

    def test_threads(self):
        """--threads N sets the extraction's thread count (0: all cores, as every other command takes it):
        the output does not depend on it; anything but a whole number >= 0 is a usage error (exit 2)
        naming the option."""
        outputs = []
        for threads in (1, 2, 0):
            out = self.path("box%d.yml.gz" % threads)
            result = run(self.box, "-o", out, "--threads", threads)
            self.assertEqual(result.returncode, 0, result.stderr)
            outputs.append(read_yml(out))
        self.assertGreater(outputs[0][0].shape[0], 100)
        for other in outputs[1:]:
            for a, b in zip(outputs[0], other):
                np.testing.assert_array_equal(a, b)
        for bad in ("-1", "two", "1.5", ""):
            with self.subTest(threads=bad):
                out = self.path("bad.yml.gz")
                result = run(self.box, "-o", out, "--threads", bad)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn("--threads", result.stderr)
                if bad:
                    self.assertIn("thread count must be a whole number >= 0 (0: all cores), got '%s'" % bad,
                                  result.stderr)
                self.assertFalse(os.path.exists(out))

    def test_other_feature_kinds_match_opencv(self):
        """--features orb with a --feature-param: keypoints and descriptors (bits unpacked to 0/1) are
        those of OpenCV's own ORB with the same parameters; the file records the feature spec; SURF's
        options are refused with another kind (usage error)."""
        out = self.path("box_orb.yml.gz")
        result = run(self.box, "-o", out, "--features", "orb", "--feature-param", "nfeatures=300", "--threads", "0")
        self.assertEqual(result.returncode, 0, result.stderr)
        keypoints, descriptors = read_yml(out)
        orb = cv2.ORB_create(nfeatures=300)
        ref_kp, ref_desc = orb.detectAndCompute(cv2.imread(self.box, cv2.IMREAD_GRAYSCALE), None)
        self.assertGreater(len(ref_kp), 100)
        np.testing.assert_allclose(keypoints[:, :2], np.array([k.pt for k in ref_kp], np.float32), atol=1e-4)
        # Bit j of byte b is element 8 b + j (least significant bit first, as bovw unpacks them).
        np.testing.assert_array_equal(descriptors,
                                      np.unpackbits(ref_desc, axis=1, bitorder="little").astype(np.float32))
        fs = cv2.FileStorage(out, cv2.FILE_STORAGE_READ)
        self.assertIn("nfeatures=300", fs.getNode("features").string())
        self.assertTrue(fs.getNode("hessianThreshold").empty())
        result = run(self.box, "-o", self.path("bad.yml.gz"), "--features", "orb", "--hessian", "400")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--hessian is a SURF option", result.stderr)
        self.assertFalse(os.path.exists(self.path("bad.yml.gz")))

    def test_opencl_backend_writes_the_builtin_backends_file(self):
        """--surf-backend opencl (every stage on the OpenCL device: PoCL here) writes keypoints and
        descriptors identical to the builtin backend's, upright and extended included."""
        for flags in ([], ["--upright", "--extended"]):
            with self.subTest(flags=flags):
                outputs = []
                for backend in ("builtin", "opencl"):
                    out = self.path("box-%s%s.yml.gz" % (backend, "".join(flags)))
                    result = run(self.box, "-o", out, "--surf-backend", backend, *flags)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    outputs.append(read_yml(out))
                self.assertGreater(outputs[0][0].shape[0], 100)
                for a, b in zip(outputs[0], outputs[1]):
                    np.testing.assert_array_equal(a, b)

    def test_opencl_folder_runs_in_device_batches_and_writes_the_builtin_files(self):
        """A folder through --surf-backend opencl (device batches of several images, decoded into pinned
        staging) writes, per image, exactly the builtin backend's file; a truncated image in the middle
        fails by name and leaves no output, the others finish."""
        images = self.path("images")
        os.mkdir(images)
        graf = os.path.join(DATA, "graf1_gray.png")
        for name, source in (("a.png", self.box), ("c.png", graf), ("d.png", self.box)):
            shutil.copy(source, os.path.join(images, name))
        with open(self.box, "rb") as f:
            data = f.read()
        with open(os.path.join(images, "b.png"), "wb") as f:
            f.write(data[: len(data) // 3])  # truncated
        outputs = {}
        for backend in ("builtin", "opencl"):
            out = self.path("out-" + backend)
            result = run(images, "-o", out, "--surf-backend", backend)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn("b.png", result.stderr)
            self.assertEqual(sorted(os.listdir(out)), ["a.yml.gz", "c.yml.gz", "d.yml.gz"])
            self.assertEqual([line.split(":")[0] for line in result.stdout.splitlines()],
                             [os.path.join(images, n) for n in ("a.png", "c.png", "d.png")])  # in order
            outputs[backend] = {n: read_yml(os.path.join(out, n)) for n in os.listdir(out)}
        self.assertGreater(outputs["builtin"]["c.yml.gz"][0].shape[0], 1000)
        for name, (keypoints, descriptors) in outputs["builtin"].items():
            np.testing.assert_array_equal(keypoints, outputs["opencl"][name][0])
            np.testing.assert_array_equal(descriptors, outputs["opencl"][name][1])

    def test_usage_errors(self):
        self.assertEqual(run(self.box).returncode, 2)  # no --output
        self.assertEqual(run(self.box, "-o", self.path("x.yml"), "--surf-backend", "fast").returncode, 2)
        # --backend names the histogram backend in every other command; extract has none.
        self.assertEqual(run(self.box, "-o", self.path("x.yml"), "--backend", "builtin").returncode, 2)
        self.assertFalse(os.path.exists(self.path("x.yml")))
        self.assertEqual(run(self.box, "-o", self.path("x.yml"), "--surf-backend", "builtin").returncode, 0)


def main():
    global BOVW, DATA
    parser = argparse.ArgumentParser()
    parser.add_argument("--bovw", required=True)
    parser.add_argument("--data", required=True)
    args, rest = parser.parse_known_args()
    BOVW, DATA = os.path.abspath(args.bovw), os.path.abspath(args.data)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
