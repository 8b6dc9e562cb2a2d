"""Build statpriv's extensions: one per Cython module, each linked with csrc/*.c.

Every csrc/*.c is compiled: one header + source per mathematical idea, layered as
csrc/statpriv.h lists them (a new mechanism is one more .c/.h pair, picked up here).
Every statpriv/**/*.pyx becomes the extension of the same dotted name
(statpriv/_core.pyx -> statpriv._core): a mechanism's room may keep its own typed
wrapper instead of growing _core.  Everything compiles clean with -Wall -Wextra
(no warning suppressed); the kernels also with -Wconversion -Wshadow, checked by
tools/check_c_warnings.py (setuptools has no per-source flags, and the
Cython-generated C is not written for those two)."""
import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

WARNINGS = ["-Wall", "-Wextra"]

C_SOURCES = sorted(glob.glob("csrc/*.c"))


def sanitizer_flags(value):
    """Compile and link flags for STATPRIV_SANITIZE=address,undefined (any
    comma list of GCC/clang -fsanitize= names; empty: an ordinary build).
    UBSan reports are made fatal (-fno-sanitize-recover) so a test run stops
    at the first one instead of printing it and carrying on; float-cast-overflow
    is added to undefined because GCC leaves it out of that group, and a double
    out of range of the integer it is converted to (an index or a count from a
    huge n or a NaN) is exactly the undefined behaviour a kernel can hit.  The
    interpreter is not instrumented: run it with libasan preloaded (README,
    Development)."""
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names:
        return [], []
    for name in names:
        if not name.replace("-", "").isalnum():
            raise SystemExit(f"STATPRIV_SANITIZE: {value!r} is not a comma list of sanitizer names")
    if "undefined" in names:
        names.append("float-cast-overflow")
    sanitize = "-fsanitize=" + ",".join(names)
    compile_flags = [sanitize, "-fno-omit-frame-pointer", "-g"]
    if "undefined" in names:
        compile_flags.append("-fno-sanitize-recover=undefined,float-cast-overflow")
    return compile_flags, [sanitize]


SANITIZE_COMPILE, SANITIZE_LINK = sanitizer_flags(os.environ.get("STATPRIV_SANITIZE", ""))


def extension(pyx):
    """The extension built from one .pyx file and every C kernel."""
    return Extension(
        pyx[:-len(".pyx")].replace("/", "."),
        sources=[pyx] + C_SOURCES,
        include_dirs=["csrc", numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O2", "-std=c99", "-fno-fast-math"] + WARNINGS + SANITIZE_COMPILE,
        extra_link_args=SANITIZE_LINK,
        libraries=["m"],
    )


extensions = [extension(pyx) for pyx in sorted(glob.glob("statpriv/**/*.pyx", recursive=True))]

class build_py_with_c_api(build_py):
    """Also ship the C API: csrc/*.h and csrc/*.c go to statpriv/include in the
    built package (statpriv.get_include() returns that directory), beside the
    Cython declarations statpriv/_csrc.pxd (package data, pyproject.toml), so
    C programs and other Cython projects can compile against the kernels."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "statpriv", "include")
        self.mkpath(target)
        for path in sorted(glob.glob("csrc/*.[ch]")):
            self.copy_file(path, os.path.join(target, os.path.basename(path)))


setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}),
      cmdclass={"build_py": build_py_with_c_api})
