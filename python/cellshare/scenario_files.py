"""Reading scenarios: the embedded ones, files (refusing what is not a regular UTF-8 file of
reasonable size) and TOML text, and preparing a scenario's text for its engine (the command
line's `--seed` and `--duration` written in, the engine chosen) with a single parse. Part of
:mod:`cellshare.api`, kept apart so that the CLI's input checks run without loading pyarrow."""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional, Union

import tomli_w

from . import _core

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

ScenarioSource = Union[str, os.PathLike, Mapping[str, Any]]


def default_scenario() -> str:
    """The embedded default scenario (TOML text): the main job of `cellshare run`."""
    return resources.files("cellshare").joinpath("data/default.toml").read_text()


def embedded(name: str) -> str:
    """An embedded scenario by file name (e.g. ``"bench.toml"``)."""
    return resources.files("cellshare").joinpath("data", name).read_text()


def load_scenario(source: ScenarioSource | None) -> tuple[str, str]:
    """Returns (TOML text, base folder for relative trace paths) for a path, a mapping
    (converted to TOML by :func:`scenario_text`) or ``None`` (the embedded default
    scenario). Anything else, or a mapping TOML cannot hold, raises
    :class:`_core.ScenarioInvalid`."""
    if source is None:
        return default_scenario(), os.getcwd()
    if isinstance(source, Mapping):
        return scenario_text(source), os.getcwd()
    if not isinstance(source, (str, os.PathLike)):
        raise invalid("", f"got {_kind(source)}, expected a scenario: a TOML file path, a mapping, or None for the "
                          "default scenario")
    path = Path(source)
    try:
        base = str(path.resolve().parent)
    except (OSError, ValueError, RuntimeError):  # e.g. a NUL byte or a symlink loop
        base = str(path.parent)
    return read_scenario_file(path), base


# -- a scenario given as a Python mapping ------------------------------------------------------

#: Deepest nesting of tables and lists in a scenario given as a mapping (the deepest
#: scenario key is about six levels down).
MAX_DEPTH = 64
#: TOML integers are signed 64-bit.
_I64 = (-(2 ** 63), 2 ** 63 - 1)
_LINE_SUFFIX = re.compile(r" \(line \d+\)$")


def invalid(path: str, detail: str) -> Exception:
    """A :class:`_core.ScenarioInvalid` at key `path` (args: message, path, detail, as the
    extension raises it)."""
    return _core.ScenarioInvalid(f"`{path}`: {detail}" if path else detail, path, detail)


def _kind(v: Any) -> str:
    """A value as an error shows it: short values in full, others by their type."""
    r = repr(v)
    return f"{r} ({type(v).__name__})" if len(r) <= 60 else f"a {type(v).__name__} of {len(r)} characters"


def _key_path(parts: list) -> str:
    """``flows[0].transport``: a key with a control character (a newline, ...) in quotes, escaped,
    so that the message stays one line."""
    s = ""
    for p in parts:
        if isinstance(p, str) and not p.isprintable():
            p = json.dumps(p)
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else p)
    if len(parts) > 8:  # a path hundreds of levels deep: its start and its end
        head, tail = _key_path(parts[:4]), _key_path(parts[-3:])
        s = f"{head}…{tail if tail.startswith('[') else '.' + tail}"
    return s


def _plain(value: Any, parts: list, on_path: set) -> Any:
    """`value` as the plain dicts, lists and scalars TOML holds. A key whose value is None is
    left out (the default, as a TOML file says it by leaving the key out)."""
    import datetime
    import numbers

    if isinstance(value, Mapping) or isinstance(value, (list, tuple)):
        if id(value) in on_path:
            raise invalid(_key_path(parts), "got a table or list that contains itself, expected a finite scenario")
        if len(parts) >= MAX_DEPTH:
            raise invalid(_key_path(parts), f"got tables or lists nested more than {MAX_DEPTH} deep, expected a "
                                            "scenario's few levels")
        on_path.add(id(value))
        try:
            if isinstance(value, Mapping):
                out = {}
                for k, v in value.items():
                    if not isinstance(k, str):
                        where = "" if parts else " in the top-level table"
                        raise invalid(_key_path(parts), f"got the key {_kind(k)}{where}, expected text keys (TOML keys "
                                                        "are strings)")
                    _check_text(k, parts, "key ")
                    if v is not None:
                        out[k] = _plain(v, parts + [k], on_path)
                return out
            items = []
            for i, v in enumerate(value):
                if v is None:
                    raise invalid(_key_path(parts + [i]), "got None, expected a value (a list entry cannot be left "
                                                          "out; None means the default only for a table's key)")
                items.append(_plain(v, parts + [i], on_path))
            return items
        finally:
            on_path.discard(id(value))
    if isinstance(value, str):
        _check_text(value, parts, "")
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):  # also numpy's integers
        v = int(value)
        if not _I64[0] <= v <= _I64[1]:
            raise invalid(_key_path(parts), f"got {v if len(str(v)) <= 40 else 'an integer of %d digits' % len(str(v))}"
                                            f", expected an integer in {_I64[0]}..={_I64[1]} (a TOML integer)")
        return v
    if isinstance(value, numbers.Real):  # float, numpy's floats, fractions
        try:
            return float(value)
        except OverflowError:
            raise invalid(_key_path(parts), f"got {_kind(value)}, expected a number within a float's range") from None
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value
    raise invalid(_key_path(parts), f"got {_kind(value)}, expected a TOML value: text, a number, a boolean, a table "
                                    "(mapping) or a list")


def _check_text(s: str, parts: list, what: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise invalid(_key_path(parts), f"got {what}text with {s[e.start]!r} at character {e.start} (a lone "
                                        "surrogate), expected UTF-8 text") from None


def scenario_text(scenario: Mapping[str, Any]) -> str:
    """TOML text of a scenario given as a mapping. Keys set to None are left out (their
    default); a value TOML cannot hold (a set, bytes, a complex number, an object, a
    non-text key, an integer beyond 64 bits, a lone surrogate, a list containing itself)
    raises :class:`_core.ScenarioInvalid` naming its key path."""
    doc = _plain(scenario, [], set())
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError) as e:  # pragma: no cover - _plain leaves only what TOML holds
        raise invalid("", f"cannot be written as TOML ({e}), expected TOML values") from None


def without_line(e: BaseException) -> BaseException:
    """`e` (a :class:`_core.ScenarioInvalid` about a scenario given as a mapping) without the
    "(line N)" of the TOML text it was converted to, which the user never saw."""
    if isinstance(e, _core.ScenarioInvalid) and len(e.args) == 3 and isinstance(e.args[2], str):
        detail = _LINE_SUFFIX.sub("", e.args[2])
        if detail != e.args[2]:
            return invalid(e.args[1], detail)
    return e


#: Largest scenario (or sweep) file read, bytes: scenarios are a few kilobytes; a larger
#: file is refused before it is read (docs/limits.md).
MAX_SCENARIO_BYTES = 16 << 20


def _file_kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def read_scenario_file(path: Path, what: str = "scenario file") -> str:
    """The text of a scenario (or sweep) file. A FIFO, a device or a folder is refused
    before it is opened (reading one blocks or never ends), so is a file over
    :data:`MAX_SCENARIO_BYTES`; text that is not UTF-8 is an error naming the byte offset.
    Raises :class:`_core.ScenarioInvalid`."""
    def bad(msg: str) -> Exception:
        return _core.ScenarioInvalid(f"cannot read {what} {str(path)!r}: {msg}", "", msg)

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise bad(f"{_file_kind(st.st_mode)} (expected a regular file)")
        if st.st_size > MAX_SCENARIO_BYTES:
            raise bad(f"{st.st_size} bytes (expected at most {MAX_SCENARIO_BYTES} bytes)")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise bad(f"{_file_kind(os.fstat(f.fileno()).st_mode)} (expected a regular file)")
            data = f.read(MAX_SCENARIO_BYTES + 1)
    except _core.ScenarioInvalid:
        raise
    except OSError as e:
        raise bad(e.strerror or str(e)) from None
    except ValueError as e:  # e.g. a path with a NUL byte
        raise bad(str(e)) from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise bad(f"more than {MAX_SCENARIO_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise bad(f"not UTF-8 text (byte {e.start}, line {line}: {data[e.start:e.start + 1]!r}); "
                  "expected a UTF-8 TOML file") from None


def toml_loads(text: str) -> dict:
    """``tomllib.loads`` that reports nesting too deep for Python's parser (thousands of
    nested arrays or tables) as :class:`_core.ScenarioInvalid` instead of a RecursionError."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise _core.ScenarioInvalid("not valid TOML: arrays or tables nested too deeply", "",
                                    "nested too deeply") from None


def read_table(text: str) -> Optional[dict]:
    """The table TOML `text` holds, or None when it is not valid TOML (or nests too deeply
    for Python's parser): the engine's parser then reports why, naming the line."""
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def is_lln_table(doc: Mapping[str, Any]) -> bool:
    """Whether a scenario's table is an LLN scenario (has a top-level ``[lln]`` table)."""
    return isinstance(doc.get("lln"), dict)


@dataclass(frozen=True)
class PreparedScenario:
    """A scenario's TOML text on its way to an engine: `text` is what the engine parses (the
    overrides written in) and `lln` says which engine runs it (``[lln]``: the LLN simulator,
    else the cell simulator)."""

    text: str
    lln: bool


def _override(doc: dict, seed: Optional[int], duration: Optional[float]) -> None:
    sim = doc.setdefault("simulation", {})
    if not isinstance(sim, dict):
        raise _core.ScenarioInvalid(f"`simulation`: got {sim!r:.80}, expected a table", "simulation",
                                    "expected a table")
    if seed is not None:
        sim["seed"] = seed
    if duration is not None:
        sim["duration_s"] = duration


def prepare(text: str, seed: Optional[int] = None, duration: Optional[float] = None) -> PreparedScenario:
    """`text` with `simulation.seed` and `simulation.duration_s` replaced by `seed` and
    `duration` (each when given), and its engine, from one parse of the text. Without
    overrides, text that is not TOML goes to the cell simulator as it is, whose parser names
    the line; with them, it raises ``tomllib.TOMLDecodeError`` (or
    :class:`_core.ScenarioInvalid` when nested too deeply), as does a `simulation` that is
    not a table."""
    if seed is None and duration is None:
        doc = read_table(text)
        return PreparedScenario(text, doc is not None and is_lln_table(doc))
    doc = toml_loads(text)
    _override(doc, seed, duration)
    return PreparedScenario(tomli_w.dumps(doc), is_lln_table(doc))


def with_overrides(text: str, seed: Optional[int] = None, duration: Optional[float] = None) -> str:
    """`text` with `simulation.seed` and `simulation.duration_s` replaced (each when given;
    the text as it is, unparsed, when neither is): :func:`prepare`'s text."""
    if seed is None and duration is None:
        return text
    return prepare(text, seed, duration).text
