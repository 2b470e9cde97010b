"""The report's sections for the applications of docs/apps.md: video calls (frame-delay
CDF, target bitrate over time), adaptive streams (QoE and its parts per scheme, chunk
bitrate over time) and web page loads (page load time per scheme). Each reads the per-event
tables (``video_frames``, ``stream_chunks``, ``page_loads``) of the runs that have them;
a report of runs without apps has none of these sections."""

from __future__ import annotations

import math
from typing import Any, Optional

from .report_common import (ARROW, ReportPage, bounded, cast, check_columns, mean, parquet, plain_log, table_html,
                            table_of_text, unexpected)


def _kinds(name: str, names: tuple[str, ...]) -> dict[str, str]:
    """Columns `names` of table `name` with the kind each is read as
    (:func:`cellshare.report_common.check_columns`), from its Arrow type in the result
    contract: ``text`` for a string, ``boolean`` for a bool, ``number`` for the rest."""
    from .api import TABLE_DEFS

    types = {c["name"]: c["type"] for c in TABLE_DEFS[name]["columns"]}
    return {c: {"string": "text", "bool": "boolean"}.get(types[c], "number") for c in names}


def _tables(rep: ReportPage, name: str, names: tuple[str, ...]) -> list[tuple[dict, dict]]:
    """(run, table as a dict of columns) of every run that wrote table `name`; its columns
    `names` must be there, each read as one type (:func:`_kinds`; nulls as None). A table
    without rows gives empty columns."""
    columns = _kinds(name, names)
    out = []
    for r in rep.d.runs:
        p = rep.d.run_dirs[r["run_id"]] / f"{name}.parquet"
        if p.is_file():
            t = parquet(p)
            if t.num_rows == 0:
                out.append((r, {c: [] for c in columns}))
                continue
            check_columns(p, t.schema, columns)
            for c, kind in columns.items():
                t = cast(p, t, c, ARROW[kind])
            out.append((r, {c: t.column(c).to_pylist() for c in columns}))
    return out


def _first(names: list) -> Optional[str]:
    """The first name of a table's rows (its first session), None without one."""
    return next((n for n in names if n is not None), None)


def _num(v: Any) -> float:
    return v if isinstance(v, float) and math.isfinite(v) else float("nan")


def _label(rep: ReportPage, r: dict) -> str:
    parts = [str(rep._s(r))] if rep.d.scheme else []
    if rep.d.load:
        parts.append(f"{rep.d.load}={rep._l(r)}")
    return ", ".join(parts) or str(r.get("run", r["run_id"]))


def video_calls(rep: ReportPage) -> None:
    """Frame-delay CDF (every rendered frame of every call, per scheme) and the encoder's
    target bitrate over time (the first call of the first run of each scheme)."""
    import numpy as np


    runs = _tables(rep, "video_frames", ("name", "t_s", "target_kbps", "status", "delay_ms"))
    if not runs:
        return
    if not any(t["name"] for _, t in runs):
        rep._section("Video calls", None, "No video frames in these runs.", "")
        return
    plt = rep.plt
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(7.0, 2.6))
    rows = []
    seen = set()
    for s in rep.schemes:
        rs = [(r, t) for r, t in runs if rep._s(r) == s]
        if not rs:
            continue
        d = np.array([x for _, t in rs for x, st in zip(t["delay_ms"], t["status"])
                      if st == "rendered" and x is not None and math.isfinite(x)], float)
        n_all = sum(len(t["status"]) for _, t in rs)
        color = rep.colors[s]
        if d.size:
            xs = np.sort(d)
            a1.plot(xs, np.arange(1, xs.size + 1) / n_all, color=color, label=str(s))
        r0, t0 = rs[0]
        first = _first(t0["name"])
        if first is not None and s not in seen:
            seen.add(s)
            sel = [i for i, nm in enumerate(t0["name"]) if nm == first]
            a2.plot([_num(t0["t_s"][i]) for i in sel], [_num(t0["target_kbps"][i]) / 1000 for i in sel], color=color,
                    label=_label(rep, r0))
        p = (lambda q: float(np.percentile(d, q)) if d.size else None)
        rows.append([str(s), len(rs), n_all, int(d.size), p(50), p(95), p(99)])
    a1.set_xscale("log")
    plain_log(a1.xaxis)
    a1.set_xlabel("frame delay (ms)")
    a1.set_ylabel("CDF of frames sent")
    a1.set_ylim(0, 1.0)
    a2.set_xlabel("time (s)")
    a2.set_ylabel("target bitrate (Mbit/s)")
    a1.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    img = rep.save(fig, "video_calls")
    rep._section("Video calls", img,
                 "Left: CDF of the frame delay (capture to the last packet's arrival) over every frame sent; "
                 "frames lost or never decodable keep the curve below 1. Right: the Google Congestion Control "
                 "target of the first call of each scheme's first run.",
                 table_html(["scheme", "runs", "frames", "rendered", "p50 ms", "p95 ms", "p99 ms"], rows))


def streams(rep: ReportPage) -> None:
    """QoE (MPC paper, Eq. 5) and its parts per scheme, and each scheme's first stream's chunk
    bitrate over time."""

    runs = _tables(rep, "stream_chunks", ("name", "request_t_s", "bitrate_kbps"))
    if not runs:
        return
    if not any(t["name"] for _, t in runs):
        rep._section("Adaptive streams", None, "No stream chunks in these runs.", "")
        return
    plt = rep.plt
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(7.0, 2.6))
    rows = []
    names = []
    for s in rep.schemes:
        rs = [(r, t) for r, t in runs if rep._s(r) == s]
        if not rs:
            continue
        sessions = []
        for r, _ in rs:
            sessions.extend(_sessions(rep.d.run_dirs[r["run_id"]] / "summary.json"))
        parts = {key: mean(x[key] for x in sessions) for key in _QOE_KEYS}
        names.append(str(s))
        pen = [parts[k] for k in ("rebuffer_penalty", "smoothness_penalty")]
        pos = len(names) - 1
        if parts["qoe"] is not None:
            a1.bar(pos - 0.2, parts["qoe"], width=0.4, color=rep.colors[s])
        if None not in pen and math.isfinite(-pen[0] - pen[1]):
            a1.bar(pos + 0.2, -pen[0] - pen[1], width=0.4, color=rep.colors[s], alpha=0.4)
        r0, t0 = next(((r, t) for r, t in rs if t["name"]), rs[0])
        first = _first(t0["name"])
        sel = [i for i, nm in enumerate(t0["name"]) if nm == first and nm is not None]
        if sel:
            a2.step([_num(t0["request_t_s"][i]) for i in sel], [_num(t0["bitrate_kbps"][i]) / 1000 for i in sel],
                    where="post", color=rep.colors[s], label=_label(rep, r0))
        rows.append([str(s), len(sessions), parts["qoe"], parts["bitrate_utility"], parts["rebuffer_penalty"],
                     parts["smoothness_penalty"], parts["startup_delay_s"]])
    a1.set_xticks(range(len(names)), names, rotation=30, ha="right")
    a1.axhline(0, color="grey", linewidth=0.5)
    a1.set_ylabel("QoE (solid), −penalties (light)")
    a2.set_xlabel("time (s)")
    a2.set_ylabel("chunk bitrate (Mbit/s)")
    a2.legend(fontsize=7)
    fig.tight_layout()
    img = rep.save(fig, "streams")
    rep._section("Adaptive streams", img,
                 "Left: mean QoE per session (MPC paper Eq. 5: bitrate utility − rebuffering penalty − smoothness "
                 "penalty − start-up penalty) and the two penalties. Right: the bitrate of each chunk requested, "
                 "first stream of each scheme's first run.",
                 table_html(["scheme", "sessions", "QoE", "bitrate utility", "rebuffer penalty",
                              "smoothness penalty", "start-up s"], rows))


def web(rep: ReportPage) -> None:
    """Page load time per scheme: mean and the spread of the loads."""
    import numpy as np


    runs = _tables(rep, "page_loads", ("load_time_s",))
    if not runs:
        return
    if not any(t["load_time_s"] for _, t in runs):
        rep._section("Web page loads", None, "No page loads in these runs.", "")
        return
    plt = rep.plt
    fig, ax = plt.subplots(figsize=(3.6, 2.6))
    rows = []
    names = []
    for s in rep.schemes:
        rs = [t for r, t in runs if rep._s(r) == s]
        if not rs:
            continue
        v = np.array([x for t in rs for x in t["load_time_s"] if x is not None and math.isfinite(x)], float)
        n = sum(len(t["load_time_s"]) for t in rs)
        names.append(str(s))
        if v.size:
            ax.boxplot([v], positions=[len(names) - 1], widths=0.5, showfliers=False,
                       medianprops={"color": rep.colors[s]})
        rows.append([str(s), n, int(v.size), float(np.median(v)) if v.size else None,
                     float(np.mean(v)) if v.size else None, float(v.max()) if v.size else None])
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylabel("page load time (s)")
    fig.tight_layout()
    img = rep.save(fig, "page_loads")
    rep._section("Web page loads", img,
                 "Page load time (main object requested to the last object received), every load of every run; "
                 "box: quartiles, whiskers: 1.5 IQR.",
                 table_html(["scheme", "pages started", "loaded", "median s", "mean s", "max s"], rows))


#: The QoE parts of a stream session (summary.json ``streams``) the report shows.
_QOE_KEYS = ("qoe", "bitrate_utility", "rebuffer_penalty", "smoothness_penalty", "startup_delay_s")


def _sessions(path) -> list[dict]:
    """The stream sessions of a run's summary.json, each with the QoE parts as numbers (a
    part that is null stays None); anything else is a ReportError naming the key."""
    import json

    streams = table_of_text(path, json.loads).get("streams", [])
    if not isinstance(streams, list):
        raise unexpected(path, f"`streams` is a {type(streams).__name__}, not a list")
    out = []
    for i, x in enumerate(streams):
        if not isinstance(x, dict):
            raise unexpected(path, f"`streams[{i}]` is a {type(x).__name__}, not a table")
        row = {}
        for k in _QOE_KEYS:
            v = x.get(k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise unexpected(path, f"`streams[{i}].{k}` is a {type(v).__name__}, not a number")
            try:
                row[k] = None if v is None else bounded(path, f"streams[{i}].{k}", float(v))
            except OverflowError:
                raise unexpected(path, f"`streams[{i}].{k}` is an integer beyond a float's range") from None
        out.append(row)
    return out


def app_sections(rep: ReportPage) -> None:
    """Adds the sections of the apps the runs have."""
    video_calls(rep)
    streams(rep)
    web(rep)
