"""Renderers of ``docs/legilimens-ns3.md``: Legilimens in ns-3 against cellshare, Figures 7 and 12.

They read the stored artefacts of the two comparisons:

- ``tools/data/legilimens-ns3-fig12.md`` (``fig12-ns3``'s table: cellshare / ns-3 per scheme,
  layout and load, and the replay of ns-3's connection set-up);
- ``tools/data/legilimens-ns3-fig12.jsonl`` (the ns-3 runs, one JSON object per line: summary,
  transport-block bytes per group of UEs, connection set-up, Legilimens' modes, wall time);
- ``tools/data/legilimens-ns3-fig12-cellshare.json`` (``python tools/legilimens_ns3_cellshare.py
  --out FILE``: cellshare's runs with background totals and modes, and one-setting variants);
- ``tools/data/legilimens-ns3-fig12-padding.md`` (the same table with cellshare's PF padding as
  ns-3's, ``--cellshare-leftover padding``);
- ``tools/data/legilimens-ns3-fig7.jsonl`` (the ns-3 Figure 7 runs: Legilimens' mode log).

Arguments name a layout (``every``, ``some``), schemes (``CUBIC``, ``LEDBAT``, ``Vegas``,
``Legilimens``, ``none`` for "w/o bg", ``all`` for the four backgrounds, comma-separated), loads
in per cent (``30,60,80``; default all three) and a column of the table (``long``, ``bg``,
``fct50``, ``fct99``, ``fg``, ``replay``).

``lns3-agree TOL``, ``lns3-outside TOL``
    How many of the scheme × layout × load cases have ns-3's background per flow within ±TOL %
    of cellshare's ("18 of the 24"); the cases outside, grouped, with their differences.
``lns3-diff LAYOUT COLUMN SCHEMES [LOADS] [padded]``, ``lns3-within …``
    The span of ns-3's differences from cellshare in one column ("−5 to −14 %": the table's
    own printed differences where it has them, else from the printed values); the smallest
    whole ±bound that holds them all ("±8 %"). With ``padded``, from the comparison with
    cellshare padding as ns-3 (``tools/data/legilimens-ns3-fig12-padding.md``).
``lns3-cells LAYOUT COLUMN SCHEMES cellshare|ns-3 [LOADS] [padded]``, ``lns3-span …``
    One side's values of one row, per load, as the table prints them ("3.5 / 8.6 / 9.1"); or
    their span ("0.072–0.074").
``lns3-closed LAYOUT COLUMN SCHEME``
    Per load, the share of the cellshare–ns-3 gap that cellshare with ns-3's padding closes.
``lns3-moved padded|VARIANT SCHEMES``
    The largest change of a background per flow, over both layouts and the loads, with the
    padding or a variant of ``legilimens-ns3-fig12-cellshare.json``.
``lns3-vs cellshare|cellshare:VARIANT SCHEME LAYOUT``
    The span of cellshare's background per flow (or a variant's) against ns-3's, %.
``lns3-alone FILE SCHEME LAYOUT LOAD long|bg|fct50|fg``
    One number of a stored cellshare-alone table (``fig12-ns3 FILE``'s files).
``lns3-run SIDE KEY SCHEME LAYOUT [LOADS] [span]``
    One number of a run per load, joined by " / " (or the span with ``span``). SIDE ``ns-3``,
    ``cellshare`` or ``cellshare:VARIANT``; KEY ``bg``, ``bgtotal``, ``fg``, ``total``,
    ``long``, ``fct50`` (every side), ``modes`` (Legilimens' share of time per mode),
    ``backoff`` (its share in back-off), and for ns-3 ``blocks`` (Mbit/s of new transport
    blocks to the background UEs, ``blocks-other`` to the others), ``fill``, ``fill-other``,
    ``setup`` / ``setup99`` (median / p99 connection set-up, s), ``return`` (Legilimens' mean ACK return delay,
    ms), ``wall`` (s).
``lns3-total-ratio LAYOUT``
    The span of cellshare's total delivered (background + foreground) over ns-3's, over the
    four backgrounds and three loads.
``lns3-refill SCHEME LAYOUT``
    ns-3's background per flow with its blocks filled as CUBIC's in the same case (× CUBIC's
    fill / SCHEME's fill), against cellshare's, and the span of differences.
``lns3-padding SCHEME LAYOUT``
    The span over the loads of ns-3's block Mbit/s to SCHEME's background UEs beyond what
    blocks as full as CUBIC's would need (blocks × (1 − fill / CUBIC's fill)).
``lns3-ratio SIDE LAYOUT LOAD|avg``, ``lns3-gap SIDE LAYOUT LOAD|avg``
    Legilimens' background over LEDBAT's and Vegas'; the long foreground's gap 1 − beside
    Legilimens / without background.
``lns3-wall wobg|every|matrix``
    ns-3's wall time per 10 s case without background (s) and with one at every UE (min), and
    the hours the stored runs extrapolate to for the full matrix at 120 s per case.
``lns3-phy-same``, ``lns3-idle-timeouts``, ``lns3-longs LOAD``
    Whether recording the blocks changed ns-3's 60 % runs; the idle retransmission timeouts of
    every stored ns-3 Legilimens run; the long flows of the 10 s window at a load.
``lns3-fig7-stop STOP_S``, ``lns3-fig7-normal``
    ns-3 Legilimens' modes from the last GAP I before a stop of CUBIC to NORMAL after it; the
    time from its start to its first NORMAL.
"""
from __future__ import annotations

import json
import math
import re

from ..docgen import FIG12_NS3, DocgenError, _args, _Artefacts, _fig12_table, r_fig12_cells

FIG12_JSONL = "tools/data/legilimens-ns3-fig12.jsonl"
FIG12_CS = "tools/data/legilimens-ns3-fig12-cellshare.json"
FIG7_JSONL = "tools/data/legilimens-ns3-fig7.jsonl"
FIG12_PADDED = "tools/data/legilimens-ns3-fig12-padding.md"

BACKGROUNDS = ("CUBIC", "LEDBAT", "Vegas", "Legilimens")
LOADS = (30, 60, 80)
COLUMNS = {"long": ("main", 0), "bg": ("main", 1), "fct50": ("main", 2), "fct99": ("main", 3), "fg": ("main", 4),
           "replay": ("replay", 0)}
MODES = ("NORMAL", "GAP I", "GAP II", "GAP III", "back-off")


def _minus(s: str) -> str:
    return s.replace("-", "−")


def _pct(d: float) -> str:
    return _minus(f"{round(d):+d}").replace("+0", "0")


def _span(ds: list[float], unit: str = " %") -> str:
    lo, hi = min(ds), max(ds)
    if round(lo) == round(hi):
        return f"{_pct(lo)}{unit}"
    # Negative spans read from the smallest difference to the largest ("−5 to −14 %").
    if hi <= 0:
        lo, hi = hi, lo
    return f"{_pct(lo)} to {_pct(hi)}{unit}"


def _schemes(arg: str, name: str) -> list[str]:
    out = []
    for s in arg.split(","):
        s = {"none": "w/o bg"}.get(s, s)
        if s == "all":
            out += BACKGROUNDS
        elif s in BACKGROUNDS or s == "w/o bg":
            out.append(s)
        else:
            raise DocgenError(f"renderer {name!r}: scheme {s!r} is not one of {', '.join(BACKGROUNDS)}, none or all")
    return out


def _layout(arg: str, name: str) -> str:
    if arg not in ("every", "some"):
        raise DocgenError(f"renderer {name!r}: layout {arg!r} is not every or some")
    return arg


def _loads(arg: str | None, name: str) -> list[int]:
    if arg is None:
        return list(LOADS)
    try:
        out = [int(x) for x in arg.split(",")]
    except ValueError:
        raise DocgenError(f"renderer {name!r}: loads {arg!r} are not per cents like 30,60,80") from None
    for x in out:
        if x not in LOADS:
            raise DocgenError(f"renderer {name!r}: load {x} is not one of {', '.join(map(str, LOADS))}")
    return out


def _column(arg: str, name: str) -> tuple[str, int]:
    if arg not in COLUMNS:
        raise DocgenError(f"renderer {name!r}: column {arg!r} is not one of {', '.join(COLUMNS)}")
    return COLUMNS[arg]


def _table(a: _Artefacts, rel: str = FIG12_NS3) -> dict:
    """The stored comparison ``rel`` as :func:`cellshare.docgen._fig12_table` reads it."""
    return _fig12_table(a, rel)


def _pair(a: _Artefacts, layout: str, col: str, scheme: str, load: int, name: str,
          rel: str = FIG12_NS3) -> tuple:
    table, i = _column(col, name)
    row = _table(a, rel).get((layout, table, scheme, load))
    if row is None or row[i] is None:
        raise DocgenError(f"renderer {name!r}: {rel} has no {col} value for {scheme} / {layout} at {load} %")
    return row[i]


def _diff(pair: tuple) -> float:
    """ns-3 against cellshare, %: the table's own difference where it prints one (from the
    unrounded values), else from the printed values."""
    if pair[2] is not None:
        return float(pair[2])
    cs, ns = float(pair[0]), float(pair[1])
    return (ns / cs - 1) * 100


def _ns3_runs(a: _Artefacts, rel: str) -> dict:
    key = "lns3:" + rel
    if key not in a._cache:
        p = a.root / rel
        if not p.is_file():
            raise DocgenError(f"{rel} not found (written by tools/legilimens_study.py)")
        runs = {}
        for ln in p.read_text().splitlines():
            if ln.strip():
                d = json.loads(ln)
                runs[d["case"]] = d["result"]
        a._cache[key] = runs
    return a._cache[key]


def _ns3_case(a: _Artefacts, scheme: str, layout: str, load: int, name: str, phy: bool = True) -> dict:
    case = f"fig12-{scheme}-{layout if scheme != 'w/o bg' else 'any'}-load{load}-10s-seed1" + ("-phy" if phy else "")
    runs = _ns3_runs(a, FIG12_JSONL)
    if case not in runs:
        raise DocgenError(f"renderer {name!r}: no ns-3 run {case!r} in {FIG12_JSONL}")
    return runs[case]


def _cs_case(a: _Artefacts, variant: str | None, scheme: str, layout: str, load: int, name: str) -> dict:
    d = a.load(FIG12_CS)
    src = d["cases"] if variant is None else d["variants"].get(variant)
    if src is None:
        raise DocgenError(f"renderer {name!r}: no variant {variant!r} in {FIG12_CS} (variants: {', '.join(d['variants'])})")
    key = f"{scheme}|{layout if scheme != 'w/o bg' else 'every'}|{load / 100:g}"
    if key not in src:
        of = "" if variant is None else f" of {variant}"
        raise DocgenError(f"renderer {name!r}: no cellshare run {key!r}{of} in {FIG12_CS}")
    return src[key]


_SUMMARY = {"bg": ("bg_mbps", 2), "bgtotal": ("bg_total_mbps", 1), "fg": ("fg_mbps", 1), "long": ("long_mbps", 2),
            "fct50": ("short_fct_p50_s", 3)}
_NS3_ONLY = ("blocks", "blocks-other", "fill", "fill-other", "setup", "setup99", "return", "wall")


def _number(run: dict, key: str, side: str, name: str, duration: float = 10.0) -> tuple[float, int]:
    """(value, decimals) of KEY in one run."""
    s = run["summary"]
    if key in _SUMMARY:
        k, nd = _SUMMARY[key]
        if s.get(k) is None or (isinstance(s[k], float) and math.isnan(s[k])):
            raise DocgenError(f"renderer {name!r}: {side} has no {key} in this run (no such flow in the window)")
        return s[k], nd
    if key == "total":
        return s["bg_total_mbps"] + s["fg_mbps"], 1
    if key == "backoff":
        if "mode_share" not in run:
            raise DocgenError(f"renderer {name!r}: {side}'s run has no Legilimens modes")
        return run["mode_share"][4] * 100, 0
    if key not in _NS3_ONLY or side != "ns-3":
        raise DocgenError(f"renderer {name!r}: key {key!r} is not one of {', '.join([*_SUMMARY, 'total', 'modes', 'backoff'])}"
                          f" (ns-3 also {', '.join(_NS3_ONLY)})")
    group = "other UEs" if key.endswith("-other") else "background UEs"
    if key.startswith(("blocks", "fill")):
        phy = run.get("phy", {}).get(group)
        if phy is None:
            raise DocgenError(f"renderer {name!r}: the ns-3 run recorded no blocks to {group}")
        return (phy["tb_bytes"] * 8 / duration / 1e6, 1) if key.startswith("blocks") else (phy["fill"], 2)
    if key in ("setup", "setup99"):
        return run["setup_s"]["0.5" if key == "setup" else "0.99"], 3 if key == "setup" else 1
    if key == "return":
        if "return_delay_ms" not in run:
            raise DocgenError(f"renderer {name!r}: the ns-3 run has no Legilimens return delay")
        return run["return_delay_ms"]["mean"], 0
    return run["wall_s"], 0


def _fmt_vals(vals: list[tuple[float, int]], span: bool) -> str:
    if span:
        lo, hi = min(v for v, _ in vals), max(v for v, _ in vals)
        nd = vals[0][1]
        a, b = f"{lo:.{nd}f}", f"{hi:.{nd}f}"
        return a if a == b else f"{a}–{b}"
    return " / ".join(f"{v:.{nd}f}" for v, nd in vals)


# -- renderers ---------------------------------------------------------------------------------

def _bg_diffs(a: _Artefacts) -> list[tuple[str, str, int, float]]:
    return [(s, lay, ld, _diff(_pair(a, lay, "bg", s, ld, "lns3-agree")))
            for lay in ("every", "some") for s in BACKGROUNDS for ld in LOADS]


def _tol(args: list[str], name: str) -> float:
    tol = _args(args, 1, name, f"{name} TOL")[0]
    try:
        return float(tol)
    except ValueError:
        raise DocgenError(f"renderer {name!r}: TOL {tol!r} is not a number of per cent") from None


def r_agree(a: _Artefacts, args: list[str]) -> str:
    tol = _tol(args, "lns3-agree")
    ds = _bg_diffs(a)
    return f"{sum(abs(d) <= tol for *_, d in ds)} of the {len(ds)}"


def r_outside(a: _Artefacts, args: list[str]) -> str:
    tol = _tol(args, "lns3-outside")
    groups: dict = {}
    for s, lay, ld, d in _bg_diffs(a):
        if abs(d) > tol:
            groups.setdefault((s, lay), []).append((ld, d))
    if not groups:
        return "none"
    parts = []
    for (s, lay), items in groups.items():
        where = "at every UE" if lay == "every" else "at 10 UEs"
        if len(items) == len(LOADS):
            parts.append(f"{s} {where} ({_span([d for _, d in items])})")
        else:
            parts.append(f"{s} {where} at " + " and ".join(f"{ld} % ({_pct(d)} %)" for ld, d in items))
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _padded(args: list[str]) -> tuple[list[str], str]:
    """A trailing ``padded``: read the comparison with cellshare padding as ns-3."""
    if args and args[-1] == "padded":
        return args[:-1], FIG12_PADDED
    return args, FIG12_NS3


def _diffs(a: _Artefacts, args: list[str], name: str) -> list[float]:
    args, rel = _padded(args)
    lay, col, schemes, *rest = _args(args, 3, name, f"{name} LAYOUT COLUMN SCHEMES [LOADS] [padded]")
    lay, schemes, loads = _layout(lay, name), _schemes(schemes, name), _loads(rest[0] if rest else None, name)
    return [_diff(_pair(a, lay, col, s, ld, name, rel)) for s in schemes for ld in loads]


def r_diff(a: _Artefacts, args: list[str]) -> str:
    return _span(_diffs(a, args, "lns3-diff"))


def r_within(a: _Artefacts, args: list[str]) -> str:
    return f"±{math.ceil(max(abs(d) for d in _diffs(a, args, 'lns3-within')) - 1e-9)} %"


def _table_cells(a: _Artefacts, args: list[str], name: str) -> list[str]:
    args, rel = _padded(args)
    lay, col, scheme, side, *rest = _args(args, 4, name, f"{name} LAYOUT COLUMN SCHEMES cellshare|ns-3 [LOADS] [padded]")
    if side not in ("cellshare", "ns-3"):
        raise DocgenError(f"renderer {name!r}: side {side!r} is not cellshare or ns-3")
    loads = _loads(rest[0] if rest else None, name)
    return [_pair(a, _layout(lay, name), col, s, ld, name, rel)[side == "ns-3"]
            for s in _schemes(scheme, name) for ld in loads]


def r_cells(a: _Artefacts, args: list[str]) -> str:
    return " / ".join(_table_cells(a, args, "lns3-cells"))


def r_span(a: _Artefacts, args: list[str]) -> str:
    cells = sorted(_table_cells(a, args, "lns3-span"), key=float)
    return cells[0] if cells[0] == cells[-1] else f"{cells[0]}–{cells[-1]}"


def r_closed(a: _Artefacts, args: list[str]) -> str:
    lay, col, scheme = _args(args, 3, "lns3-closed", "lns3-closed LAYOUT COLUMN SCHEME")[:3]
    lay, s = _layout(lay, "lns3-closed"), _schemes(scheme, "lns3-closed")[0]
    out = []
    for ld in LOADS:
        cs, ns = map(float, _pair(a, lay, col, s, ld, "lns3-closed")[:2])
        padded = float(_pair(a, lay, col, s, ld, "lns3-closed", FIG12_PADDED)[0])
        if cs == ns:
            raise DocgenError(f"renderer 'lns3-closed': no gap to close for {s} / {lay} at {ld} %")
        out.append(f"{(cs - padded) / (cs - ns) * 100:.0f}")
    return " / ".join(out) + " %"


def r_moved(a: _Artefacts, args: list[str]) -> str:
    variant, scheme = _args(args, 2, "lns3-moved", "lns3-moved padded|VARIANT SCHEMES")[:2]
    schemes = _schemes(scheme, "lns3-moved")
    moves = []
    for s in schemes:
        for lay in ("every", "some"):
            for ld in LOADS:
                if variant == "padded":
                    moves.append(abs(float(_pair(a, lay, "bg", s, ld, "lns3-moved", FIG12_PADDED)[0])
                                     - float(_pair(a, lay, "bg", s, ld, "lns3-moved")[0])))
                else:
                    moves.append(abs(_cs_case(a, variant, s, lay, ld, "lns3-moved")["summary"]["bg_mbps"]
                                     - _cs_case(a, None, s, lay, ld, "lns3-moved")["summary"]["bg_mbps"]))
    return f"{max(moves):.2f} Mbit/s"


def r_vs(a: _Artefacts, args: list[str]) -> str:
    side, scheme, lay = _args(args, 3, "lns3-vs", "lns3-vs cellshare|cellshare:VARIANT SCHEME LAYOUT")[:3]
    s, lay = _schemes(scheme, "lns3-vs")[0], _layout(lay, "lns3-vs")
    if side != "cellshare" and not side.startswith("cellshare:"):
        raise DocgenError(f"renderer 'lns3-vs': side {side!r} is not cellshare or cellshare:VARIANT")
    variant = side.split(":", 1)[1] if ":" in side else None
    ds = [(_cs_case(a, variant, s, lay, ld, "lns3-vs")["summary"]["bg_mbps"]
           / _ns3_case(a, s, lay, ld, "lns3-vs")["summary"]["bg_mbps"] - 1) * 100 for ld in LOADS]
    return _span(ds)


_ALONE_FIELDS = {"long": 0, "bg": 1, "fct50": 2, "fg": 3}


def r_alone(a: _Artefacts, args: list[str]) -> str:
    rel, scheme, lay, ld, field = _args(args, 5, "lns3-alone", "lns3-alone FILE SCHEME LAYOUT LOAD FIELD")[:5]
    if field not in _ALONE_FIELDS:
        raise DocgenError(f"renderer 'lns3-alone': field {field!r} is not one of {', '.join(_ALONE_FIELDS)}")
    load = _loads(ld, "lns3-alone")[0]
    cells = r_fig12_cells(a, [rel, _schemes(scheme, "lns3-alone")[0], _layout(lay, "lns3-alone")]).split(", ")
    return cells[LOADS.index(load)].split(" / ")[_ALONE_FIELDS[field]]


def r_run(a: _Artefacts, args: list[str]) -> str:
    side, key, scheme, lay, *rest = _args(args, 4, "lns3-run", "lns3-run SIDE KEY SCHEME LAYOUT [LOADS] [span]")
    span = bool(rest) and rest[-1] == "span"
    rest = rest[:-1] if span else rest
    loads = _loads(rest[0] if rest else None, "lns3-run")
    lay = _layout(lay, "lns3-run")
    schemes = _schemes(scheme, "lns3-run")
    if side == "ns-3":
        runs = [_ns3_case(a, s, lay, ld, "lns3-run") for s in schemes for ld in loads]
    elif side == "cellshare" or side.startswith("cellshare:"):
        variant = side.split(":", 1)[1] if ":" in side else None
        runs = [_cs_case(a, variant, s, lay, ld, "lns3-run") for s in schemes for ld in loads]
    else:
        raise DocgenError(f"renderer 'lns3-run': side {side!r} is not ns-3, cellshare or cellshare:VARIANT")
    if key == "modes":
        if any("mode_share" not in r for r in runs):
            raise DocgenError(f"renderer 'lns3-run': {side} has no Legilimens modes for {scheme}")
        return "; ".join(" / ".join(f"{x:.2f}" for x in r["mode_share"]) for r in runs)
    vals = [_number(r, key, side, "lns3-run") for r in runs]
    return _fmt_vals(vals, span) + (" %" if key == "backoff" else "")


def r_total_ratio(a: _Artefacts, args: list[str]) -> str:
    lay = _layout(_args(args, 1, "lns3-total-ratio", "lns3-total-ratio LAYOUT")[0], "lns3-total-ratio")
    vals = []
    for s in BACKGROUNDS:
        for ld in LOADS:
            cs = _number(_cs_case(a, None, s, lay, ld, "lns3-total-ratio"), "total", "cellshare", "lns3-total-ratio")[0]
            ns = _number(_ns3_case(a, s, lay, ld, "lns3-total-ratio"), "total", "ns-3", "lns3-total-ratio")[0]
            vals.append((cs / ns, 2))
    return _fmt_vals(vals, True)


def _refill(a: _Artefacts, scheme: str, lay: str, ld: int, name: str) -> float:
    run = _ns3_case(a, scheme, lay, ld, name)
    cubic = _ns3_case(a, "CUBIC", lay, ld, name)
    return run["summary"]["bg_mbps"] * _number(cubic, "fill", "ns-3", name)[0] / _number(run, "fill", "ns-3", name)[0]


def r_refill(a: _Artefacts, args: list[str]) -> str:
    scheme, lay = _args(args, 2, "lns3-refill", "lns3-refill SCHEME LAYOUT")[:2]
    s, lay = _schemes(scheme, "lns3-refill")[0], _layout(lay, "lns3-refill")
    ns = [_refill(a, s, lay, ld, "lns3-refill") for ld in LOADS]
    cs = [_cs_case(a, None, s, lay, ld, "lns3-refill")["summary"]["bg_mbps"] for ld in LOADS]
    return (" / ".join(f"{x:.2f}" for x in ns) + " Mbit/s per flow against cellshare's "
            + " / ".join(f"{x:.2f}" for x in cs) + f" ({_span([(n / c - 1) * 100 for n, c in zip(ns, cs)])})")


def r_padding(a: _Artefacts, args: list[str]) -> str:
    scheme, lay = _args(args, 2, "lns3-padding", "lns3-padding SCHEME LAYOUT")[:2]
    s, lay = _schemes(scheme, "lns3-padding")[0], _layout(lay, "lns3-padding")
    vals = []
    for ld in LOADS:
        run, cubic = _ns3_case(a, s, lay, ld, "lns3-padding"), _ns3_case(a, "CUBIC", lay, ld, "lns3-padding")
        blocks, fill = _number(run, "blocks", "ns-3", "lns3-padding")[0], _number(run, "fill", "ns-3", "lns3-padding")[0]
        vals.append((blocks * (1 - fill / _number(cubic, "fill", "ns-3", "lns3-padding")[0]), 1))
    return _fmt_vals(vals, True)


def _side_summary(a: _Artefacts, side: str, s: str, lay: str, ld: int, name: str) -> dict:
    if side == "ns-3":
        return _ns3_case(a, s, lay, ld, name)["summary"]
    if side == "cellshare":
        return _cs_case(a, None, s, lay, ld, name)["summary"]
    raise DocgenError(f"renderer {name!r}: side {side!r} is not cellshare or ns-3")


def _per_load(a: _Artefacts, args: list[str], name: str, key: str, schemes: tuple) -> tuple[dict, str]:
    side, lay, ld = _args(args, 3, name, f"{name} cellshare|ns-3 LAYOUT LOAD|avg")[:3]
    lay = _layout(lay, name)
    loads = list(LOADS) if ld == "avg" else _loads(ld, name)
    out = {}
    for s in schemes:
        vals = [_side_summary(a, side, s, lay, x, name)[key] for x in loads]
        vals = [v for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
        if not vals:
            raise DocgenError(f"renderer {name!r}: {side} has no {key} for {s} at {ld}")
        out[s] = sum(vals) / len(vals)
    return out, side


def r_ratio(a: _Artefacts, args: list[str]) -> str:
    v, _ = _per_load(a, args, "lns3-ratio", "bg_mbps", ("Legilimens", "LEDBAT", "Vegas"))
    return f"{v['Legilimens'] / v['LEDBAT']:.2f} of LEDBAT's and {v['Legilimens'] / v['Vegas']:.2f} of Vegas'"


def r_gap(a: _Artefacts, args: list[str]) -> str:
    v, _ = _per_load(a, args, "lns3-gap", "long_mbps", ("Legilimens", "w/o bg"))
    return f"{(1 - v['Legilimens'] / v['w/o bg']) * 100:.0f} %"


def r_wall(a: _Artefacts, args: list[str]) -> str:
    kind = _args(args, 1, "lns3-wall", "lns3-wall wobg|every|matrix")[0]
    if kind == "wobg":
        return _fmt_vals([(_ns3_case(a, "w/o bg", "every", ld, "lns3-wall")["wall_s"], 0) for ld in LOADS], True) + " s"
    if kind == "every":
        return _fmt_vals([(_ns3_case(a, s, "every", ld, "lns3-wall")["wall_s"] / 60, 1) for s in BACKGROUNDS
                          for ld in LOADS], True) + " min"
    if kind == "matrix":
        total = sum(_ns3_case(a, s, lay, ld, "lns3-wall")["wall_s"] for lay in ("every", "some")
                    for s in BACKGROUNDS + (("w/o bg",) if lay == "every" else ()) for ld in LOADS)
        return f"about {total * 120 / 10 / 3600:.0f} hours"
    raise DocgenError(f"renderer 'lns3-wall': {kind!r} is not wobg, every or matrix")


def r_phy_same(a: _Artefacts, args: list[str]) -> str:
    cases = [(s, lay) for lay in ("every", "some") for s in BACKGROUNDS] + [("w/o bg", "every")]
    differ = [f"{s} / {lay}" for s, lay in cases
              if _ns3_case(a, s, lay, 60, "lns3-phy-same")["summary"] != _ns3_case(a, s, lay, 60, "lns3-phy-same",
                                                                                    phy=False)["summary"]]
    if not differ:
        return f"the {len(cases)} runs at 60 % give identical results with and without it"
    return f"the runs at 60 % differ with and without it in {len(differ)} of {len(cases)} cases ({', '.join(differ)})"


def r_idle_timeouts(a: _Artefacts, args: list[str]) -> str:
    runs = [r for r in _ns3_runs(a, FIG12_JSONL).values() if "idle_timeouts" in r]
    runs += [r for r in _ns3_runs(a, FIG7_JSONL).values() if "idle_timeouts" in r]
    n = sum(r["idle_timeouts"] for r in runs)
    return f"{n} in the {len(runs)} stored ns-3 runs with Legilimens"


def r_longs(a: _Artefacts, args: list[str]) -> str:
    ld = _loads(_args(args, 1, "lns3-longs", "lns3-longs LOAD")[0], "lns3-longs")[0]
    longs = _ns3_case(a, "w/o bg", "every", ld, "lns3-longs")["longs"]
    words = {0: "none", 1: "one", 2: "two", 3: "three"}
    return words.get(len(longs), str(len(longs))) + "".join(
        f", to UE {ue} arriving at {t:.2f} s" for ue, t, *_ in longs)


def r_fig7_stop(a: _Artefacts, args: list[str]) -> str:
    arg = _args(args, 1, "lns3-fig7-stop", "lns3-fig7-stop STOP_S")[0]
    try:
        stop = float(arg)
    except ValueError:
        raise DocgenError(f"renderer 'lns3-fig7-stop': STOP_S {arg!r} is not a number of seconds") from None
    runs = [r for r in _ns3_runs(a, FIG7_JSONL).values() if "modes" in r]
    if not runs:
        raise DocgenError(f"renderer 'lns3-fig7-stop': {FIG7_JSONL} has no mode log")
    log = runs[0]["modes"]
    after = [i for i, (t, m) in enumerate(log) if t > stop and m == 0]
    if not after:
        raise DocgenError(f"renderer 'lns3-fig7-stop': no NORMAL after {stop:g} s in {FIG7_JSONL}")
    end = after[0]
    start = max(i for i, (t, m) in enumerate(log[:end]) if m == 1 and t <= stop)
    steps = []
    for (t, m), (t2, _) in zip(log[start:end], log[start + 1:end + 1]):
        if m == 4:
            steps.append(f"back-off {t:.2f}–{t2:.2f} s (a {t2 - t:.2f} s wait)")
        else:
            steps.append(f"{MODES[m]} at {t:.2f} s")
    return (", ".join(steps) + f", NORMAL at {log[end][0]:.2f} s, {log[end][0] - stop:.2f} s after CUBIC's stop at "
            f"{stop:g} s")


def r_fig7_normal(a: _Artefacts, args: list[str]) -> str:
    runs = [r for r in _ns3_runs(a, FIG7_JSONL).values() if "modes" in r]
    if not runs:
        raise DocgenError(f"renderer 'lns3-fig7-normal': {FIG7_JSONL} has no mode log")
    log = runs[0]["modes"]
    first = [t for t, m in log if m == 0]
    if not first:
        raise DocgenError(f"renderer 'lns3-fig7-normal': {FIG7_JSONL}'s Legilimens never reached NORMAL")
    return f"{first[0] - log[0][0]:.2f} s"


RENDERERS = {
    "lns3-span": (r_span, False),
    "lns3-closed": (r_closed, False),
    "lns3-moved": (r_moved, False),
    "lns3-vs": (r_vs, False),
    "lns3-alone": (r_alone, False),
    "lns3-fig7-normal": (r_fig7_normal, False),
    "lns3-agree": (r_agree, False),
    "lns3-outside": (r_outside, False),
    "lns3-diff": (r_diff, False),
    "lns3-within": (r_within, False),
    "lns3-cells": (r_cells, False),
    "lns3-run": (r_run, False),
    "lns3-total-ratio": (r_total_ratio, False),
    "lns3-refill": (r_refill, False),
    "lns3-padding": (r_padding, False),
    "lns3-ratio": (r_ratio, False),
    "lns3-gap": (r_gap, False),
    "lns3-wall": (r_wall, False),
    "lns3-phy-same": (r_phy_same, False),
    "lns3-idle-timeouts": (r_idle_timeouts, False),
    "lns3-longs": (r_longs, False),
    "lns3-fig7-stop": (r_fig7_stop, False),
}
