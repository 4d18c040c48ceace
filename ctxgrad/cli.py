"""The command line: ``ctxgrad check``, then paths and options (or ``python -m ctxgrad check``);
``ctxgrad run script.py [args...]`` runs a program written for torch on ctxgrad (see
:func:`ctxgrad._torch_alias.run_script`).

Run: ``ctxgrad check PATH[::Name] ... [options]``.

Each ``PATH`` is a Python file (``examples/checks/good_ops.py``), an importable module
(``my_package.ops``), a directory (every ``.py`` file below it) or a glob
(``"ops/*.py"``, ``"src/**/*.py"``).  Every subclass of :class:`~ctxgrad.autograd.Function`
*defined* there (not imported from elsewhere) is checked with
:func:`ctxgrad.checks.check_function`, or only the one named after ``::``.  The output is one
line per check, the findings with their fixes and a summary per Function, then a total line;
``--json`` prints the same as one JSON object.  With more than one file, a progress line per
file goes to stderr as it is checked, and files of a directory or glob that define no Function
are skipped.

``--against-torch`` also runs each Function under torch, on the same inputs and
grad_outputs, and compares every output and input gradient (the checks
``torch-outputs`` and ``torch-gradients``; a difference is the finding
``differs-from-torch``, naming the first element that differs): against the torch
Function of the same name when the file imports torch (a file written for torch), else
against the Function run inside torch through :func:`ctxgrad.bridge.to_torch`.  torch is
needed then, and only then.

A Function without example inputs is checked on inputs guessed from its ``forward``'s
signature (a hint in its report says so), or on those ``--inputs "3x4,float64;4,float64"``
describes (one ``shape,dtype`` item per argument; they replace any example inputs).

The file (or the module's file) is run from its source text, as a fresh module, each time:
no bytecode cache is read or written, so a check right after an edit runs the edited code.
It is run under the ``torch`` alias, so a file written for torch (``import torch``,
``class F(torch.autograd.Function)``) is checked as written.

Exit codes: 0 when every Function passes (hints allowed), 1 when some check fails, 2 when
the command cannot run (no such file, a file that does not import, no Function in it); with
several files, 2 when any of them could not be checked (the others are still checked).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import importlib
import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from ctxgrad import __version__
from ctxgrad._check_inputs import inputs_from_spec
from ctxgrad._torch_alias import run_script, torch_alias
from ctxgrad.autograd.function import Function
from ctxgrad.checks import CheckReport, check_function

__all__ = ["main"]

_USAGE_ERROR = 2
_CHECK_FAILED = 1


class _UsageError(Exception):
    """A problem with what the command was given, told as one paragraph."""


def _prog() -> str:
    """How the command was called: the ``ctxgrad`` script or ``python -m ctxgrad``."""
    return "python -m ctxgrad" if os.path.basename(sys.argv[0]) == "__main__.py" else "ctxgrad"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=_prog(), description="ctxgrad tools for op authors.")
    parser.add_argument("--version", action="version", version=f"ctxgrad {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="diagnose the custom Functions of a file or module",
        description="Run ctxgrad.checks.check_function on every Function subclass defined in a file or module.",
    )
    check.add_argument(
        "targets",
        nargs="+",
        metavar="PATH[::Name]",
        help="a .py file, a module name, a directory or a glob, optionally ::FunctionName; several may be given",
    )
    check.add_argument("--double", action="store_true", help="also check second derivatives (double backward)")
    check.add_argument(
        "--forward",
        action="store_true",
        help="check forward mode: the jvp, or for a Function without one the jvp derived from its backward; "
        "fail where forward mode cannot derive one",
    )
    check.add_argument(
        "--dtype",
        default="float64",
        choices=["float64", "float32", "complex128", "complex64"],
        help="dtype of the floating-point inputs; a complex one checks them as complex numbers (default: float64)",
    )
    check.add_argument(
        "--inputs",
        metavar="SPEC",
        help='inputs for every Function checked, "shape,dtype;..." (as "3x4,float64;4,float64"); by default '
        "its example inputs, or a guess from its forward's signature",
    )
    check.add_argument(
        "--against-torch",
        action="store_true",
        help="also run each Function under torch on the same inputs (a file that imports torch: its torch Function "
        "of the same name; else through ctxgrad.bridge.to_torch) and compare outputs and gradients",
    )
    check.add_argument("--seed", type=int, default=0, help="seed of the random grad_outputs (default: 0)")
    check.add_argument("--json", action="store_true", help="print the reports as one JSON object")
    commands.add_parser(
        "run",
        parents=[_run_parser(add_help=False)],
        help="run a program written for torch on ctxgrad, with no edited line",
        description=_run_parser().description,
    )
    return parser


def _run_parser(add_help: bool = True) -> argparse.ArgumentParser:
    """``run``'s own parser: everything after the script is the script's (``--lr 0.1``)."""
    parser = argparse.ArgumentParser(
        prog=f"{_prog()} run",
        add_help=add_help,
        description="Run a Python file as `python script.py args...` does, with `import torch` (functorch, torchviz) "
        "giving ctxgrad. Refused where a real torch is installed, unless --force-alias.",
    )
    parser.add_argument(
        "--force-alias", action="store_true", help="use the alias even where a real torch is installed (hiding it)"
    )
    parser.add_argument("script", help="the Python file to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments (its sys.argv[1:])")
    return parser


def _import_target(path: str) -> ModuleType:
    """Load a file by path, or a module by name, from its source; every failure becomes a
    _UsageError.  Call it inside :func:`_checking_from`."""
    if os.path.exists(path):
        if os.path.isdir(path):
            raise _UsageError(f"{path} is a directory; give a Python file inside it (or a module name).")
        if not path.endswith(".py"):
            raise _UsageError(f"cannot import {path}: it is not a Python file (expected a name ending in .py).")
        return _run_source(path, _module_name(path), os.path.abspath(path), package="")
    looks_like_module = path.replace(".", "").replace("_", "").isalnum() and not path.endswith(".py")
    if not looks_like_module:
        raise _UsageError(
            f"{path} does not exist. Give the path of a Python file that defines Functions "
            "(python -m ctxgrad check my_ops.py) or an importable module name (python -m ctxgrad check "
            "my_package.ops), optionally followed by ::FunctionName."
        )
    try:
        spec = importlib.util.find_spec(path)  # imports the parent packages, not the module
        if spec is None:
            raise ModuleNotFoundError(f"No module named {path!r}", name=path)
        if spec.origin is not None and spec.origin.endswith(".py"):
            return _run_source(path, path, spec.origin, package=spec.parent or "")
        return importlib.import_module(path)  # a compiled extension or a namespace package
    except _UsageError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name is not None and path.startswith(exc.name):
            raise _UsageError(
                f"{path} is neither an existing file nor an importable module (no module named {exc.name!r}). "
                "Give the path of a Python file, or a module name importable from the current directory."
            ) from exc
        raise _UsageError(_import_failure(path, exc)) from exc
    except SyntaxError as exc:
        raise _UsageError(
            f"cannot import {path}: {exc.filename} has a syntax error at line {exc.lineno}: {exc.msg}."
        ) from exc
    except Exception as exc:
        raise _UsageError(_import_failure(path, exc)) from exc


def _run_source(path: str, name: str, filename: str, package: str) -> ModuleType:
    """Compile the text of ``filename`` and run it in a fresh module called ``name``.

    Not through the import system: its bytecode cache judges a file by modification time
    and size, so a file rewritten at the same size within the same second would run its
    old code, and a second check in the same process would get the module already
    imported.  The module is in ``sys.modules`` while it is checked (dataclasses, pickling
    and ``inspect`` look it up there).
    """
    try:
        with open(filename, "rb") as file:
            code = compile(file.read(), filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise _UsageError(
            f"cannot import {path}: it has a syntax error at line {exc.lineno}: {exc.msg}. "
            "Fix the file (run `python " + filename + "` to see it) and check again."
        ) from exc
    except (OSError, ValueError) as exc:  # unreadable, or a NUL byte in it
        raise _UsageError(f"cannot import {path}: {exc}.") from exc
    module = ModuleType(name)
    module.__file__ = filename
    module.__package__ = package
    sys.modules[name] = module  # (its earlier entry is restored by _checking_from)
    try:
        exec(code, module.__dict__)
    except Exception as exc:
        raise _UsageError(_import_failure(path, exc)) from exc
    return module


def _module_name(path: str) -> str:
    """The name the checked module runs under: a file's is private, a module keeps its own."""
    if os.path.exists(path):
        return "_ctxgrad_check_" + os.path.splitext(os.path.basename(path))[0]
    return path


@contextlib.contextmanager
def _checking_from(path: str) -> Iterator[None]:
    """While a target is loaded and checked: the folder of a file first on ``sys.path`` (so
    that it imports its neighbours as when run directly), no bytecode written for what it
    imports.  Afterwards ``sys.path``, ``sys.dont_write_bytecode`` and the checked module's
    entry in ``sys.modules`` are as they were, so that checking again piles nothing up."""
    name = _module_name(path)
    saved_path, saved_flag, saved_module = list(sys.path), sys.dont_write_bytecode, sys.modules.get(name)
    if os.path.isfile(path):
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.path[:] = saved_path
        sys.dont_write_bytecode = saved_flag
        if saved_module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved_module


def _import_failure(path: str, exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
    return (
        f"cannot import {path}: running it raised {type(exc).__name__}: {exc}{where}. "
        "The file must import cleanly before its Functions can be checked."
    )


def _functions_in(module: ModuleType, path: str, name: str | None) -> list[type[Function]]:
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Function) and value.__module__ == module.__name__
    ]
    if name is not None:
        chosen = [f for f in found if f.__name__ == name]
        if not chosen:
            available = ", ".join(f.__name__ for f in found) or "none"
            raise _UsageError(f"{path} defines no Function called {name!r} (the Functions defined there: {available}).")
        return chosen
    if not found:
        raise _UsageError(
            f"{path} defines no subclass of ctxgrad.autograd.Function, so there is nothing to check "
            "(Functions imported from elsewhere are not checked: check the module that defines them)."
        )
    return found


def _total(reports: list[CheckReport], files: int = 1, errors: int = 0) -> str:
    passed = sum(r.ok for r in reports)
    failed = len(reports) - passed
    noun = "Function" if len(reports) == 1 else "Functions"
    where = f" in {files} files" if files > 1 else ""
    unchecked = f"; {errors} file{'s' * (errors != 1)} could not be checked" if errors else ""
    return f"{len(reports)} {noun} checked{where}: {passed} OK, {failed} failed{unchecked}"


def _expand(target: str) -> tuple[list[str], bool]:
    """The files (or the module) one target names, and whether it named several (a directory
    or a glob: files there without a Function are skipped, not an error)."""
    path, sep, name = target.partition("::")
    suffix = sep + name
    if any(c in path for c in "*?["):
        found = sorted(p for p in glob.glob(path, recursive=True) if p.endswith(".py") and os.path.isfile(p))
        if not found:
            raise _UsageError(f"{path} matches no Python file.")
        return [p + suffix for p in found], True
    if os.path.isdir(path):
        found = sorted(
            os.path.join(root, f)
            for root, dirs, files in os.walk(path)
            for f in files
            if f.endswith(".py") and not any(part.startswith((".", "__pycache__")) for part in root.split(os.sep)[1:])
        )
        if not found:
            raise _UsageError(f"{path} is a directory with no Python file in it.")
        return [p + suffix for p in found], True
    return [target], False


def _check_one(target: str, args: argparse.Namespace, many: bool) -> tuple[list[CheckReport], str | None]:
    """The reports of one file or module, or the error that kept it from being checked
    (None for a file of a directory or glob that defines no Function)."""
    path, _, name = target.partition("::")
    with _checking_from(path):
        with torch_alias(replace_installed=True):  # a file written for torch is checked as written
            module = _import_target(path)
        sys.modules[module.__name__] = module  # (forgotten with the alias; _checking_from removes it)
        try:
            functions = _functions_in(module, path, name or None)
        except _UsageError:
            if many and not name:
                return [], None
            raise
        reports = []
        for fn in functions:
            given = inputs_from_spec(args.inputs, args.seed) if args.inputs else None
            reports.append(
                check_function(
                    fn,
                    given,
                    double=args.double,
                    forward=args.forward,
                    dtype=args.dtype,
                    seed=args.seed,
                    guess_inputs=True,
                    inputs_from=f"--inputs {args.inputs!r}" if args.inputs else "",
                )
            )
            if args.against_torch:
                _against_torch(fn, path, given, args, reports[-1])
    return reports, ""


def _against_torch(fn: type[Function], path: str, given: Any, args: argparse.Namespace, report: CheckReport) -> None:
    """Add the comparison with torch (:mod:`ctxgrad.checks_torch`) to ``report``; without
    torch installed, a _UsageError that says how to install it."""
    from ctxgrad import checks_torch

    try:
        counterpart = checks_torch.torch_counterpart(path, fn.__name__) if os.path.isfile(path) else None
        checks_torch.compare_with_torch(
            fn,
            given,
            torch_function=counterpart,
            dtype=args.dtype,
            seed=args.seed,
            guess_inputs=True,
            report=report,
        )
    except (ImportError, RuntimeError) as exc:  # no torch; a file that does not run with it
        raise _UsageError(f"--against-torch: {exc}") from exc


def _progress(k: int, n: int, target: str, reports: list[CheckReport], error: str | None) -> str:
    if error:
        return f"[{k}/{n}] {target}: not checked: {error}"
    if not reports:
        return f"[{k}/{n}] {target}: no Function defined, skipped"
    failed = [
        f"{r.function} ({', '.join(f.name for f in r.findings if f.severity == 'error')})" for r in reports if not r.ok
    ]
    noun = "Function" if len(reports) == 1 else "Functions"
    return f"[{k}/{n}] {target}: {len(reports)} {noun}, " + (f"failed: {'; '.join(failed)}" if failed else "OK")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        run = _run_parser().parse_args(argv[1:])
        return run_script(run.script, run.args, replace_installed=run.force_alias)
    args = _parser().parse_args(argv)
    targets: list[str] = args.targets
    try:
        if args.inputs:
            inputs_from_spec(args.inputs)
        expanded = [_expand(t) for t in targets]
    except (_UsageError, ValueError) as exc:
        return _usage_error(str(exc), args.json)
    files = [(f, many) for found, many in expanded for f in found]
    several = len(files) > 1
    if not several:  # one file or module: a problem with it is a usage error, as always
        try:
            reports, _ = _check_one(files[0][0], args, files[0][1])
        except _UsageError as exc:
            return _usage_error(str(exc), args.json)
        if not reports:
            return _usage_error(f"{files[0][0]} defines no subclass of ctxgrad.autograd.Function.", args.json)
        results: list[dict[str, Any]] = [{"path": files[0][0], "ok": all(r.ok for r in reports), "reports": reports}]
    else:
        results = []
        for k, (target, many) in enumerate(files, 1):
            try:
                reports, error = _check_one(target, args, many)
            except _UsageError as exc:
                reports, error = [], str(exc)
            print(_progress(k, len(files), target, reports, error), file=sys.stderr, flush=True)
            if reports or error:
                results.append(
                    {"path": target, "ok": not error and all(r.ok for r in reports), "reports": reports, "error": error}
                )
    everything = [r for result in results for r in result["reports"]]
    errors = sum(bool(result.get("error")) for result in results)
    ok = not errors and all(r.ok for r in everything)
    summary = _total(everything, len(files), errors)
    if args.json:
        payload: dict[str, Any] = {
            "ok": ok,
            "target": targets[0] if len(targets) == 1 else targets,
            "files": [
                {"path": r["path"], "ok": r["ok"], "functions": [x.function for x in r["reports"]]}
                | ({"error": r["error"]} if r.get("error") else {})
                for r in results
            ],
            "functions": [r.to_dict() for r in everything],
            "summary": summary,
        }
        print(json.dumps(payload, indent=2))
    else:
        for report in everything:
            print(report)
            print()
        print(summary)
    if errors:
        return _USAGE_ERROR
    return 0 if ok else _CHECK_FAILED


def _usage_error(message: str, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"ok": False, "error": message}, indent=2))
    print(f"{_prog()} check: error: {message}", file=sys.stderr)
    return _USAGE_ERROR
