"""A short name in the API reference means ctxgrad's object, not a compat layer's.

``ctxgrad.compat.megengine`` has classes named ``Tensor``, ``Module`` and ``Parameter`` for
MegEngine's programs.  An annotation ``Tensor`` elsewhere means ``ctxgrad.Tensor``: when a
cross-reference finds ctxgrad's object and a compat layer's, the compat layer's is dropped
(without this, Sphinx warns that the reference is ambiguous).
"""

from __future__ import annotations

from typing import Any


def ours_first(matches: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``matches`` without the compat layers' objects, when ctxgrad's own are among them.

    >>> ours_first([("ctxgrad.Tensor", 1), ("ctxgrad.compat.megengine.Tensor", 2)])
    [('ctxgrad.Tensor', 1)]
    >>> ours_first([("ctxgrad.compat.megengine.GradManager", 3)])
    [('ctxgrad.compat.megengine.GradManager', 3)]
    """
    if len(matches) > 1:
        ours = [match for match in matches if not match[0].startswith("ctxgrad.compat.")]
        if ours:
            return ours
    return matches


def setup(app: Any) -> dict[str, Any]:
    # (Sphinx is imported here, not at the top: the tests import this module without it)
    from sphinx.domains.python import PythonDomain

    find_obj = PythonDomain.find_obj

    def find_ours(self: Any, *args: Any, **kwargs: Any) -> list[tuple[str, Any]]:
        return ours_first(find_obj(self, *args, **kwargs))

    PythonDomain.find_obj = find_ours  # type: ignore[method-assign]
    return {"parallel_read_safe": True, "parallel_write_safe": True}
