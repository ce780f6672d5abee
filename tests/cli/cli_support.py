"""What the command-line tests share: numpy and python3-opencv (or a skip), running bovw with its
output captured, and a failed run described for the assertion message."""
import os
import subprocess
import sys


def require_opencv_and_numpy(script):
    """Returns (cv2, numpy). The interpreter CMake found may lack OpenCV (pyenv, venv): Debian's has it
    when installed, and the script is run again with it. Without either, exit status 77 (CTest: skipped)."""
    try:
        import cv2
        import numpy
        return cv2, numpy
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.access("/usr/bin/python3", os.X_OK) and \
                subprocess.run(["/usr/bin/python3", "-c", "import cv2, numpy"], capture_output=True).returncode == 0:
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        print("%s: needs python3-opencv and python3-numpy; skipping" % script, file=sys.stderr)
        sys.exit(77)


def run(bovw, *args, cwd=None, timeout=180):
    """Runs bovw (arguments may be bytes: names that are not UTF-8), without $BOVW_DEVICE; stdout and
    stderr decoded, bytes that are not UTF-8 kept as surrogate escapes."""
    env = dict(os.environ)
    env.pop("BOVW_DEVICE", None)
    result = subprocess.run([bovw] + [a if isinstance(a, bytes) else str(a) for a in args], capture_output=True,
                            cwd=cwd, env=env, timeout=timeout)
    result.stdout = result.stdout.decode("utf-8", "surrogateescape")
    result.stderr = result.stderr.decode("utf-8", "surrogateescape")
    return result


def describe(result):
    return "exit status %d\n--- stdout:\n%s\n--- stderr:\n%s" % (result.returncode, result.stdout[-3000:],
                                                                  result.stderr[-3000:])


def texture(seed, size=(220, 260), block=10):
    """A random blocky gray texture of `size` (rows, columns): plenty of SURF keypoints, different for
    every seed."""
    cv2, np = require_opencv_and_numpy("cli_support.py")
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (size[0] // block, size[1] // block), dtype=np.uint8)
    return cv2.GaussianBlur(cv2.resize(small, (size[1], size[0]), interpolation=cv2.INTER_NEAREST), (3, 3), 0)
