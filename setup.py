"""Build the statpriv._core extension from csrc/*.c and the Cython wrapper.

Every csrc/*.c is compiled: one header + source per mathematical idea, layered as
csrc/statpriv.h lists them (a new mechanism is one more .c/.h pair, picked up here).
The kernels compile clean with -Wall -Wextra (no warning suppressed)."""
import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

WARNINGS = ["-Wall", "-Wextra"]

core = Extension(
    "statpriv._core",
    sources=["statpriv/_core.pyx"] + sorted(glob.glob("csrc/*.c")),
    include_dirs=["csrc", numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    extra_compile_args=["-O2", "-std=c99", "-fno-fast-math"] + WARNINGS,
    libraries=["m"],
)

setup(ext_modules=cythonize([core], compiler_directives={"language_level": "3"}))
