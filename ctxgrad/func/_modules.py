"""``functional_call`` and ``stack_module_state``: a module run with other parameters (see
:mod:`ctxgrad.func`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxgrad._tensor import Tensor


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call ``module`` with the parameters and buffers named in ``parameter_and_buffer_dicts``
    (a dict, or a sequence of dicts) in place of its own, for this call only.

    >>> import ctxgrad
    >>> from ctxgrad.func import functional_call
    >>> lin = ctxgrad.nn.Linear(2, 1)
    >>> functional_call(lin, {"weight": ctxgrad.ones(1, 2), "bias": ctxgrad.zeros(1)}, (ctxgrad.tensor([1.0, 2.0]),))
    tensor([3.])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = list(dict.fromkeys(k for k in keys if keys.count(k) > 1))
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    own = dict(module.named_parameters(remove_duplicate=False))
    own.update(dict(module.named_buffers(remove_duplicate=False)))
    if strict:
        missing = [k for k in own if k not in merged]
        unexpected = [k for k in merged if k not in own]
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))
    if tie_weights:
        by_id: dict[int, list[str]] = {}
        for k, v in own.items():
            if v is not None:
                by_id.setdefault(id(v), []).append(k)
        for names in by_id.values():
            given = [k for k in names if k in merged]
            if given:
                values = {id(merged[k]) for k in given}
                if len(values) > 1:
                    raise ValueError(
                        f"functional_call got multiple values for keys {given}, which are tied. Consider using "
                        "tie_weights=False"
                    )
                for k in names:
                    merged.setdefault(k, merged[given[0]])
    swapped: list[tuple[dict[str, Any], str, Any]] = []
    try:
        for name, value in merged.items():
            owner, _, attr = name.rpartition(".")
            sub = module.get_submodule(owner) if owner else module
            for registry in (sub._parameters, sub._buffers):
                if attr in registry:
                    swapped.append((registry, attr, registry[attr]))
                    registry[attr] = value
                    break
            else:
                if strict or attr not in sub.__dict__:
                    swapped.append((sub.__dict__, attr, sub.__dict__.get(attr, _MISSING)))
                sub.__dict__[attr] = value
        call_args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*call_args, **(kwargs or {}))
    finally:
        for registry, attr, old in reversed(swapped):
            if old is _MISSING:
                registry.pop(attr, None)
            else:
                registry[attr] = old


_MISSING = object()


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of same-shaped ``models``, stacked along a new first
    dimension: ``(params, buffers)``, for ``vmap(functional_call...)`` over an ensemble."""
    from ctxgrad._made_functions import stack

    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not all(m.training == models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    names = [k for k, _ in models[0].named_parameters()]
    params = {}
    for k in names:
        ps = [dict(m.named_parameters())[k] for m in models]
        s = stack([p.detach() for p in ps])
        if all(p.requires_grad for p in ps):
            s._set_requires_grad()
        params[k] = s
    buffers = {k: stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Make every batch-norm module of ``root`` (``root`` included) use the statistics of the
    batch it is given, in place: no running mean and variance, ``track_running_stats`` off,
    so that it can run under ``vmap`` (where an update of a running statistic shared by all
    samples would be per-sample).  Returns ``root``."""
    from ctxgrad.nn.modules.normalization import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
