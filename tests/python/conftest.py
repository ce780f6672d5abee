"""What the Python module's tests share: the module itself (built in place: PYTHONPATH=<build>/python,
set by ctest), the `bovw` program for results that must equal the CLI's ($BOVW_CLI), the test data
($BOVW_TEST_DATA), and a small folder of textured images made here."""
import os
import subprocess

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")  # Debian's python3-opencv: writes and reads the test images


@pytest.fixture(scope="session")
def data():
    return os.environ.get("BOVW_TEST_DATA") or os.path.join(os.path.dirname(__file__), "..", "data")


@pytest.fixture(scope="session")
def box(data):
    return os.path.join(data, "surf", "box.png")


@pytest.fixture(scope="session")
def cli():
    """Runs `bovw ARGS...`, returning the completed process; the test fails with its stderr if it fails."""
    program = os.environ.get("BOVW_CLI")
    if not program or not os.access(program, os.X_OK):
        pytest.skip("the bovw program is not built ($BOVW_CLI)")

    def run(*args):
        env = dict(os.environ)
        env.pop("BOVW_DEVICE", None)
        result = subprocess.run([program] + [str(a) for a in args], capture_output=True, text=True, env=env,
                                timeout=300)
        assert result.returncode == 0, "bovw %s: exit %d\n%s" % (" ".join(map(str, args)), result.returncode,
                                                                  result.stderr[-3000:])
        return result
    return run


def texture(seed, size=(200, 240), block=10):
    """A random blocky gray texture: plenty of SURF keypoints, different for every seed."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (size[0] // block, size[1] // block), dtype=np.uint8)
    return cv2.GaussianBlur(cv2.resize(small, (size[1], size[0]), interpolation=cv2.INTER_NEAREST), (3, 3), 0)


@pytest.fixture(scope="session")
def images(tmp_path_factory):
    """A folder of 6 PNG textures, sorted by name; returns (folder, paths)."""
    folder = tmp_path_factory.mktemp("images")
    paths = []
    for i in range(6):
        path = str(folder / ("img%d.png" % i))
        assert cv2.imwrite(path, texture(100 + i))
        paths.append(path)
    return str(folder), paths


def rss_bytes():
    """This process's resident memory, from /proc (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
