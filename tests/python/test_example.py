"""examples/python/retrieval.py works: trained, indexed and searched, the query image ranks first."""
import os
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "retrieval.py")


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
