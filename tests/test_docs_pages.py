"""The documentation says what is true now: no page but CHANGELOG.md carries a date or an
internal issue reference (history goes to CHANGELOG.md, dated there).

Checked: README.md and every Markdown page under docs/. A date is an ISO date (2026-11-27),
a written one with a day ("27 November", "Nov 27, 2026"), a month with its year ("November
2026") or a clock time in UTC; an internal issue reference is "issue 28", "issues 26 and
28", "issue #41", "PR 12". Bibliography entries (docs/references.md, generated from
python/cellshare/data/references.toml) carry their publications' dates: those lines are
citations, not history, and are skipped.

Two pages are generated from text this test cannot fix on the page itself: the scenario
reference (from the Rust doc comments) and the scoreboard block of docs/reproductions.md
(from the measured causes in python/cellshare/reproduce/causes.py). Their generated text is
checked by its own test, which names the source to fix.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
#: What counts as a date or an internal issue reference, each with the name the failure gives.
PATTERNS = [
    ("an ISO date", re.compile(r"\b(19|20)\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b")),
    ("a written date", re.compile(rf"\b\d{{1,2}}(st|nd|rd|th)? ({_MONTHS})\b\.?")),
    ("a written date", re.compile(rf"\b({_MONTHS})\.? \d{{1,2}}(st|nd|rd|th)?\b(?!\.\d)(?! ?(%|ms|s\b|dB|MHz|UEs?))")),
    ("a month and year", re.compile(rf"\b({_MONTHS}) (19|20)\d{{2}}\b")),
    ("a clock time", re.compile(r"\b\d{1,2}:\d{2}(:\d{2})? ?UTC\b")),
    ("an internal issue reference", re.compile(r"\b(issues?|PRs?|pull requests?)\s*#?\d+\b", re.I)),
    ("an internal issue reference", re.compile(r"\bissues? \d+ and \d+\b", re.I)),
]

#: Generated blocks whose text comes from elsewhere: (page, begin marker, end marker, source).
GENERATED_ELSEWHERE = [
    ("docs/reproductions.md", "<!-- scoreboard-full:begin", "<!-- scoreboard-full:end -->",
     "the measured causes in python/cellshare/reproduce/causes.py (and the claims' definitions)"),
]
#: Pages generated whole from text kept elsewhere: page → source.
PAGES_GENERATED_ELSEWHERE = {
    "docs/scenario-reference.md": "the Rust doc comments of the scenario types (`cellshare scenario-reference`)",
}


def pages() -> list[Path]:
    return [REPO / "README.md"] + sorted(p for p in (REPO / "docs").rglob("*.md"))


def offences(text: str, *, skip_citations: bool = False) -> list[tuple[int, str, str]]:
    """(line number, what, the matched text) for every date or issue reference in `text`."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if skip_citations and line.startswith("<a id="):
            continue
        for what, rx in PATTERNS:
            m = rx.search(line)
            if m:
                found.append((n, what, m.group(0)))
                break
    return found


def _blank_blocks(path: Path, text: str) -> str:
    """`text` with the blocks generated from elsewhere blanked (line numbers kept)."""
    rel = str(path.relative_to(REPO))
    for page, begin, end, _ in GENERATED_ELSEWHERE:
        if page == rel and begin in text:
            i, j = text.index(begin), text.index(end)
            text = text[:i] + "\n" * text[i:j].count("\n") + text[j:]
    return text


def _report(rel: str, found: list, hint: str) -> str:
    lines = [f"{rel}:{n}: {what} ({m!r})" for n, what, m in found]
    return f"{rel} is not to carry dates or internal issue numbers ({hint}):\n  " + "\n  ".join(lines)


@pytest.mark.parametrize("path", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_page_says_what_is_true_now(path):
    rel = str(path.relative_to(REPO))
    if rel in PAGES_GENERATED_ELSEWHERE:
        pytest.skip(f"generated from {PAGES_GENERATED_ELSEWHERE[rel]}: checked by test_generated_text_is_undated")
    found = offences(_blank_blocks(path, path.read_text()), skip_citations=rel == "docs/references.md")
    assert not found, _report(rel, found, "history goes to CHANGELOG.md, dated there")


#: Generated pages whose source still carries a date, with the reason (strict xfail); none now.
_KNOWN_DATED: dict[str, str] = {}


@pytest.mark.parametrize("rel", sorted(set(PAGES_GENERATED_ELSEWHERE) | {g[0] for g in GENERATED_ELSEWHERE}))
def test_generated_text_is_undated(rel, request):
    if rel in _KNOWN_DATED:
        request.applymarker(pytest.mark.xfail(strict=True, reason=_KNOWN_DATED[rel]))
    path = REPO / rel
    text = path.read_text()
    blocks = [(b, e, src) for page, b, e, src in GENERATED_ELSEWHERE if page == rel]
    if blocks:
        b, e, src = blocks[0]
        i = text.index(b)
        keep = text[i:text.index(e)]
        text = "\n" * text[:i].count("\n") + keep
    else:
        src = PAGES_GENERATED_ELSEWHERE[rel]
    found = offences(text)
    assert not found, _report(rel, found, f"fix the text at its source: {src}")


def test_the_patterns_catch_what_they_name():
    bad = ["Measured 2026-11-24 on the VM", "On 27 November the run", "on Nov 27, 2026", "in November 2026",
           "at 02:22 UTC", "issue 28's 100×", "Issues 26 and 28", "issue #41", "see PR 12"]
    for line in bad:
        assert offences(line), line
    good = ["RFC 6817 §2.4.1", "Class #1: less than 50ms", "TS 36.213 Release 8", "a 2 s window of 2026 bytes",
            "3 UEs in May", "Sec. 3.4.3, Fig. 3.11(b)", "mean 1.03 s over 90 stops", "See issue trackers"]
    for line in good:
        assert not offences(line), line
    assert offences("<a id=\"x\"></a>**X**: August 2015.") and \
        not offences("<a id=\"x\"></a>**X**: August 2015.", skip_citations=True)


def test_inline_code_keeps_its_hyphenated_words_whole():
    # docs/hooks/code_words.py (an mkdocs hook): a browser may end a line after any hyphen, so
    # `--duration` would split as `--` / `duration`; the hook wraps such words in a nowrap span.
    import importlib.util

    spec = importlib.util.spec_from_file_location("code_words", REPO / "docs" / "hooks" / "code_words.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    html = '<p>Run <code>cellshare bench --duration 5</code>; <pre><span></span><code>a<span>-b</span></code></pre></p>'
    out = hook.on_page_content(html)
    assert '<code>cellshare bench <span class="nobr">--duration</span> 5</code>' in out
    assert '<pre><span></span><code>a<span>-b</span></code></pre>' in out   # highlighted blocks untouched
    assert "white-space: nowrap" in (REPO / "docs" / "extra.css").read_text().split(".md-typeset code .nobr")[1]


#: A page a cause of a miss cites: ``docs/X.md`` or ``docs/X.md#anchor`` in its text.
_DOC_REF = re.compile(r"\bdocs/(?P<page>[A-Za-z0-9_/-]+\.md)(?:#(?P<anchor>[A-Za-z0-9_-]+))?")


def _anchors(text: str) -> set[str]:
    """The ids mkdocs gives the page's headings (the toc extension's slugs) and explicit ids."""
    import unicodedata

    out = set()
    for line in text.splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if m:   # Python-Markdown's default slugify: ASCII, word characters, spaces to hyphens
            title = unicodedata.normalize("NFKD", m.group(1)).encode("ascii", "ignore").decode()
            title = re.sub(r"[^\w\s-]", "", title).strip().lower()
            out.add(re.sub(r"[-\s]+", "-", title))
    out |= set(re.findall(r'id="([^"]+)"', text))
    return out


def test_the_causes_cite_pages_that_exist_and_hold_their_data():
    # Each cause of a miss (python/cellshare/reproduce/causes.py) that names a page must name
    # one that exists (and an anchor on it, if it gives one); a cause that quotes the stored
    # ns-3 data (`{ns3:FILE#...}`) and cites a page for it must cite a page that names that
    # file, so the reader finds the numbers where the cause sends them.
    from cellshare.reproduce.causes import CAUSES

    cited_any = False
    for key, cause in CAUSES.items():
        refs = list(_DOC_REF.finditer(cause.text))
        cited_any |= bool(refs)
        for m in refs:
            page = REPO / "docs" / m["page"]
            assert page.is_file(), f"cause {key} cites docs/{m['page']}, which does not exist"
            if m["anchor"]:
                assert m["anchor"] in _anchors(page.read_text()), \
                    f"cause {key} cites docs/{m['page']}#{m['anchor']}: no such heading on the page"
        files = {arg.partition("#")[0] for kind, arg in cause.references() if kind == "ns3"}
        if refs and files:
            texts = [(REPO / "docs" / m["page"]).read_text() for m in refs]
            for f in files:
                assert any(f"tools/data/{f}" in t for t in texts), \
                    (f"cause {key} quotes tools/data/{f} and cites {', '.join('docs/' + m['page'] for m in refs)}, "
                     "none of which shows that file's numbers")
    assert cited_any


def test_anchor_slugs_follow_the_headings():
    assert _anchors("## Shares beside a background (the `legilimens-at-scale` question)\n") == \
        {"shares-beside-a-background-the-legilimens-at-scale-question"}
    # Against the built site's ids, for headings with underscores, dots and § signs.
    tcp = (REPO / "docs" / "tcp.md").read_text()
    assert {"rack-rfc-8985-6-tcp_recoveryc", "bode-on-the-t-mobile-lte-trace"} <= _anchors(tcp)
