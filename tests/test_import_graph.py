"""No import circle among the modules of `python/cellshare`, nor among the modules of any
Rust crate under `crates/`: every module stands above what it imports, so each can be read,
tested and changed starting from the ground up.

The graphs are read from the source, not from a running interpreter. Python: every
``import`` and ``from ... import`` of a module, at the top and inside functions alike (a
deferred import still ties the two modules), resolved to the module files of the package
(`grimp` builds the same graph, but it is not among the test dependencies and needs the
package importable; the standard library's `ast` gives the graph in a few lines). Rust: the
paths of a crate's source that start with ``crate::``, ``super::`` or ``self::`` (in ``use``
trees, braces expanded, and in code), resolved to the file of the module they name; a name
that a module re-exports (``pub use``) leads to the module that defines it, as the name's
meaning does. Comments, strings, character literals and test modules are left out before
reading. In both languages a module's own submodules are its structure, not an edge (a
package's ``__init__`` or a crate's ``lib.rs`` declares them and hands their names on), as
`farm-studio look` draws the house.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "python" / "cellshare"


# -- graphs and circles ------------------------------------------------------------------------


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph` (node -> nodes it imports): its strongly connected
    components of more than one node (Tarjan's algorithm), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(root: str) -> None:
        # Iterative, so that a long chain of imports cannot exhaust Python's recursion.
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))

    for n in sorted(graph):
        if n not in index:
            visit(n)
    return sorted(found)


def _describe(graph: dict[str, set[str]], found: list[list[str]]) -> str:
    lines = []
    for comp in found:
        ties = [f"{a} -> {b}" for a in comp for b in sorted(graph[a]) if b in comp]
        lines.append(" <-> ".join(comp) + "  (" + "; ".join(ties) + ")")
    return "\n".join(lines)


# -- Python ------------------------------------------------------------------------------------


def python_graph(package: Path) -> dict[str, set[str]]:
    """Module -> modules of the same package it imports (dotted names, e.g.
    ``cellshare.cli``; a package is its ``__init__``). Only modules written in Python are
    nodes: the compiled extension (``_core``) imports nothing of the package. A package's
    ``__init__`` importing its own submodules (to hand on their names, or to register them)
    is the package's structure, not an edge: Python runs the ``__init__`` before any of its
    submodules, whoever imports them."""
    top = package.name
    modules: dict[str, Path] = {}
    compiled: set[str] = set()
    for f in sorted(package.rglob("*")):
        parts = [top, *f.relative_to(package).parts]
        if f.suffix == ".py":
            parts[-1] = parts[-1][:-3]
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = f
        elif f.suffix in (".so", ".pyd"):
            parts[-1] = parts[-1].split(".")[0]
            compiled.add(".".join(parts))

    def resolve(name: str, names: list[str]) -> set[str]:
        """`from name import names` (or `import name` with no names)."""
        out = set()
        for n in names:  # a submodule imported by name: `from . import emulate`
            if f"{name}.{n}" in modules:
                out.add(f"{name}.{n}")
            elif name in modules and f"{name}.{n}" not in compiled:
                out.add(name)
        if not names:
            parts = name.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if parts:
                out.add(".".join(parts))
        return out

    graph: dict[str, set[str]] = {}
    for mod, f in modules.items():
        is_pkg = f.name == "__init__.py"
        here = mod.split(".") if is_pkg else mod.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == top or a.name.startswith(top + "."):
                        deps |= resolve(a.name, [])
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[:len(here) - node.level + 1]
                    name = ".".join(base + ([node.module] if node.module else []))
                else:
                    name = node.module or ""
                if name == top or name.startswith(top + "."):
                    deps |= resolve(name, [a.name for a in node.names if a.name != "*"] or [])
        deps.discard(mod)
        if is_pkg:
            deps = {d for d in deps if not d.startswith(mod + ".")}
        graph[mod] = deps
    return graph


# -- Rust --------------------------------------------------------------------------------------

_RUST_TOKENS = re.compile(
    r'//[^\n]*'                      # line comment (doc comments too)
    r'|/\*.*?\*/'                    # block comment (not nested: none are in this code base)
    r'|b?r(#*)".*?"\1'               # raw string
    r'|b?"(?:\\.|[^"\\])*"'          # string
    r"|b?'(?:\\.|[^'\\])'"           # character literal (a lifetime 'a has no closing quote)
    , re.S)


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def strip_rust(text: str) -> str:
    """`text` with comments, strings, character literals and test modules (``#[cfg(test)]
    mod name { ... }``: what a module's tests use is not what the module depends on) blanked,
    line breaks kept."""
    text = _RUST_TOKENS.sub(lambda m: _blank(m.group(0)), text)
    while (m := re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)) is not None:
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += text[i] == "{"
            depth -= text[i] == "}"
            if depth == 0:
                break
            i += 1
        text = text[:m.start()] + _blank(text[m.start():i + 1]) + text[i + 1:]
    return text


def _expand_use(tree: str) -> list[tuple[list[str], str]]:
    """The paths of a `use` tree with the name each brings in:
    ``a::{b, c::{d as e}, self}`` -> (a::b, b), (a::c::d, e), (a, a)."""
    tree = re.sub(r"\s+", "", re.sub(r"(\w)\s+as\s+(\w+)", r"\1@\2", tree))

    def split_top(s: str) -> list[str]:
        out, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                out.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        return out + [cur] if cur else out

    def walk(prefix: list[str], s: str) -> list[tuple[list[str], str]]:
        if s.endswith("}") and "{" in s:
            head, _, rest = s.partition("{")
            head_parts = [p for p in head.split("::") if p]
            return [x for item in split_top(rest[:-1]) for x in walk(prefix + head_parts, item)]
        s, _, alias = s.partition("@")
        parts = prefix + [p for p in s.split("::") if p]
        if parts and parts[-1] == "self":
            parts.pop()
        return [(parts, alias or (parts[-1] if parts else ""))]

    return walk([], tree)


def rust_graph(src: Path) -> dict[str, set[str]]:
    """Module file -> module files of the same crate it uses (paths relative to the crate)."""
    crate = src.parent
    files: dict[tuple[str, ...], Path] = {}
    for f in sorted(src.rglob("*.rs")):
        parts = list(f.relative_to(src).with_suffix("").parts)
        if parts in (["lib"], ["main"]):
            parts = []
        elif parts[-1] == "mod":
            parts.pop()
        files.setdefault(tuple(parts), f)
    texts = {m: strip_rust(f.read_text()) for m, f in files.items()}
    use_re = re.compile(r"\buse\s+([^;]*);")
    mod_re = re.compile(r"\bmod\s+(\w+)\s*\{")

    def scopes(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
        """Inline `mod name { ... }` blocks: (start, end, module path within the file)."""
        out = []
        for m in mod_re.finditer(text):
            depth, i = 0, m.end() - 1
            while i < len(text):
                depth += text[i] == "{"
                depth -= text[i] == "}"
                if depth == 0:
                    break
                i += 1
            out.append((m.start(), i, m.group(1)))
        res = []
        for start, end, name in out:
            outer = tuple(n for s, e, n in out if s < start and end <= e)
            res.append((start, end, outer + (name,)))
        return res

    # What each module re-exports: name -> absolute path of what it names.
    exports: dict[tuple[str, ...], dict[str, list[str]]] = {}

    def absolute(mod: tuple[str, ...], path: list[str]) -> list[str] | None:
        if not path:
            return None
        if path[0] == "crate":
            return path[1:]
        if path[0] in ("self", "super"):
            cur = list(mod)
            while path and path[0] in ("self", "super"):
                if path[0] == "super":
                    if not cur:
                        return None
                    cur.pop()
                path = path[1:]
            return cur + path
        return None

    for mod, text in texts.items():
        ex: dict[str, list[str]] = {}
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", text):
            for path, name in _expand_use(m.group(1)):
                if not path or name == "*":
                    continue
                full = absolute(mod, path) if path[0] in ("crate", "self", "super") else list(mod) + path
                if full is not None:
                    ex[name] = full
        exports[mod] = ex

    def target(path: list[str], seen: int = 0) -> tuple[str, ...] | None:
        """The module file that an absolute path (within the crate) names."""
        for n in range(len(path), -1, -1):
            mod = tuple(path[:n])
            if mod in files:
                rest = path[n:]
                if rest and rest[0] in exports.get(mod, {}) and seen < 8:
                    follow = exports[mod][rest[0]]
                    if follow[:n] != list(mod) or len(follow) > n + 1:
                        return target(follow + rest[1:], seen + 1) or mod
                return mod
        return None

    graph: dict[str, set[str]] = {}
    for mod, text in texts.items():
        inner = scopes(text)

        def module_at(pos: int) -> tuple[str, ...]:
            best: tuple[str, ...] = ()
            for s, e, path in inner:
                if s <= pos <= e and len(path) > len(best):
                    best = path
            return mod + best

        paths: list[tuple[int, list[str]]] = []
        for m in use_re.finditer(text):
            paths += [(m.start(), p) for p, _ in _expand_use(m.group(1))]
        code = use_re.sub(lambda m: " " * len(m.group(0)), text)
        for m in re.finditer(r"\b(?:crate|super|self)(?:\s*::\s*\w+)+", code):
            paths.append((m.start(), re.sub(r"\s", "", m.group(0)).split("::")))
        deps = set()
        for pos, path in paths:
            here = module_at(pos)
            # A `use` path may also start at a child module: `pub use scenario::Scenario;`.
            full = absolute(here, path) if path and path[0] in ("crate", "self", "super") else \
                (list(here) + path if path and here + (path[0],) in files else None)
            if full is None:
                continue
            t = target(full)
            # A module's own submodules (declared by it, and what it re-exports of them) are
            # its structure, not an edge: as a Python package's `__init__` and its modules.
            if t is not None and t[:len(mod)] != mod:
                deps.add(t)
        name = lambda m: str(files[m].relative_to(crate))  # noqa: E731
        graph[name(mod)] = {name(d) for d in deps}
    return graph


# -- the tests ---------------------------------------------------------------------------------


def test_the_python_package_has_no_import_circle():
    graph = python_graph(PACKAGE)
    assert "cellshare.cli" in graph and "cellshare.report" in graph, sorted(graph)
    found = circles(graph)
    assert not found, "import circles in python/cellshare:\n" + _describe(graph, found)


RUST_CRATES = sorted(p.parent for p in (REPO / "crates").glob("*/src"))


def test_no_rust_crate_has_a_module_circle():
    found = {}
    for crate in RUST_CRATES:
        graph = rust_graph(crate / "src")
        c = circles(graph)
        if c:
            found[crate.name] = _describe(graph, c)
    assert not found, "module circles:\n" + "\n".join(f"crates/{k}: {v}" for k, v in found.items())


def test_the_readers_find_circles_and_see_through_re_exports(tmp_path):
    # Python: a deferred import inside a function ties two modules as much as one at the top.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text("import pkg.a\nfrom . import _ext\n")
    (pkg / "_ext.abi3.so").write_bytes(b"")
    graph = python_graph(pkg)
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}}
    assert circles(graph) == [["pkg.a", "pkg.b"]]

    # Rust: `use` trees, paths in code, `super::`, a name re-exported by the crate root (which
    # leads to b.rs), and what comments, strings and a test module hold (nothing).
    src = tmp_path / "crate" / "src"
    (src / "net").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\npub mod net;\npub use b::Thing;\n")
    (src / "a.rs").write_text("use crate::{Thing, net::{self}};\n"
                              "#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::net::wire::W;\n}\n")
    (src / "b.rs").write_text('// use crate::a::X;\nconst S: &str = "crate::a::Y";\npub struct Thing;\n'
                              "fn f() -> char { 'x' }\n")
    (src / "net" / "mod.rs").write_text("pub mod wire;\n")
    (src / "net" / "wire.rs").write_text("fn g() { let _ = super::super::a::f(); }\n")
    graph = rust_graph(src)
    assert graph == {"src/lib.rs": set(), "src/a.rs": {"src/b.rs", "src/net/mod.rs"}, "src/b.rs": set(),
                     "src/net/mod.rs": set(), "src/net/wire.rs": {"src/a.rs"}}, graph
    assert circles(graph) == []
    (src / "b.rs").write_text("pub struct Thing(crate::net::wire::W);\n")
    (src / "net" / "wire.rs").write_text("pub struct W;\nfn g() { let _ = crate::Thing; }\n")
    assert circles(rust_graph(src)) == [["src/b.rs", "src/net/wire.rs"]]
