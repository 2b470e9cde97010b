"""Reading scenarios: the embedded ones, files (refusing what is not a regular UTF-8 file of
reasonable size) and TOML text. Part of :mod:`cellshare.api`, kept apart so that the CLI's
input checks run without loading pyarrow."""

from __future__ import annotations

import os
import stat
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Union

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
    (converted to TOML) or ``None`` (the embedded default scenario)."""
    if source is None:
        return default_scenario(), os.getcwd()
    if isinstance(source, Mapping):
        return tomli_w.dumps(dict(source)), os.getcwd()
    path = Path(source)
    return read_scenario_file(path), str(path.resolve().parent)


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
