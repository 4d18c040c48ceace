"""The ``torch`` alias: under it ``import torch`` gives ctxgrad, so a program written for torch
runs on ctxgrad with no edited line (docs/running-torch-programs.md).

A finder first on :data:`sys.meta_path` answers every import whose first name is ``torch``,
``functorch`` or ``torchviz``:

- ``torch.X.Y`` is ctxgrad's module ``ctxgrad.X.Y`` (``torch.nn.functional``,
  ``torch.utils.data``, ``torch.autograd.function``); ``functorch`` is ``ctxgrad.func`` and
  ``torchviz`` is ``ctxgrad.viz`` (its ``make_dot``);
- a torch module ctxgrad does not split off is served by the module above it when that
  module holds the class the file is named after (torch keeps one class per file:
  ``torch.distributions.normal`` holds ``Normal``, ``torch.utils.data.dataloader`` holds
  ``DataLoader``), so ``from torch.distributions.normal import Normal`` works;
- any other ``torch.X`` fails with ``ModuleNotFoundError``, as for a module torch lacks, so
  that a program's ``try: import torch.X`` sees what ctxgrad has.

What the import binds is an :class:`AliasModule`: a module named as torch names it
(``torch.nn``) whose attributes are those of ctxgrad's module, looked up when asked (the
same objects: ``torch.nn.Linear is ctxgrad.nn.Linear``).  A name ctxgrad lacks raises an
``AttributeError`` naming the torch path and the docs pages that list what is left out.
ctxgrad's own modules are not touched, so using ctxgrad under its own name costs nothing
more; writing an attribute (``torch.backends.cudnn.benchmark = True``) sets it on the
alias, not on ctxgrad.

The alias never replaces an installed torch unless asked (``replace_installed=True``,
``ctxgrad run --force-alias``): a program that finds the real torch should get it.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

__all__ = ["AliasModule", "TorchInstalledError", "install_torch_alias", "run_script", "torch_alias"]

#: The top-level names the alias answers, and the ctxgrad module each stands for.
ALIASES = {"torch": "ctxgrad", "functorch": "ctxgrad.func", "torchviz": "ctxgrad.viz"}

#: Where a program that reaches a missing name is sent.
DOCS = "docs/running-torch-programs.md (what the alias covers) and docs/differences.md §31 (what ctxgrad leaves out)"


class TorchInstalledError(ImportError):
    """The alias was asked for where a real torch is installed or imported, without being told
    to replace it."""


#: An alias module's own attributes, which are never ctxgrad's module's.
_OWN_ATTRIBUTES = frozenset({"__path__", "__spec__", "__loader__", "__package__"})


class AliasModule(ModuleType):
    """A module under a torch name whose attributes are those of a ctxgrad module."""

    def __init__(self, name: str, target: ModuleType) -> None:
        super().__init__(name, target.__doc__)
        self._ctxgrad_module = target
        # Every alias module is a package, so that torch's submodule paths can be imported
        # below it (torch.utils.data.dataloader, where ctxgrad.utils.data is one file); the
        # empty path leaves finding them to the finder.
        self.__path__: list[str] = []
        if getattr(target, "__file__", None):
            self.__file__ = target.__file__  # where the code is (and what `cannot import name` shows)

    def __getattr__(self, name: str) -> Any:
        # Only called for a name not in this module's own __dict__ (the import system's
        # attributes, what the program set, submodules already met), so an ordinary lookup
        # is one getattr on ctxgrad's module.
        target: ModuleType = self.__dict__["_ctxgrad_module"]
        if name in _OWN_ATTRIBUTES:  # the import system's, never ctxgrad's module's
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}", name=name, obj=self)
        try:
            value = getattr(target, name)
        except AttributeError:
            if name == "__all__":  # for `from torch.x import *` on a module without __all__
                return [n for n in dir(target) if not n.startswith("_")]
            raise AttributeError(
                f"module {self.__name__!r} has no attribute {name!r}: ctxgrad, imported as torch by the "
                f"torch alias, has no {self.__name__}.{name}. See {DOCS}.",
                name=name,
                obj=self,
            ) from None
        if isinstance(value, ModuleType) and value.__name__.startswith(target.__name__ + "."):
            value = _alias_for(self.__name__ + value.__name__[len(target.__name__) :], value)
            setattr(self, name, value)  # as the import system sets a package's submodule
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self.__dict__["_ctxgrad_module"])) | set(self.__dict__))

    def __repr__(self) -> str:
        return (
            f"<module {self.__name__!r}: ctxgrad's {self.__dict__['_ctxgrad_module'].__name__!r} under the torch alias>"
        )


def _alias_for(name: str, target: ModuleType) -> AliasModule:
    """The alias module called ``name`` for ``target``: the one imported already, or a new one,
    registered while the alias is on (so that a later ``import`` of that name gives the same
    object; after a ``with torch_alias()`` block, ``sys.modules`` is left alone)."""
    known = sys.modules.get(name)
    if isinstance(known, AliasModule) and known.__dict__["_ctxgrad_module"] is target:
        return known
    module = AliasModule(name, target)
    module.__spec__ = importlib.machinery.ModuleSpec(name, _LOADER, is_package=True)
    module.__loader__ = _LOADER
    module.__package__ = name
    if _FINDER in sys.meta_path:
        sys.modules[name] = module
    return module


def _ctxgrad_name(fullname: str) -> str:
    top, _, rest = fullname.partition(".")
    return ALIASES[top] + ("." + rest if rest else "")


def _import_if_exists(name: str) -> ModuleType | None:
    """ctxgrad's module ``name``, or None when there is none (an import error inside an
    existing module is raised, not hidden)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            return None
        raise


def _holds_class_named_like(parent: ModuleType, module_name: str) -> bool:
    """Whether ``parent`` has a public class that torch keeps in a file called ``module_name``
    (``normal`` for ``Normal``, ``dataloader`` for ``DataLoader``, ``relaxed_bernoulli`` for
    ``RelaxedBernoulli``)."""
    key = module_name.replace("_", "").lower()
    return any(
        isinstance(value, type) and not attr.startswith("_") and attr.lower() == key
        for attr, value in vars(parent).items()
    )


class _AliasLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        target = spec.loader_state
        assert isinstance(target, ModuleType)
        return AliasModule(spec.name, target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: ctxgrad's module was imported when it was found."""


_LOADER = _AliasLoader()


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in ALIASES:
            return None
        name = _ctxgrad_name(fullname)
        module = _import_if_exists(name)
        if module is None and "." in fullname:
            parent_name, _, child = name.rpartition(".")
            parent = _import_if_exists(parent_name)
            if parent is not None and _holds_class_named_like(parent, child):
                module = parent  # torch's one-class file, served by the module that has the class
        if module is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: the torch alias maps it to {name}, which ctxgrad does not have. "
                f"See {DOCS}.",
                name=fullname,
            )
        spec = importlib.machinery.ModuleSpec(fullname, _LOADER, is_package=True)
        spec.loader_state = module
        return spec


_FINDER = _TorchAliasFinder()


def installed_torch() -> str | None:
    """Where a real torch is, imported or importable from ``sys.path``; None when there is none."""
    imported = sys.modules.get("torch")
    if imported is not None and not isinstance(imported, AliasModule):
        return getattr(imported, "__file__", None) or "imported"
    spec = importlib.machinery.PathFinder.find_spec("torch")
    return None if spec is None else (spec.origin or "installed")


def install_torch_alias(*, replace_installed: bool = False) -> None:
    """From now on, in this process, ``import torch`` (``functorch``, ``torchviz``) gives ctxgrad.

    Raises :class:`TorchInstalledError` when a real torch is installed or already imported,
    unless ``replace_installed=True``: then the real torch's modules are dropped from
    ``sys.modules`` (what holds them keeps them) and the alias answers from now on.
    Installing twice does nothing more.
    """
    if _FINDER in sys.meta_path:
        return
    where = installed_torch()
    if where is not None and not replace_installed:
        raise TorchInstalledError(
            f"the torch alias would hide the torch installed at {where}: a program that imports torch here "
            "gets the real one. To run it on ctxgrad anyway, ask for it: `ctxgrad run --force-alias script.py`, "
            "ctxgrad.torch_alias(replace_installed=True) or ctxgrad.install_torch_alias(replace_installed=True).",
            name="torch",
        )
    for name in [n for n in sys.modules if n.partition(".")[0] in ALIASES]:
        del sys.modules[name]
    sys.meta_path.insert(0, _FINDER)


@contextlib.contextmanager
def torch_alias(*, replace_installed: bool = False) -> Iterator[None]:
    """Within the ``with`` block ``import torch`` gives ctxgrad (see :func:`install_torch_alias`
    for ``replace_installed``).

    Afterwards ``sys.modules`` and ``sys.meta_path`` are as they were: every module first
    imported in the block is forgotten (a library that imported torch there does not keep
    ctxgrad under that name), and a package's attribute for such a submodule is removed.

    >>> import sys
    >>> import ctxgrad
    >>> before = dict(sys.modules)
    >>> with ctxgrad.torch_alias(replace_installed=True):
    ...     import torch
    ...     import torch.nn.functional as F
    ...     F.relu(torch.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    >>> torch.nn.Linear is ctxgrad.nn.Linear, dict(sys.modules) == before
    (True, True)
    """
    saved_modules = dict(sys.modules)
    saved_meta_path = list(sys.meta_path)
    install_torch_alias(replace_installed=replace_installed)
    try:
        yield
    finally:
        sys.meta_path[:] = saved_meta_path
        for name in [n for n in sys.modules if n not in saved_modules]:
            module = sys.modules.pop(name)
            parent_name, _, child = name.rpartition(".")
            parent = saved_modules.get(parent_name)
            if parent is not None and not isinstance(parent, AliasModule) and getattr(parent, child, None) is module:
                delattr(parent, child)
        for name, module in saved_modules.items():
            if sys.modules.get(name) is not module:
                sys.modules[name] = module


def run_script(path: str, args: Sequence[str], *, replace_installed: bool = False) -> int:
    """Run the Python file ``path`` as ``python path args...`` would, under the torch alias;
    return its exit code (a traceback printed as Python prints it gives 1).

    ``sys.argv`` is ``[path, *args]``, the file's folder is ``sys.path[0]`` and it runs as
    ``__main__``.  This is the process's program: the alias stays installed, and ``sys.argv``
    and ``sys.path`` stay as the program left them.
    """
    import runpy

    try:
        install_torch_alias(replace_installed=replace_installed)
    except TorchInstalledError as exc:
        print(f"ctxgrad run: error: {exc}", file=sys.stderr)
        return 2
    if not os.path.isfile(path):
        print(f"ctxgrad run: error: can't open file {path!r}: no such file", file=sys.stderr)
        return 2
    sys.argv = [path, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(path))  # where python puts the script's folder
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        return _exit_code(exc.code)
    except BaseException as exc:
        _print_traceback(exc, path)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    finally:
        sys.stdout.flush()
    return 0


def _print_traceback(exc: BaseException, path: str) -> None:
    """The traceback Python prints for ``python path``: from the file's first frame on (not
    runpy's nor this module's), and without the frame of an alias module's ``__getattr__``,
    which Python's own modules do not have."""
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != os.path.abspath(path):
        tb = tb.tb_next
    shown = traceback.TracebackException(type(exc), exc, tb or exc.__traceback__)
    shown.stack = traceback.StackSummary.from_list([frame for frame in shown.stack if frame.filename != __file__])
    print("".join(shown.format()), end="", file=sys.stderr)


def _exit_code(code: object) -> int:
    """The process exit code of ``sys.exit(code)``, as Python makes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
