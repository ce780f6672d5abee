"""The examples in examples/python work: retrieval.py (trained, indexed and searched, the query image
ranks first) and walkthrough.py (on box.png and box_in_scene.png among textures, the scene is found,
verified, and both figures are written)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import cv2, texture

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")
EXAMPLE = os.path.join(EXAMPLES, "retrieval.py")
SAMPLES = "/usr/share/doc/opencv-doc/examples/data"


def test_the_retrieval_example_finds_the_query(images, tmp_path):
    folder, paths = images
    result = subprocess.run([sys.executable, EXAMPLE, folder, paths[3], "--words", "32", "--top", "3"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "trained 32 surf64 words" and lines[1] == "indexed 6 images"
    assert lines[2].startswith("1. " + paths[3]) and "inliers" in lines[2]
    assert len(lines) == 5


def test_the_example_reports_a_bad_query(images, tmp_path):
    folder, _ = images
    result = subprocess.run([sys.executable, EXAMPLE, folder, str(tmp_path / "missing.png"), "--words", "32"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "missing.png" in result.stderr


def test_the_walkthrough_finds_the_box_in_its_scene_and_draws_it(tmp_path):
    pytest.importorskip("matplotlib")  # Debian's python3-matplotlib
    if not os.path.isfile(os.path.join(SAMPLES, "box_in_scene.png")):
        pytest.skip("opencv-doc's sample images are not installed")
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("box.png", "box_in_scene.png"):
        shutil.copy(os.path.join(SAMPLES, name), folder / name)
    for i in range(4):
        assert cv2.imwrite(str(folder / ("texture%d.png" % i)), texture(500 + i, size=(300, 400)))
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "walkthrough.py"), str(folder),
                             str(folder / "box.png"), "--output", str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    first = [line for line in result.stdout.splitlines() if line.startswith("1. ")][0]
    assert first.startswith("1. box_in_scene.png") and first.endswith("verified"), result.stdout
    for figure in ("walkthrough_histogram.png", "walkthrough_match.png"):
        image = cv2.imread(str(tmp_path / figure))
        assert image is not None and image.shape[0] > 100, figure
