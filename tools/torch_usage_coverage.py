"""How much of the torch API that public code uses does ctxgrad answer, and test against torch?

The names come from ``torch-usage.tsv`` (``../shared/reference/`` beside the repository:
``torch-usage.md`` there says how the 40 public repositories were scanned).  Each in-scope
name is weighted by ``repos``, the number of repositories that use it, and is

* **present** when it resolves on ctxgrad: ``torch.X.Y`` as ``ctxgrad.X.Y`` (attributes, or
  submodules imported); ``Tensor.x`` as an attribute of :class:`ctxgrad.Tensor` or of a
  tensor; ``torch.nn.Module.x``, ``torch.optim.Optimizer.x``,
  ``torch.autograd.function.FunctionCtx.x`` and ``torch.return_types.values``/``indices`` as
  an attribute of ctxgrad's class or of an instance (``Module()``, an ``SGD`` optimizer, the
  ``ctx`` a custom Function's ``forward`` receives, ``ctxgrad.max(x, 0)``);
* **tested** when a test compares it with torch, which is read from the tests without running
  them (nor importing torch):

  - a ``pytest.mark.torch_names("torch.cat", "Tensor.mean", ...)`` marker (the marker is
    registered in pyproject.toml) in a test file that uses torch (``importorskip("torch")``,
    ``import torch``, or a test taking the ``torch`` fixture of tests/conftest.py): on a test,
    as a module's ``pytestmark``, or in a ``pytest.param(..., marks=...)``; its arguments are
    string literals or a module-level tuple/list of them (``torch_names(*NAMES)``);
  - an op row of ``ctxgrad.ops.table`` whose op a case of an op family (``OpFamilyTests``,
    tests/_opcheck.py) calls, where that case is not expected to fail the comparison with torch
    (``bugs`` naming ``torch`` or ``all``): ``test_values_and_gradients_match_torch`` runs the
    case on both libraries and compares value, dtype, requires_grad and the gradient of each
    input.  The case's code is read from its ``lambda``: ``m.NAME(...)`` calls ``torch.NAME``,
    ``m.nn.functional.NAME(...)`` ``torch.nn.functional.NAME``, ``x.NAME(...)`` the Tensor
    method.  Every name of the row then counts (function, method, in-place variant,
    ``nn.functional`` function, aliases): they are made from the one Function the case runs.

  A name that only exists counts as present, not as tested; the signature comparison of
  tests/test_surface_signatures.py compares no value, so it does not count.

**Keyword forms.** The ``(name, keyword)`` pairs of in-scope names used in at least
:data:`KEYWORD_MIN_REPOS` repositories, from the scanner's keyword table
(``torch_usage_scan.py ROOT --kw-out``: ``torch-usage-kw.tsv`` beside the TSV when there is one,
else the copy kept beside this script; without either, the table of the 60 most used pairs in
``torch-usage.md``), weighted by repositories like the names.  A pair is present when ctxgrad's
callable takes the keyword (a parameter of that name that is not ``*args``; for a callable taking
``**kwargs``, a trial call of :data:`KEYWORD_TRIALS`), and tested when a ``torch_names`` marker
names it as ``"torch.zeros(device=)"``.  The forms issue 26 names (``size=``, ``out=``,
``generator=``, ``memory_format=``, ``pin_memory=``, ...) on the most used names are reported
apart, unweighted (:data:`NAMED_KEYWORD_FORMS`).

Run ``python tools/torch_usage_coverage.py`` for the summary and the uncovered names, most
used first; ``--missing`` lists only the names that are not present; ``--json`` prints
everything as JSON.  tests/test_torch_usage_coverage.py keeps the measure from falling.
"""

from __future__ import annotations

import argparse
import ast
import csv
import importlib
import inspect
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def find_reference(start: Path = ROOT) -> Path:
    """``shared/reference`` in the repository's parent folder (where CI puts it), else in the
    nearest folder above that has one (a git worktree kept one level further down)."""
    for folder in start.parents:
        if (folder / "shared" / "reference" / "torch-usage.tsv").is_file():
            return folder / "shared" / "reference"
    return start.parent / "shared" / "reference"


REFERENCE = find_reference()
TESTS = ROOT / "tests"
KEYWORD_FILE = "torch-usage-kw.tsv"
#: The scanner's keyword table for the corpus of torch-usage.md (``torch_usage_scan.py ROOT
#: --kw-out``, ROOT holding the 40 repositories at the listed commits; the names TSV written by
#: the same run equals the shared one), kept here since the shared folder has only the names.
KEPT_KEYWORDS = Path(__file__).resolve().parent / KEYWORD_FILE
#: The keyword pairs measured: those used in at least this many repositories.
KEYWORD_MIN_REPOS = 4

#: A marker's name of a keyword form: ``torch.zeros(device=)``.
KEYWORD_FORM = re.compile(r"^(?P<name>[\w.]+)\((?P<keyword>\w+)=\)$")
_KEYWORD_ROW = re.compile(
    r"^\|\s*`(?P<name>[\w.]+)`\s*\|\s*`(?P<keyword>\w+)`\s*\|\s*(?P<occ>\d+)\s*\|\s*(?P<repos>\d+)\s*\|$"
)


@dataclass(frozen=True)
class Usage:
    """One row of torch-usage.tsv."""

    name: str
    kind: str
    occurrences: int
    repos: int
    in_scope: bool


@dataclass(frozen=True)
class KeywordUsage:
    """One ``(name, keyword)`` pair of the corpus."""

    name: str
    keyword: str
    occurrences: int
    repos: int

    @property
    def form(self) -> str:
        return f"{self.name}({self.keyword}=)"


@dataclass
class Coverage:
    """The measure: per in-scope name, whether ctxgrad has it and what tests it against torch."""

    usages: list[Usage]
    present: dict[str, bool]
    tested_by: dict[str, list[str]]
    keywords: list[KeywordUsage] = field(default_factory=list)
    keyword_present: dict[str, bool] = field(default_factory=dict)
    keyword_tested_by: dict[str, list[str]] = field(default_factory=dict)
    keyword_source: str = ""
    named: list[KeywordUsage] = field(default_factory=list)

    @property
    def in_scope(self) -> list[Usage]:
        return [u for u in self.usages if u.in_scope]

    def covered(self, name: str) -> bool:
        """Present and tested against torch."""
        return self.present[name] and bool(self.tested_by.get(name))

    def weighted(self, covered: Iterable[str]) -> float:
        """The share of the in-scope names' repository weight that ``covered`` holds, in %."""
        chosen = set(covered)
        total = sum(u.repos for u in self.in_scope)
        return 100.0 * sum(u.repos for u in self.in_scope if u.name in chosen) / total

    @property
    def present_percent(self) -> float:
        return self.weighted(n for n, ok in self.present.items() if ok)

    @property
    def covered_percent(self) -> float:
        return self.weighted(u.name for u in self.in_scope if self.covered(u.name))

    def uncovered(self) -> list[Usage]:
        """The in-scope names not present and tested, most used first."""
        return sorted((u for u in self.in_scope if not self.covered(u.name)), key=lambda u: (-u.repos, u.name))

    def keyword_percent(self, tested: bool) -> float:
        total = sum(k.repos for k in self.keywords) or 1
        ok = sum(
            k.repos
            for k in self.keywords
            if self.keyword_present[k.form] and (not tested or self.keyword_tested_by.get(k.form))
        )
        return 100.0 * ok / total


# --- the data ---------------------------------------------------------------------------------


def read_usage(path: Path) -> list[Usage]:
    """The rows of torch-usage.tsv."""
    with path.open(encoding="utf-8", newline="") as f:
        return [
            Usage(row["name"], row["kind"], int(row["occurrences"]), int(row["repos"]), row["in_scope"] == "yes")
            for row in csv.DictReader(f, delimiter="\t")
        ]


def read_keywords(reference: Path) -> tuple[list[KeywordUsage], str]:
    """The ``(name, keyword)`` pairs: the scanner's full table when it is there, else the table
    of the most used pairs in torch-usage.md; and which of the two was read."""
    full = next((p for p in (reference / KEYWORD_FILE, KEPT_KEYWORDS) if p.is_file()), None)
    if full is not None:
        with full.open(encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f, delimiter="\t"))
        header = rows[0]
        at = {column: header.index(column) for column in ("name", "occurrences", "repos")}
        key = "keyword" if "keyword" in header else "kw"
        found = [
            KeywordUsage(r[at["name"]], r[header.index(key)], int(r[at["occurrences"]]), int(r[at["repos"]]))
            for r in rows[1:]
        ]
        chosen = [k for k in found if k.repos >= KEYWORD_MIN_REPOS]
        return sorted(chosen, key=lambda k: (-k.repos, -k.occurrences)), full.name
    found = []
    for line in (reference / "torch-usage.md").read_text(encoding="utf-8").splitlines():
        match = _KEYWORD_ROW.match(line.strip())
        if match:
            found.append(KeywordUsage(match["name"], match["keyword"], int(match["occ"]), int(match["repos"])))
    return found, "torch-usage.md (its table of the most used pairs)"


# --- present ----------------------------------------------------------------------------------


def _ctxgrad() -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run as a script, the path starts at tools/, not here
    import ctxgrad

    return ctxgrad


def _resolve(path: str) -> tuple[bool, Any]:
    """``ctxgrad.<path>`` by attributes, importing submodules on the way."""
    ctxgrad = _ctxgrad()
    obj: Any = ctxgrad
    done = "ctxgrad"
    for part in path.split(".") if path else ():
        done = f"{done}.{part}"
        try:
            obj = getattr(obj, part)
            continue
        except AttributeError:
            pass
        try:
            obj = importlib.import_module(done)
        except ImportError:
            return False, None
    return True, obj


def _instances() -> dict[str, list[Any]]:
    """ctxgrad's class and a made instance for each method family of the TSV."""
    ctxgrad = _ctxgrad()
    nn, optim = ctxgrad.nn, ctxgrad.optim
    weight = nn.Parameter(ctxgrad.zeros(2))
    captured: list[Any] = []
    function: Any = ctxgrad.autograd.Function

    class Capture(function):  # type: ignore[misc]
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            captured.append(ctx)
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    Capture.apply(ctxgrad.ones(1, requires_grad=True))
    ctx_class = getattr(ctxgrad.autograd.function, "FunctionCtx", None)
    return {
        "Tensor": [ctxgrad.Tensor, ctxgrad.ones(2, requires_grad=True)],
        "torch.nn.Module": [nn.Module, nn.Module()],
        "torch.optim.Optimizer": [optim.Optimizer, optim.SGD([weight], lr=0.1)],
        "torch.autograd.function.FunctionCtx": [c for c in (ctx_class, *captured) if c is not None],
        "torch.return_types": [ctxgrad.max(ctxgrad.ones(2, 2), 0)],
    }


def presence(usages: Iterable[Usage]) -> dict[str, bool]:
    """Whether each name resolves on ctxgrad (the module docstring's rules)."""
    families = _instances()
    found: dict[str, bool] = {}
    for usage in usages:
        name = usage.name
        family = next((f for f in families if name.startswith(f + ".")), None)
        if family is not None:
            attribute = name[len(family) + 1 :]
            found[name] = any(hasattr(obj, attribute) for obj in families[family])
        elif name == "torch":
            found[name] = True
        elif name.startswith("torch."):
            found[name] = _resolve(name.removeprefix("torch."))[0]
        else:
            found[name] = False
    return found


#: The keyword forms issue 26 names, on the most used names that take them in torch: beyond the
#: measured pairs (most are used in fewer than KEYWORD_MIN_REPOS repositories), reported apart and
#: unweighted: which of them ctxgrad accepts and which a test compares with torch.
NAMED_KEYWORD_FORMS: dict[str, tuple[str, ...]] = {
    "size": ("torch.zeros", "torch.ones", "torch.randn", "torch.rand", "torch.empty", "torch.full", "torch.randint",
             "torch.normal"),
    "dtype": ("torch.randn", "torch.rand", "torch.linspace", "torch.zeros_like", "torch.ones_like", "torch.randint",
              "torch.as_tensor", "torch.full_like", "Tensor.sum", "torch.nn.functional.softmax"),
    "device": ("torch.linspace", "torch.zeros_like", "torch.randperm", "torch.as_tensor", "torch.empty_like",
               "torch.nn.Linear", "torch.ones_like", "torch.randn_like"),
    "out": ("torch.cat", "torch.stack", "torch.matmul", "torch.add", "torch.mul", "torch.mm", "torch.bmm",
            "torch.clamp", "torch.arange", "torch.zeros", "torch.sum", "torch.max"),
    "inplace": ("torch.nn.LeakyReLU", "torch.nn.ELU", "torch.nn.Dropout", "torch.nn.SiLU", "torch.nn.Hardswish",
                "torch.nn.ReLU6", "torch.nn.functional.relu", "torch.nn.functional.dropout",
                "torch.nn.functional.leaky_relu", "torch.nn.functional.elu", "torch.nn.functional.silu"),
    "dim": ("torch.max", "Tensor.amax", "torch.norm", "Tensor.std", "torch.logsumexp", "Tensor.any", "Tensor.all",
            "torch.argmax", "Tensor.min", "torch.nn.functional.normalize", "torch.nn.functional.cosine_similarity",
            "torch.cumsum", "torch.squeeze", "Tensor.unsqueeze"),
    "keepdim": ("Tensor.max", "Tensor.var", "torch.argmax", "torch.norm", "torch.logsumexp", "Tensor.amax",
                "Tensor.std", "torch.mean", "torch.sum"),
    "generator": ("torch.randn", "torch.rand", "torch.randint", "torch.randperm", "torch.multinomial", "torch.normal",
                  "torch.bernoulli", "Tensor.normal_", "Tensor.uniform_", "torch.utils.data.DataLoader",
                  "torch.utils.data.random_split", "torch.utils.data.RandomSampler", "torch.nn.init.normal_"),
    "memory_format": ("Tensor.contiguous", "Tensor.to", "torch.empty_like", "torch.zeros_like", "Tensor.clone",
                      "torch.empty"),
    "requires_grad": ("torch.tensor", "torch.zeros", "torch.ones", "torch.randn", "torch.rand", "torch.empty",
                      "torch.full", "torch.arange", "torch.linspace", "torch.eye", "torch.zeros_like",
                      "torch.ones_like"),
    "pin_memory": ("torch.utils.data.DataLoader", "torch.empty", "torch.zeros", "torch.tensor", "torch.ones",
                   "torch.randn"),
}  # fmt: skip


def named_forms() -> list[KeywordUsage]:
    """:data:`NAMED_KEYWORD_FORMS` as pairs (no counts: 0 occurrences, 1 repository each)."""
    return [KeywordUsage(name, keyword, 0, 1) for keyword, names in NAMED_KEYWORD_FORMS.items() for name in names]


#: A trial call for the callables whose signature takes ``**kwargs``, so that the signature
#: cannot say which keywords they accept.
KEYWORD_TRIALS: dict[str, Any] = {
    "Tensor.to(dtype=)": lambda m: m.ones(2).to(dtype=m.float64),
    "Tensor.to(device=)": lambda m: m.ones(2).to(device="cpu"),
    "Tensor.to(memory_format=)": lambda m: m.ones(2).to(memory_format=m.contiguous_format),
    "Tensor.to(non_blocking=)": lambda m: m.ones(2).to("cpu", non_blocking=True),
    "Tensor.to(copy=)": lambda m: m.ones(2).to(m.float64, copy=True),
}


def callable_for(name: str) -> Any:
    """ctxgrad's object for a TSV name (None when it has none)."""
    if name.startswith("Tensor."):
        return getattr(_ctxgrad().Tensor, name.removeprefix("Tensor."), None)
    for family, objects in _instances().items():
        if name.startswith(family + "."):
            return getattr(objects[0], name[len(family) + 1 :], None)
    ok, obj = _resolve(name.removeprefix("torch."))
    return obj if ok else None


def takes_keyword(name: str, keyword: str) -> bool:
    """ctxgrad's callable for ``name`` declares a parameter ``keyword`` (a class: its
    ``__init__``)."""
    obj = callable_for(name)
    if obj is None:
        return False
    try:
        parameters = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False
    if keyword in parameters:  # (``*size`` is not the keyword ``size=``)
        return parameters[keyword].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    trial = KEYWORD_TRIALS.get(f"{name}({keyword}=)")
    if trial is None or not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return False
    try:
        trial(_ctxgrad())
    except (TypeError, AttributeError):  # (refused, or the value passed, ``contiguous_format``, missing)
        return False
    return True


# --- tested -----------------------------------------------------------------------------------


def _test_files(tests: Path) -> Iterator[Path]:
    yield from sorted(p for p in tests.rglob("*.py") if "torch_reference" not in p.parts)


def uses_torch(tree: ast.Module, source: str) -> bool:
    """The file runs torch: ``importorskip("torch")`` (or tests/_support.py's ``import_torch()``),
    ``import torch``, or a test taking the ``torch`` fixture."""
    if re.search(r"importorskip\(\s*[\"']torch[\"']|\bimport_torch\(\)", source):  # (_support.import_torch)
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in node.names):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if any(a.arg == "torch" for a in node.args.args):
                return True
    return False


def _strings(node: ast.expr, constants: dict[str, list[str]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Starred) and isinstance(node.value, ast.Name):
        return constants.get(node.value.id, [])
    return []


def _module_constants(tree: ast.Module) -> dict[str, list[str]]:
    """Module-level ``NAME = ("a", "b")`` tuples and lists of strings."""
    found: dict[str, list[str]] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, (ast.Tuple, ast.List)):
            items = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(items) == len(value.elts):
                found[target.id] = items
    return found


def _called_name(call: ast.Call) -> str | None:
    """``torch_names`` for ``pytest.mark.torch_names(...)``, and for a local ``torch_names =
    pytest.mark.torch_names`` called by its short name."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return call.func.id if isinstance(call.func, ast.Name) else None


def marker_names(tests: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The names of ``torch_names`` markers: ``({name: [file, ...]}, {name: [file, ...]})``,
    the first for files that use torch, the second for the others (which count nothing)."""
    counted: dict[str, list[str]] = {}
    ignored: dict[str, list[str]] = {}
    for path in _test_files(tests):
        source = path.read_text(encoding="utf-8")
        if "torch_names" not in source:
            continue
        tree = ast.parse(source)
        constants = _module_constants(tree)
        where = str(path.relative_to(tests.parent))
        into = counted if uses_torch(tree, source) else ignored
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called_name(node) == "torch_names":
                for arg in node.args:
                    for name in _strings(arg, constants):
                        into.setdefault(name, []).append(where)
    return counted, ignored


def _case_calls(fn: ast.Lambda) -> tuple[set[str], set[str]]:
    """``(torch paths, Tensor methods)`` a case's ``lambda m, ...:`` calls."""
    module = fn.args.args[0].arg if fn.args.args else None
    tensors = {a.arg for a in fn.args.args[1:]}
    paths: set[str] = set()
    methods: set[str] = set()
    for node in ast.walk(fn.body):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        chain: list[str] = []
        receiver: ast.expr = node.func
        while isinstance(receiver, ast.Attribute):
            chain.insert(0, receiver.attr)
            receiver = receiver.value
        if isinstance(receiver, ast.Name) and receiver.id == module:
            paths.add(".".join(chain))
        elif not isinstance(receiver, ast.Name) or receiver.id in tensors:
            methods.add(node.func.attr)  # (not ``np.sum(...)``: a name other than an input is no tensor)
    return paths, methods


def _fails_torch(call: ast.Call) -> bool:
    """The case names ``torch`` or ``all`` in its ``bugs``: a strict xfail there."""
    for keyword in call.keywords:
        if keyword.arg == "bugs" and isinstance(keyword.value, ast.Dict):
            keys = {k.value for k in keyword.value.keys if isinstance(k, ast.Constant)}
            return bool(keys & {"torch", "all"})
    return False


def compared_case_calls(tests: Path) -> dict[str, list[str]]:
    """What the op families' cases compared with torch call: ``{"torch.sum": [case ids],
    "Tensor.sum": [...]}``."""
    found: dict[str, list[str]] = {}
    for path in sorted(tests.glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if "(OpFamilyTests):" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Case"):
                continue
            fn = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "fn"), None)
            first = node.args[0] if node.args else None
            case_id = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else "?"
            if not isinstance(fn, ast.Lambda) or _fails_torch(node):
                continue
            paths, methods = _case_calls(fn)
            for called in [f"torch.{p}" for p in paths] + [f"Tensor.{m}" for m in methods]:
                found.setdefault(called, []).append(f"{path.stem}::{case_id}")
    return found


def row_names(row: Any) -> set[str]:
    """The torch names of an op row: function, method, in-place variant, nn.functional, aliases."""
    names: set[str] = set()
    for name in (row.name, *row.aliases):
        if row.function:
            names.add(f"torch.{name}")
        if row.method:
            names.add(f"Tensor.{name}")
            if callable(row.inplace):
                names.add(f"Tensor.{name}_")
        if row.nn_functional:
            names.add(f"torch.nn.functional.{name}")
            if row.nn_inplace:
                names.add(f"torch.nn.functional.{name}_")
    return names


def op_case_names(tests: Path) -> dict[str, list[str]]:
    """Every torch name of the op rows whose op a case compared with torch calls, with the
    cases that call it."""
    _ctxgrad()
    from ctxgrad.ops.table import OPS

    calls = compared_case_calls(tests)
    found: dict[str, list[str]] = {}
    for row in OPS:
        names = row_names(row)
        cases = sorted({case for name in names for case in calls.get(name, [])})
        if cases:
            for name in names:
                found.setdefault(name, []).extend(f"op case {case}" for case in cases[:3])
    return found


# --- the measure ------------------------------------------------------------------------------


def measure(reference: Path = REFERENCE, tests: Path = TESTS) -> Coverage:
    """The measure for the TSV in ``reference`` and the tests in ``tests``."""
    usages = read_usage(reference / "torch-usage.tsv")
    present = presence(u for u in usages if u.in_scope)
    marked, _ = marker_names(tests)
    tested: dict[str, list[str]] = {}
    for source in (marked, op_case_names(tests)):
        for name, where in source.items():
            tested.setdefault(name, []).extend(where)
    keywords, keyword_source = read_keywords(reference)
    keywords = [k for k in keywords if k.name in present]  # (the in-scope names only)
    named = [k for k in named_forms() if k.form not in {c.form for c in keywords}]
    return Coverage(
        usages,
        present,
        tested,
        keywords,
        {k.form: takes_keyword(k.name, k.keyword) for k in keywords + named},
        {k.form: marked[k.form] for k in keywords + named if k.form in marked},
        keyword_source,
        named,
    )


def report(cov: Coverage) -> str:
    """The summary, the keyword forms ctxgrad refuses or does not test, the uncovered names."""
    scope = cov.in_scope
    n_present = sum(cov.present[u.name] for u in scope)
    n_covered = sum(cov.covered(u.name) for u in scope)
    lines = [
        f"torch-usage.tsv: {len(scope)} in-scope names, weighted by the repositories using each",
        f"  present on ctxgrad:           {n_present:4d} names, {cov.present_percent:6.2f}% weighted",
        f"  present and tested vs torch:  {n_covered:4d} names, {cov.covered_percent:6.2f}% weighted",
    ]
    if cov.keywords:
        refused = [k for k in cov.keywords if not cov.keyword_present[k.form]]
        untested = [k for k in cov.keywords if cov.keyword_present[k.form] and not cov.keyword_tested_by.get(k.form)]
        lines += [
            f"keyword forms ({len(cov.keywords)} most used pairs, from {cov.keyword_source}):",
            f"  accepted by ctxgrad:          {len(cov.keywords) - len(refused):4d} pairs, "
            f"{cov.keyword_percent(False):6.2f}% weighted",
            f"  accepted and tested vs torch: {len(cov.keywords) - len(refused) - len(untested):4d} pairs, "
            f"{cov.keyword_percent(True):6.2f}% weighted",
        ]
        if refused:
            lines.append("  refused: " + ", ".join(f"{k.form} ({k.repos})" for k in refused))
        if untested:
            lines.append("  not tested: " + ", ".join(f"{k.form} ({k.repos})" for k in untested))
    if cov.named:
        named_refused = [k.form for k in cov.named if not cov.keyword_present[k.form]]
        named_untested = [
            k.form for k in cov.named if cov.keyword_present[k.form] and not cov.keyword_tested_by.get(k.form)
        ]
        lines += [
            f"keyword forms issue 26 names ({len(cov.named)} more pairs, unweighted):",
            f"  accepted by ctxgrad:          {len(cov.named) - len(named_refused):4d} pairs",
            f"  accepted and tested vs torch: {len(cov.named) - len(named_refused) - len(named_untested):4d} pairs",
        ]
        if named_refused:
            lines.append("  refused: " + ", ".join(named_refused))
        if named_untested:
            lines.append("  not tested: " + ", ".join(named_untested))
    uncovered = cov.uncovered()
    lines.append(f"\nnot covered ({len(uncovered)}; repos, - missing / ? untested):")
    lines += [f"  {'-' if not cov.present[u.name] else '?'} {u.name} ({u.repos})" for u in uncovered]
    return "\n".join(lines)


def as_json(cov: Coverage) -> dict[str, Any]:
    scope = cov.in_scope
    return {
        "in_scope": len(scope),
        "present": sum(cov.present[u.name] for u in scope),
        "covered": sum(cov.covered(u.name) for u in scope),
        "present_weighted_percent": round(cov.present_percent, 3),
        "covered_weighted_percent": round(cov.covered_percent, 3),
        "keyword_source": cov.keyword_source,
        "keywords": [
            {
                "name": k.name,
                "keyword": k.keyword,
                "repos": k.repos,
                "accepted": cov.keyword_present[k.form],
                "tested_by": cov.keyword_tested_by.get(k.form, []),
            }
            for k in cov.keywords
        ],
        "named_keywords": [
            {
                "name": k.name,
                "keyword": k.keyword,
                "accepted": cov.keyword_present[k.form],
                "tested_by": cov.keyword_tested_by.get(k.form, []),
            }
            for k in cov.named
        ],
        "names": [
            {
                "name": u.name,
                "kind": u.kind,
                "repos": u.repos,
                "present": cov.present[u.name],
                "tested_by": sorted(set(cov.tested_by.get(u.name, []))),
            }
            for u in sorted(scope, key=lambda u: (-u.repos, u.name))
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Print the measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="everything as JSON")
    parser.add_argument("--missing", action="store_true", help="only the in-scope names ctxgrad lacks")
    parser.add_argument("--reference", type=Path, default=REFERENCE, help="the folder of torch-usage.tsv")
    args = parser.parse_args(argv)
    if not (args.reference / "torch-usage.tsv").is_file():
        print(f"no torch-usage.tsv in {args.reference}", file=sys.stderr)
        return 2
    cov = measure(args.reference)
    if args.json:
        print(json.dumps(as_json(cov), indent=1))
    elif args.missing:
        for u in sorted(cov.in_scope, key=lambda u: (-u.repos, u.name)):
            if not cov.present[u.name]:
                print(f"{u.name}\t{u.kind}\t{u.repos}")
    else:
        print(report(cov))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
