"""Output folders: one policy for every command that writes one (`run`, `emulate`,
`crosscheck`, `reproduce`, `sweep`, `report`), and writing a run's results into one.

The policy (docs/outputs.md):

- A run writes into a temporary folder beside `--out`, named
  ``.cellshare-tmp-<hash of the name>-<pid>-<process start>-<random>``, and swaps it into
  place when it is complete, so `--out` holds a whole output or nothing.
- `--out` may be absent, an empty folder, or a previous cellshare output (it holds the marker
  file :data:`MARKER`, written by every run, listing what the run wrote): the last is
  replaced only with ``--force``, and only when it holds nothing but what cellshare wrote.
  Anything else (a non-empty folder that is not a cellshare output, a file, a symbolic link,
  ``.``/``..``, a path under a file, a place that cannot hold a folder or is read-only, a
  mount point, a name too long) is an :class:`OutputError`: one line naming the path, exit 2,
  and nothing is written.
- Only the temporary folder, the folders created for `--out`'s parents and the replaced
  output are touched: siblings are never, except the temporary folders of killed cellshare
  commands (their process is gone), which the next command writing beside them removes.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Sequence, Union

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


def _stale(entry: str) -> bool:
    """Whether `entry` is a temporary folder (of any target) whose process is gone: the pid
    in its name runs no process, or one started at another time (pid reuse)."""
    if not entry.startswith(TMP_PREFIX):
        return False
    parts = entry[len(TMP_PREFIX):].split("-")
    if len(parts) != 4:
        return False
    try:
        pid = int(parts[1])
    except ValueError:
        return False
    return _proc_start(pid) != parts[2]


def remove_stale_temps(folder: Path) -> list[Path]:
    """Removes the temporary folders in `folder` left by killed cellshare commands, whatever
    their target (a kill -9 during the final write leaves a whole result there, and nothing
    else would ever remove it); returns them. Those of live processes are left alone."""
    gone: list[Path] = []
    # Without /proc no owner can be told alive: remove nothing rather than a live run's folder.
    if _proc_start(os.getpid()) is None:
        return gone
    try:
        entries = os.listdir(folder)
    except OSError:
        return gone
    for e in entries:
        if _stale(e):
            p = folder / e
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
                gone.append(p)
    return gone


#: What a sweep writes at the top of its folder. A sweep writes into its folder in place, so
#: its marker lists these from the start (``report/`` is a report's own output, below).
SWEEP_ENTRIES = ("sweep.toml", "sweep.json", "runs", "runs.parquet", "flows.parquet")

#: What outputs written before the marker existed hold, by kind: a folder whose every entry
#: is one of these (and that has the first) is recognised as that kind of output.
_LEGACY = {
    "sweep": ("sweep.toml", "sweep.json", "runs", "runs.parquet", "flows.parquet", "report"),
    "run": ("summary.json", "scenario.toml", "flows.parquet", "flow_series.parquet", "ue_series.parquet",
            "cell_series.parquet", "queue_delay_cdf.parquet", "flow_trace.parquet", "mode_changes.parquet",
            "ue_trace.parquet", "classes.parquet", "requests.parquet", "nodes.parquet", "report"),
}
_REPORT_FIGURES = ("throughput", "fct_short", "throughput_categories", "queue_delay_cdf", "jain", "video_calls",
                   "streams", "page_loads")
#: What each kind of output wrote at its top level before markers listed it (markers without
#: ``entries``): only these count as cellshare's when such an output is replaced. A run's
#: are its legacy names and a Parquet file per table of the result contract
#: (:func:`_known`). Crosscheck and reproduce outputs have no fixed names, so everything in an
#: old one counts as the user's and the folder is never replaced (the safe side: a refusal
#: names what is there).
_KNOWN = {
    "sweep": _LEGACY["sweep"],
    "run": _LEGACY["run"],
    "report": ("index.html", *(f"{f}.{ext}" for f in _REPORT_FIGURES for ext in ("png", "pdf"))),
    "emulate": ("summary.json", "scenario.toml", "flows", "commands", "emu.pcap", "report"),
}


def _known(kind: str) -> set[str]:
    """The names an output of `kind` wrote before markers listed them (:data:`_KNOWN`); a
    run's include every table of the result contract (``_core.result_contract()``, read
    here without pyarrow)."""
    names = set(_KNOWN.get(kind, ()))
    if kind == "run":
        from . import _core
        names.update(f"{t['name']}.parquet" for t in json.loads(_core.result_contract())["tables"])
    return names
#: The temporary files of a sweep's dataset (sweeps._atomic_file: ``.runs.parquet.<pid>.tmp``).
_DATASET_TMP = re.compile(r"^\.(runs|flows)\.parquet\.\d+\.tmp$")
#: Largest marker read (a listing of thousands of top-level entries fits).
_MARKER_MAX = 1 << 20


def read_marker(folder: Path) -> Optional[dict]:
    """The marker of a cellshare output folder, or None when `folder` is not one. A sweep or
    run folder written before markers existed is recognised by its files (``legacy``)."""
    try:
        with open(folder / MARKER, "rb") as f:
            data = json.loads(f.read(_MARKER_MAX))
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


def write_marker(folder: Path, kind: str, entries: Optional[Sequence[str]] = None) -> None:
    """Marks `folder` as a cellshare output of `kind` that wrote `entries` (its top-level
    files and folders; cellshare owns each whole, so they are all it lists)."""
    from . import __version__

    doc: dict = {"kind": kind, "cellshare": __version__}
    if entries is not None:
        doc["entries"] = sorted(e for e in entries if e != MARKER)
    (folder / MARKER).write_text(json.dumps(doc) + "\n")


def foreign_entries(folder: Path, marker: dict) -> list[str]:
    """The entries of cellshare output `folder` (with `marker`) that cellshare did not write,
    sorted: what replacing it would delete of the user's. Cellshare's are the entries its
    marker lists (or, for a marker from before the list, the known names of its kind), its
    temporary folders and files, and a ``report`` folder that is a report output holding
    nothing else (`cellshare report FOLDER` writes one there)."""
    listed = marker.get("entries")
    if isinstance(listed, list) and all(isinstance(e, str) for e in listed):
        mine = set(listed)
    else:
        mine = _known(marker.get("kind", ""))
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for e in entries:
        if e == MARKER or e in mine or e.startswith(TMP_PREFIX) or _DATASET_TMP.match(e):
            continue
        if e == "report" and marker.get("kind") != "report":
            sub = folder / e
            sub_marker = read_marker(sub) if sub.is_dir() and not sub.is_symlink() else None
            if sub_marker is not None and sub_marker["kind"] == "report" and not foreign_entries(sub, sub_marker):
                continue
        out.append(e)
    return out


def _foreign_error(out: Path, foreign: list[str], marker: Optional[dict]) -> OutputError:
    more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
    why = "that cellshare did not write"
    if marker is not None and not isinstance(marker.get("entries"), list):
        why += " (as far as it can tell: an output of an earlier cellshare, which did not list what it wrote)"
    return OutputError(f"{_where(out)} holds {foreign[0]!r}{more} {why}; move them away or choose another --out")


def _mount_point_error(out: Path) -> OutputError:
    return OutputError(f"{_where(out)} is a mount point, which cannot be replaced by a finished output; expected a "
                       "folder inside it")


def _read_only(path: Path) -> bool:
    """Whether `path` is on a file system mounted read-only."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # AttributeError: no statvfs (not POSIX)
        return False


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
    # Read-only places are named as such before anything runs (a rename onto a read-only
    # mount point fails only at the end, with EBUSY or EROFS).
    if st is not None and _read_only(out):
        raise OutputError(f"{_where(out)}: read-only file system; expected a place where a folder can be written")
    if _read_only(ancestor):
        raise OutputError(f"{_where(out)}: {ancestor} is on a read-only file system; expected a place where a "
                          "folder can be written")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputError(f"{_where(out)}: {ancestor} is not writable")
    if st is None:
        return None
    if not resume and os.path.ismount(out):
        # The finished output is renamed onto `out`, which a mount point refuses (EBUSY). A
        # sweep (`resume`) writes into its folder in place, so a mount point suits it.
        raise _mount_point_error(out)
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
    foreign = foreign_entries(out, marker)
    if foreign:  # --force replaces what cellshare wrote, never what the user put beside it
        raise _foreign_error(out, foreign, marker)
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
    ``runs/<id>``), whose previous content is replaced whatever it is, and whose parent must
    exist."""
    out = Path(out)
    if owned:
        # A sweep's run folder: OUT/runs is created by the sweep and never here, so a worker
        # outliving a sweep whose folder was then deleted cannot bring the folder back (a new
        # sweep there would find an unmarked folder and refuse it).
        if not out.parent.is_dir():
            raise OutputError(f"{_where(out)}: {out.parent} is gone (the sweep's folder was removed)")
        made: list[Path] = []
    else:
        check_out(out, kind=kind, force=force)
        made = _make_parents(out.parent, out)
        remove_stale_temps(out.parent)
    tmp = out.parent / _tmp_name(out.name)
    try:
        os.mkdir(tmp)
    except OSError as e:
        _remove_made(made)
        raise OutputError(f"{_where(out)}: cannot create a folder beside it: {e.strerror or e}") from None
    try:
        write_marker(tmp, kind)
        yield tmp
        # The marker lists what was written (the temporary folder is this process's alone), so
        # a later --force replaces exactly that.
        write_marker(tmp, kind, os.listdir(tmp))
        if not owned:
            # Checked again: something may have appeared at `out` while the run went.
            check_out(out, kind=kind, force=force)
        _replace(tmp, out, check=not owned)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_made(made)
        raise


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_renameat2 = None


def _exchange(a: Path, b: Path) -> bool:
    """Swaps folders `a` and `b` in one step (Linux ``renameat2(RENAME_EXCHANGE)``): True when
    done, False when this system or file system cannot (the caller then renames twice)."""
    global _renameat2
    if _renameat2 is None:
        try:
            import ctypes

            fn = ctypes.CDLL(None, use_errno=True).renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            _renameat2 = fn
        except (OSError, AttributeError):  # no glibc 2.28+, not Linux
            _renameat2 = False
    if _renameat2 is False:
        return False
    import ctypes

    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OutputError(f"{_where(b)}: cannot move the results into place: {os.strerror(err)}")


def _replace(tmp: Path, out: Path, *, check: bool = True) -> None:
    """Puts `tmp` in place of `out`. A previous `out` (an empty folder, or an output the caller
    may replace) is swapped with `tmp` in one step where the system can (so `out` is never
    missing and the finished output waits in no temporary folder), else moved aside first;
    then, with `check`, it is checked again for entries cellshare did not write (they may have
    appeared since :func:`check_out`: the swap is undone and the error raised), and removed."""
    try:
        os.rename(tmp, out)
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise OutputError(f"{_where(out)}: cannot rename the results into place: {e.strerror or e}") from None
    if _exchange(tmp, out):
        old = tmp

        def undo() -> None:
            _exchange(tmp, out)
    else:
        old = out.parent / _tmp_name(out.name)
        try:
            os.rename(out, old)
            os.rename(tmp, out)
        except OSError as e:
            if not out.exists() and old.exists():
                os.rename(old, out)
            raise OutputError(f"{_where(out)}: cannot rename the results into place: {e.strerror or e}") from None

        def undo() -> None:
            os.rename(out, tmp)
            os.rename(old, out)
    if check:
        marker = read_marker(old)
        foreign = foreign_entries(old, marker) if marker is not None else sorted(os.listdir(old))
        if foreign:
            undo()
            raise _foreign_error(out, foreign, marker)
    shutil.rmtree(old, ignore_errors=True)


def replace_in_place(out: PathLike, *, kind: str, entries: Optional[Sequence[str]] = None) -> None:
    """For a command that writes into `out` directly (a new sweep, writing `entries`): removes
    a previous cellshare output there (the caller checked it with `force`) if it holds nothing
    cellshare did not write, creates `out` with its parents, and marks it."""
    out = Path(out)
    marker = read_marker(out) if out.is_dir() else None
    if marker is not None:
        foreign = foreign_entries(out, marker)
        if foreign:
            raise _foreign_error(out, foreign, marker)
        if os.path.ismount(out):
            raise _mount_point_error(out)
        aside = out.parent / _tmp_name(out.name)
        try:
            os.rename(out, aside)
        except OSError as e:
            raise OutputError(f"{_where(out)}: cannot replace it: {e.strerror or e}") from None
        foreign = foreign_entries(aside, marker)  # anything put there since the check above
        if foreign:
            os.rename(aside, out)
            raise _foreign_error(out, foreign, marker)
        shutil.rmtree(aside, ignore_errors=True)
    _make_parents(out.parent, out)
    remove_stale_temps(out.parent)
    try:
        out.mkdir(exist_ok=True)
    except OSError as e:
        raise OutputError(f"{_where(out)}: cannot create it: {e.strerror or e}") from None
    write_marker(out, kind, entries)


def _write_batches(result: Result, name: str, folder: Path) -> None:
    """Writes table `name` batch by batch (one row group per batch of
    :data:`~cellshare.api.BATCH_ROWS` rows, as ``pq.write_table`` cuts them, so the file is
    the same), never holding the whole table: a long run's traces stay on the spool."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = result.schema(name)
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
    """Writes summary.json and the Parquet tables of `result` into `folder`: one
    ``<table>.parquet`` per table the run has (:meth:`~cellshare.api.Result.tables`; the
    spooled ones batch by batch)."""
    import pyarrow.parquet as pq

    from .api import SPOOLED_SCHEMAS

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(result.summary, indent=2, sort_keys=True) + "\n")
    for name in result.tables():
        if name in SPOOLED_SCHEMAS:
            _write_batches(result, name, folder)
        else:
            pq.write_table(result.table(name), folder / f"{name}.parquet")
    if scenario_text is not None:
        (folder / "scenario.toml").write_text(scenario_text)
