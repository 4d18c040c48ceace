"""``import ctxgrad.as_torch`` as a program's or notebook's first line: from then on, in this
process, ``import torch`` gives ctxgrad (see :func:`ctxgrad.install_torch_alias` and
docs/running-torch-programs.md).

Where a real torch is installed it raises :class:`ctxgrad.TorchInstalledError` instead of
hiding it; ``ctxgrad.install_torch_alias(replace_installed=True)`` replaces it on purpose.
"""

from ctxgrad._torch_alias import install_torch_alias

install_torch_alias()
