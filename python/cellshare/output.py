"""Output folders: one policy for every command that writes one (`run`, `emulate`,
`crosscheck`, `reproduce`, `sweep`, `report`), and writing a run's results into one.

The policy (docs/outputs.md):

- A run writes into a temporary folder beside `--out`, named
  ``.cellshare-tmp-<hash of the name>-<pid>-<process start>``, and renames it into place when
  it is complete, so `--out` holds a whole output or nothing.
- `--out` may be absent, an empty folder, or a previous cellshare output (it holds the marker
  file :data:`MARKER`, written by every run): the last is replaced only with ``--force``.
  Anything else (a non-empty folder that is not a cellshare output, a file, a symbolic link,
  ``.``/``..``, a path under a file, a place that cannot hold a folder, a name too long) is
  an :class:`OutputError`: one line naming the path, exit 2, and nothing is written.
- Only the temporary folder, the folders created for `--out`'s parents and the replaced
  output are touched: siblings are never. Temporary folders of killed runs to the same
  `--out` (their process is gone) are removed by the next run there.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Union

if TYPE_CHECKING:  # pyarrow and the API load when results are written, not for the CLI's checks
    from .api import Result

#: The file every output folder carries; its JSON says what wrote it.
MARKER = ".cellshare-output"
#: Prefix of the temporary folders (beside `--out`).
TMP_PREFIX = ".cellshare-tmp-"

#: The kinds of output, by the command that writes them.
KINDS = ("run", "emulate", "crosscheck", "reproduce", "sweep", "report")

PathLike = Union[str, os.PathLike]


class OutputError(ValueError):
    """`--out` cannot be used: the message is one line naming the path and why (exit 2)."""


def _proc_start(pid: int) -> Optional[str]:
    """Start time of process `pid` (clock ticks since boot, /proc/PID/stat field 22), or
    None when there is no such process. With the pid it names a process across pid reuse."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()[19]


def _name_key(name: str) -> str:
    return hashlib.sha1(os.fsencode(name)).hexdigest()[:12]


def _tmp_name(name: str) -> str:
    pid = os.getpid()
    return f"{TMP_PREFIX}{_name_key(name)}-{pid}-{_proc_start(pid) or 0}-{os.urandom(3).hex()}"


def _stale(entry: str, key: str) -> bool:
    """Whether `entry` is a temporary folder for a target with name hash `key` whose process
    is gone."""
    parts = entry[len(TMP_PREFIX):].split("-")
    if not entry.startswith(TMP_PREFIX) or len(parts) != 4 or parts[0] != key:
        return False
    try:
        pid = int(parts[1])
    except ValueError:
        return False
    return _proc_start(pid) != parts[2]


def remove_stale_temps(out: Path) -> list[Path]:
    """Removes the temporary folders of killed runs to `out` (same target name, process
    gone) beside it; returns them."""
    parent = out.parent
    key = _name_key(out.name)
    gone = []
    try:
        entries = os.listdir(parent)
    except OSError:
        return gone
    for e in entries:
        if _stale(e, key):
            p = parent / e
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
                gone.append(p)
    return gone


#: What outputs written before the marker existed hold, by kind: a folder whose every entry
#: is one of these (and that has the first) is recognised as that kind of output.
_LEGACY = {
    "sweep": ("sweep.toml", "sweep.json", "runs", "runs.parquet", "flows.parquet", "report"),
    "run": ("summary.json", "scenario.toml", "flows.parquet", "flow_series.parquet", "ue_series.parquet",
            "cell_series.parquet", "queue_delay_cdf.parquet", "flow_trace.parquet", "mode_changes.parquet",
            "ue_trace.parquet", "classes.parquet", "requests.parquet", "nodes.parquet", "report"),
}


def read_marker(folder: Path) -> Optional[dict]:
    """The marker of a cellshare output folder, or None when `folder` is not one. A sweep or
    run folder written before markers existed is recognised by its files (``legacy``)."""
    try:
        with open(folder / MARKER, "rb") as f:
            data = json.loads(f.read(65536))
        if isinstance(data, dict) and data.get("kind") in KINDS:
            return data
    except (OSError, ValueError):
        pass
    try:
        entries = {e for e in os.listdir(folder) if not e.startswith(".")}
    except OSError:
        return None
    for kind, names in _LEGACY.items():
        if names[0] in entries and entries <= set(names):
            return {"kind": kind, "legacy": True}
    return None


def write_marker(folder: Path, kind: str) -> None:
    """Marks `folder` as a cellshare output of `kind`."""
    from . import __version__

    (folder / MARKER).write_text(json.dumps({"kind": kind, "cellshare": __version__}) + "\n")


def _where(out: Path) -> str:
    return f"--out {str(out)!r}"


def check_out(out: PathLike, *, kind: str, force: bool = False, resume: bool = False) -> Optional[dict]:
    """Checks that `out` may receive an output of `kind`, writing nothing. Returns the marker
    of the cellshare output already there (None when `out` is absent or empty). With
    `resume`, an output of the same kind is accepted without `force` (a sweep resumes in
    its folder). Raises :class:`OutputError`."""
    raw = os.fspath(out)
    out = Path(raw)
    if raw == "" or out.name in ("", ".", "..") or raw.rstrip("/").split("/")[-1] in (".", ".."):
        raise OutputError(f"{_where(out)} names the current, parent or root folder; expected the path of a "
                          "folder to create (or of a previous cellshare output)")
    if "\0" in raw:
        raise OutputError(f"{_where(out)} contains a NUL byte")
    name_max = 255
    if len(os.fsencode(out.name)) > name_max:
        raise OutputError(f"{_where(out)}: the name is {len(os.fsencode(out.name))} bytes long; expected at most "
                          f"{name_max}")
    if len(os.fsencode(os.path.abspath(raw))) + 64 > 4096:
        raise OutputError(f"{_where(out)}: the path is too long (expected at most about 4000 bytes)")
    # The deepest part of the path that exists must be a folder we may write in.
    try:
        st = os.lstat(out)
    except (FileNotFoundError, NotADirectoryError):
        st = None  # a missing parent, or a file in the way (named below)
    except OSError as e:
        raise OutputError(f"{_where(out)}: {e.strerror or e}") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise OutputError(f"{_where(out)} is a symbolic link; expected a folder (give the path it points to)")
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{_where(out)} is a file, not a folder; expected a folder to create or a previous "
                              "cellshare output")
    ancestor = out.parent
    while True:
        try:
            ast = os.stat(ancestor)
            break
        except FileNotFoundError:
            if ancestor == ancestor.parent:
                break
            ancestor = ancestor.parent
            continue
        except NotADirectoryError:
            ast = None
            break
        except OSError as e:
            raise OutputError(f"{_where(out)}: {ancestor}: {e.strerror or e}") from None
    if ast is None or not stat.S_ISDIR(ast.st_mode):
        # Walk down from the root to name the file in the way.
        p = Path(os.path.abspath(raw)).parent
        culprit = next((q for q in reversed([p, *p.parents]) if q.exists() and not q.is_dir()), ancestor)
        raise OutputError(f"{_where(out)}: {culprit} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputError(f"{_where(out)}: {ancestor} is not writable")
    if st is None:
        return None
    try:
        entries = os.listdir(out)
    except OSError as e:
        raise OutputError(f"{_where(out)}: cannot list it: {e.strerror or e}") from None
    if not entries:
        return None
    marker = read_marker(out)
    if marker is None:
        raise OutputError(f"{_where(out)} is a folder that is not empty and not a cellshare output; refusing to "
                          "touch it (choose another --out)")
    if resume and marker["kind"] == kind:
        return marker
    if not force:
        raise OutputError(f"{_where(out)} holds a previous cellshare {marker['kind']} output; use --force to "
                          "replace it, or choose another --out")
    return marker


def _make_parents(parent: Path, out: Path) -> list[Path]:
    """Creates the missing folders of `parent` (outermost first); returns them."""
    missing = []
    p = parent
    while not p.exists():
        missing.append(p)
        if p == p.parent:
            break
        p = p.parent
    made = []
    try:
        for p in reversed(missing):
            os.mkdir(p)
            made.append(p)
    except OSError as e:
        _remove_made(made)
        raise OutputError(f"{_where(out)}: cannot create folder {p}: {e.strerror or e}") from None
    return made


def _remove_made(made: list[Path]) -> None:
    for p in reversed(made):
        try:
            os.rmdir(p)
        except OSError:
            break


@contextmanager
def atomic_dir(out: PathLike, *, kind: str = "run", force: bool = False, owned: bool = False) -> Iterator[Path]:
    """Yields a new temporary folder beside `out` carrying the output marker; on success it
    becomes `out`, on an error it is removed (with the parent folders it created), so a failed
    run leaves nothing. `out` is checked first (:func:`check_out`, `force` to replace a
    previous cellshare output); `owned` is for a location the caller owns outright (a sweep's
    ``runs/<id>``), whose previous content is replaced whatever it is."""
    out = Path(out)
    if not owned:
        check_out(out, kind=kind, force=force)
    made = _make_parents(out.parent, out)
    remove_stale_temps(out)
    tmp = out.parent / _tmp_name(out.name)
    try:
        os.mkdir(tmp)
    except OSError as e:
        _remove_made(made)
        raise OutputError(f"{_where(out)}: cannot create a folder beside it: {e.strerror or e}") from None
    try:
        write_marker(tmp, kind)
        yield tmp
        # Checked again: something may have appeared at `out` while the run went.
        if not owned:
            check_out(out, kind=kind, force=force)
        _replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_made(made)
        raise


def _replace(tmp: Path, out: Path) -> None:
    """Renames `tmp` onto `out`; a previous `out` (an empty folder, or an output the caller
    may replace) is first moved aside under a temporary name of this process, then removed."""
    try:
        os.rename(tmp, out)
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise OutputError(f"{_where(out)}: cannot rename the results into place: {e.strerror or e}") from None
    aside = out.parent / _tmp_name(out.name)
    os.rename(out, aside)
    os.rename(tmp, out)
    shutil.rmtree(aside, ignore_errors=True)


def replace_in_place(out: PathLike, *, kind: str) -> None:
    """For a command that writes into `out` directly (a new sweep): removes a previous
    cellshare output there (the caller checked it with `force`), creates `out` with its
    parents, and marks it."""
    out = Path(out)
    if out.is_dir() and read_marker(out) is not None:
        aside = out.parent / _tmp_name(out.name)
        os.rename(out, aside)
        shutil.rmtree(aside, ignore_errors=True)
    _make_parents(out.parent, out)
    remove_stale_temps(out)
    try:
        out.mkdir(exist_ok=True)
    except OSError as e:
        raise OutputError(f"{_where(out)}: cannot create it: {e.strerror or e}") from None
    write_marker(out, kind)


def _write_batches(result: Result, name: str, folder: Path) -> None:
    """Writes table `name` batch by batch (one row group per batch of
    :data:`~cellshare.api.BATCH_ROWS` rows, as ``pq.write_table`` cuts them, so the file is
    the same), never holding the whole table: a long run's traces stay on the spool."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .api import SPOOLED_SCHEMAS

    schema = result._ue_trace_schema() if name == "ue_trace" else SPOOLED_SCHEMAS[name]
    pool = pa.default_memory_pool()
    batches = result.iter_batches(name)
    with pq.ParquetWriter(folder / f"{name}.parquet", schema) as w:
        b = next(batches, None)
        if b is None:  # pq.write_table writes one empty row group for an empty table
            w.write_table(schema.empty_table())
        while b is not None:
            w.write_batch(b)
            del b  # one batch alive at a time
            pool.release_unused()
            b = next(batches, None)


def write_result(result: Result, folder: Path, scenario_text: str | None = None) -> None:
    """Writes summary.json and the Parquet tables of `result` into `folder`."""
    import pyarrow.parquet as pq

    from .api import _SESSION_TABLES

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(result.summary, indent=2, sort_keys=True) + "\n")
    pq.write_table(result.flows(), folder / "flows.parquet")
    _write_batches(result, "flow_series", folder)
    _write_batches(result, "ue_series", folder)
    pq.write_table(result.cell_series(), folder / "cell_series.parquet")
    pq.write_table(result.queue_delay_cdf(), folder / "queue_delay_cdf.parquet")
    _write_batches(result, "flow_trace", folder)
    _write_batches(result, "mode_changes", folder)
    _write_batches(result, "ue_trace", folder)
    pq.write_table(result.classes(), folder / "classes.parquet")
    if result.raw.get("handovers") is not None:
        pq.write_table(result.handovers(), folder / "handovers.parquet")
    if any("app" in f for f in result.raw["flows"]):
        pq.write_table(result.requests(), folder / "requests.parquet")
    for table, (key, _, _) in _SESSION_TABLES.items():
        if result.raw.get(key):
            pq.write_table(result.table(table), folder / f"{table}.parquet")
    if scenario_text is not None:
        (folder / "scenario.toml").write_text(scenario_text)
