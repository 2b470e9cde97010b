"""Renderers of ``docs/crosscheck-ns3.md``: the facts of ns-3's traced runs (``tools/ns3_crosscheck.py
--tcp-trace``, ``--phy-stats``, ``--ul-stats``) behind the causes the page names.

The runs are JSON files under ``tools/data/`` in the tool's own shape (``args`` and ``rows``;
each row's ``ns3`` side holds ``tcp``, ``fill`` or ``uplink`` when traced). Arguments common to
the renderers:

``FILE[#LABEL]``
    A stored run and, when it holds several, the row (``same/cubic``); without a label the file
    must hold one row.
``SERIES``
    ``fg``/``bg`` (the foreground's sender, server 0; the backgrounds', server 1) followed by
    ``.cwnd`` (segments), ``.srtt`` (the smoothed RTT at the end of each 100 ms, ms) or
    ``.rtt`` (the smallest RTT sample within each 100 ms, ms); or a FlowMonitor flow,
    ``fg.data``, ``fg.ack``, ``bg.data``, ``bg.ack``: the mean one-way delay of its packets
    received in each 100 ms, ms.
``A-B``
    A window of simulated time, s: the 100 ms intervals (or whole seconds, or the instants of a
    coarser series) that end after A and by B.

Renderers:

``xns3-trace FILE A-B...``
    One row per window of the background's window, smoothed RTT and one-way delays (block).
``xns3-mode FILE SERIES A-B``
    A series' most common value in a window and in how many of its intervals, with the range
    of the others (inline).
``xns3-rise FILE SERIES A-B C-D``
    How much the most common value rose from one window to the next (inline).
``xns3-cwnd FILE[#LABEL] fg|bg T`` or ``... A-B``
    A window at a time, or its course over a window (inline).
``xns3-srtt-min FILE fg|bg``
    The smallest smoothed RTT of the run and when (inline): what ns-3.44's ``TcpVegas`` takes
    as its BaseRTT.
``xns3-vegas-diff FILE A-B [span]``
    ``TcpVegas``'s integer ``diff`` at the window's most common window and smoothed RTT, or its
    span over the smoothed RTTs of the window (inline).
``xns3-window-rate FILE A-B [mean]``
    The background's window over its smoothed RTT, Mbit/s, at the window's medians, or as the
    mean over its 100 ms intervals (inline).
``xns3-same-rates FILE REF``
    The run's ns-3 rates, and whether they are those of the same row of REF (inline).
``xns3-fill FILE GROUP fill|tb|app``
    ns-3's downlink block fill of ``UE 0`` or ``background UEs`` (``--phy-stats``), or the
    Mbit of blocks or of application data behind it (inline).
``xns3-ue-rate FILE cellshare|ns3 ue0|others``
    UE 0's flows together, or the mean of the other UEs' flows, Mbit/s (inline).
``xns3-ul-errors FILE UE A-B [first]``
    Uplink blocks the eNB received in error over the blocks granted in a window, or the first
    error's time (inline; ``--ul-stats``).
``xns3-ul-grants FILE UE A-B``
    Uplink grants per 100 ms in a window and their mean size (inline).
``xns3-recoveries FILE[#LABEL] [fg|bg]``
    Each entry into fast recovery of a sender traced with its recoveries: entry, window →
    threshold, SND.UNA / recovery point, exit, what was retransmitted (block).
``xns3-rec FILE[#LABEL] fg|bg N at|window|entry``
    The N-th (from 1) recovery: its time, its window → threshold, or both (inline).
``xns3-fast-recoveries FILE[#LABEL] fg|bg [A-B]``
    The times of a sender's entries into fast recovery (inline).
``xns3-timeouts FILE[#LABEL] fg|bg``
    The times of a sender's retransmission timeouts (inline).
``xns3-entry-sends FILE[#LABEL] N COUNT``
    The first COUNT segments the background sent from its N-th recovery's entry on (inline).
``xns3-exit-lag FILE[#LABEL]``
    For each recovery whose exit came while a segment first sent after its entry was
    outstanding: the time from that segment's retransmission to the exit (inline).
``xns3-exit-sack FILE[#LABEL] N``
    The highest segment SACKed by the ACK that ended the N-th recovery (inline).
``xns3-diff FILE[#RUN] LABEL KEY REF[#RUN]``
    cellshare's rate in FILE against ns-3's in REF, the same run, in per cent (inline).
``xns3-ours FILE#RUN FLOW cwnd|srtt T|A-B``
    cellshare's traced window or smoothed RTT of a flow, from ``tools/ns3_cellshare_traces.py``'s
    file (``tools/data/ns3-crosscheck-cellshare-traces.json``) (inline).
``xns3-sweep FILE PREFIX``
    cellshare's rates over that file's runs named PREFIX... (a sweep of the foreground's start)
    and the run closest to ns-3's (inline).
``xns3-span FILE PREFIX fg|bg``
    The range of cellshare's foreground or background rate over that file's runs named PREFIX...
    (inline).
``xns3-snr FILE LABEL``
    The SNR of one run of a stored cross-check (inline).
"""
from __future__ import annotations

from collections import Counter
from statistics import median

from ..docgen import DocgenError, _Artefacts, _args, _mbit, _ns3_rates, _ns3_row, _ns3_run

MSS = 1448
#: ns-3.44's `TcpVegas` defaults (`tcp-vegas.cc`: Alpha 2, Beta 4 segments).
VEGAS_ALPHA, VEGAS_BETA = 2, 4
#: A value is a window's "most common" one when it holds in at least this share of its intervals.
MOST = 0.75
_SERVERS = {"fg": "server 0", "bg": "server 1"}


def _row(a: _Artefacts, spec: str, name: str) -> tuple[str, dict]:
    """The row of ``FILE[#LABEL]`` (a file of one row needs no label)."""
    rel, _, label = spec.partition("#")
    rel, d = _ns3_run(a, rel, name)
    if label:
        return f"{rel}#{label}", _ns3_row(d, rel, label, name)
    if len(d["rows"]) != 1:
        raise DocgenError(f"renderer {name!r}: {rel} holds {len(d['rows'])} runs: name one as {rel}#LABEL "
                          f"(runs: {', '.join('/'.join(r['label']) for r in d['rows'])})")
    return rel, d["rows"][0]


def _part(r: dict, key: str, spec: str, name: str, flag: str):
    if key not in r["ns3"]:
        raise DocgenError(f"renderer {name!r}: {spec} has no ns-3 {key!r} (a run with {flag})")
    return r["ns3"][key]


def _window(text: str, name: str) -> tuple[float, float]:
    a, sep, b = text.partition("-")
    try:
        lo, hi = float(a), float(b)
    except ValueError:
        lo = hi = None
    if not sep or lo is None or not lo < hi:
        raise DocgenError(f"renderer {name!r}: window {text!r} is not A-B in seconds with A < B")
    return lo, hi


def _inside(t: float, w: tuple[float, float]) -> bool:
    return w[0] + 1e-9 < t <= w[1] + 1e-9


def _sender(r: dict, who: str, spec: str, name: str) -> dict:
    if who not in _SERVERS:
        raise DocgenError(f"renderer {name!r}: sender {who!r} is not fg or bg")
    return _part(r, "tcp", spec, name, "--tcp-trace")[_SERVERS[who]]


def _cwnd_points(s: dict) -> list[tuple[float, int]]:
    """(time, window in segments) of a traced sender, from the finest series stored at each time."""
    pts: dict[float, int] = {}
    for i, v in enumerate(s.get("cwnd_segments_per_s", [])):
        pts[float(i + 1)] = v
    for i, v in enumerate(s.get("cwnd_segments_4_to_10_s_per_100_ms", [])):
        pts[round(4 + i / 10, 1)] = v
    for i, v in enumerate(s.get("cwnd_segments_per_100_ms", [])):
        pts[round((i + 1) / 10, 1)] = v
    return sorted((t, v) for t, v in pts.items() if v is not None)


def _series(r: dict, spec: str, key: str, name: str) -> tuple[list[tuple[float, float]], int, str]:
    """(time, value) of a SERIES, its decimals and unit."""
    who, _, what = key.partition(".")
    if what in ("data", "ack"):
        delays = _part(r, "tcp", spec, name, "--tcp-trace").get("delay_ms_per_s")
        if delays is None:
            raise DocgenError(f"renderer {name!r}: {spec} has no per-100-ms one-way delays")
        flows = [f for f in delays if f.startswith(f"{who}@") and f.endswith(f".{what}")]
        if len(flows) != 1:
            raise DocgenError(f"renderer {name!r}: {spec} has {len(flows)} flows {who}@*.{what} (flows: {', '.join(delays)})")
        x = delays[flows[0]]
        return [(t, v) for t, v in zip(x["to_s"], x["delay_ms"]) if v is not None], 3, "ms"
    s = _sender(r, who, spec, name)
    if what == "cwnd":
        return _cwnd_points(s), 0, "segments"
    keys = {"srtt": "srtt_ms_per_100_ms", "rtt": "rtt_sample_min_ms_per_100_ms"}
    if what not in keys:
        raise DocgenError(f"renderer {name!r}: series {key!r} is not fg|bg followed by .cwnd, .srtt, .rtt, .data or .ack")
    if keys[what] not in s:
        raise DocgenError(f"renderer {name!r}: {spec} stores no {keys[what]}")
    return [(round((i + 1) / 10, 1), v) for i, v in enumerate(s[keys[what]]) if v is not None], (2 if what == "srtt" else 1), "ms"


def _values(pts, w: tuple[float, float], spec: str, key: str, name: str) -> list:
    vals = [v for t, v in pts if _inside(t, w)]
    if not vals:
        raise DocgenError(f"renderer {name!r}: {spec} has no {key} in {w[0]:g}-{w[1]:g} s")
    return vals


def _num(v: float, dec: int) -> str:
    return f"{v:.{dec}f}"


def _span(vals: list, dec: int) -> str:
    """lo–hi (one decimal at most), or one number when they agree at that precision."""
    d = min(dec, 1)
    lo, hi = _num(min(vals), d), _num(max(vals), d)
    return lo if lo == hi else f"{lo}–{hi}"


def _mode(vals: list) -> tuple[float, int]:
    return Counter(vals).most_common(1)[0]


def _summary(vals: list, dec: int) -> str:
    """A series over a window as the trace table prints it: one value; a monotone change
    `first → last`; the most common value (held in at least 3/4 of the intervals) with the range
    of all; or the range."""
    if len(set(vals)) == 1:
        return _num(vals[0], dec)
    steps = list(zip(vals, vals[1:]))
    if all(x >= y for x, y in steps) or all(x <= y for x, y in steps):
        d = min(dec, 1)
        return f"{_num(vals[0], d)} → {_num(vals[-1], d)}"
    v, n = _mode(vals)
    if n >= MOST * len(vals):
        rng = _span(vals, dec)
        return _num(v, dec) if rng == _num(v, min(dec, 1)) else f"{_num(v, dec)} ({rng})"
    return _span(vals, dec)


def r_trace(a: _Artefacts, args: list[str]) -> str:
    """``xns3-trace FILE A-B...``: the background's traced window, smoothed RTT and one-way delays per window (block)."""
    spec, *wins = _args(args, 2, "xns3-trace", "xns3-trace FILE A-B...")
    spec, r = _row(a, spec, "xns3-trace")
    cols = [("bg.cwnd", "background's window (segments)"), ("bg.srtt", "its smoothed RTT (ms)"),
            ("bg.data", "its data one way (ms)"), ("bg.ack", "its ACKs one way (ms)"),
            ("fg.ack", "the foreground's ACKs one way (ms)")]
    series = {k: _series(r, spec, k, "xns3-trace") for k, _ in cols}
    lines = ["| time (s) | " + " | ".join(c for _, c in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for text in wins:
        w = _window(text, "xns3-trace")
        cells = [_summary(_values(series[k][0], w, spec, k, "xns3-trace"), series[k][1]) for k, _ in cols]
        lines.append(f"| {w[0]:g}–{w[1]:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def r_mode(a: _Artefacts, args: list[str]) -> str:
    """``xns3-mode FILE SERIES A-B``: "15.929 ms in every 100 ms", "35.00 ms in 152 of the 160
    intervals (32.7–36.2 in the others)" (inline)."""
    spec, key, win = _args(args, 3, "xns3-mode", "xns3-mode FILE SERIES A-B")[:3]
    spec, r = _row(a, spec, "xns3-mode")
    pts, dec, unit = _series(r, spec, key, "xns3-mode")
    vals = _values(pts, _window(win, "xns3-mode"), spec, key, "xns3-mode")
    v, n = _mode(vals)
    if n == len(vals):
        return f"{_num(v, dec)} {unit} in every interval"
    others = [x for x in vals if x != v]
    return f"{_num(v, dec)} {unit} in {n} of the {len(vals)} intervals ({_span(others, dec)} in the others)"


def r_rise(a: _Artefacts, args: list[str]) -> str:
    """``xns3-rise FILE SERIES A-B C-D``: the most common value of C-D less that of A-B, "3.2 ms" (inline)."""
    spec, key, w0, w1 = _args(args, 4, "xns3-rise", "xns3-rise FILE SERIES A-B C-D")[:4]
    spec, r = _row(a, spec, "xns3-rise")
    pts, _, unit = _series(r, spec, key, "xns3-rise")
    before, after = (_mode(_values(pts, _window(w, "xns3-rise"), spec, key, "xns3-rise"))[0] for w in (w0, w1))
    return f"{after - before:.1f} {unit}"


def r_cwnd(a: _Artefacts, args: list[str]) -> str:
    """``xns3-cwnd FILE[#LABEL] fg|bg T``: "93 segments at 5.5 s"; ``... A-B``: the window's course
    over A-B, "238 → 241 segments" (inline)."""
    spec, who, at = _args(args, 3, "xns3-cwnd", "xns3-cwnd FILE[#LABEL] fg|bg T|A-B")[:3]
    spec, r = _row(a, spec, "xns3-cwnd")
    pts = _cwnd_points(_sender(r, who, spec, "xns3-cwnd"))
    return _at(pts, at, spec, who, "cwnd", 0, "segments", "xns3-cwnd", noun="window")


def _at(pts: list, at: str, spec: str, who: str, what: str, dec: int, unit: str, name: str,
        noun: str = "") -> str:
    """A 100 ms series' value at time ``at`` ("93 segments at 5.5 s") or its course over a
    window ``A-B`` ("238 → 241 segments"); ``noun`` names the series in an error (``what``)."""
    if "-" in at:
        return f"{_summary(_values(pts, _window(at, name), spec, f'{who}.{what}', name), dec)} {unit}"
    try:
        t = round(float(at), 1)
    except ValueError:
        raise DocgenError(f"renderer {name!r}: {at!r} is not a time in seconds or a window A-B") from None
    held = dict(pts)
    if t not in held:
        raise DocgenError(f"renderer {name!r}: {spec} stores no {noun or what} of {who} at {t:g} s")
    return f"{_num(held[t], dec)} {unit} at {t:g} s"


def r_srtt_min(a: _Artefacts, args: list[str]) -> str:
    """``xns3-srtt-min FILE fg|bg``: "30.155 ms (at 2.99 s)" (inline)."""
    spec, who = _args(args, 2, "xns3-srtt-min", "xns3-srtt-min FILE fg|bg")[:2]
    spec, r = _row(a, spec, "xns3-srtt-min")
    s = _sender(r, who, spec, "xns3-srtt-min")
    if s.get("srtt_min_ms") is None:
        raise DocgenError(f"renderer 'xns3-srtt-min': {spec} stores no smallest smoothed RTT of {who}")
    return f"{s['srtt_min_ms']:.3f} ms (at {s['srtt_min_at_s']:.2f} s)"


def _vegas(a: _Artefacts, args: list[str], name: str):
    spec, win, *rest = _args(args, 2, name, f"{name} FILE A-B")
    spec, r = _row(a, spec, name)
    w = _window(win, name)
    base = _sender(r, "bg", spec, name).get("srtt_min_ms")
    if base is None:
        raise DocgenError(f"renderer {name!r}: {spec} stores no smallest smoothed RTT of bg")
    cwnd = _values(_series(r, spec, "bg.cwnd", name)[0], w, spec, "bg.cwnd", name)
    srtt = _values(_series(r, spec, "bg.srtt", name)[0], w, spec, "bg.srtt", name)
    return spec, r, w, rest, base, cwnd, srtt


def _diff(cwnd: int, base: float, rtt: float) -> int:
    """ns-3.44's `TcpVegas::IncreaseWindow`: `targetCwnd = static_cast<uint32_t>(segCwnd *
    m_baseRtt / m_minRtt); diff = segCwnd - targetCwnd` (a truncation, so a floor here)."""
    return cwnd - int(cwnd * base / rtt)


def r_vegas_diff(a: _Artefacts, args: list[str]) -> str:
    """``xns3-vegas-diff FILE A-B``: "`diff = 22 − ⌊22 · 30.155 / 35.00⌋ = 4`"; with ``span``: its
    lowest and highest over the window's smoothed RTTs (inline)."""
    spec, r, w, rest, base, cwnd, srtt = _vegas(a, args, "xns3-vegas-diff")
    c, rtt = _mode(cwnd)[0], _mode(srtt)[0]
    if rest and rest[0] == "span":
        ds = sorted({_diff(c, base, x) for x in srtt})
        text = f"{ds[0]}" if ds[0] == ds[-1] else f"between {ds[0]} and {ds[-1]}"
        return f"{text} for every smoothed RTT it had there ({_span(srtt, 2)} ms)"
    if rest:
        raise DocgenError(f"renderer 'xns3-vegas-diff': {rest[0]!r} is not span")
    return f"`diff = {c} − ⌊{c} · {base:.3f} / {rtt:.2f}⌋ = {_diff(c, base, rtt)}`"


def r_window_rate(a: _Artefacts, args: list[str]) -> str:
    """``xns3-window-rate FILE A-B``: "17.0 Mbit/s (46 segments at 31.4 ms)"; with ``mean``: the
    mean over the window's 100 ms intervals of window over smoothed RTT, "11.4 Mbit/s" (inline)."""
    spec, r, w, rest, base, cwnd, srtt = _vegas(a, args, "xns3-window-rate")
    pts = dict(_series(r, spec, "bg.cwnd", "xns3-window-rate")[0])
    if rest and rest[0] == "mean":
        rates = [pts[t] * MSS * 8 / (v / 1e3) / 1e6 for t, v in _series(r, spec, "bg.srtt", "xns3-window-rate")[0]
                 if _inside(t, w) and t in pts]
        return f"{sum(rates) / len(rates):.1f} Mbit/s"
    if rest:
        raise DocgenError(f"renderer 'xns3-window-rate': {rest[0]!r} is not mean")
    c, rtt = median(cwnd), median(srtt)
    return f"{c * MSS * 8 / (rtt / 1e3) / 1e6:.1f} Mbit/s ({c:g} segments at {rtt:.1f} ms)"


def r_same_rates(a: _Artefacts, args: list[str]) -> str:
    """``xns3-same-rates FILE REF``: "the same 22.0 / 11.5 (foreground / background) as REF's", or
    both when they differ (inline)."""
    spec, ref = _args(args, 2, "xns3-same-rates", "xns3-same-rates FILE REF")[:2]
    spec, r = _row(a, spec, "xns3-same-rates")
    label = "/".join(r["label"])
    _, d = _ns3_run(a, ref, "xns3-same-rates")
    mine, theirs = _ns3_rates(r["ns3"]), _ns3_rates(_ns3_row(d, ref, label, "xns3-same-rates")["ns3"])
    pair = f"{_mbit(mine['fg'])} / {_mbit(mine['bg'])}"
    if all(round(mine[k], 3) == round(theirs[k], 3) for k in ("fg", "bg")):
        return f"the same {pair} Mbit/s as the table's"
    return f"{pair} Mbit/s against the table's {_mbit(theirs['fg'])} / {_mbit(theirs['bg'])}"


def r_fill(a: _Artefacts, args: list[str]) -> str:
    """``xns3-fill FILE GROUP fill|tb|app``, GROUP ``ue0`` or ``bg`` (inline)."""
    spec, group, key = _args(args, 3, "xns3-fill", "xns3-fill FILE ue0|bg fill|tb|app")[:3]
    spec, r = _row(a, spec, "xns3-fill")
    groups = {"ue0": "UE 0", "bg": "background UEs"}
    fill = _part(r, "fill", spec, "xns3-fill", "--phy-stats")
    if group not in groups or groups[group] not in fill:
        raise DocgenError(f"renderer 'xns3-fill': {spec} has no group {group!r} (groups: ue0, bg)")
    g = fill[groups[group]]
    if key == "fill":
        return f"{g['fill']:.2f}"
    if key in ("tb", "app"):
        return f"{g[key + '_mbit']:.0f}"
    raise DocgenError(f"renderer 'xns3-fill': {key!r} is not fill, tb or app")


def r_ue_rate(a: _Artefacts, args: list[str]) -> str:
    """``xns3-ue-rate FILE cellshare|ns3 ue0|others``: UE 0's flows together, or the other UEs'
    mean, Mbit/s (inline)."""
    spec, side, which = _args(args, 3, "xns3-ue-rate", "xns3-ue-rate FILE cellshare|ns3 ue0|others")[:3]
    spec, r = _row(a, spec, "xns3-ue-rate")
    if side not in ("cellshare", "ns3"):
        raise DocgenError(f"renderer 'xns3-ue-rate': side {side!r} is not cellshare or ns3")
    rates = {k: v for k, v in _ns3_rates(r[side]).items() if k[:2] in ("fg", "bg") and k[2:].isdigit()}
    ue0 = [v for k, v in rates.items() if int(k[2:]) == 0]
    others = [v for k, v in rates.items() if int(k[2:]) != 0]
    if which == "ue0":
        return _mbit(sum(ue0))
    if which == "others" and others:
        return _mbit(sum(others) / len(others))
    raise DocgenError(f"renderer 'xns3-ue-rate': {which!r} is not ue0 or others (with flows at other UEs)")


def _uplink(a: _Artefacts, args: list[str], name: str):
    spec, ue, win, *rest = _args(args, 3, name, f"{name} FILE UE A-B")
    spec, r = _row(a, spec, name)
    up = _part(r, "uplink", spec, name, "--ul-stats")
    if f"UE {ue}" not in up:
        raise DocgenError(f"renderer {name!r}: {spec} has no uplink of UE {ue!r} (UEs: {', '.join(up)})")
    w = _window(win, name)
    u = up[f"UE {ue}"]
    # grants_per_100_ms[k] counts the grants of [k/10, (k+1)/10) s: those of the window.
    ks = [k for k in range(len(u["grants_per_100_ms"])) if _inside((k + 1) / 10, w)]
    return spec, u, w, ks, rest


def r_ul_errors(a: _Artefacts, args: list[str]) -> str:
    """``xns3-ul-errors FILE UE A-B``: "1758 of 5804 (30 %)", "none of 6400"; with ``first``: the
    first error's time in the window (inline)."""
    spec, u, w, ks, rest = _uplink(a, args, "xns3-ul-errors")
    listed, total = u["errors_s"], u["errors"]
    # The file lists the first errors only (`errors_s`) and counts them all (`errors`): the count
    # in a window is exact when the list covers it, or when the window runs to the end of the
    # run and the list reaches its start.
    if len(listed) == total or listed[-1] >= w[1]:
        errors = sum(1 for t in listed if w[0] <= t < w[1])
    elif w[1] >= len(u["grants_per_100_ms"]) / 10 and listed[-1] >= w[0]:
        errors = total - sum(1 for t in listed if t < w[0])
    else:
        raise DocgenError(f"renderer 'xns3-ul-errors': {spec} lists UE errors only up to {listed[-1]} s: "
                          f"it cannot count those of {w[0]:g}-{w[1]:g} s")
    if rest and rest[0] == "first":
        inside = [t for t in listed if w[0] <= t < w[1]]
        if not inside:
            raise DocgenError(f"renderer 'xns3-ul-errors': {spec} has no listed error in {w[0]:g}-{w[1]:g} s")
        return f"{inside[0]:.3f} s"
    if rest:
        raise DocgenError(f"renderer 'xns3-ul-errors': {rest[0]!r} is not first")
    blocks = sum(u["grants_per_100_ms"][k] for k in ks)
    if errors == 0:
        return f"none of {blocks}"
    return f"{errors} of {blocks} ({errors / blocks * 100:.0f} %)"


def r_ul_grants(a: _Artefacts, args: list[str]) -> str:
    """``xns3-ul-grants FILE UE A-B``: "50–51 grants of 277 bytes on average" per 100 ms (inline)."""
    spec, u, w, ks, _ = _uplink(a, args, "xns3-ul-grants")
    g = [u["grants_per_100_ms"][k] for k in ks]
    b = sum(u["grant_bytes_per_100_ms"][k] for k in ks)
    return f"{_span(g, 0)} grants of {b / max(sum(g), 1):.0f} bytes on average"


def _recoveries(a: _Artefacts, spec: str, who: str, name: str) -> tuple[str, list]:
    spec, r = _row(a, spec, name)
    recs = [x for x in _sender(r, who, spec, name).get("recoveries", []) if x["state"] == "recovery"]
    if not recs:
        raise DocgenError(f"renderer {name!r}: {spec} stores no fast recoveries of {who} (a newer --tcp-trace run)")
    return spec, recs


def _nth(recs: list, n: str, spec: str, name: str) -> dict:
    if not n.isdigit() or not 1 <= int(n) <= len(recs):
        raise DocgenError(f"renderer {name!r}: recovery {n!r} is not 1 to {len(recs)} of {spec}")
    return recs[int(n) - 1]


def _seg(x: float) -> str:
    return f"{x:.0f}"


def _retransmitted(rec: dict, earlier: set) -> str:
    retx = rec["first_retransmissions"]
    before = [x for x in retx if x["first_sent_s"] < rec["at_s"] and x["segment"] not in earlier]
    parts = []
    if before:
        lo, hi = min(x["first_sent_s"] for x in before), max(x["first_sent_s"] for x in before)
        when = f"{lo:.2f}–{hi:.2f} s" if f"{lo:.2f}" != f"{hi:.2f}" else f"at {lo:.2f} s"
        parts.append(f"all sent {when}" if len(before) == len(retx) else f"{len(before)} sent {when}")
    for x in retx:
        if x["segment"] in earlier:
            parts.append(f"{_seg(x['segment'])} again")
        elif x["first_sent_s"] >= rec["at_s"]:
            parts.append(f"{_seg(x['segment'])}, sent at {x['first_sent_s']:.4f} s right after the entry, "
                         f"retransmitted at {x['at_s']:.4f} s")
    text = ", and ".join(parts)
    if len(retx) < rec["retransmitted"]:
        text += f" (the first {len(retx)} listed)"
    return f"{rec['retransmitted']}: {text}"


def r_recoveries(a: _Artefacts, args: list[str]) -> str:
    """``xns3-recoveries FILE[#LABEL] [fg|bg]``: the table of a sender's fast recoveries (block)."""
    spec, *who = _args(args, 1, "xns3-recoveries", "xns3-recoveries FILE[#LABEL] [fg|bg]")
    spec, recs = _recoveries(a, spec, who[0] if who else "bg", "xns3-recoveries")
    lines = ["| entry (s) | window → ssthresh (segments) | SND.UNA / recovery point | left (s) | retransmitted |",
             "|---|---|---|---|---|"]
    earlier: set = set()
    for rec in recs:
        left = "—" if rec["left_s"] is None else f"{rec['left_s']:.4f}"
        lines.append(f"| {rec['at_s']:.4f} | {rec['cwnd_before_segments']:.0f} → {rec['ssthresh_segments']:.0f} | "
                     f"{_seg(rec['una_segments'])} / {_seg(rec['recover_segments'])} | {left} | "
                     f"{_retransmitted(rec, earlier)} |")
        earlier |= {x["segment"] for x in rec["first_retransmissions"]}
    return "\n".join(lines)


def r_rec(a: _Artefacts, args: list[str]) -> str:
    """``xns3-rec FILE[#LABEL] fg|bg N at|window|entry``: "5.29 s", "315 → 220 segments", "5.44 s
    at 23 segments, ssthresh 16" (inline)."""
    spec, who, n, key = _args(args, 4, "xns3-rec", "xns3-rec FILE[#LABEL] fg|bg N at|window|entry")[:4]
    spec, recs = _recoveries(a, spec, who, "xns3-rec")
    rec = _nth(recs, n, spec, "xns3-rec")
    if key == "at":
        return f"{rec['at_s']:.2f} s"
    if key == "window":
        return f"{rec['cwnd_before_segments']:.0f} → {rec['ssthresh_segments']:.0f} segments"
    if key == "entry":
        return f"{rec['at_s']:.2f} s at {rec['cwnd_before_segments']:.0f} segments, ssthresh {rec['ssthresh_segments']:.0f}"
    raise DocgenError(f"renderer 'xns3-rec': {key!r} is not at, window or entry")


def _times(xs: list, w=None) -> str:
    xs = [x for x in xs if w is None or _inside(x, w)]
    if not xs:
        return "none"
    return ", ".join(f"{x:.2f}" for x in xs[:-1]) + (" and " if len(xs) > 1 else "") + f"{xs[-1]:.2f} s"


def r_fast_recoveries(a: _Artefacts, args: list[str]) -> str:
    """``xns3-fast-recoveries FILE[#LABEL] fg|bg [A-B]``: "1.99, 5.29 and 13.06 s" (inline)."""
    spec, who, *win = _args(args, 2, "xns3-fast-recoveries", "xns3-fast-recoveries FILE[#LABEL] fg|bg [A-B]")
    spec, r = _row(a, spec, "xns3-fast-recoveries")
    w = _window(win[0], "xns3-fast-recoveries") if win else None
    return _times(_sender(r, who, spec, "xns3-fast-recoveries")["fast_recoveries_s"], w)


def r_timeouts(a: _Artefacts, args: list[str]) -> str:
    """``xns3-timeouts FILE[#LABEL] fg|bg``: the times of the sender's timeouts (inline)."""
    spec, who = _args(args, 2, "xns3-timeouts", "xns3-timeouts FILE[#LABEL] fg|bg")[:2]
    spec, r = _row(a, spec, "xns3-timeouts")
    return _times(_sender(r, who, spec, "xns3-timeouts")["timeouts_s"])


def _segments(xs: list[float]) -> str:
    """Segment numbers with runs joined: "3891 and 4343–4345"."""
    runs: list[list[float]] = []
    for x in xs:
        if runs and x == runs[-1][-1] + 1:
            runs[-1].append(x)
        else:
            runs.append([x])
    items = [_seg(r[0]) if len(r) == 1 else f"{_seg(r[0])}–{_seg(r[-1])}" for r in runs]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def r_entry_sends(a: _Artefacts, args: list[str]) -> str:
    """``xns3-entry-sends FILE[#LABEL] N COUNT``: the background's first COUNT sends from its N-th
    recovery's entry, grouped by time: "3891 and 4343–4345 at 1.98993 s" (inline)."""
    spec, n, count = _args(args, 3, "xns3-entry-sends", "xns3-entry-sends FILE[#LABEL] N COUNT")[:3]
    spec, recs = _recoveries(a, spec, "bg", "xns3-entry-sends")
    sends = _nth(recs, n, spec, "xns3-entry-sends")["sent_after_entry"]
    if not count.isdigit() or not 1 <= int(count) <= len(sends):
        raise DocgenError(f"renderer 'xns3-entry-sends': COUNT {count!r} is not 1 to {len(sends)}")
    groups: dict[float, list[float]] = {}
    for t, q in sends[:int(count)]:
        groups.setdefault(t, []).append(q)
    return ", ".join(f"{_segments(qs)} at {t:.5f} s" for t, qs in groups.items())


def r_exit_lag(a: _Artefacts, args: list[str]) -> str:
    """``xns3-exit-lag FILE[#LABEL]``: "93 and 131 ms" (inline)."""
    spec = _args(args, 1, "xns3-exit-lag", "xns3-exit-lag FILE[#LABEL]")[0]
    spec, recs = _recoveries(a, spec, "bg", "xns3-exit-lag")
    lags = []
    for rec in recs:
        late = [x for x in rec["first_retransmissions"] if x["first_sent_s"] >= rec["at_s"]]
        if late and rec["left_s"] is not None:
            lags.append(f"{(rec['left_s'] - late[-1]['at_s']) * 1e3:.0f}")
    if not lags:
        raise DocgenError(f"renderer 'xns3-exit-lag': no recovery of {spec} retransmitted a segment sent after its entry")
    return (lags[0] if len(lags) == 1 else ", ".join(lags[:-1]) + " and " + lags[-1]) + " ms"


def r_exit_sack(a: _Artefacts, args: list[str]) -> str:
    """``xns3-exit-sack FILE[#LABEL] N``: the highest segment SACKed by the ACK that ended the N-th
    recovery (inline)."""
    spec, n = _args(args, 2, "xns3-exit-sack", "xns3-exit-sack FILE[#LABEL] N")[:2]
    spec, recs = _recoveries(a, spec, "bg", "xns3-exit-sack")
    acks = _nth(recs, n, spec, "xns3-exit-sack")["acks_before_exit"]
    if not acks or acks[-1][2] is None:
        raise DocgenError(f"renderer 'xns3-exit-sack': recovery {n} of {spec} ended on an ACK with no SACK block")
    return _seg(acks[-1][2])


def r_diff(a: _Artefacts, args: list[str]) -> str:
    """``xns3-diff FILE[#RUN] LABEL KEY REF[#RUN]``: cellshare's rate KEY (``fg``, ``bg``) in FILE
    over ns-3's in REF, the same run LABEL: "+32 %" (inline)."""
    spec, label, key, ref = _args(args, 4, "xns3-diff", "xns3-diff FILE[#RUN] LABEL KEY REF[#RUN]")[:4]
    rates = []
    for f, side in ((spec, "cellshare"), (ref, "ns3")):
        f, d = _ns3_run(a, f, "xns3-diff")
        rs = _ns3_rates(_ns3_row(d, f, label, "xns3-diff")[side])
        if key not in rs or not rs[key]:
            raise DocgenError(f"renderer 'xns3-diff': {f} run {label} has no non-zero {key!r} on the {side} side")
        rates.append(rs[key])
    return f"{round((rates[0] / rates[1] - 1) * 100):+d} %".replace("-", "−")


def _ours(a: _Artefacts, spec: str, name: str) -> tuple[str, dict]:
    """A run of `tools/ns3_cellshare_traces.py`'s file, ``FILE#RUN``: (spec, its one row)."""
    spec, d = _ns3_run(a, spec, name)
    if len(d["rows"]) != 1:
        raise DocgenError(f"renderer {name!r}: {spec} is not a run of tools/ns3_cellshare_traces.py (one row)")
    return spec, d["rows"][0]


def r_ours(a: _Artefacts, args: list[str]) -> str:
    """``xns3-ours FILE#RUN FLOW cwnd|srtt T|A-B``: cellshare's traced window (segments) or
    smoothed RTT (ms) of one flow at a time, or summarised over a window (inline)."""
    spec, flow, what, at = _args(args, 4, "xns3-ours", "xns3-ours FILE#RUN FLOW cwnd|srtt T|A-B")[:4]
    spec, r = _ours(a, spec, "xns3-ours")
    tcp = r["cellshare"].get("tcp", {})
    if flow not in tcp:
        raise DocgenError(f"renderer 'xns3-ours': {spec} has no traced flow {flow!r} (flows: {', '.join(tcp) or 'none'})")
    keys = {"cwnd": ("cwnd_segments_per_100_ms", 0, "segments"), "srtt": ("srtt_ms_per_100_ms", 2, "ms")}
    if what not in keys:
        raise DocgenError(f"renderer 'xns3-ours': {what!r} is not cwnd or srtt")
    key, dec, unit = keys[what]
    pts = [(round((i + 1) / 10, 1), v) for i, v in enumerate(tcp[flow][key]) if v is not None]
    return _at(pts, at, spec, flow, what, dec, unit, "xns3-ours")


def r_sweep(a: _Artefacts, args: list[str]) -> str:
    """``xns3-sweep FILE PREFIX``: over the runs of a `tools/ns3_cellshare_traces.py` file named
    PREFIX..., cellshare's foreground and background ranges, and the run closest to ns-3's split
    (the smallest of the larger relative difference of the two) with its differences (inline)."""
    rel, prefix = _args(args, 2, "xns3-sweep", "xns3-sweep FILE PREFIX")[:2]
    d = a.load(rel)
    names = [n for n in d.get("runs", {}) if n.startswith(prefix)]
    if not names:
        raise DocgenError(f"renderer 'xns3-sweep': {rel} has no runs named {prefix}...")
    rows = []
    for n in names:
        _, r = _ours(a, f"{rel}#{n}", "xns3-sweep")
        c, t = _ns3_rates(r["cellshare"]), _ns3_rates(r["ns3"])
        diffs = [(c[k] / t[k] - 1) * 100 for k in ("fg", "bg")]
        rows.append((max(abs(x) for x in diffs), n[len(prefix):], c, t, diffs))
    fg = [r[2]["fg"] for r in rows]
    bg = [r[2]["bg"] for r in rows]
    _, at, c, t, diffs = min(rows, key=lambda r: r[0])
    pct = " and ".join(f"{round(x):+d} %".replace("-", "−") for x in diffs)
    return (f"{_mbit(min(fg))}–{_mbit(max(fg))} / {_mbit(min(bg))}–{_mbit(max(bg))} Mbit/s over the {len(rows)} runs; "
            f"the closest to ns-3's {_mbit(t['fg'])} / {_mbit(t['bg'])} is {_mbit(c['fg'])} / {_mbit(c['bg'])} "
            f"with the start at {at} s ({pct})")


def r_span(a: _Artefacts, args: list[str]) -> str:
    """``xns3-span FILE PREFIX fg|bg``: the lowest and highest of cellshare's rate over the runs of
    a `tools/ns3_cellshare_traces.py` file named PREFIX..., "17.0–18.4 Mbit/s over the 20 runs" (inline)."""
    rel, prefix, key = _args(args, 3, "xns3-span", "xns3-span FILE PREFIX fg|bg")[:3]
    d = a.load(rel)
    names = [n for n in d.get("runs", {}) if n.startswith(prefix)]
    if not names:
        raise DocgenError(f"renderer 'xns3-span': {rel} has no runs named {prefix}...")
    if key not in ("fg", "bg"):
        raise DocgenError(f"renderer 'xns3-span': {key!r} is not fg or bg")
    xs = [_ns3_rates(_ours(a, f"{rel}#{n}", "xns3-span")[1]["cellshare"])[key] for n in names]
    return f"{_mbit(min(xs))}–{_mbit(max(xs))} Mbit/s over the {len(xs)} runs"


def r_snr(a: _Artefacts, args: list[str]) -> str:
    """``xns3-snr FILE LABEL``: "−5.4 dB" (inline)."""
    spec, label = _args(args, 2, "xns3-snr", "xns3-snr FILE LABEL")[:2]
    spec, d = _ns3_run(a, spec, "xns3-snr")
    return f"{_ns3_row(d, spec, label, 'xns3-snr')['snr_db']:.1f} dB".replace("-", "−")


RENDERERS = {
    "xns3-trace": (r_trace, True), "xns3-mode": (r_mode, False), "xns3-rise": (r_rise, False),
    "xns3-cwnd": (r_cwnd, False), "xns3-srtt-min": (r_srtt_min, False), "xns3-vegas-diff": (r_vegas_diff, False),
    "xns3-window-rate": (r_window_rate, False), "xns3-same-rates": (r_same_rates, False),
    "xns3-fill": (r_fill, False), "xns3-ue-rate": (r_ue_rate, False), "xns3-ul-errors": (r_ul_errors, False),
    "xns3-ul-grants": (r_ul_grants, False), "xns3-recoveries": (r_recoveries, True), "xns3-rec": (r_rec, False),
    "xns3-fast-recoveries": (r_fast_recoveries, False), "xns3-timeouts": (r_timeouts, False),
    "xns3-entry-sends": (r_entry_sends, False), "xns3-exit-lag": (r_exit_lag, False),
    "xns3-exit-sack": (r_exit_sack, False), "xns3-snr": (r_snr, False), "xns3-diff": (r_diff, False),
    "xns3-ours": (r_ours, False), "xns3-sweep": (r_sweep, False),
    "xns3-span": (r_span, False),
}
