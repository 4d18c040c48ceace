# Two custom ops from PyTorch's documentation, as written for torch: `Exp` from the note
# "Extending torch.autograd" (docs/source/notes/extending.rst) and `LegendrePolynomial3` from
# the tutorial "Learning PyTorch with Examples" (polynomial_custom_function.py). No line is
# changed for ctxgrad: check them with `ctxgrad check examples/torch_programs/custom_ops.py`.
#
# Copyright (c) 2016-2024, PyTorch contributors. PyTorch's documentation and tutorials are
# under the BSD 3-Clause License: redistribution and use in source and binary forms, with or
# without modification, are permitted provided that the copyright notice, this list of
# conditions and the disclaimer are retained; THE SOFTWARE IS PROVIDED "AS IS", WITHOUT
# WARRANTY OF ANY KIND (https://github.com/pytorch/pytorch/blob/main/LICENSE).
import torch
from torch.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class LegendrePolynomial3(torch.autograd.Function):
    """
    We can implement our own custom autograd Functions by subclassing
    torch.autograd.Function and implementing the forward and backward passes
    which operate on Tensors.
    """

    @staticmethod
    def forward(ctx, input):
        """
        In the forward pass we receive a Tensor containing the input and return
        a Tensor containing the output. ctx is a context object that can be used
        to stash information for backward computation. You can cache arbitrary
        objects for use in the backward pass using the ctx.save_for_backward method.
        """
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        """
        In the backward pass we receive a Tensor containing the gradient of the loss
        with respect to the output, and we need to compute the gradient of the loss
        with respect to the input.
        """
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
