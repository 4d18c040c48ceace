"""The teaching core fits in one sitting: function.py + engine.py + graph.py + grad_mode.py.

Lines of code are counted from Python's tokens, as tinygrad's ``sz.py`` counts them: a line
counts when it holds a token that is not a comment, a blank or indentation, and is not part
of a docstring.  Run ``python tests/test_core_size.py`` to see the count per file.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "ctxgrad" / "autograd"
TEACHING_CORE = ("function.py", "engine.py", "graph.py", "grad_mode.py")
BUDGET = 800

_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def docstring_lines(source: str) -> set[int]:
    """The line numbers of the module's, classes' and functions' docstrings."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def lines_of_code(source: str) -> int:
    docs = docstring_lines(source)
    code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _NOT_CODE:
            continue
        code.update(n for n in range(token.start[0], token.end[0] + 1) if n not in docs)
    return len(code)


def test_the_counter_skips_comments_blanks_and_docstrings() -> None:
    source = '''"""Module docstring,
over two lines."""

# a comment
def f(x):
    """Docstring."""
    s = """a string that is code,
    not a docstring"""
    return (x +
            1)  # trailing comment
'''
    # def, the two lines of s, return and its continuation
    assert lines_of_code(source) == 5


def test_the_teaching_core_fits_the_budget() -> None:
    counts = {name: lines_of_code((CORE / name).read_text(encoding="utf-8")) for name in TEACHING_CORE}
    total = sum(counts.values())
    assert total <= BUDGET, (
        f"the teaching core is {total} lines of code ({counts}), over the budget of {BUDGET}: move what is not "
        "the mechanism itself (a special case, a legacy shim, a mode's machinery) into a module of its own"
    )


if __name__ == "__main__":
    for name in TEACHING_CORE:
        print(f"{lines_of_code((CORE / name).read_text(encoding='utf-8')):5d}  ctxgrad/autograd/{name}")
