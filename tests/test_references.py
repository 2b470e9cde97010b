"""The bibliography (python/cellshare/data/references.toml, cellshare.references): the generated
docs/references.md and docs/references.bib are current, every entry is complete, and every
citation by key — a `references.md#KEY` link on a page, a `[KEY]` / `\\[KEY\\]` in a source
comment — and every RFC or 3GPP number cited resolves to an entry."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAPERS = REPO.parent / "shared" / "papers"

# The keys the Python code and the claims use.
REQUIRED = {
    "legilimens", "legilimens-thesis", "sneaker", "bode", "rsd-thesis",
    "sprout", "verus", "pcc-vivace", "c2tcp", "westwood", "ledbat", "tcp-lp", "cubic", "bbr", "vegas",
    "reno", "newreno", "codel", "pie", "red", "gcc", "bola", "festive", "mpc", "drwa", "hystart", "prr",
    "sack", "rack-tlp", "mahimahi", "mahimahi-traces", "jain", "ns3", "3gpp-36213",
}
SEEDS = {"legilimens", "legilimens-thesis", "sneaker", "bode", "rsd-thesis"}

# `[name]` in a comment that is a scenario table, not a citation.
NOT_CITATIONS = {"flows", "ues", "emulator", "simulation", "cell", "network", "workload", "lln", "wired", "sweep"}


def _load_module():
    """cellshare.references from the source tree, without importing the package (whose
    __init__ needs the compiled extension)."""
    name = "_cellshare_references_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "python" / "cellshare" / "references.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


@pytest.fixture(scope="module")
def refs():
    return _load_module()


def test_generated_files_are_current(refs):
    assert refs.main(["--check", "--docs", str(DOCS)]) == 0, \
        "docs/references.md or docs/references.bib is stale: run `python -m cellshare.references`"


def test_required_keys_exist(refs):
    missing = REQUIRED - set(refs.load())
    assert not missing, sorted(missing)


def test_every_entry_is_complete(refs):
    for key, r in refs.load().items():
        assert r.authors and all(a.strip() for a in r.authors), key
        assert r.title.strip() and r.venue.strip() and r.short.strip(), key
        # A seed paper whose text gives no year or link says so in its note instead.
        unknown = r.text is not None and r.note is not None and "not found" in r.note
        assert r.year or unknown, f"{key}: no year"
        assert r.doi or r.url or unknown, f"{key}: neither doi nor url"
        if r.year:
            assert 1900 < r.year < 2100, key
        if r.url:
            assert r.url.startswith(("https://", "http://")), key


def test_dois_look_like_dois(refs):
    for key, r in refs.load().items():
        if r.doi:
            assert re.fullmatch(r"10\.\d{4,}(\.\d+)*/\S+", r.doi), (key, r.doi)


def test_seed_papers_name_their_text(refs):
    entries = refs.load()
    for key in SEEDS:
        assert entries[key].text and entries[key].text.endswith(".txt"), key
    assert {k for k, r in entries.items() if r.text} == SEEDS


def test_seed_texts_carry_the_titles(refs):
    """Optional: the developers' plain texts (../shared/papers) open with the entries' titles."""
    if not PAPERS.is_dir():
        pytest.skip(f"{PAPERS} is not present (a developers' folder)")
    norm = lambda s: re.sub(r"[^a-z0-9]+", "", s.lower())
    for key in SEEDS:
        r = refs.get(key)
        path = PAPERS / r.text
        assert path.is_file(), path
        head = "".join(path.read_text(errors="replace").splitlines(keepends=True)[:200])
        assert norm(r.title) in norm(head), key


def test_unknown_key_names_it_and_the_known_ones(refs):
    with pytest.raises(KeyError) as e:
        refs.get("no-such-paper")
    assert "no-such-paper" in str(e.value) and "legilimens" in str(e.value)


def test_citation_forms(refs):
    sprout = refs.get("sprout")
    assert sprout.short_cite() == "Winstein et al., NSDI 2013"
    c = sprout.citation()
    assert c.startswith("Keith Winstein, Anirudh Sivaraman and Hari Balakrishnan, \"Stochastic Forecasts")
    assert "2013" in c and c.endswith(sprout.url)
    reno = refs.get("reno")
    assert reno.citation().endswith("doi:10.17487/RFC5681") and "RFC 5681" in reno.short_cite()


def test_every_docs_link_resolves(refs):
    keys = set(refs.load())
    bad = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text()
        for key in re.findall(r"references\.md#([^)\s\"'>]+)", text):
            if key not in keys:
                bad.append(f"{page.name}: {key}")
        if page.name == "references.md":
            bad += [f"references.md: #{k}" for k in re.findall(r"\]\(#([^)]+)\)", text) if k not in keys]
    assert not bad, bad


def _comment_lines():
    files = list((REPO / "crates").rglob("*.rs"))
    bpf = (REPO / "bpf").resolve()
    if bpf.is_dir():
        files += list(bpf.glob("*.c")) + list(bpf.glob("*.h"))
    for path in sorted(files):
        block = False
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            s = line.strip()
            if path.suffix == ".rs":
                i = line.find("//")
                if i >= 0:
                    yield path, n, line[i:]
            else:
                if s.startswith("/*"):
                    block = True
                if block or s.startswith("//"):
                    yield path, n, line
                if "*/" in s:
                    block = False


def test_every_source_comment_citation_resolves(refs):
    """`\\[key\\]` (Rust doc comments) and `[key]` (other comments) name an entry."""
    keys = set(refs.load())
    cite = re.compile(r"(?<![\w\[\]`(\\])(\\?)\[([a-z0-9-]*[a-z][a-z0-9-]*)\\?\](?![(\[\]=])")
    bad, found = [], 0
    for path, n, text in _comment_lines():
        for m in cite.finditer(text):
            key = m[2]
            if not m[1] and key in NOT_CITATIONS:
                continue
            found += 1
            if key not in keys:
                bad.append(f"{path.relative_to(REPO)}:{n}: [{key}]")
    assert found > 50, "the scan found too few citations: its pattern no longer matches the comments"
    assert not bad, bad


def test_every_rfc_and_3gpp_number_cited_has_an_entry(refs):
    numbers = {r.number for r in refs.load().values() if r.number}
    files = [*DOCS.glob("*.md"), *(REPO / "crates").rglob("*.rs")]
    bpf = (REPO / "bpf").resolve()
    if bpf.is_dir():
        files += [*bpf.glob("*.c"), *bpf.glob("*.h")]
    cited = {}
    for path in files:
        for m in re.finditer(r"\b(RFC) ?(\d{4})\b|\b(T[SR]) (3[68]\.\d{3})\b", path.read_text(errors="replace")):
            num = f"RFC {m[2]}" if m[1] else f"{m[3]} {m[4]}"
            cited.setdefault(num, path.name)
    missing = {n: f for n, f in cited.items() if n not in numbers}
    assert not missing, f"cited without an entry (number: first file): {missing}"


def test_bibtex_has_one_entry_per_key(refs):
    bib = (DOCS / "references.bib").read_text()
    assert re.findall(r"^@\w+\{([^,]+),$", bib, re.M) == list(refs.load())
    for entry in bib.split("\n@")[1:]:
        assert entry.count("{") == entry.count("}"), entry[:60]
        assert re.search(r"^  title = \{\{.*\}\},$", entry, re.M), entry[:60]


def test_bibtex_parses():
    bibtexparser = pytest.importorskip("bibtexparser")
    text = (DOCS / "references.bib").read_text()
    if hasattr(bibtexparser, "parse_string"):  # bibtexparser 2
        lib = bibtexparser.parse_string(text)
        assert not lib.failed_blocks
        keys = [e.key for e in lib.entries]
    else:
        keys = [e["ID"] for e in bibtexparser.loads(text).entries]
    assert set(keys) == set(_load_module().load())
