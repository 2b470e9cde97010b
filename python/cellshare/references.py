"""cellshare's bibliography: every paper, RFC, specification, trace set and tool it implements,
follows or cites, each under a short lowercase key (``sprout``, ``legilimens``, ``reno``).

The entries live in one file, ``data/references.toml`` (package data). It is TOML so that one
source feeds the three places a citation appears: the documentation page
(``docs/references.md``, anchors ``references.md#KEY``), the BibTeX file
(``docs/references.bib``) and the code (claims, reproductions and source comments cite by key
— ``[sprout]`` in a comment — and get the full citation from here)::

    from cellshare import references
    references.get("sprout").short_cite()   # 'Winstein et al., NSDI 2013'
    references.get("sprout").citation()     # authors, "title", venue, year. URL

``python -m cellshare.references`` regenerates ``docs/references.md`` (between its markers)
and ``docs/references.bib`` from the TOML; ``--check`` exits 1 if either is stale.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["GROUPS", "Reference", "UnknownReference", "bibtex", "get", "load", "markdown"]

TOML = Path(__file__).parent / "data" / "references.toml"

#: The sections of the references page, in order: group name → heading.
GROUPS = {
    "papers": "The five papers cellshare implements",
    "transport": "Transports and congestion controllers",
    "queue": "Queue disciplines",
    "apps": "Applications: video calls, adaptive streaming, web",
    "radio": "Radio: 3GPP specifications and channel models",
    "tools": "Traces, tools and methods",
}

BEGIN = ("<!-- references:begin — generated from python/cellshare/data/references.toml by "
         "`python -m cellshare.references`; do not edit by hand -->")
END = "<!-- references:end -->"

_FIELDS = {"kind", "group", "authors", "corporate", "title", "venue", "venue_short", "year", "doi", "url",
           "number", "volume", "issue", "pages", "note", "short", "text"}
_REQUIRED = {"kind", "group", "authors", "title", "venue", "short"}


class UnknownReference(KeyError):
    """A key that is not in the bibliography."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Reference:
    """One bibliography entry (see ``data/references.toml`` for the fields)."""

    key: str
    kind: str
    group: str
    authors: tuple[str, ...]
    title: str
    venue: str
    short: str
    year: int | None = None
    venue_short: str | None = None
    doi: str | None = None
    url: str | None = None
    number: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    note: str | None = None
    text: str | None = None
    corporate: bool = False

    @property
    def link(self) -> str | None:
        """Where to read it: the DOI resolver's address, else the URL."""
        return f"https://doi.org/{self.doi}" if self.doi else self.url

    def author_names(self) -> list[str]:
        """The authors as "First Last" (a "Last, First" entry is turned around)."""
        return [a if self.corporate or ", " not in a else " ".join(reversed(a.split(", ", 1)))
                for a in self.authors]

    def _surnames(self) -> list[str]:
        return [a if self.corporate else a.split(", ", 1)[0] if ", " in a else a.split()[-1]
                for a in self.authors]

    def citation(self) -> str:
        """One line: authors, "title", venue, year, then the DOI or the URL."""
        tail = f" doi:{self.doi}" if self.doi else f" {self.url}" if self.url else ""
        body = self._body()
        return f"{body}{'' if body.endswith('.') else '.'}{tail}"

    def _body(self) -> str:
        names = self.author_names()
        who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        where = [self.number, self.venue] if self.number and self.number not in self.venue else [self.venue]
        if self.volume:
            where[-1] += f" {self.volume}" + (f"({self.issue})" if self.issue else "")
        if self.pages:
            where.append(f"pp. {self.pages}")
        where.append(str(self.year) if self.year else "n.d.")
        return f'{who}, "{self.title}", {", ".join(where)}'

    def short_cite(self) -> str:
        """Lead author and venue: "Winstein et al., NSDI 2013", "Allman et al., RFC 5681 (2009)"."""
        s = self._surnames()
        who = s[0] if len(s) == 1 else f"{s[0]} and {s[1]}" if len(s) == 2 else f"{s[0]} et al."
        venue = self.venue_short or self.number or self.venue
        if not self.year:
            return f"{who}, {venue}"
        return f"{who}, {venue} ({self.year})" if venue[-1:].isdigit() else f"{who}, {venue} {self.year}"


@functools.lru_cache(maxsize=1)
def _load(path: Path) -> tuple[Reference, ...]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    refs = []
    for key, entry in data.items():
        where = f"{path.name}: [{key}]"
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", key):
            raise ValueError(f"{where}: keys are lowercase letters, digits and hyphens")
        if extra := set(entry) - _FIELDS:
            raise ValueError(f"{where}: unknown field(s) {sorted(extra)}")
        if missing := _REQUIRED - set(entry):
            raise ValueError(f"{where}: missing field(s) {sorted(missing)}")
        if entry["group"] not in GROUPS:
            raise ValueError(f"{where}: group must be one of {list(GROUPS)}")
        refs.append(Reference(key=key, **{**entry, "authors": tuple(entry["authors"])}))
    return tuple(refs)


def load() -> dict[str, Reference]:
    """Every entry, by key, in the order of the TOML file."""
    return {r.key: r for r in _load(TOML)}


def get(key: str) -> Reference:
    """The entry of `key`; an unknown key raises :class:`UnknownReference` (a ``KeyError``)
    naming it and the known keys."""
    refs = load()
    try:
        return refs[key]
    except KeyError:
        raise UnknownReference(f"no reference {key!r} in {TOML.name}; known keys: {', '.join(refs)}") from None


# --- BibTeX ----------------------------------------------------------------------------------

_VENUE_FIELD = {"inproceedings": "booktitle", "incollection": "booktitle", "article": "journal",
                "phdthesis": "school", "mastersthesis": "school", "techreport": "institution",
                "misc": "howpublished", "unpublished": "note"}


def _tex(s: str) -> str:
    """Escapes TeX's special characters in free text (not in `url` or `doi`)."""
    return re.sub(r"([&%#_$])", r"\\\1", s)


def _bib_entry(r: Reference) -> str:
    authors = [f"{{{a}}}" for a in r.authors] if r.corporate else r.author_names()
    fields: list[tuple[str, str]] = [("author", " and ".join(_tex(a) for a in authors)),
                                     ("title", "{" + _tex(r.title) + "}")]
    venue_field = _VENUE_FIELD.get(r.kind, "howpublished")
    notes = [r.note] if r.note else []
    if venue_field == "note":
        notes.insert(0, r.venue)
    elif r.kind == "misc" and r.number:
        fields.append((venue_field, _tex(f"{r.venue}, {r.number}")))
    else:
        fields.append((venue_field, _tex(r.venue)))
    if r.year:
        fields.append(("year", str(r.year)))
    if r.volume:
        fields.append(("volume", r.volume))
    if r.kind == "techreport" and r.number:
        m = re.fullmatch(r"(RFC|TS|TR|Recommendation|IEEE Std) (.+)", r.number)
        fields += [("type", m[1]), ("number", m[2])] if m else [("number", _tex(r.number))]
    elif r.issue:
        fields.append(("number", r.issue.replace("–", "--")))
    if r.pages:
        fields.append(("pages", r.pages.replace("–", "--")))
    if r.doi:
        fields.append(("doi", r.doi))
    elif r.url:
        fields.append(("url", r.url))
    if notes:
        fields.append(("note", _tex(". ".join(n.rstrip(".") for n in notes) + ".")))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{r.kind}{{{r.key},\n{body}\n}}\n"


def bibtex() -> str:
    """The whole bibliography as BibTeX, one entry per key (titles brace-protected)."""
    head = "% Generated from python/cellshare/data/references.toml by `python -m cellshare.references`.\n\n"
    return head + "\n".join(_bib_entry(r) for r in load().values())


# --- Markdown --------------------------------------------------------------------------------

def _md_entry(r: Reference) -> str:
    link = r.link
    if r.doi:
        where = f"[doi:{r.doi}]({link})"
    elif link:
        where = f"<{link}>"
    else:
        where = "No DOI or URL found"
    note = f" *{r.note}*" if r.note else ""
    body = r._body()
    return f'<a id="{r.key}"></a>**{r.short}** (`{r.key}`): {body}{"" if body.endswith(".") else "."} {where}.{note}'


def markdown() -> str:
    """The body of the references page: a short introduction, then every entry under its
    group's heading, each with an anchor ``<a id="KEY">`` that pages link to."""
    refs = load()
    out = [
        "Every document cellshare implements, follows or cites has a short key. The pages cite "
        "it as a link, [`legilimens`](#legilimens) §V-E; claims and reproductions carry the key; "
        "source comments write it in brackets, `[sprout]` (`\\[sprout\\]` in Rust doc comments). "
        "An RFC or a 3GPP specification may also be cited by its number (RFC 5681, TS 36.213): "
        "its entry carries that number. [`references.bib`](references.bib) holds the same "
        "entries as BibTeX.",
    ]
    for group, heading in GROUPS.items():
        members = [r for r in refs.values() if r.group == group]
        if members:
            out.append(f"## {heading}")
            out.extend(_md_entry(r) for r in members)
    return "\n\n".join(out) + "\n"


# --- Regeneration ----------------------------------------------------------------------------

_HEADER = """# References

The papers, RFCs, specifications, traces and tools cellshare implements or cites. Each entry's
key is what the rest of the documentation, the claims of `cellshare reproduce` and the source
comments cite.

"""


def _page(current: str | None) -> str:
    block = f"{BEGIN}\n\n{markdown()}\n{END}\n"
    if current is None or BEGIN not in current or END not in current:
        return _HEADER + block
    head, rest = current.split(BEGIN, 1)
    return head + block + rest.split(END, 1)[1].lstrip("\n")


def _outputs(docs: Path) -> dict[Path, str]:
    page = docs / "references.md"
    return {page: _page(page.read_text() if page.exists() else None), docs / "references.bib": bibtex()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cellshare.references", description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", type=Path, default=Path(__file__).resolve().parents[2] / "docs",
                   help="the docs folder to write references.md and references.bib into (default: the repository's)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = p.parse_args(argv)
    if not args.docs.is_dir():
        p.error(f"{args.docs} is not a folder (give the repository's docs/ with --docs)")
    stale = []
    for path, text in _outputs(args.docs).items():
        if not path.exists() or path.read_text() != text:
            stale.append(path)
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        print("stale (run `python -m cellshare.references`): " + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    if not args.check:
        print(f"{len(load())} references; wrote " + (", ".join(map(str, stale)) or "nothing (up to date)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
