"""The head-to-head study's report (HTML with a Pareto figure per load, the tables and the
conclusions the intervals support) and its docs page ("Which mechanism should you
deploy?"), both from the aggregate document :func:`head_to_head.aggregate` writes."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Optional

from ..report import _save, _style
from ..report_common import plain_log, table_html
from . import fmt

#: Colour and marker per family (colour-blind safe, matplotlib's tab palette).
FAMILY_STYLE = {
    "no management": ("tab:red", "o"),
    "end host": ("tab:blue", "s"),
    "in network": ("tab:green", "^"),
    "receiver": ("tab:purple", "D"),
    "combination": ("tab:orange", "P"),
}


def columns(doc: dict) -> list[tuple[str, str]]:
    """The columns of the tables: (metric key, header)."""
    return [
        ("harm", "harm %"),
        *[(f"fct_{p}_{s}_s", f"{s} FCT {p} (s)") for s in doc["design"]["sizes"] for p in ("p50", "p95")],
        (f"completed_{doc['design']['sizes'][-1]}", f"{doc['design']['sizes'][-1]} done"),
        ("fg_long_mbps", "fg long Mbit/s"),
        ("bg_goodput_mbps", "bg Mbit/s"),
        ("fg_qdelay_p99_ms", "fg p99 queue ms"),
        ("bg_jain", "bg Jain"),
        ("fg_timeouts", "fg RTOs"),
        ("bg_timeouts", "bg RTOs"),
    ]


def _title(doc: dict) -> str:
    quick = " — QUICK mode (fewer seeds, shorter runs)" if doc["mode"] == "quick" else ""
    return f"Head to head: background-traffic mechanisms on one cell{quick}"


def _variants(doc: dict) -> list[dict]:
    return doc["design"]["variants_detail"]


def _cells(doc: dict, variant: str, load: float) -> list[dict]:
    return [c for c in doc["cells"] if c["variant"] == variant and c["load"] == load]


def _loads(doc: dict) -> list[float]:
    return sorted({c["load"] for c in doc["cells"]})


def _pct(load: float) -> str:
    return f"{load * 100:.0f} %"


def _cell_text(c: dict, key: str) -> str:
    s = c["metrics"][key]
    return fmt(s["mean"], s["ci"])


def table_rows(doc: dict, variant: str, load: float) -> tuple[list[str], list[list[str]]]:
    """The table of one variant and load: a row per mechanism, mean ± 95 % half-width."""
    cols, ref = columns(doc), doc["design"]["reference"]
    header = ["mechanism", "family", *[h for _, h in cols]]
    rows = []
    for c in _cells(doc, variant, load):
        rows.append([c["mechanism"], c["family"],
                     *["–" if (k == "harm" and c["mechanism"] == ref) else _cell_text(c, k) for k, _ in cols]])
    return header, rows


#: Markers given in turn to the mechanisms of a family (the family gives the colour).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">")


def _styles(doc: dict) -> dict[str, tuple[str, str]]:
    """Colour (the family's) and marker (distinct within the family) per mechanism."""
    out, used = {}, {}
    for m in doc["design"]["mechanisms_detail"]:
        if m["family"] not in FAMILY_STYLE:
            continue
        k = used.get(m["family"], 0)
        used[m["family"]] = k + 1
        out[m["label"]] = (FAMILY_STYLE[m["family"]][0], MARKERS[k % len(MARKERS)])
    return out


def pareto(doc: dict, load: float, out: Path) -> Optional[str]:
    """The Pareto figure of one load: a panel per layout with that load, the foreground's
    FCT inflation (1 + harm, log axis) against background goodput, one point per mechanism
    with its intervals."""
    plt = _style()
    variants = [v for v in _variants(doc) if _cells(doc, v["key"], load)]
    if not variants:
        return None
    styles = _styles(doc)
    fig, axes = plt.subplots(1, len(variants), figsize=(5.2 * len(variants), 4.4), squeeze=False)
    shown = {}
    for ax, v in zip(axes[0], variants):
        for c in _cells(doc, v["key"], load):
            if c["mechanism"] not in styles:
                continue
            x, y = c["metrics"]["bg_goodput_mbps"], c["metrics"]["harm"]
            if x["mean"] is None or y["mean"] is None:
                continue
            f = 1 + y["mean"] / 100
            half = (y["ci"] or 0.0) / 100
            lo = min(half, f - 1e-3)  # a log axis cannot reach zero
            color, marker = styles[c["mechanism"]]
            shown[c["mechanism"]] = ax.errorbar(x["mean"], f, xerr=x["ci"] or 0.0, yerr=[[lo], [half]], fmt=marker,
                                                color=color, ms=6, capsize=2, lw=1, mfc="white" if marker in "ox" else color)
        ax.set_yscale("log")
        plain_log(ax.yaxis)
        ax.axhline(1, color="black", lw=0.8, ls="--")
        ax.set_xlabel("background goodput (Mbit/s, all background flows)")
        ax.set_ylabel("foreground FCT / without background (×)")
        ax.set_title(v["title"], fontsize=9)
    names = [m for m in styles if m in shown]
    fig.legend([shown[m] for m in names], names, loc="lower center", ncol=min(7, len(names)), frameon=False,
               bbox_to_anchor=(0.5, -0.02), fontsize=8)
    mode = " (quick mode)" if doc["mode"] == "quick" else ""
    fig.suptitle(f"Load {_pct(load)}{mode}: lower is better for the foreground (1 = as without background), right "
                 "is more background; bars: 95 % intervals over seeds", fontsize=9)
    rows = -(-len(names) // 7)
    fig.tight_layout(rect=(0, 0.05 * rows + 0.02, 1, 1))
    return _save(fig, out, f"pareto-load{round(load * 100)}")


def _design_html(doc: dict) -> str:
    d = doc["design"]
    items = [
        f"<b>Mode</b>: {html.escape(doc['mode'])} — {len(d['seeds'])} seeds ({', '.join(map(str, d['seeds']))}), "
        f"{d['duration_s']:g} simulated s per run, {d['runs']} runs",
        f"<b>Cell</b>: {html.escape(d['cell'])}; {d['n_ues']} UEs",
        f"<b>Workload</b>: {html.escape(d['workload'])}; loads {', '.join(_pct(l) for l in d['loads'])}",
        "<b>Layouts</b>: " + "; ".join(html.escape(v["title"]) + (f" (load {', '.join(_pct(l) for l in v['loads'])})"
                                                                if v.get("loads") else "") for v in _variants(doc)),
    ]
    mech = "".join(f"<tr><td>{html.escape(m['label'])}</td><td>{html.escape(m['family'])}</td>"
                   f"<td style=\"text-align:left\">{html.escape(m['what'])}</td></tr>" for m in d["mechanisms_detail"])
    runs = doc.get("runs") or {}
    if runs:
        items.append(f"<b>This output</b>: {runs['total']} runs ({runs['ran']} run now, {runs['resumed']} resumed), "
                     f"{runs['wall_s']:g} s wall clock; the runs' own wall clock {runs['run_wall_s']:g} s, their CPU time "
                     f"{runs['run_cpu_s']:g} s" + (f" ({html.escape(runs['run_cpu_s_note'])})" if runs.get("run_cpu_s_note") else ""))
    return ("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
            "<table><thead><tr><th>mechanism</th><th>family</th><th>what</th></tr></thead><tbody>" + mech +
            "</tbody></table>"
            "<h3>Choices</h3><ul>" + "".join(f"<li>{html.escape(c)}</li>" for c in d.get("choices", ())) + "</ul>"
            "<p>Harm to the foreground: for each seed, the geometric mean over the six FCT percentiles (p50 and p95 of the "
            "short, medium and long flows) of the ratio to the same seed's run without background, minus one, in %. "
            "Flows arriving in the last 10 % of a run are left out of the FCT statistics; a flow still running at the "
            "end counts at its age (a lower bound). Every number is the mean over seeds ± the half-width of its "
            "t-based 95 % confidence interval. A conclusion is stated only where intervals do not overlap.</p>")


def report_html(doc: dict, out: Path) -> str:
    sections = [f"<section id=\"design\"><h2>Design</h2>{_design_html(doc)}</section>"]
    concl = []
    for c in doc["conclusions"]:
        v = next(x for x in _variants(doc) if x["key"] == c["variant"])
        concl.append(f"<h3>{html.escape(v['title'])}, load {_pct(c['load'])}</h3><ul>"
                     + "".join(f"<li>{html.escape(line)}</li>" for line in c["lines"]) + "</ul>")
    same = _identical_text(doc)
    if same:
        concl.append(f"<p>{html.escape(same)}</p>")
    sections.append("<section id=\"conclusions\"><h2>Conclusions</h2>" + "".join(concl) + "</section>")
    for load in _loads(doc):
        img = pareto(doc, load, out)
        body = ""
        if img:
            body += (f'<figure><img src="{img}" alt="Pareto figure, load {_pct(load)}"><figcaption>The '
                     "foreground's FCT inflation (1 + harm: the geometric mean of its six FCT percentiles over those "
                     f"of the same seed without background, log axis) against background goodput at load "
                     f"{_pct(load)}, one point per mechanism with its 95 % intervals; the colour is the family. "
                     f'<a href="{img[:-4]}.pdf">PDF</a></figcaption></figure>')
        for v in _variants(doc):
            if not _cells(doc, v["key"], load):
                continue
            header, rows = table_rows(doc, v["key"], load)
            body += f"<h3>{html.escape(v['title'])}</h3>" + table_html(header, rows)
        sections.append(f"<section id=\"load-{round(load * 100)}\"><h2>Load {_pct(load)}</h2>{body}</section>")
    css = ("body{font-family:system-ui,sans-serif;max-width:1250px;margin:2em auto;padding:0 1em;color:#222}"
           "img{max-width:100%}table{border-collapse:collapse;font-size:0.8em;margin:0.5em 0 2em}"
           "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f3f3f3}"
           "td:first-child,th:first-child,td:nth-child(2){text-align:left}figcaption{font-size:0.9em;color:#444}"
           ".quick{background:#fff3cd;border:1px solid #e0c36c;padding:0.5em 1em}")
    banner = ("<p class=\"quick\">Quick mode: fewer seeds and shorter runs than the full study; intervals are wider "
              "and long flows rarely finish. Run without <code>--quick</code> for the numbers to quote.</p>"
              if doc["mode"] == "quick" else "")
    title = _title(doc)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{css}</style></head><body><h1>{html.escape(title)}</h1>{banner}" + "".join(sections)
            + "</body></html>\n")


def _identical_text(doc: dict) -> str:
    pairs = doc.get("identical") or []
    if not pairs:
        return ""
    return ("Identical in every number of every setting: " + "; ".join(f"{b} and {a}" for a, b in pairs)
            + ". What the first of each pair adds to the second never acted on the background here (e.g. a receive "
            "window that never fell below the sender's congestion window).")


def write_report(doc: dict, out: Path) -> Path:
    """Writes ``out/index.html`` with its figures; returns the page's path."""
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(report_html(doc, out))
    return index


# -- the docs page ------------------------------------------------------------------------

def _md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


#: The docs page's figures, in docs/img/.
DOCS_FIGURE = "head-to-head-load{load}.png"


def docs_figures(doc: dict, img: Path) -> list[Path]:
    """Draws the page's Pareto figures into `img` (docs/img); returns the files written."""
    import shutil
    import tempfile

    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for load in _loads(doc):
            name = pareto(doc, load, Path(tmp))
            if name:
                dst = img / DOCS_FIGURE.format(load=round(load * 100))
                shutil.copyfile(Path(tmp) / name, dst)
                written.append(dst)
    return written


def docs_page(doc: dict) -> str:
    """The page "Which mechanism should you deploy?" (docs/head-to-head.md) from the
    committed study output."""
    d = doc["design"]
    quick = doc["mode"] == "quick"
    out = ["# Which mechanism should you deploy?", "",
           "<!-- Generated by `cellshare study head-to-head --render-docs` from "
           "python/cellshare/data/study/head-to-head.json; do not edit by hand. -->", ""]
    out += ["An operator (in the network), a CDN (at the sender) or a phone vendor (at the receiver) can each keep "
            "background downloads out of the way of foreground traffic. The papers each compare their own mechanism "
            "with a few baselines on their own set-up; `cellshare study head-to-head` compares all of them on one "
            "cell, one workload and one set of metrics, with 95 % confidence intervals on every number.", ""]
    if quick:
        out += ["!!! warning \"Quick mode\"", "    The numbers below come from the study's quick mode "
                f"({len(d['seeds'])} seeds, {d['duration_s']:g} s runs): intervals are wide and long flows rarely "
                "finish. Run the full study for the numbers to quote.", ""]
    out += ["## The design", "",
            f"- **Cell**: {d['cell']}; {d['n_ues']} UEs.",
            f"- **Workload**: {d['workload']}; loads {', '.join(_pct(l) for l in d['loads'])}.",
            "- **Layouts**: " + "; ".join(v["title"] + (f" (load {', '.join(_pct(l) for l in v['loads'])})"
                                                       if v.get("loads") else "") for v in _variants(doc)) + ".",
            f"- **Runs**: {len(d['seeds'])} seeds per setting, {d['duration_s']:g} simulated s each, {d['runs']} runs "
            f"({doc['mode']} mode).",
            "- **Harm to the foreground**: per seed, the geometric mean over the six FCT percentiles (p50 and p95 of short, "
            "medium and long flows) of the ratio to the same seed's run without background, minus one, in %. Flows "
            "arriving in the last 10 % of a run are left out; a flow still running at the end counts at its age.",
            "- **Intervals**: mean over seeds ± the half-width of the t-based 95 % interval. A conclusion is stated "
            "only where the intervals do not overlap.", "",
            _md_table(["mechanism", "family", "what"],
                      [[m["label"], m["family"], m["what"]] for m in d["mechanisms_detail"]]), "",
            "The choices the papers leave open are listed [below](#choices).", ""]
    # Which mechanisms are in the least-harm group, how often.
    settings = doc["conclusions"]
    groups: dict[str, int] = {}
    for c in settings:
        for m in c["least_harm"]:
            groups[m] = groups.get(m, 0) + 1
    out += ["## The answer", ""]
    if groups:
        ranked = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
        out += [f"Over the {len(settings)} settings (layout × load), the mechanisms in the group with the least harm "
                "to the foreground (the best one's interval below every mechanism outside the group):", "",
                _md_table(["mechanism", "settings in the least-harm group",
                           "of those, settings where it carries the most background (separated)"],
                          [[m, f"{k} of {len(settings)}",
                            str(sum(1 for c in settings if c.get("most_background_of_least_harm") == m))]
                           for m, k in ranked]), ""]
    out += ["Per setting, the statements the intervals support:", ""]
    for c in settings:
        v = next(x for x in _variants(doc) if x["key"] == c["variant"])
        out += [f"**{v['title']}, load {_pct(c['load'])}**", ""]
        out += [f"- {line}" for line in c["lines"]] + [""]
    same = _identical_text(doc)
    if same:
        out += [same, ""]
    out += ["## Harm and background goodput", "",
            "One figure per load: the foreground's FCT inflation (1 + harm, log axis; 1 is as without background) "
            "against background goodput (Mbit/s, all background flows together), one point per mechanism with its "
            "95 % intervals, the colour its family. The tables give the same two numbers; the study's report "
            "(`OUT/report/index.html`) has every metric (FCT per size class, foreground p99 queueing delay, Jain's "
            "index among background flows, timeouts).", ""]
    for load in _loads(doc):
        out += [f"![Pareto figure at load {_pct(load)}](img/{DOCS_FIGURE.format(load=round(load * 100))})", ""]
    for v in _variants(doc):
        loads = [l for l in _loads(doc) if _cells(doc, v["key"], l)]
        header = ["mechanism", *[f"harm % at {_pct(l)}" for l in loads], *[f"bg Mbit/s at {_pct(l)}" for l in loads]]
        mechs = [m for m in d["mechanisms"] if m != d["reference"]]
        rows = []
        for m in mechs:
            cs = {l: next(c for c in _cells(doc, v["key"], l) if c["mechanism"] == m) for l in loads}
            rows.append([m, *[_cell_text(cs[l], "harm") for l in loads],
                         *[_cell_text(cs[l], "bg_goodput_mbps") for l in loads]])
        out += [f"### {v['title']}", "", _md_table(header, rows), ""]
    out += ["## Choices", "", *[f"- {c}" for c in d.get("choices", ())], ""]
    out += ["## Running it", "",
            "```sh",
            "cellshare study --list                              # the studies and their designs",
            "cellshare study head-to-head --out results/h2h        # the full study (local cores)",
            "cellshare study head-to-head --out results/h2h --quick",
            "cellshare study head-to-head --out results/h2h --ray auto   # on a Ray cluster",
            "```", "",
            "A killed study resumes where it stopped when run again with the same `--out` (each run's metrics are "
            "kept in `OUT/runs/`). The output holds `head-to-head.json` (the aggregates this page is generated "
            "from) and `report/index.html`. This page is regenerated from the committed output with "
            "`cellshare study head-to-head --render-docs`.", ""]
    runs = doc.get("runs") or {}
    if runs.get("run_cpu_s"):
        out += [f"The {runs['total']} runs of this output need {runs['run_cpu_s'] / 60:.1f} min of CPU time"
                + (f" ({runs['run_cpu_s_note']})" if runs.get("run_cpu_s_note") else "")
                + f": about {runs['run_cpu_s'] / 120:.1f} min of wall clock on 2 idle cores.", ""]
    return "\n".join(out).rstrip("\n") + "\n"
