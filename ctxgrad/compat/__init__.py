"""The source systems' ways in: each module here speaks one other library's API (auto_diff's
define-then-run graph in :mod:`ctxgrad.compat.auto_diff`, ...) as a thin layer over the one
mechanism, ``Function.apply`` and the engine, never a second autodiff; each doubles as a
lesson in how that system's idea maps onto ctxgrad's.  Import the module you need
(``from ctxgrad.compat import auto_diff``); nothing is imported here eagerly.
"""
