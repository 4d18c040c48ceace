"""What pytest's doctest collection of the package must not import."""

# Importing ctxgrad/as_torch.py installs the torch alias for the whole process (or refuses
# where torch is installed): it is tested in tests/test_torch_alias.py, in a subprocess.
collect_ignore = ["ctxgrad/as_torch.py"]
