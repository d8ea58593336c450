"""The word a pattern cannot match without: a plain substring test on a lower-cased line says "no" to most lines
for a tenth of the cost of a regular-expression search, which keeps a 1 MB paste well under a second."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate


def required_word(pattern: str) -> str:
    """The longest run of letters every match of ``pattern`` contains, lower-cased ('' when none is certain):
    text inside groups (optional or alternatives), character classes, escapes and optional characters is not
    counted, and a top-level alternation has none."""
    cut = "\0"  # what stands where something was taken out: no word runs across it
    text = re.sub(r"\\.", cut, pattern)  # escapes first: an escaped bracket opens no group or class
    text = re.sub(r"\[[^\]]*\]", cut, text)
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\([^()]*\)", cut, text)
    if "|" in text or "(" in text or ")" in text:
        return ""
    text = re.sub(r".(?:[?*+]|\{\d*,?\d*\})", cut, text)
    words = [w.strip() for w in re.findall(r"[A-Za-z][A-Za-z_ ]+[A-Za-z_]", text)]  # three letters or more
    return max(words, key=len).lower() if words else ""


LINE_CUT = 2000
"""How much of each line the rules read, and so the joined text the gates and the error index search holds (one
value: a word past it is never looked for)."""


def long_lines(lines: Sequence[str]) -> list[int]:
    """The index of each line longer than ``LINE_CUT`` (most pastes have none: one pass in C says so)."""
    if not lines or max(map(len, lines)) <= LINE_CUT:
        return []
    return [index for index, length in enumerate(map(len, lines)) if length > LINE_CUT]


def cut_lines(lines: Sequence[str]) -> list[str]:
    """Each line's first ``LINE_CUT`` characters."""
    return [line[:LINE_CUT] if len(line) > LINE_CUT else line for line in lines]


_Tree = dict[str, "_Tree"]
"""Words by their next character; an empty key marks where a word ends."""


def word_trie(words: set[str] | frozenset[str]) -> str:
    """A pattern matching any of ``words`` (plain text), written as a tree of their shared beginnings: the regular
    expression engine then tests one character set per position instead of every word in turn (several times
    faster on a long alternation). It stops at the shortest word that matches: for "is any there", not "which"."""
    tree: _Tree = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: _Tree) -> str:
        if "" in node:
            return ""  # a whole word ends here: enough to say a line holds one
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return pattern(tree)


def lines_with_any(words: Sequence[str], lines: Sequence[str], lowered: bool = True) -> set[int]:
    """The index of each line that holds any of ``words`` (plain text; lower-case when ``lowered``): one plain
    substring search of the lines joined per word, several times faster than one pattern of them all."""
    return JoinedLines.of(lines, lowered).where_any(words)


@dataclass(frozen=True)
class JoinedLines:
    """Lines joined by line breaks (lower-cased or as they are), with where each begins: one search of the joined
    text finds the lines that hold something."""

    text: str
    starts: tuple[int, ...]
    """Where each line begins in ``text``, and one past the end."""

    @classmethod
    def of(cls, lines: Sequence[str], lowered: bool = True) -> JoinedLines:
        text = "\n".join(lines)
        if lowered:
            text = text.lower()
            if len(text) != sum(map(len, lines)) + len(lines) - 1:  # a letter whose lower case is longer ('İ')
                lines = [line.lower() for line in lines]
                text = "\n".join(lines)
        return cls(text, (0, *accumulate(map((1).__add__, map(len, lines)))))

    def where(self, pattern: re.Pattern[str]) -> Iterator[int]:
        """The index of each line in which ``pattern`` finds something."""
        if len(self.starts) < 2:
            return
        text, starts, position = self.text, self.starts, 0
        while (match := pattern.search(text, position)) is not None:
            index = bisect_right(starts, match.start()) - 1
            yield index
            position = starts[index + 1]

    def subset(self, indexes: Sequence[int]) -> JoinedLines:
        """The lines at ``indexes`` (in that order) joined on their own: a later search reads only them."""
        text, starts = self.text, self.starts
        chosen = [text[starts[i]:starts[i + 1] - 1] for i in indexes]
        return JoinedLines("\n".join(chosen), (0, *accumulate(map((1).__add__, map(len, chosen)))))

    def where_any(self, words: Iterable[str]) -> set[int]:
        """The index of each line that holds any of ``words``."""
        return {index for found in self.where_words(words).values() for index in found}

    def where_words(self, words: Iterable[str]) -> dict[str, list[int]]:
        """The index of each line that holds each of ``words`` (plain text, without a line break). A word that
        holds another of them is looked for only in the lines that hold that one: the longest such, searched in
        the shortest first, so most of the words search a small part of the text."""
        found: dict[str, list[int]] = {}
        parts: dict[str, tuple[JoinedLines, list[int]]] = {}
        for word in sorted(dict.fromkeys(words), key=len):
            parent = max((known for known in found if known in word), key=len, default=None)
            if parent is None:
                found[word] = list(self.where_word(word))
                continue
            if parent not in parts:
                parts[parent] = (self.subset(found[parent]), found[parent])
            part, at = parts[parent]
            found[word] = [at[index] for index in part.where_word(word)]
        return found

    def where_word(self, word: str) -> Iterator[int]:
        """The index of each line that holds ``word`` (plain text, without a line break): a plain substring search,
        several times faster than a regular expression's."""
        if len(self.starts) < 2:
            return
        text, starts = self.text, self.starts
        position = text.find(word)
        while position >= 0:
            index = bisect_right(starts, position) - 1
            yield index
            position = text.find(word, starts[index + 1])


@dataclass(frozen=True)
class Caseless:
    """A case-insensitive pattern asked only whether it finds something: ASCII text is lower-cased and searched with
    the pattern written in lower case and without the flag (the regular-expression engine runs several times faster
    without it); other text (where Unicode case rules such as 'ſ' = 's' apply) by the pattern as it is."""

    pattern: re.Pattern[str]
    lowered: re.Pattern[str]

    @classmethod
    def of(cls, pattern: re.Pattern[str]) -> Caseless:
        if not pattern.flags & re.IGNORECASE:
            raise ValueError(f"not a case-insensitive pattern: {pattern.pattern!r}")
        return cls(pattern, re.compile(_lower_case(pattern.pattern), pattern.flags & ~re.IGNORECASE))

    def found(self, text: str) -> bool:
        if text.isascii():
            return self.lowered.search(text.lower()) is not None
        return self.pattern.search(text) is not None


def _lower_case(pattern: str) -> str:
    """``pattern`` with its letters in lower case, escapes (``\\S``, ``\\D``, ``\\B``) kept as they are. ValueError
    for what lower-casing would change the meaning of: a character by its code, a flag switched off inside, a range
    in a character class whose ends differ in case (``[A-z]``)."""
    escapes = [m.group(0) for m in re.finditer(r"\\.", pattern, re.DOTALL)]
    classes = re.findall(r"\[(?:\\.|[^\]\\])*\]", pattern)
    if any(e[1] in "xuUN01234567" for e in escapes) or re.search(r"\(\?[a-zA-Z]*-", pattern) or any(
            a.isupper() != b.isupper() or a.isdigit() != b.isdigit()
            for c in classes for a, b in re.findall(r"(\w)-(\w)", re.sub(r"\\.", "", c))):
        raise ValueError(f"cannot lower-case {pattern!r}")
    lowered = re.sub(r"\\.|[^\\]+", lambda m: m.group(0) if m.group(0).startswith("\\") else m.group(0).lower(),
                     pattern, flags=re.DOTALL)
    return lowered.replace("(?p<", "(?P<").replace("(?p=", "(?P=")  # a named group keeps its syntax
