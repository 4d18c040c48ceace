"""Binding ``apply``'s arguments to ``forward``'s parameters, as a call of ``forward`` would.

Each Function class gets a :class:`Plan` once, when the class is made; ``apply`` uses it
only when it was given keyword arguments or fewer arguments than ``forward`` declares.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["Plan"]


class Plan:
    """How ``apply``'s arguments map onto ``forward``'s parameters; made once per class."""

    __slots__ = ("defaults", "kwonly", "min_args", "setup_style", "slot_names", "var_keyword", "var_positional")

    def __init__(self, cls: Any, setup_style: bool) -> None:
        self.setup_style = setup_style
        params: list[inspect.Parameter] = []
        try:
            params = list(inspect.signature(cls.forward).parameters.values())
        except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
            params = []
        if (
            not self.setup_style
            and params
            and params[0].kind
            in (
                inspect.Parameter.POSITIONAL_ONLY,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
            )
        ):
            params = params[1:]  # the ctx
        positional = [
            p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        ]
        self.slot_names = tuple(p.name for p in positional)
        self.defaults = {p.name: p.default for p in positional if p.default is not inspect.Parameter.empty}
        self.var_positional = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
        self.var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        self.kwonly = tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)
        # setup_context sees every parameter, defaults filled in, as torch's does.
        self.min_args = len(self.slot_names) if self.setup_style else 0

    def bind(self, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Place keyword arguments in their slots and fill skipped parameters with defaults."""
        names = self.slot_names
        where = f"{cls.__name__}.forward()"
        for key in kwargs:
            if key in names[: len(args)]:
                raise TypeError(f"{where} got multiple values for argument '{key}'")
            if key not in names:
                if key in self.kwonly:
                    raise TypeError(
                        f"{where}: keyword-only parameter '{key}' is not supported by apply; make it an "
                        "ordinary parameter (before any *) so it gets an input slot"
                    )
                raise TypeError(f"{where} got an unexpected keyword argument '{key}'")
        bound = list(args)
        for pos in range(len(args), len(names)):
            name = names[pos]
            if name in kwargs:
                bound.append(kwargs[name])
            elif name in self.defaults:
                bound.append(self.defaults[name])
            else:
                missing = [n for n in names[pos:] if n not in kwargs and n not in self.defaults]
                raise TypeError(
                    f"{where} missing {len(missing)} required argument{'s' if len(missing) > 1 else ''}: "
                    + ", ".join(f"'{m}'" for m in missing)
                )
        return tuple(bound)
