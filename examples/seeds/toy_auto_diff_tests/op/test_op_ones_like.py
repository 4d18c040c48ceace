# From CyberZHG/toy-auto-diff (MIT licence: see LICENSE in this folder), tests/op/test_op_ones_like.py at commit
# fcbb508 (the seed era: the API of its gh-pages docs). Only the imports changed:
# "auto_diff" became "ctxgrad.compat.auto_diff".
# ruff: noqa
# fmt: off
import numpy as np
import ctxgrad.compat.auto_diff as ad
from .util import NumGradCheck


class TestOpOnesLike(NumGradCheck):

    def test_forward(self):
        w = ad.array([[1, 2, 3], [4, 5, 6]])
        ones = ad.ones_like(w).transpose()
        actual = ones.forward()
        expect = np.ones((3, 2))
        self.assertEqual((3, 2), ones.shape)
        self.assertTrue(np.allclose(expect, actual), (expect, actual))

    def test_backward(self):
        w = ad.array([[1, 2, 3], [4, 5, 6]])
        ones = ad.ones_like(w).transpose()
        self.numeric_gradient_check(ones, {}, [])

    def test_name(self):
        w = ad.array([[1, 2, 3], [4, 5, 6]], name='W')
        ones = ad.ones_like(w).transpose()
        self.assertEqual('transpose(ones_like(W))', ones.__unicode__())
