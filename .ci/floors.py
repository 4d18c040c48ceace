"""Print the lowest versions pyproject.toml allows, as exact pins for this Python.

CI's floor leg installs these (``pip install -c``), so a floor in pyproject.toml is one
that has been tested.  Reads ``name>=X`` requirements, evaluates a ``python_version``
marker for the running interpreter, and needs nothing outside the standard library.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REQUIREMENT = re.compile(
    r"^\s*([A-Za-z0-9_.-]+)\s*>=\s*([0-9][^;,\s]*)\s*"  # name>=floor
    r"(?:;\s*python_version\s*([<>=!]=?)\s*'([0-9.]+)')?\s*$"  # ; python_version OP 'X.Y'
)


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def applies(op: str | None, bound: str | None) -> bool:
    if op is None or bound is None:
        return True
    here, there = sys.version_info[:2], version_tuple(bound)
    return {
        "<": here < there,
        "<=": here <= there,
        ">": here > there,
        ">=": here >= there,
        "==": here == there,
        "!=": here != there,
    }[op]


def main() -> int:
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M)
    if block is None:
        print("pyproject.toml has no [project] dependencies list", file=sys.stderr)
        return 1
    for entry in re.findall(r'"([^"]+)"', block.group(1)):
        match = REQUIREMENT.match(entry)
        if match is None:
            print(f"cannot read the floor of {entry!r}: write it as name>=X[; python_version OP 'Y']", file=sys.stderr)
            return 1
        name, floor, op, bound = match.groups()
        if applies(op, bound):
            print(f"{name}=={floor}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
