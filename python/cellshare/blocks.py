"""Generated blocks in text files: the one function that replaces a block between its markers,
shared by the page generator (:mod:`cellshare.docgen`) and the scoreboard's renderer
(:mod:`cellshare.reproduce.scoreboard`), which both write generated sections into pages."""

from __future__ import annotations


class DocgenError(ValueError):
    """A page names a renderer, reproduction, claim or artefact that does not exist."""


def replace_block(text: str, begin: str, end: str, block: str, where: str = "page") -> str:
    """`text` with the generated block from its opening marker through `end` replaced by
    `block` (which carries both markers). The opening marker is found by its part before
    " —" (the rest says how it is generated and may change); :class:`DocgenError` when the
    markers are missing or out of order."""
    b_key = begin.split(" —")[0]
    i = text.find(b_key)
    j = text.find(end, i) if i >= 0 else -1
    if i < 0 or j < 0:
        raise DocgenError(f"{where}: the generated-block markers `{b_key}` … `{end}` are missing")
    return text[:i] + block + text[j + len(end):]
