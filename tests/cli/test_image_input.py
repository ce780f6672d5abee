#!/usr/bin/env python3
"""End-to-end tests of image input in `bovw extract`: decompression bombs (a TIFF and a WebP of a
few KB that decode to 30000 x 30000 and 16000 x 16000 pixels) refused from their headers in well
under a second, JPEG and PNG image data that libjpeg or libpng say is damaged refused (metadata
problems are not), OpenCV's decoder messages folded into the image's one error line, and stderr
holding exactly one line per problem.

Usage: test_image_input.py --bovw PATH/TO/bovw --data tests/data/surf [unittest options]
The files are made here (python3 zlib and struct; python3-opencv and numpy for small images).
Exit status 77 (CTest: skipped) if python3-opencv or numpy is missing.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

try:
    import cv2
    import numpy as np
except ImportError:
    print("test_image_input.py: needs python3-opencv and python3-numpy; skipping", file=sys.stderr)
    sys.exit(77)

BOVW = None
DATA = None
LIMIT = 100000000  # bovw's default --max-pixels


def run(*args):
    return subprocess.run([BOVW, "extract"] + [str(a) for a in args], capture_output=True, text=True, timeout=120)


def shared_strip_tiff(width, height, rows_per_strip=100):
    """An 8-bit gray TIFF of zeros in deflate strips that all point at one compressed block: a few
    KB however large, and a file libtiff decodes in full."""
    packed = zlib.compress(bytes(width * rows_per_strip), 9)
    strips = (height + rows_per_strip - 1) // rows_per_strip
    entries = 9
    offsets_at = 8 + 2 + 12 * entries + 4
    counts_at = offsets_at + 4 * strips
    data_at = counts_at + 4 * strips

    def entry(tag, kind, count, value):
        packed_value = struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value)
        return struct.pack("<HHI", tag, kind, count) + packed_value

    directory = (entry(256, 4, 1, width) + entry(257, 4, 1, height) + entry(258, 3, 1, 8) +
                 entry(259, 3, 1, 8) + entry(262, 3, 1, 1) + entry(273, 4, strips, offsets_at) +
                 entry(277, 3, 1, 1) + entry(278, 4, 1, rows_per_strip) + entry(279, 4, strips, counts_at))
    return (b"II*\0" + struct.pack("<IH", 8, entries) + directory + struct.pack("<I", 0) +
            struct.pack("<%dI" % strips, *[data_at] * strips) +
            struct.pack("<%dI" % strips, *[len(packed)] * strips) + packed)


def constant_webp(width, height):
    """A lossless WebP of a constant image with its VP8L size rewritten: zero bits per pixel, so
    libwebp decodes the few bytes to the full size."""
    ok, encoded = cv2.imencode(".webp", np.full((16, 16, 3), 77, np.uint8), [cv2.IMWRITE_WEBP_QUALITY, 101])
    data = bytearray(encoded.tobytes())
    assert ok and data[12:16] == b"VP8L" and data[20] == 0x2F
    bits = struct.unpack("<I", bytes(data[21:25]))[0]
    bits = (bits & ~((1 << 28) - 1)) | (width - 1) | ((height - 1) << 14)
    data[21:25] = struct.pack("<I", bits)
    return bytes(data)


class ImageInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bovw_image_input_")
        self.box = os.path.join(DATA, "box.png")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def write(self, name, data):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def encoded(self, ext):
        with open(self.box, "rb") as f:
            return cv2.imencode(ext, cv2.imread(self.box, cv2.IMREAD_GRAYSCALE))[1].tobytes()

    def assert_fails_with_lines(self, image, expected_first_line):
        """One image fails: exit status 1, stderr exactly its line and the count, no output."""
        out = self.path("out.yml.gz")
        result = run(image, "-o", out)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stderr.splitlines(),
                         [expected_first_line, "bovw: error: extract: 1 of 1 images failed"])
        self.assertEqual(result.stdout, "")
        self.assertFalse(os.path.exists(out))
        return result

    def test_tiff_and_webp_bombs_are_refused_from_the_header(self):
        for name, data, claim in (("bomb.tif", shared_strip_tiff(30000, 30000), "TIFF header) declares 30000x30000"),
                                  ("bomb.webp", constant_webp(16000, 16000), "WebP header) declares 16000x16000")):
            with self.subTest(name=name):
                self.assertLess(len(data), 8000)
                bomb = self.write(name, data)
                start = time.monotonic()
                self.assert_fails_with_lines(
                    bomb, "bovw: error: extract: image '%s' (%s pixels, above the limit of %d" % (bomb, claim, LIMIT))
                self.assertLess(time.monotonic() - start, 2.0)  # the program's start included
        # The same builders at a small size make images that decode.
        for name, data in (("small.tif", shared_strip_tiff(300, 250)), ("small.webp", constant_webp(64, 48))):
            result = run(self.write(name, data), "-o", self.path(name + ".npy"))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "")

    def test_jpeg_data_libjpeg_warns_about_is_refused(self):
        jpg = self.encoded(".jpg")
        premature = self.write("premature.jpg", jpg[: len(jpg) // 2] + b"\xff\xd9")
        self.assert_fails_with_lines(
            premature, "bovw: error: extract: '%s': the JPEG data is corrupt or truncated: "
                       "Corrupt JPEG data: premature end of data segment" % premature)
        truncated = self.write("truncated.jpg", jpg[: len(jpg) * 2 // 3])
        self.assert_fails_with_lines(
            truncated, "bovw: error: extract: '%s': the JPEG data is corrupt or truncated: "
                       "Premature end of JPEG file" % truncated)

    def test_png_image_data_libpng_complains_about_is_refused(self):
        png = self.encoded(".png")
        idat = png.find(b"IDAT")
        crc_at = idat + 4 + struct.unpack(">I", png[idat - 4:idat])[0]
        bad_crc = self.write("bad_crc.png", png[:crc_at] + bytes([png[crc_at] ^ 1]) + png[crc_at + 1:])
        self.assert_fails_with_lines(
            bad_crc, "bovw: error: extract: '%s': the PNG data is corrupt or truncated: IDAT: CRC error" % bad_crc)
        # A bad CRC in an ancillary chunk is lost metadata: libpng drops the chunk, the pixels are whole.
        body = b"tEXtComment\0bad crc"
        bad_text = png[:33] + struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body) ^ 1) + png[33:]
        result = run(self.write("bad_text.png", bad_text), "-o", self.path("text.npy"))
        self.assertEqual(result.returncode, 0, result.stderr)
        good = run(self.write("good.png", png), "-o", self.path("good.npy"))
        self.assertEqual(good.returncode, 0, good.stderr)
        with open(self.path("text.npy"), "rb") as a, open(self.path("good.npy"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        cut = self.write("cut.png", png[: len(png) // 2])
        self.assert_fails_with_lines(
            cut, "bovw: error: extract: '%s': the PNG data is corrupt or truncated: the file ends early (truncated)"
                 % cut)

    def test_opencv_decoder_messages_join_the_error_line(self):
        # Seven samples per pixel: OpenCV's TIFF decoder throws, and imdecode prints the exception.
        tiff = bytearray(shared_strip_tiff(300, 250))
        tiff[8 + 2 + 12 * 6 + 8] = 7  # SamplesPerPixel, the seventh directory entry
        path = self.write("seven.tif", bytes(tiff))
        result = run(path, "-o", self.path("out.yml.gz"))
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 2, result.stderr)
        self.assertTrue(lines[0].startswith("bovw: error: extract: '%s': cannot decode the TIFF image (OpenCV: " % path),
                        lines[0])
        self.assertIn("Unsupported number of channels", lines[0])

    def test_formats_read_through_gdal_or_gdcm_are_refused(self):
        path = self.write("scan.png", bytes(128) + b"DICM" + bytes(200))
        self.assert_fails_with_lines(
            path, "bovw: error: extract: '%s': DICOM images are not read: bovw checks no header of that format "
                  "before decoding (convert it to PNG or TIFF)" % path)

    def test_a_folder_gets_one_line_per_bad_image(self):
        images = self.path("images")
        os.mkdir(images)
        shutil.copy(self.box, os.path.join(images, "a_good.png"))
        bad = {"b_bomb.tif": shared_strip_tiff(30000, 30000), "c_bomb.webp": constant_webp(16000, 16000),
               "d_premature.jpg": self.encoded(".jpg")[:3000] + b"\xff\xd9",
               "e_cut.png": self.encoded(".png")[:3000]}
        for name, data in bad.items():
            with open(os.path.join(images, name), "wb") as f:
                f.write(data)
        out = self.path("out")
        result = run(images, "-o", out)
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), len(bad) + 1, result.stderr)
        for line, name in zip(lines, sorted(bad)):
            self.assertTrue(line.startswith("bovw: error: extract: "), line)
            self.assertIn(os.path.join(images, name), line)
        self.assertEqual(lines[-1], "bovw: error: extract: 4 of 5 images failed")
        self.assertEqual(os.listdir(out), ["a_good.yml.gz"])


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
