"""An mkdocs hook (``hooks`` in mkdocs.yml): inline code keeps each of its words whole.

Browsers may end a line after any hyphen, so ``--duration`` in a sentence could end one line
with ``--`` and begin the next with ``duration``. Each word of inline code that holds a hyphen
is wrapped in ``<span class="nobr">`` (docs/extra.css keeps it on one line); the spaces between
the words still wrap, and copying the code copies the same text.
"""

from __future__ import annotations

import re

#: Inline code as Markdown renders it: no attributes, no markup inside (a highlighted block
#: has spans inside its <code>, and its <pre> does not wrap anyway).
_CODE = re.compile(r"<code>([^<]*)</code>")
_HYPHENATED = re.compile(r"\S*-\S*")


def _keep_words(m: re.Match) -> str:
    return "<code>" + _HYPHENATED.sub(lambda w: f'<span class="nobr">{w.group(0)}</span>', m.group(1)) + "</code>"


def on_page_content(html: str, **kwargs) -> str:
    return _CODE.sub(_keep_words, html)
