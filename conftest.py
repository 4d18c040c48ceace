"""What pytest's doctest collection of the package must not import."""

import importlib.machinery
from pathlib import Path

# Importing ctxgrad/as_torch.py installs the torch alias for the whole process (or refuses
# where torch is installed): it is tested in tests/test_torch_alias.py, in a subprocess.
collect_ignore = ["ctxgrad/as_torch.py"]

# On the optional compiled core (tools/build_compiled.py), a module built beside its .py is
# imported from the built file, which pytest's doctest collection cannot read as that .py: its
# examples run on the pure-Python legs.
collect_ignore += [
    str(source.relative_to(Path(__file__).parent))
    for source in Path(__file__).parent.joinpath("ctxgrad").rglob("*.py")
    if any(source.with_name(source.stem + suffix).exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES)
]
