"""What a Python command printed: ``>>> torch.cuda.is_available()`` then ``True``, ``python -c "import torch;
print(torch.__version__, torch.version.hip)"`` then ``2.3.0+rocm6.0 6.0.32830-d62f6a171``. The expression says
what the printed value is; a value is taken only where its shape fits (a version for a version, True/False for
availability), so a traceback printed instead is no value. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuready.probe.paste.clues import Clue, fitted, printed_field

_OUT = re.compile(r"^Out\[\d+\]:\s*")
"""IPython's mark before a printed value."""


def _code(command: str) -> str:
    """The code a command runs: a ``python -c "..."`` line's code, or the line itself (a REPL's expression)."""
    inline = re.match(r"""^(?:\S*python\S*)\s+-c\s+(["'])(.*)\1\s*$""", command.strip())
    return inline.group(2) if inline else command.strip()


def _calls(command: str) -> list[str]:
    """The argument text of each ``print(...)`` of a command."""
    return re.findall(r"print\((.*?)\)(?:\s*;|\s*$)", _code(command))


def _expressions(command: str) -> list[str]:
    """The printed expressions of a command: a REPL expression, or the arguments of the last ``print(...)``."""
    code, printed = _code(command), _calls(command)
    if printed:
        return _arguments(printed[-1])
    if ";" in code or " " in code.replace(", ", ",") and "(" not in code:
        return []
    return [code]


def _arguments(text: str) -> list[str]:
    """``a, f(b, c), d`` -> ``[a, f(b, c), d]``."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += char in "([{"
        depth -= char in ")]}"
        current += char
    parts.append(current.strip())
    return [p for p in parts if p]


_LONGEST = 1000
"""Longer output lines are no print's labelled line."""
_LITERAL = re.compile(r"""^(["'])([^"'{}]*)\1$""")
"""A plain string argument of ``print``, printed as it is (an f-string is not one)."""


_FSTRING = re.compile(r"""^f(["'])(.*)\1$""")
"""An f-string argument of ``print``: ``f"ROCm device detected: {torch.cuda.get_device_name(0)}"``."""


def _print_lines(calls: list[str]) -> list[tuple[re.Pattern[str], list[str]]]:
    """Per ``print(...)`` of a command that labels what it prints (``print('CUDA OK', torch.cuda.is_available())``,
    an f-string with its text around the value) or prints several times, the line it prints: its plain strings as
    they are, each expression a group (``f0``, ``f1`` ... in order; an expression that shows no known field: any
    text), with the expressions the groups stand for."""
    if len(calls) < 2 and not any(_LITERAL.match(a) or _FSTRING.match(a) for call in calls for a in _arguments(call)):
        return []
    lines = []
    for call in calls:
        parts: list[str] = []
        expressions: list[str] = []
        spaced = False
        for argument in _arguments(call):
            literal, formatted = _LITERAL.match(argument), _FSTRING.match(argument)
            if literal:
                parts.append(re.escape(literal.group(2)))
                continue
            pieces = re.split(r"\{([^{}]+)\}", formatted.group(2)) if formatted else ["", argument, ""]
            text = ""
            for index, piece in enumerate(pieces):
                if index % 2 == 0:
                    text += re.escape(piece)
                    continue
                expression = piece.split(":")[0].split("!")[0].strip()
                known = printed_field(expression)
                if known and known[1] == "gpu" and not spaced:  # a name has spaces: one such group a line, no more
                    text += f"(?P<f{len(expressions)}>.+)"
                    spaced = True
                else:  # one word: the pattern stays linear whatever the line (no two groups compete for its spaces)
                    text += f"(?P<f{len(expressions)}>\\S+)" if known else "\\S+"
                expressions.append(expression)
            parts.append(text)
        lines.append((re.compile(" ".join(parts)), expressions))
    return lines


def _labelled_prints(patterns: list[tuple[re.Pattern[str], list[str]]],
                     lines: list[tuple[int, str]]) -> Iterator[Clue]:
    """The facts of a command whose prints :func:`_print_lines` reads, each print's line found in order (warnings and
    other output between them are passed over)."""
    at = 0
    for pattern, expressions in patterns:
        for index in range(at, len(lines)):
            number, line = lines[index]
            if len(line) > _LONGEST or (match := pattern.fullmatch(line)) is None:
                continue
            at = index + 1
            for name, text in match.groupdict().items():
                known = printed_field(expressions[int(name[1:])])
                value = fitted(text, known[1]) if known else None
                if known and value is not None:
                    yield Clue(known[0], value, number)
            break


def printed(command: str, output: tuple[str, ...], first_line: int) -> Iterator[Clue]:
    """The facts a command's output shows (``first_line`` is the number of ``output[0]`` in the paste)."""
    calls = _calls(command)
    if patterns := _print_lines(calls):
        lines = [(first_line + i, _OUT.sub("", line.strip())) for i, line in enumerate(output) if line.strip()]
        found = list(_labelled_prints(patterns, lines))
        if found:
            yield from found
            return
    fields = [printed_field(e) for e in _expressions(command)]
    if not fields or not any(fields):
        return
    lines = [(first_line + i, _OUT.sub("", line.strip())) for i, line in enumerate(output) if line.strip()]
    if len(fields) == 1:
        field, shape = fields[0] or ("", "")
        for number, line in reversed(lines):  # warnings come first, the value last
            value = fitted(line, shape)
            if value is not None:
                yield Clue(field, value, number)
                return
        return
    for number, line in lines:
        values = line.split()
        if len(values) == len(fields):
            for known, value in zip(fields, values, strict=True):
                taken = fitted(value, known[1]) if known else None
                if known and taken is not None:
                    yield Clue(known[0], taken, number)
            return
