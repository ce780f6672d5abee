"""Builds the extension bovw._bovw for `pip install .` with the project's CMake (target bovw_python,
python/CMakeLists.txt) and puts it into the package python/bovw. Debian 12 has no scikit-build, so
setuptools' build_ext runs CMake itself.

The CMake build folder is build-python/ at the top of the source tree, kept between installs: a
second install rebuilds only what changed. CMAKE_ARGS adds options to CMake's configuration (e.g.
-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default:
all cores).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        return re.search(r"project\(bovw VERSION ([0-9.]+)", f.read()).group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.join(SOURCE, "build-python")
        configure = ["cmake", "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                     "-DPython3_EXECUTABLE=" + sys.executable, "-DBOVW_BUILD_PYTHON=ON", "-DBOVW_BUILD_APPS=OFF",
                     "-DBOVW_BUILD_TESTS=OFF", "-DBOVW_BUILD_BENCH=OFF", "-DBOVW_BUILD_EXAMPLES=OFF",
                     "-DBOVW_WITH_MPI=OFF"]
        try:  # with build isolation, pip's pybind11 (pyproject's requirements have none: Debian's is found)
            import pybind11
            configure.append("-Dpybind11_DIR=" + pybind11.get_cmake_dir())
        except ImportError:
            pass
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build, "--target", "bovw_python", "--parallel", jobs], check=True)
        built = os.path.join(build, "python", "bovw", os.path.basename(self.get_ext_filename(ext.name)))
        if not os.path.exists(built):
            sys.exit("setup.py: CMake built no %s (another Python's suffix? configured for %s)" %
                     (built, sys.executable))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(version=project_version(), ext_modules=[CMakeExtension("bovw._bovw")], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-pip"}})
