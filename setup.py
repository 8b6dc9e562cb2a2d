"""Build statpriv's extensions: one per Cython module, all linked with one
static library of the C kernels.

Every csrc/*.c is compiled: one header + source per mathematical idea, layered as
csrc/statpriv.h lists them (a new mechanism is one more .c/.h pair, picked up here).
The kernels are compiled once per build, into the static library statpriv_kernels
(setuptools' build_clib, the pattern of numpy.random's npyrandom), and every
extension links it: the linker copies in only the kernels that extension calls.
Every statpriv/**/*.pyx becomes the extension of the same dotted name
(statpriv/_core.pyx -> statpriv._core): a mechanism's room may keep its own typed
wrapper instead of growing _core.  Everything compiles clean with -Wall -Wextra
(no warning suppressed); the kernels also with -Wconversion -Wshadow (the
Cython-generated C is not written for those two), which
tools/check_c_warnings.py turns into errors in the test suite.

The build fails rather than produce a statpriv without its compiled core: no
.pyx or kernel source (an incomplete source distribution), no Cython, or a
compile error each stop it.  Ordinary builds carry no debug information
(-g0: it made up most of the 25 MB of extensions); a sanitizer build keeps it."""
import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_clib import build_clib
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

WARNINGS = ["-Wall", "-Wextra"]
KERNEL_WARNINGS = ["-Wconversion", "-Wshadow"]

C_SOURCES = sorted(glob.glob("csrc/*.c"))
C_HEADERS = sorted(glob.glob("csrc/*.h"))
PYX_SOURCES = sorted(glob.glob("statpriv/**/*.pyx", recursive=True))

if "statpriv/_core.pyx" not in PYX_SOURCES or "csrc/statpriv.h" not in C_HEADERS or not C_SOURCES:
    raise SystemExit("setup.py: statpriv/_core.pyx, csrc/statpriv.h or the kernels csrc/*.c are "
                     f"missing from {os.getcwd()}: statpriv cannot be built without its compiled "
                     "core (a source distribution must carry statpriv/**/*.pyx, *.pxd and csrc/)")


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
# Python's own CFLAGS carry -g; without a sanitizer the debug information is
# dropped (it does not change the generated code)
DEBUG_INFO = [] if SANITIZE_COMPILE else ["-g0"]

INCLUDE_DIRS = ["csrc", numpy.get_include()]
MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
# the C semantics that matter for bit-identical results: ISO C99, no fast-math
COMPILE_ARGS = ["-O2", "-std=c99", "-fno-fast-math"] + WARNINGS + DEBUG_INFO + SANITIZE_COMPILE
# POSIX threads: the k = 3 correlated-counts box runs its two halves at once
# (csrc/correlated_counts.c; elsewhere one after the other)
THREADS = ["-pthread"] if os.name == "posix" else []
COMPILE_ARGS += THREADS

KERNELS = "statpriv_kernels"
# the kernels need no Python or numpy header
KERNEL_LIBRARY = (KERNELS, {"sources": C_SOURCES, "include_dirs": ["csrc"],
                            "cflags": COMPILE_ARGS + KERNEL_WARNINGS,
                            "obj_deps": {"": C_HEADERS}})


def extension(pyx):
    """The extension built from one .pyx file, linked with the kernels'
    static library (a kernel change rebuilds it: depends)."""
    return Extension(
        pyx[:-len(".pyx")].replace("/", "."),
        sources=[pyx],
        depends=C_SOURCES + C_HEADERS,
        include_dirs=INCLUDE_DIRS,
        define_macros=MACROS,
        extra_compile_args=COMPILE_ARGS,
        extra_link_args=SANITIZE_LINK + THREADS,
        libraries=[KERNELS, "m"],
    )


def parallel_jobs(command):
    """build_ext's -j/--parallel, else every core (pip passes none)."""
    jobs = command.parallel
    return int(jobs) if jobs not in (None, True) else os.cpu_count() or 1


class build_clib_in_parallel(build_clib):
    """The kernels' static library, its sources compiled in parallel (build_ext's
    -j) and only those whose object is older than the source or any header
    (setuptools' build_clib compiles every source, one at a time, when one is
    stale).  build_ext --force forces it too, so a change of compile flags
    (STATPRIV_SANITIZE) reaches the kernels as it reaches the extensions."""

    def build_libraries(self, libraries):
        from concurrent.futures import ThreadPoolExecutor

        extensions = self.get_finalized_command("build_ext")
        force = self.force or extensions.force
        for name, info in libraries:
            sources = info["sources"]
            headers = info.get("obj_deps", {}).get("", [])
            objects = self.compiler.object_filenames(sources, output_dir=self.build_temp)

            def stale(src, obj):
                return (force or not os.path.exists(obj)
                        or max(os.path.getmtime(p) for p in [src] + headers) > os.path.getmtime(obj))

            def compile_one(src):
                self.compiler.compile([src], output_dir=self.build_temp,
                                      include_dirs=info.get("include_dirs"),
                                      macros=info.get("macros"), extra_postargs=info.get("cflags"))

            with ThreadPoolExecutor(parallel_jobs(extensions)) as pool:
                list(pool.map(compile_one, [src for src, obj in zip(sources, objects)
                                            if stale(src, obj)]))
            # a fresh archive: ar would keep the member of a deleted kernel
            archive = self.compiler.library_filename(name, output_dir=self.build_clib)
            if os.path.exists(archive):
                os.remove(archive)
            self.compiler.create_static_lib(objects, name, output_dir=self.build_clib)


class build_ext_cython(build_ext):
    """Cythonize the .pyx sources when the extensions are built (not when a
    source distribution is made: it carries the .pyx, never generated C),
    after building the kernels' library, which `setup.py build_ext` alone
    would not do.  Without -j/--parallel the build uses every core."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self):
        self.run_command("build_clib")
        super().run()

    def build_extensions(self):
        jobs = parallel_jobs(self)
        generated = {ext.name: ext for ext in cythonize(
            self.extensions, nthreads=jobs if jobs > 1 else 0,
            compiler_directives={"language_level": "3"})}
        for ext in self.extensions:
            ext.sources = generated[ext.name].sources
            ext.depends = sorted(set(ext.depends) | set(generated[ext.name].depends))
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


setup(ext_modules=[extension(pyx) for pyx in PYX_SOURCES],
      libraries=[KERNEL_LIBRARY],
      cmdclass={"build_clib": build_clib_in_parallel, "build_ext": build_ext_cython,
                "build_py": build_py_with_c_api})
