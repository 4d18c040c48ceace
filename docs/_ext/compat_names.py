"""A short name in the API reference means ctxgrad's object, not a compat layer's.

``ctxgrad.compat.megengine`` has classes named ``Tensor``, ``Module`` and ``Parameter`` for
MegEngine's programs.  An annotation ``Tensor`` elsewhere means ``ctxgrad.Tensor``: when a
cross-reference finds ctxgrad's object and a compat layer's, the compat layer's is dropped
(without this, Sphinx warns that the reference is ambiguous).
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.domains.python import PythonDomain

_find_obj = PythonDomain.find_obj


def find_obj(self: PythonDomain, *args: Any, **kwargs: Any) -> list[tuple[str, Any]]:
    matches: list[tuple[str, Any]] = _find_obj(self, *args, **kwargs)
    if len(matches) > 1:
        ours = [match for match in matches if not match[0].startswith("ctxgrad.compat.")]
        if ours:
            return ours
    return matches


def setup(app: Sphinx) -> dict[str, Any]:
    PythonDomain.find_obj = find_obj  # type: ignore[method-assign]
    return {"parallel_read_safe": True, "parallel_write_safe": True}
