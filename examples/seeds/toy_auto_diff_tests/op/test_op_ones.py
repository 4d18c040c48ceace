# From CyberZHG/toy-auto-diff (MIT licence: see LICENSE in this folder), tests/op/test_op_ones.py at commit
# fcbb508 (the seed era: the API of its gh-pages docs). Only the imports changed:
# "auto_diff" became "ctxgrad.compat.auto_diff".
# ruff: noqa
# fmt: off
import numpy as np
import ctxgrad.compat.auto_diff as ad
from .util import NumGradCheck


class TestOpOnes(NumGradCheck):

    def test_forward(self):
        ones = ad.ones(5)
        actual = ones.forward()
        expect = np.ones(5)
        self.assertEqual((5,), ones.shape)
        self.assertTrue(np.allclose(expect, actual), (expect, actual))
        ones = ad.ones((3, 5)).transpose()
        actual = ones.forward()
        expect = np.ones((5, 3))
        self.assertEqual((5, 3), ones.shape)
        self.assertTrue(np.allclose(expect, actual), (expect, actual))

    def test_backward(self):
        ones = ad.ones((3, 5)).transpose()
        self.numeric_gradient_check(ones, {}, [])

    def test_name(self):
        ones = ad.ones(5)
        self.assertEqual('ones(5)', ones.__unicode__())
        ones = ad.ones((3, 5)).transpose()
        self.assertEqual('transpose(ones(3, 5))', ones.__unicode__())
