"""Build statpriv's extensions: one per Cython module, each linked with csrc/*.c.

Every csrc/*.c is compiled: one header + source per mathematical idea, layered as
csrc/statpriv.h lists them (a new mechanism is one more .c/.h pair, picked up here).
The kernels are compiled once per build and their objects linked into every
extension (build_ext_kernels_once), not once per extension.
Every statpriv/**/*.pyx becomes the extension of the same dotted name
(statpriv/_core.pyx -> statpriv._core): a mechanism's room may keep its own typed
wrapper instead of growing _core.  Everything compiles clean with -Wall -Wextra
(no warning suppressed); the kernels also with -Wconversion -Wshadow (the
Cython-generated C is not written for those two), which
tools/check_c_warnings.py turns into errors in the test suite."""
import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

WARNINGS = ["-Wall", "-Wextra"]
KERNEL_WARNINGS = ["-Wconversion", "-Wshadow"]

C_SOURCES = sorted(glob.glob("csrc/*.c"))
C_HEADERS = sorted(glob.glob("csrc/*.h"))


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


INCLUDE_DIRS = ["csrc", numpy.get_include()]
MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
# the C semantics that matter for bit-identical results: ISO C99, no fast-math
COMPILE_ARGS = ["-O2", "-std=c99", "-fno-fast-math"] + WARNINGS + SANITIZE_COMPILE


def extension(pyx):
    """The extension built from one .pyx file; build_ext_kernels_once links
    every C kernel into it (a kernel change rebuilds it: depends)."""
    return Extension(
        pyx[:-len(".pyx")].replace("/", "."),
        sources=[pyx],
        depends=C_SOURCES + C_HEADERS,
        include_dirs=INCLUDE_DIRS,
        define_macros=MACROS,
        extra_compile_args=COMPILE_ARGS,
        extra_link_args=SANITIZE_LINK,
        libraries=["m"],
    )


extensions = [extension(pyx) for pyx in sorted(glob.glob("statpriv/**/*.pyx", recursive=True))]


class build_ext_kernels_once(build_ext):
    """Compile csrc/*.c once (the same compiler, flags, macros and include
    directories an extension's own sources get, plus KERNEL_WARNINGS), in
    parallel with --parallel/-j, and link the objects into every extension:
    six extensions used to compile all nineteen kernels each.  A kernel whose
    object is newer than it and than every header is not recompiled.  Without
    -j/--parallel the build uses every core (pip passes none)."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        from concurrent.futures import ThreadPoolExecutor

        def stale(src, obj):
            return (self.force or not os.path.exists(obj)
                    or max(os.path.getmtime(p) for p in [src] + C_HEADERS) > os.path.getmtime(obj))

        objects = self.compiler.object_filenames(C_SOURCES, output_dir=self.build_temp)

        def compile_one(src):
            self.compiler.compile([src], output_dir=self.build_temp, macros=MACROS,
                                  include_dirs=INCLUDE_DIRS,
                                  extra_postargs=COMPILE_ARGS + KERNEL_WARNINGS)

        workers = self.parallel if isinstance(self.parallel, int) and self.parallel > 1 else 1
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(compile_one, [src for src, obj in zip(C_SOURCES, objects)
                                        if stale(src, obj)]))
        for ext in self.extensions:
            ext.extra_objects = list(objects)
        super().build_extensions()


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
      cmdclass={"build_ext": build_ext_kernels_once, "build_py": build_py_with_c_api})
