"""Build the optional compiled core in place: the modules ``ctxgrad.version.COMPILABLE`` names,
compiled by Cython from the same ``.py`` files, unchanged (its pure-Python mode: a ``.pxd`` file
put beside one, if any, adds typed declarations without touching the ``.py``).

The ``.py`` files stay the source and the reference: a plain ``pip install`` ships and runs them,
and Python imports a compiled module (``function.cpython-311-x86_64-linux-gnu.so``) instead of its
``.py`` only when one was built here.  ``ctxgrad.version.compiled`` says which build runs.

    python tools/build_compiled.py            # needs Cython, setuptools and a C compiler
    python tools/build_compiled.py --clean    # back to pure Python: removes the built files

An edited ``.py`` is not run while its compiled module sits beside it: build again (or clean).
``tests/test_compiled_build.py`` fails when a compiled module is older than its source.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Directives that keep compiled functions behaving as Python functions: introspectable
# (``binding``: ``inspect.signature``, ``__wrapped__``, methods bound as functions are), called
# by keyword, and typed only where a ``.pxd`` says so (annotations are for type checkers here:
# an ``int`` parameter must still take a Python int of any size).
DIRECTIVES = {
    "language_level": 3,
    "binding": True,
    "always_allow_keywords": True,
    "annotation_typing": False,
    "embedsignature": False,
}

# Run in a scratch directory (setuptools would read the project's pyproject.toml, which hatchling
# builds), from absolute source paths; the compiled modules are then copied beside their sources.
# ``include_path``: where a ``.pxd`` finds the ones it cimports (``from ctxgrad._tensor_base
# cimport TensorBase``).  Cython and the C compiler run one job per core.
_SETUP = """
import os
import sys
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

root, scratch, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
jobs = os.cpu_count() or 1
sys.argv[1:] = ["build_ext", "--build-lib", scratch + "/lib", "--build-temp", scratch + "/temp", "-j", str(jobs)]
# (a module with a .pyx beside its .py is built from the .pyx; NumPy's headers for the .pyx that
# reads an array's C structure)
def source(m):
    stem = root + "/" + m.replace(".", "/")
    return stem + ".pyx" if os.path.exists(stem + ".pyx") else stem + ".py"
extensions = [Extension(m, [source(m)], include_dirs=[numpy.get_include()]) for m in modules]
setup(
    name="ctxgrad-compiled-core",
    ext_modules=cythonize(
        extensions,
        build_dir=scratch + "/c",
        quiet=True,
        include_path=[root],
        nthreads=jobs,
        compiler_directives={directives!r},
    ),
)
"""


def compilable() -> tuple[str, ...]:
    """The module names in ``ctxgrad/version.py``'s ``COMPILABLE``, read without importing ctxgrad."""
    tree = ast.parse((ROOT / "ctxgrad" / "version.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "COMPILABLE":
            return tuple(ast.literal_eval(node.value))  # type: ignore[arg-type]
    raise SystemExit("ctxgrad/version.py defines no COMPILABLE")


def built_files(module: str) -> list[Path]:
    """The compiled module and the C file that Cython wrote for ``module``."""
    source = ROOT / (module.replace(".", "/") + ".py")
    return (
        sorted(source.parent.glob(source.stem + ".*.so"))
        + sorted(source.parent.glob(source.stem + ".*.pyd"))
        + [source.with_suffix(".c")]
    )


def clean(modules: tuple[str, ...]) -> None:
    for module in modules:
        for path in built_files(module):
            if path.exists():
                path.unlink()
                print(f"removed {path.relative_to(ROOT)}")


def build(modules: tuple[str, ...]) -> None:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "setup_compiled.py"
        script.write_text(_SETUP.format(directives=DIRECTIVES))
        subprocess.run([sys.executable, str(script), str(ROOT), scratch, *modules], cwd=scratch, check=True)
        for built in sorted((Path(scratch) / "lib").rglob("*.*")):
            target = ROOT / built.relative_to(Path(scratch) / "lib")
            shutil.copyfile(built, target)
            print(f"built {target.relative_to(ROOT)}")
    print(f"compiled {len(modules)} modules in {time.perf_counter() - start:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules (back to pure Python)")
    args = parser.parse_args(argv)
    modules = compilable()
    if args.clean:
        clean(modules)
    else:
        build(modules)
    return 0


if __name__ == "__main__":
    sys.exit(main())
