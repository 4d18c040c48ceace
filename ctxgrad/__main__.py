"""``python -m ctxgrad check ...``: see :mod:`ctxgrad.cli`."""

from ctxgrad.cli import main

if __name__ == "__main__":  # (pytest's doctest collection imports this module too)
    raise SystemExit(main())
