#!/usr/bin/env python3
"""`bovw extract` on real PNG and JPEG files, against OpenCV's imread (python3-opencv) as the
independent reference: a file is accepted exactly when OpenCV decodes it and neither libpng nor
libjpeg says, on OpenCV's stderr, that its image data is damaged.

The corpus is what Debian packages ship (.ci/install-deps installs them): opencv-doc's images,
adwaita-icon-theme's icons, matplotlib's sample data and scikit-image's data (its astronaut.png and
chelsea.png carry the "known incorrect sRGB profile" of issue 19, its truncated.jpg is truncated),
a fixed sample of them (every file of the two data packages) plus variants made here of some: cut
short, one bit flipped in the image data, and metadata a decoder only warns about (a tEXt chunk with
a bad CRC, a JFIF marker of version 2, an Adobe marker with an unknown colour transform). A variant
with bad metadata must give the same descriptors as its original. The counts are printed.

Usage: test_image_corpus.py --bovw PATH/TO/bovw [--sample N] [unittest options]
Exit status 77 (CTest: skipped) if python3-opencv or a corpus package is missing.
"""
import argparse
import collections
import os
import random
import re
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
    print("test_image_corpus.py: needs python3-opencv and python3-numpy; skipping", file=sys.stderr)
    sys.exit(77)

PACKAGES = ["opencv-doc", "adwaita-icon-theme", "python-matplotlib-data", "python3-skimage"]
ALWAYS = ("python-matplotlib-data", "python3-skimage")  # small: every file is taken
EXTENSIONS = (".png", ".jpg", ".jpeg")
BOVW = None
SAMPLE = 1500
VARIANT_SOURCES = 60  # PNGs and as many JPEGs, each giving its variants

# What libpng and libjpeg print, as OpenCV's decoders let them, sorted by what it says about the
# pixels. libpng prefixes a chunk's problem with the chunk's name: in IDAT it is the image data,
# in any other chunk metadata that libpng drops; its errors end the decode. libjpeg's warnings
# (jerror.h's JWRN_ messages) are printed without prefix; its errors end the decode too.
PNG_DAMAGE = re.compile(r"^libpng (error: .*|warning: IDAT: .*)$")
PNG_METADATA = re.compile(r"^libpng warning: (?!IDAT)[A-Za-z]{4}: .*$")
JPEG_DAMAGE = re.compile(r"^(Corrupt JPEG data: .*|Premature end of JPEG file|"
                         r"Inconsistent progression sequence for component .*)$")
JPEG_METADATA = re.compile(r"^(Warning: unknown JFIF revision number .*|Unknown Adobe color transform code .*|"
                           r"Invalid SOS parameters for sequential JPEG)$")


def package_files(package):
    """The regular PNG and JPEG files a package installed, or None if it is not installed."""
    listing = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True)
    if listing.returncode != 0:
        return None
    return sorted(p for p in listing.stdout.splitlines()
                  if p.lower().endswith(EXTENSIONS) and os.path.isfile(p) and not os.path.islink(p))


def png_chunks(data):
    """(offset, type, length) of each chunk of a PNG."""
    i = 8
    while i + 8 <= len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        yield i, data[i + 4:i + 8], length
        i += 12 + length


def png_chunk(kind, body, good_crc=True):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) ^ (0 if good_crc else 1))


def variants(path, data, rng):
    """{suffix: (bytes, kind)} for one file; kind 'metadata' variants must extract as the original."""
    out = {"cut": (data[:rng.randrange(len(data) // 4, len(data))], "damage")}
    flipped = bytearray(data)
    if path.lower().endswith(".png"):
        idat = [(i, n) for i, kind, n in png_chunks(data) if kind == b"IDAT" and n > 0]
        if not idat:
            return {}
        i, n = rng.choice(idat)
        flipped[i + 8 + rng.randrange(n)] ^= 1 << rng.randrange(8)
        out["text"] = (data[:33] + png_chunk(b"tEXt", b"Comment\0bad crc", False) + data[33:], "metadata")
    else:
        scan = data.find(b"\xff\xda")
        if scan < 0 or scan + 40 >= len(data) - 2:
            return {}
        flipped[rng.randrange(scan + 20, len(data) - 2)] ^= 1 << rng.randrange(8)
        if data[2:4] == b"\xff\xe0" and data[6:11] == b"JFIF\0":
            out["jfif2"] = (data[:11] + b"\x02" + data[12:], "metadata")
            # The JFIF marker replaced by an Adobe one with colour transform 7 (0 and 1 exist): libjpeg
            # warns and assumes YCbCr, as JFIF says (with a JFIF marker it ignores the transform).
            if b"Adobe" not in data[:scan]:
                rest = 4 + struct.unpack(">H", data[4:6])[0]
                out["adobe"] = (data[:2] + b"\xff\xee\x00\x0eAdobe\x00\x64\x00\x00\x00\x00\x07" + data[rest:],
                                "metadata")
    out["flip"] = (bytes(flipped), "damage")
    return out


def opencv_reference(paths):
    """{path: (decoded, [lines printed])} from cv2.imread, gray as bovw reads, stderr captured."""
    result = {}
    sys.stderr.flush()
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            for path in paths:
                start = log.tell()
                image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
                log.seek(start)
                printed = [line.strip() for line in log.read().decode(errors="replace").splitlines() if line.strip()]
                log.seek(0, 2)
                result[path] = (image is not None, printed)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return result


def verdict(path, decoded, printed):
    """'fails', 'damage' or 'clean' by OpenCV's decode; unknown lines are an error of this test."""
    png = path.lower().endswith(".png")
    damage, metadata = (PNG_DAMAGE, PNG_METADATA) if png else (JPEG_DAMAGE, JPEG_METADATA)
    unknown = [line for line in printed if not damage.match(line) and not metadata.match(line)]
    if decoded and unknown:
        raise AssertionError("%s: OpenCV printed lines this test cannot class: %s" % (path, unknown))
    if not decoded:
        return "fails"
    return "damage" if any(damage.match(line) for line in printed) else "clean"


class ImageCorpus(unittest.TestCase):
    def test_acceptance_matches_opencv(self):
        corpus = {}
        missing = []
        for package in PACKAGES:
            files = package_files(package)
            if files is None:
                missing.append(package)
            else:
                corpus[package] = files
        if missing:
            self.skipTest("corpus packages not installed: %s (.ci/install-deps installs them)" % " ".join(missing))

        # The sample: every file of the small packages, an even spread of the others.
        chosen = [p for package in ALWAYS for p in corpus[package]]
        rest = sorted(p for package in PACKAGES if package not in ALWAYS for p in corpus[package])
        step = max(1, len(rest) // max(1, SAMPLE - len(chosen)))
        chosen += rest[::step]
        total_files = sum(len(files) for files in corpus.values())
        self.assertGreater(len(chosen), 1000)

        work = tempfile.mkdtemp(prefix="bovw_image_corpus_")
        self.addCleanup(shutil.rmtree, work)
        images, outputs = os.path.join(work, "images"), os.path.join(work, "out")
        os.mkdir(images)
        origin = {}  # image in the folder -> (corpus file, variant or "original", kind)
        rng = random.Random(19)
        pngs = [p for p in chosen if p.lower().endswith(".png")]
        jpegs = [p for p in chosen if not p.lower().endswith(".png")]
        sources = set(rng.sample(pngs, min(VARIANT_SOURCES, len(pngs))) +
                      rng.sample(jpegs, min(VARIANT_SOURCES, len(jpegs))))
        for n, path in enumerate(chosen):
            with open(path, "rb") as f:
                data = f.read()
            extension = os.path.splitext(path)[1].lower()
            name = os.path.join(images, "%05d%s" % (n, extension))
            with open(name, "wb") as f:
                f.write(data)
            origin[name] = (path, "original", "original")
            if path in sources:
                for suffix, (bytes_, kind) in variants(path, data, rng).items():
                    variant = os.path.join(images, "%05d_%s%s" % (n, suffix, extension))
                    with open(variant, "wb") as f:
                        f.write(bytes_)
                    origin[variant] = (path, suffix, kind)

        start = time.monotonic()
        reference = opencv_reference(sorted(origin))
        opencv_seconds = time.monotonic() - start
        start = time.monotonic()
        # One octave of one layer: which images load is the question here, not their features, and
        # the smallest SURF makes the run four times shorter.
        run = subprocess.run([BOVW, "extract", images, "-o", outputs, "--format", "npy", "--octaves", "1", "--layers", "1"],
                             capture_output=True, text=True, timeout=600)
        bovw_seconds = time.monotonic() - start

        # bovw's one line per refused image; OpenCV's decoders print their own lines unattributed.
        refused = {}
        opencv_lines = collections.Counter()
        line_format = re.compile(r"^bovw: error: extract: '(.*?)': (.*)$")
        for line in run.stderr.splitlines():
            match = line_format.match(line)
            if match:
                refused[match.group(1)] = match.group(2)
            elif not line.startswith("bovw: error: extract: ") or not line.endswith("images failed"):
                opencv_lines[line] += 1
        self.assertEqual(run.returncode, 1 if refused else 0, run.stderr[-3000:])

        counts = collections.Counter()
        reasons = collections.Counter()
        silent_damage = 0
        mismatches = []
        for image, (path, variant, kind) in sorted(origin.items()):
            decoded, printed = reference[image]
            opencv = verdict(image, decoded, printed)
            output = os.path.join(outputs, os.path.splitext(os.path.basename(image))[0] + ".npy")
            accepted = os.path.exists(output)
            self.assertNotEqual(accepted, image in refused, image)
            group = "original" if variant == "original" else kind + " variant"
            counts[(group, opencv, "accepted" if accepted else "refused")] += 1
            if accepted != (opencv == "clean"):
                mismatches.append("%s (%s of %s): OpenCV %s %s, bovw %s" % (
                    image, variant, path, opencv, printed, "accepted" if accepted else refused[image]))
                continue
            if not accepted:
                # The refusal names the data problem, and it is the one OpenCV's decoder met (counts
                # of bytes aside: the check and OpenCV's decode read ahead by different amounts).
                message = refused[image]
                self.assertRegex(message, r"^the (PNG|JPEG) data is corrupt or truncated: |^cannot decode ")
                problem = message.split("corrupt or truncated: ", 1)[-1]
                if printed and "corrupt or truncated: " in message:
                    digits = re.compile(r"\d+")
                    self.assertTrue(any(digits.sub("N", problem) in digits.sub("N", line) for line in printed) or
                                    (problem == "the file ends early (truncated)" and not decoded),
                                    "%s: bovw says %r, OpenCV printed %s" % (image, problem, printed))
                reasons[re.sub(r"\d+", "N", problem)] += 1
            if kind == "metadata" and accepted:
                # A metadata variant is decoded to the same pixels: the same descriptors, byte for byte.
                original = [name for name, o in origin.items() if o[0] == path and o[1] == "original"][0]
                with open(output, "rb") as a, open(
                        os.path.join(outputs, os.path.splitext(os.path.basename(original))[0] + ".npy"), "rb") as b:
                    self.assertEqual(a.read(), b.read(), image)
            if kind == "damage" and accepted:
                silent_damage += 1

        print("\ncorpus: %d PNG/JPEG files in %s; %d taken, %d variants made of %d of them" % (
            total_files, ", ".join(PACKAGES), len(chosen), len(origin) - len(chosen), len(sources)))
        for (group, opencv, outcome), count in sorted(counts.items()):
            print("  %-17s OpenCV %-6s bovw %-8s %5d" % (group, opencv, outcome, count))
        for reason, count in reasons.most_common():
            print("  refused: %-70s %5d" % (reason, count))
        print("  damaged variants that no decoder complains about (accepted, as OpenCV gives them): %d" % silent_damage)
        for line, count in opencv_lines.most_common():
            print("  printed by OpenCV's decoders during extract: %r x %d" % (line, count))
        print("  OpenCV imread of all: %.1f s; bovw extract of all: %.1f s" % (opencv_seconds, bovw_seconds))
        self.assertEqual(mismatches, [])
        # An accepted PNG's metadata warnings stay quiet: the chunks libpng warned about are left out of
        # what OpenCV decodes (src/features/decoder_checks/png_data.cpp), so no nameless line is printed.
        self.assertEqual([line for line in opencv_lines if "libpng" in line], [])

        # Issue 19's own file: a warning about its colour profile, and accepted.
        for name in ("astronaut.png", "chelsea.png"):
            image = [i for i, o in origin.items() if o[0].endswith("/skimage/data/" + name) and o[1] == "original"]
            self.assertEqual(len(image), 1, name)
            self.assertIn("libpng warning: iCCP: known incorrect sRGB profile", reference[image[0]][1])
            self.assertNotIn(image[0], refused)


def main():
    global BOVW, SAMPLE
    parser = argparse.ArgumentParser()
    parser.add_argument("--bovw", required=True)
    parser.add_argument("--sample", type=int, default=SAMPLE, help="about how many corpus files to take")
    args, rest = parser.parse_known_args()
    BOVW, SAMPLE = os.path.abspath(args.bovw), args.sample
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
