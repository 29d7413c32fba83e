"""Builds gauntlet._core with CMake for `pip install --no-build-isolation --no-index .`."""

import os
import pathlib
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        out = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        source = pathlib.Path(__file__).resolve().parent
        # One folder below the source, as make's build/: with ccache (see CMakeLists.txt) the paths
        # relative to it are then those of a make build, whose objects this build reuses.
        build = source / "build-wheel"
        build.mkdir(parents=True, exist_ok=True)
        subprocess.check_call([
            "cmake", "-S", str(source), "-B", str(build), f"-DPython3_EXECUTABLE={sys.executable}",
            "-DGAUNTLET_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", f"-DGAUNTLET_PY_OUT={out}"])
        subprocess.check_call(["cmake", "--build", str(build), "--target", "_core",
                               f"-j{os.cpu_count() or 2}"])


setup(ext_modules=[CMakeExtension("gauntlet._core")], cmdclass={"build_ext": CMakeBuild})
