"""The API reference's own rules, applied while Sphinx reads it.

- A builtin's name in a type (``type[Function]``, ``int``) names the builtin, and a type
  variable (``T``) names nothing: never an attribute that happens to be called the same
  (``ctxgrad.dtype.type``, ``ctxgrad.Tensor.T``), which Sphinx's loose lookup of the names
  in annotations and type fields would otherwise pick, or warn about as ambiguous.
- Each ``[docs]`` link of a highlighted source page (``sphinx.ext.viewcode``) goes to the
  description of that object.  viewcode builds every link of a source file from the module
  the first of its objects was described under, so when the objects of one file are
  described under several modules (``ctxgrad.func.vmap`` as ``ctxgrad.vmap``, beside
  ``ctxgrad.func.grad``), the others pointed at anchors that do not exist.
"""

from __future__ import annotations

import builtins
import importlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (imported by Sphinx only: pytest collects this file without Sphinx installed)
    from docutils import nodes
    from sphinx.application import Sphinx

BUILTIN_TYPES = frozenset(name for name, value in vars(builtins).items() if isinstance(value, type))


CLASS_TYPES = frozenset({"class", "exception", "type", "module"})


def unlink_loose_names(doctree: nodes.document, objects: Mapping[str, Any]) -> None:
    """A bare name in a type that Sphinx would look up loosely (any object whose name ends
    with it) becomes its text when it is a builtin type, or when it matches no class but
    only attributes and methods that happen to share it (``T``, a type variable, is not
    ``ctxgrad.Tensor.T``).  ``objects``: the Python domain's objects, by full name."""
    from sphinx.addnodes import pending_xref

    refs = [
        ref
        for ref in doctree.findall(pending_xref)
        if ref.get("refdomain") == "py" and ref.hasattr("refspecific") and "." not in ref.get("reftarget", "")
    ]
    if not refs:
        return
    kinds_by_last_name: dict[str, set[str]] = {}  # "T" -> the kinds of the objects named *.T
    for name, entry in objects.items():
        kinds_by_last_name.setdefault(name.rpartition(".")[2], set()).add(entry.objtype)
    for ref in refs:
        target = ref["reftarget"]
        if target in BUILTIN_TYPES:
            ref.replace_self(ref.children)
            continue
        module, cls = ref.get("py:module"), ref.get("py:class")
        if any(n in objects for n in (target, f"{module}.{target}", f"{module}.{cls}.{target}")):
            continue
        kinds = kinds_by_last_name.get(target, set())
        if kinds and not kinds & CLASS_TYPES:
            ref.replace_self(ref.children)


def defining_module(modname: str | None, fullname: str) -> str | None:
    """The module whose source holds ``modname.fullname`` (as viewcode finds it)."""
    if not modname:
        return None
    try:
        obj: Any = importlib.import_module(modname)
    except ImportError:
        return None
    for part in fullname.split("."):
        obj = getattr(obj, part, None)
    found = getattr(obj, "__module__", None)
    return found if isinstance(found, str) else None


def _anchors(env: Any) -> dict[tuple[str, str], tuple[str, str]]:
    """``(source module, name in it) -> (page, anchor)`` of each Python description."""
    if not hasattr(env, "ctxgrad_source_anchors"):
        env.ctxgrad_source_anchors = {}
    found: dict[tuple[str, str], tuple[str, str]] = env.ctxgrad_source_anchors
    return found


def record_descriptions(app: Sphinx, doctree: nodes.document) -> None:
    """``doctree-read``: where each Python object of the page is described."""
    from sphinx import addnodes

    anchors = _anchors(app.env)
    for signature in doctree.findall(addnodes.desc_signature):
        if signature.parent.get("domain") != "py" or not signature.get("ids"):
            continue
        fullname = signature.get("fullname")
        module = defining_module(signature.get("module"), fullname) if fullname else None
        if module is not None:
            anchors[(module, fullname)] = (app.env.docname, signature["ids"][0])


def forget_descriptions(app: Sphinx, env: Any, docname: str) -> None:
    """``env-purge-doc``: a page read again records its descriptions again."""
    anchors = _anchors(env)
    for key in [key for key, (page, _) in anchors.items() if page == docname]:
        del anchors[key]


BACKLINK = re.compile(r'<div class="viewcode-block" id="([^"]+)">\n<a class="viewcode-back" href="[^"]*">')


def fix_backlinks(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: on a source page, each ``[docs]`` link to the anchor of the
    description it belongs to."""
    if not pagename.startswith("_modules/") or not isinstance(context.get("body"), str):
        return
    module = pagename.removeprefix("_modules/").replace("/", ".")
    anchors = _anchors(app.env)

    def link(match: re.Match[str]) -> str:
        entry = anchors.get((module, match.group(1)))
        if entry is None:
            return match.group(0)
        href = app.builder.get_relative_uri(pagename, entry[0]) + "#" + entry[1]
        return f'<div class="viewcode-block" id="{match.group(1)}">\n<a class="viewcode-back" href="{href}">'

    context["body"] = BACKLINK.sub(link, context["body"])


def skip_rule_objects(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """The generic batching rules (``ctxgrad.autograd.batching.elementwise_rule``, ...) are
    classmethod objects, set as ``vmap = rule`` on a Function: autodoc would take them for
    functions and find no signature.  Their module's docstring describes them."""
    return True if isinstance(obj, classmethod) else None


def setup(app: Sphinx) -> dict[str, Any]:
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class UnlinkLooseNames(SphinxPostTransform):
        default_priority = 5  # before the references are resolved (10)

        def run(self, **kwargs: Any) -> None:
            unlink_loose_names(self.document, self.env.get_domain("py").objects)  # type: ignore[attr-defined]

    app.add_post_transform(UnlinkLooseNames)
    app.connect("doctree-read", record_descriptions)
    app.connect("env-purge-doc", forget_descriptions)
    app.connect("html-page-context", fix_backlinks)
    app.connect("autodoc-skip-member", skip_rule_objects)
    return {"version": "1", "parallel_read_safe": False}
