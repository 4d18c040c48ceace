"""pytest runs the pages of docs/ as doctests; the Sphinx configuration is not a test."""

collect_ignore = ["conf.py", "_ext"]
