"""The documentation site (mkdocs.yml, docs/) builds strictly: no broken link, anchor or
API reference; the README stays short and points into the site; every page is in the nav."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _nav_pages() -> set[str]:
    yaml = pytest.importorskip("yaml")
    # mkdocs.yml has no custom tags, so the plain loader reads it.
    conf = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    pages: set[str] = set()

    def walk(node):
        if isinstance(node, str):
            pages.add(node)
        elif isinstance(node, list):
            for x in node:
                walk(x)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)

    walk(conf["nav"])
    return pages


def test_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                       cwd=REPO, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "WARNING" not in p.stderr, p.stderr
    # The API page is generated from the docstrings, not written by hand.
    api = (site / "api" / "index.html").read_text()
    assert "Runs a scenario" in api and "Runs a sweep" in api
    assert (site / "reproductions" / "index.html").is_file()


def test_every_page_is_in_the_nav():
    pages = {p.name for p in (REPO / "docs").glob("*.md")}
    missing = pages - _nav_pages()
    assert not missing, f"docs pages not in mkdocs.yml's nav: {sorted(missing)}"
    absent = {p for p in _nav_pages() if not (REPO / "docs" / p).is_file()}
    assert not absent, f"nav entries without a page: {sorted(absent)}"


def test_readme_is_short_and_links_into_the_site():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    # The two commands stay first.
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    assert blocks[0].strip() == "pip install . && cellshare run --out results/demo"
    assert blocks[1].strip() == "./test.sh"
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (REPO / link).exists(), link
    # Every figure the README shows exists.
    for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (REPO / img).is_file(), img


def test_the_readmes_measurements_live_on_pages():
    """The README's former sections moved to pages: spot-check that the measured tables
    are there (one per page), so a later edit cannot drop them silently."""
    expect = {
        "sweeps-and-reports.md": "<!-- generated: sweep-memory -->",
        "crosscheck.md": "<!-- generated: ns3-power tools/data/ns3-crosscheck-cubic-power.json -->",
        "performance.md": "<!-- generated: bench single -->",
        "emulator.md": "`crosscheck` of `scenarios/emu-two-ues-cubic.toml`",
        "workloads.md": "<!-- generated: wkl-calibration -->",
        "rtac-sorpc-dtpa.md": "Eq. (4.3) is a Mathis-style equilibrium",
        "cell.md": "| PF, RR, max-throughput, BET, ideal-priority MAC schedulers |",
        "reproductions.md": "| `legilimens-queues` | Figure 13:",
    }
    for page, needle in expect.items():
        assert needle in (REPO / "docs" / page).read_text(), (page, needle)


def test_every_list_on_a_page_starts_after_a_blank_line():
    """Python-Markdown (MkDocs) runs a list into the paragraph above it unless a blank line
    separates them: `Two additions came with them: - a ... - b` rendered as one paragraph."""
    bad = []
    for page in sorted((REPO / "docs").glob("*.md")):
        lines = page.read_text().split("\n")
        fence = False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                fence = not fence
                continue
            if fence or i == 0:
                continue
            prev = lines[i - 1]
            if re.match(r"^(- |\d+\. )", line) and prev.strip() and not re.match(r"^(\s*- |\s*\d+\. |\s+|\||#|<)", prev):
                bad.append(f"{page.name}:{i + 1}")
    assert not bad, bad
