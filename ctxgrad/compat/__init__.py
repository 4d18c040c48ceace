"""The source systems' ways in: other libraries' ideas of a differentiable function, on ctxgrad.

ctxgrad's core is torch's ctx-based :class:`~ctxgrad.autograd.Function`. The modules of this
package let code written for the other systems ctxgrad was designed from run with its imports
changed: afnio's text Functions whose gradients are feedback
(:mod:`ctxgrad.compat.afnio`), MegEngine's instance-style ``Function`` (:mod:`ctxgrad.compat.megengine`), loupe's
array ``Function`` with ``cache_for_backward`` (:mod:`ctxgrad.compat.loupe`), auto_diff's
define-then-run graph (:mod:`ctxgrad.compat.auto_diff`), and the others as they arrive. Each is
a thin layer over the one mechanism, ``Function.apply`` and the engine: it turns the source
system's idea into ordinary ctxgrad Functions, so the same graph, hooks and checks apply, and
there is never a second autodiff. Each module also doubles as a lesson: the same idea in
another API. Nothing here is imported eagerly; import the module you need
(``from ctxgrad.compat import megengine``).
"""
