"""Ways in from the other systems ctxgrad was designed from.

Each module here lets code written for one source system (afnio's text Functions,
MegEngine's instance-style Functions, loupe's array Functions, auto_diff's define-then-run
graphs) run with its imports changed, and each is a thin layer over the one mechanism:
``ctxgrad.autograd.Function``, its ctx and the engine.  Nothing is imported eagerly: import
the module you need (``import ctxgrad.compat.afnio as hf``).
"""
