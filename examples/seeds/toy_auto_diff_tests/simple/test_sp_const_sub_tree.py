# From CyberZHG/toy-auto-diff (MIT licence: see LICENSE in this folder), tests/simple/test_sp_const_sub_tree.py at commit
# fcbb508 (the seed era: the API of its gh-pages docs). Only the imports changed:
# "auto_diff" became "ctxgrad.compat.auto_diff".
# ruff: noqa
# fmt: off
import numpy as np
from unittest import TestCase
import ctxgrad.compat.auto_diff as ad
from ctxgrad.compat.auto_diff import OpPlaceholder


class TestSpConstSubTree(TestCase):

    def test_constants(self):
        x = ad.array(np.arange(12)).reshape((3, 4)).transpose().simplify()
        self.assertEqual('C(4, 3)', x.name)

    def test_placeholder(self):
        x = OpPlaceholder(shape=(12,), name='X').reshape((3, 4)).transpose().simplify()
        self.assertEqual('transpose(reshape(X, shape=(3, 4)))', x.name)
