# From CyberZHG/toy-auto-diff (MIT licence: see LICENSE in this folder), tests/sess/__init__.py at commit
# fcbb508 (the seed era: the API of its gh-pages docs). Only the imports changed:
# "auto_diff" became "ctxgrad.compat.auto_diff".
# ruff: noqa
# fmt: off
