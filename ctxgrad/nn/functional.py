"""``torch.nn.functional`` on ctxgrad (``import ctxgrad.nn.functional as F``).

Activations.  ``leaky_relu``, ``elu``, ``gelu``, ``silu`` and ``softplus`` exist only here, as
in torch; ``relu``, ``sigmoid``, ``tanh``, ``softmax`` and ``log_softmax`` are the same ops as
``ctxgrad.relu`` and friends.  Each is an ordinary :class:`~ctxgrad.autograd.Function` in
:mod:`ctxgrad.ops.activations`, with a backward that can itself be differentiated and a ``jvp``
for forward mode.  ``inplace=True`` is the Function made in place
(:func:`ctxgrad.autograd.inplace.write_in_place`: its forward, the result written into
``input``, which is marked dirty), never a copy of its body.

Layers as functions.  ``conv2d``, ``unfold``/``fold`` and constant ``pad`` are Functions in
:mod:`ctxgrad.ops.convolution`, ``max_pool2d`` and ``embedding`` in :mod:`ctxgrad.nn._ops`
(NumPy forward, backward in ctxgrad ops, a ``jvp``); ``conv1d`` is a ``conv2d`` over a height
of 1; ``linear``, ``bilinear``,
``avg_pool2d``, ``layer_norm``, ``batch_norm``, ``dropout`` and the other ``pad`` modes are
composed from existing ops, so double backward and forward mode come for free.

Sampling.  ``grid_sample`` and ``affine_grid`` (spatial transformers) and ``gumbel_softmax``,
composed from ops (:mod:`ctxgrad.nn._functional_sampling`).

Losses.  ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``, ``nll_loss``,
``cross_entropy`` (class indices or probabilities, ``weight``, ``ignore_index``,
``label_smoothing``), ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``
(``pos_weight``) and ``kl_div``, composed from ops and computed stably (log-softmax,
softplus), with torch's reductions and the deprecated ``size_average``/``reduce`` pair.

>>> import ctxgrad
>>> import ctxgrad.nn.functional as F
>>> logits = ctxgrad.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, ctxgrad.tensor([0]))
>>> loss.backward()
>>> logits.grad
tensor([[-0.2144,  0.1753,  0.0391]])
"""

from __future__ import annotations

from ctxgrad.nn import _made_functional
from ctxgrad.nn._functional_activations import (
    cosine_similarity,
    glu,
    hardshrink,
    log_softmax,
    logsigmoid,
    normalize,
    pairwise_distance,
    prelu,
    relu6,
    rrelu,
    rrelu_,
    softmax,
    softmin,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)
from ctxgrad.nn._functional_layers import (
    bilinear,
    embedding,
    embedding_bag,
    linear,
    one_hot,
    pixel_shuffle,
    pixel_unshuffle,
)
from ctxgrad.nn._functional_losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    ctc_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ctxgrad.nn._functional_norm import (
    alpha_dropout,
    batch_norm,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
    group_norm,
    instance_norm,
    interpolate,
    layer_norm,
    local_response_norm,
    rms_norm,
    scaled_dot_product_attention,
)
from ctxgrad.nn._functional_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
)
from ctxgrad.nn._functional_sampling import affine_grid, grid_sample, gumbel_softmax
from ctxgrad.nn._made_functional import *  # noqa: F403  (the rows' functions, typed there)
from ctxgrad.ops.convolution import fold, pad, unfold

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "affine_grid",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "gaussian_nll_loss",
    "glu",
    "grid_sample",
    "gumbel_softmax",
    "group_norm",
    "hardshrink",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "linear",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu6",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "unfold",
]
__all__ += _made_functional.__all__
