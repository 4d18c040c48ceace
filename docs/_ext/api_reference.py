"""The API reference's own rules, applied while Sphinx reads it.

- A builtin's name in a type (``type[Function]``, ``int``) names the builtin: never an
  attribute that happens to be called the same (``ctxgrad.dtype.type``), which autodoc's
  fuzzy lookup of type fields would otherwise pick, or warn about as ambiguous.
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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (imported by Sphinx only: pytest collects this file without Sphinx installed)
    from docutils import nodes
    from sphinx.application import Sphinx

BUILTIN_TYPES = frozenset(name for name, value in vars(builtins).items() if isinstance(value, type))


def unlink_builtin_types(doctree: nodes.document) -> None:
    """A fuzzy (type-field) reference to a builtin type becomes its text."""
    from sphinx.addnodes import pending_xref

    for ref in list(doctree.findall(pending_xref)):
        if ref.get("refdomain") == "py" and ref.get("refspecific") and ref.get("reftarget") in BUILTIN_TYPES:
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


def setup(app: Sphinx) -> dict[str, Any]:
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class UnlinkBuiltinTypes(SphinxPostTransform):
        default_priority = 5  # before the references are resolved (10)

        def run(self, **kwargs: Any) -> None:
            unlink_builtin_types(self.document)

    app.add_post_transform(UnlinkBuiltinTypes)
    app.connect("doctree-read", record_descriptions)
    app.connect("env-purge-doc", forget_descriptions)
    app.connect("html-page-context", fix_backlinks)
    return {"version": "1", "parallel_read_safe": False}
