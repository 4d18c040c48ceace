"""The layer classes of :mod:`ctxgrad.nn`, one file per kind, as in torch."""

from __future__ import annotations

from ctxgrad.nn.modules.activation import ELU, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from ctxgrad.nn.modules.container import ModuleDict, ModuleList, Sequential
from ctxgrad.nn.modules.conv import Conv1d, Conv2d
from ctxgrad.nn.modules.dropout import Dropout
from ctxgrad.nn.modules.flatten import Flatten, Unflatten
from ctxgrad.nn.modules.linear import Bilinear, Identity, Linear
from ctxgrad.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from ctxgrad.nn.modules.module import Module
from ctxgrad.nn.modules.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from ctxgrad.nn.modules.pooling import AvgPool2d, MaxPool2d
from ctxgrad.nn.modules.sparse import Embedding

__all__ = [
    "ELU",
    "GELU",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Bilinear",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "HuberLoss",
    "Identity",
    "KLDivLoss",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
    "Unflatten",
]
