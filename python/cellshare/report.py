"""`cellshare report DIR`: an HTML page with PNG (and PDF) figures for a sweep or a run.

Figures, each with a table of its numbers underneath:

- per-second throughput of chosen flows (one panel per scheme);
- short-flow FCT p50 / p99 / p99.9 per scheme and load (log scale);
- throughput of medium, long and background flows per scheme and load;
- base-station queue-delay CDFs per load (one line per scheme);
- Jain's index per scheme and load.

The baseline scheme (``--baseline``, by default ``"w/o bg"`` when the sweep has it) is the
yardstick: a dashed black line in every figure and a "÷ baseline" column in the tables.
Flows are grouped by the flows table's ``category`` column when it has one; otherwise the
category is derived as :func:`cellshare.sweeps.category_of` does. Figures aggregate every run
of a (scheme, load) cell: all seeds and any other parameter are pooled (the page says which).
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.parquet as pq

from .report_common import (ARROW, ReportError, bounded, cast, check_columns, finite, mean, parquet, plain_log,
                            read_output, table_html, table_of_text, unexpected)
from .sweeps import with_categories

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]


#: Scheme colours, in scheme order (the baseline is black).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#999999", "#882255",
           "#117733")
#: The queue-delay CDF's x axis leaves out this share of packets at either end.
CDF_AXIS_TAIL = 0.001
#: Percentiles of the short-flow FCT figure.
FCT_PERCENTILES = ((50.0, "p50"), (99.0, "p99"), (99.9, "p99.9"))
#: Categories of the throughput figure, in panel order.
THROUGHPUT_CATEGORIES = ("medium", "long", "background")
#: Scheme value used as the yardstick when none is named and it exists.
DEFAULT_BASELINE = "w/o bg"

_FLOW_COLUMNS = ("run_id", "name", "class", "category", "size_bytes", "fct_s", "completed", "throughput_mbps")


@dataclass
class _Data:
    """What a report needs: runs (one dict each), their flows, where their folders are."""

    title: str
    runs: list[dict]
    flows: pa.Table
    run_dirs: dict[str, Path]
    params: list[str]
    scheme: Optional[str]
    load: Optional[str]


def _text_field(path: Path, doc: dict, key: str) -> Optional[str]:
    """`doc[key]` of the file at `path`: text or absent."""
    v = doc.get(key)
    if v is not None and not isinstance(v, str):
        raise unexpected(path, f"`{key}` is a {type(v).__name__}, not text")
    return v


#: Columns of runs.parquet the report reads (besides run_id and the parameters).
_RUN_NUMBERS = ("jain_index", "queue_delay_p50_ms", "queue_delay_p99_ms", "queue_delay_max_ms")
_RUN_OPTIONAL = ("prb_utilization", "delivered_mbps", "foreground_mbps", "background_mbps")
#: Columns of a flows table the report reads (size_bytes, category: derived when missing).
_FLOW_REQUIRED = {"run_id": "text", "name": "text", "class": "text", "fct_s": "number", "completed": "boolean",
                  "throughput_mbps": "number"}
_FLOW_OPTIONAL = {"category": "text", "size_bytes": "integer", "bytes_delivered": "integer"}
#: A run id as `cellshare sweep` names a run's folder (a hash; never a path).
_RUN_ID = re.compile(r"^[0-9A-Za-z_-][0-9A-Za-z_.-]*$")


def _flows_table(path: Path, table: pa.Table, run_folder: bool = False) -> pa.Table:
    """The flows table at `path` with the columns the report reads, of one type each (a table
    without rows: those columns, empty; the table of a run without flows has none)."""
    required = {k: v for k, v in _FLOW_REQUIRED.items() if not (run_folder and k == "run_id")}
    if table.num_rows == 0:
        return pa.table({k: pa.array([], ARROW[v]) for k, v in {**required, **_FLOW_OPTIONAL}.items()})
    check_columns(path, table.schema, required, _FLOW_OPTIONAL)
    if not {"size_bytes", "bytes_delivered"} & set(table.column_names):
        raise unexpected(path, "no column 'size_bytes' or 'bytes_delivered' (a flow's size)")
    for k, kind in {**_FLOW_REQUIRED, **_FLOW_OPTIONAL}.items():
        table = cast(path, table, k, ARROW[kind])
    return table


def _number(v: Any) -> Optional[float]:
    """A finite float, or None (missing, NaN or infinite)."""
    return v if isinstance(v, float) and math.isfinite(v) else None


def _load_sweep(folder: Path) -> tuple[list[dict], pa.Table, dict[str, Path], list[str], str]:
    runs_path = folder / "runs.parquet"
    table = parquet(runs_path)
    names = table.column_names
    if "run_id" not in names:
        raise ReportError(f"{folder / 'runs.parquet'}: no run_id column; expected the runs table of `cellshare sweep`")
    meta_path = folder / "sweep.json"
    if meta_path.is_file():
        params = table_of_text(meta_path, json.loads).get("parameters", [])
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise unexpected(meta_path, "`parameters` is not a list of parameter names")
        params = list(dict.fromkeys(params))
    else:
        params = names[1:names.index("seed")] if "seed" in names else []
    check_columns(runs_path, table.schema, {"run_id": "text", **{p: "scalar" for p in params},
                                             **{k: "number" for k in _RUN_NUMBERS}},
                   {k: "number" for k in _RUN_OPTIONAL})
    # numbers as floats (an integer column too), NaN and infinities as None
    for k in (*_RUN_NUMBERS, *_RUN_OPTIONAL):
        table = cast(runs_path, table, k, pa.float64())
    runs = table.to_pylist()
    for i, r in enumerate(runs):
        rid = r["run_id"]
        if rid is None or not _RUN_ID.match(rid):
            raise unexpected(runs_path, f"row {i}: run_id is {'null' if rid is None else 'not a run id'} "
                                         f"(a run folder's name under runs/)")
        for k in (*_RUN_NUMBERS, *_RUN_OPTIONAL):
            if k in r:
                r[k] = _number(r[k])
        for p in params:
            if isinstance(r[p], float) and r[p] != r[p]:
                r[p] = None  # NaN: one value, like null
    flows_path = folder / "flows.parquet"
    flow_names = read_output(flows_path, pq.read_schema).names
    cols = [c for c in (*_FLOW_COLUMNS, "bytes_delivered", *params) if c in flow_names]
    flows = _flows_table(flows_path, parquet(flows_path, columns=cols))
    dirs = {r["run_id"]: folder / "runs" / r["run_id"] for r in runs}
    title = folder.name
    src = folder / "sweep.toml"
    if src.is_file():
        title = _text_field(src, table_of_text(src, tomllib.loads), "name") or title
    return runs, flows, dirs, params, title


def _load_run(folder: Path) -> tuple[list[dict], pa.Table, dict[str, Path], list[str], str]:
    from .sweeps import summary_scalars

    summary_path = folder / "summary.json"
    summary = table_of_text(summary_path, json.loads)
    scenario = None
    if (folder / "scenario.toml").is_file():
        scenario = table_of_text(folder / "scenario.toml", tomllib.loads)
    label = _text_field(summary_path, summary, "scenario") or folder.name
    rid = folder.name
    try:
        row = {"run_id": rid, "run": label, "seed": summary.get("seed"), **summary_scalars(summary)}
    except ValueError as e:
        raise unexpected(summary_path, str(e)) from None
    for k in (*_RUN_NUMBERS, *_RUN_OPTIONAL):
        row[k] = bounded(summary_path, k, row[k])
    flows_path = folder / "flows.parquet"
    flows = with_categories(_flows_table(flows_path, parquet(flows_path), run_folder=True), scenario)
    n = flows.num_rows
    flows = flows.append_column("run_id", pa.array([rid] * n, pa.string()))
    flows = flows.append_column("run", pa.array([label] * n, pa.string()))
    return [row], flows, {rid: folder}, ["run"], label


def load_folder(folder: Union[str, os.PathLike], scheme: Optional[str] = None,
                load: Optional[str] = None) -> _Data:
    """Reads a sweep output folder or a run folder and picks the scheme and load parameters
    (defaults: axes called ``scheme`` and ``load``, else the first and second parameter)."""
    folder = Path(folder)
    if (folder / "runs.parquet").is_file() and (folder / "flows.parquet").is_file():
        runs, flows, dirs, params, title = _load_sweep(folder)
    elif (folder / "summary.json").is_file() and (folder / "flows.parquet").is_file():
        runs, flows, dirs, params, title = _load_run(folder)
    elif (folder / "runs").is_dir() and (folder / "sweep.toml").is_file():
        raise ReportError(f"{folder}: the sweep has not finished (no runs.parquet yet); expected a complete sweep "
                          f"— run `cellshare sweep` again with --out {folder} to finish it")
    else:
        raise ReportError(f"{folder}: neither a sweep output folder (runs.parquet, flows.parquet) nor a run folder "
                          f"(summary.json, flows.parquet); expected the --out folder of `cellshare sweep` or "
                          f"`cellshare run`")
    if "category" not in flows.column_names or "custom" in flows.column("category").to_pylist():
        flows = with_categories(flows, None)
    for opt, key in (("--scheme", scheme), ("--load", load)):
        if key is not None and key not in params:
            raise ReportError(f"{opt} {key!r}: not a parameter of {folder}; expected one of: "
                              f"{', '.join(params) or '(none: the runs have no parameters)'}")
    if scheme is None:
        scheme = "scheme" if "scheme" in params else (params[0] if params else None)
    if load is None:
        rest = [p for p in params if p != scheme]
        load = "load" if "load" in rest else (rest[0] if rest else None)
    if scheme is not None and scheme == load:
        raise ReportError(f"--scheme and --load are both {scheme!r}; expected two different parameters")
    return _Data(title, runs, flows, dirs, params, scheme, load)


# -- helpers ----------------------------------------------------------------------------------

def _values(runs: Sequence[dict], key: Optional[str]) -> list:
    """The distinct values of `key` in run order (["all"] without the key)."""
    if key is None:
        return ["all"]
    out: list = []
    for r in runs:
        if r[key] not in out:
            out.append(r[key])
    return out


def _style():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 8, "xtick.labelsize": 9,
        "ytick.labelsize": 9, "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
        "grid.alpha": 0.3, "grid.linewidth": 0.6, "lines.linewidth": 1.5, "savefig.dpi": 200,
        "font.family": "DejaVu Sans", "pdf.fonttype": 42, "svg.hashsalt": "cellshare",
    })
    return plt


def _save(fig, out: Path, stem: str) -> str:
    fig.savefig(out / f"{stem}.png", bbox_inches="tight", metadata={"Software": None})
    fig.savefig(out / f"{stem}.pdf", bbox_inches="tight", metadata={"CreationDate": None, "Producer": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
    return f"{stem}.png"


class _Report:
    def __init__(self, data: _Data, out: Path, baseline: Optional[str]) -> None:
        self.d = data
        self.out = out
        self.schemes = _values(data.runs, data.scheme)
        self.loads = _values(data.runs, data.load)
        if baseline is not None and baseline not in [str(s) for s in self.schemes]:
            raise ReportError(f"--baseline {baseline!r}: not a value of {data.scheme or 'the scheme'}; expected one "
                              f"of: {', '.join(map(str, self.schemes))}")
        if baseline is None and DEFAULT_BASELINE in self.schemes:
            baseline = DEFAULT_BASELINE
        self.baseline = next((s for s in self.schemes if str(s) == baseline), None) if baseline is not None else None
        self.colors = {}
        k = 0
        for s in self.schemes:
            if s == self.baseline:
                self.colors[s] = "black"
            else:
                self.colors[s] = PALETTE[k % len(PALETTE)]
                k += 1
        self.sections: list[str] = []
        self.plt = _style()
        self._index_flows(data)

    def _index_flows(self, data: _Data) -> None:
        """Flows as numpy columns (a sweep can have millions): the run, scheme and load index
        of every row, and category and name as codes into small lists."""
        import numpy as np
        import pyarrow.compute as pc

        f = data.flows
        run_ids = [r["run_id"] for r in data.runs]
        run_idx = pc.index_in(f.column("run_id"), value_set=pa.array(run_ids, pa.string()))
        run_idx = np.asarray(run_idx.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
        keep = run_idx >= 0
        s_of_run = np.array([self.schemes.index(self._s(r)) for r in data.runs] + [-1], dtype=np.int64)
        l_of_run = np.array([self.loads.index(self._l(r)) for r in data.runs] + [-1], dtype=np.int64)

        def codes(col: str) -> tuple[np.ndarray, list]:
            enc = f.column(col).combine_chunks().dictionary_encode() if f.num_rows else None
            if enc is None:
                return np.zeros(0, dtype=np.int64), []
            idx = np.asarray(enc.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
            return idx, enc.dictionary.to_pylist()

        def floats(col: str) -> np.ndarray:
            return np.asarray(f.column(col).cast(pa.float64()).fill_null(float("nan")).to_numpy(), dtype=np.float64)

        self.f_run = run_idx[keep]
        self.f_scheme = s_of_run[self.f_run]
        self.f_load = l_of_run[self.f_run]
        cat, self.cat_names = codes("category")
        name, self.name_names = codes("name")
        self.f_cat, self.f_name = cat[keep], name[keep]
        self.f_fct = floats("fct_s")[keep]
        self.f_done = np.asarray(f.column("completed").fill_null(False).to_numpy(zero_copy_only=False),
                                 dtype=bool)[keep]
        self.f_tput = floats("throughput_mbps")[keep]

    def _mask(self, s=None, l=None, category: Optional[str] = None):
        """Rows of scheme `s`, load `l` and `category` (None: any)."""
        import numpy as np

        m = np.ones(len(self.f_run), dtype=bool)
        if s is not None:
            m &= self.f_scheme == self.schemes.index(s)
        if l is not None:
            m &= self.f_load == self.loads.index(l)
        if category is not None:
            code = self.cat_names.index(category) if category in self.cat_names else -2
            m &= self.f_cat == code
        return m

    def save(self, fig, stem: str) -> str:
        """Saves `fig` as STEM.png and STEM.pdf in the report's folder; the PNG's name."""
        return _save(fig, self.out, stem)

    def _s(self, r: dict):
        return r[self.d.scheme] if self.d.scheme else "all"

    def _l(self, r: dict):
        return r[self.d.load] if self.d.load else "all"

    def runs_of(self, s, l) -> list[dict]:
        return [r for r in self.d.runs if self._s(r) == s and self._l(r) == l]

    # -- figures --------------------------------------------------------------------------
    def _grouped_bars(self, ax, values: dict[tuple, Optional[float]], errs: Optional[dict] = None,
                      log: bool = False) -> None:
        """Bars per load group, one per scheme; the baseline as a dashed line across its group."""
        others = [s for s in self.schemes if s != self.baseline]
        width = 0.8 / max(1, len(others))
        for j, s in enumerate(others):
            xs, ys, es = [], [], []
            for i, l in enumerate(self.loads):
                v = values.get((s, l))
                if v is None or not math.isfinite(v):
                    continue
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(v)
                e = (errs or {}).get((s, l))
                es.append(e if e is not None and math.isfinite(e) else 0.0)
            ax.bar(xs, ys, width * 0.92, color=self.colors[s], label=str(s),
                   yerr=es if errs and any(es) else None, capsize=2, error_kw={"linewidth": 0.8})
        if self.baseline is not None:
            first = True
            for i, l in enumerate(self.loads):
                v = values.get((self.baseline, l))
                if v is None or not math.isfinite(v):
                    continue
                ax.hlines(v, i - 0.45, i + 0.45, colors="black", linestyles="--", linewidth=1.4,
                          label=f"{self.baseline} (baseline)" if first else None, zorder=5)
                first = False
        ax.set_xticks(range(len(self.loads)))
        ax.set_xticklabels([str(l) for l in self.loads])
        if self.d.load:
            ax.set_xlabel(self.d.load)
        if log:
            ax.set_yscale("log")
            plain_log(ax.yaxis)
        ax.grid(axis="x", visible=False)

    def _legend(self, fig, axes) -> None:
        """One legend for the figure, above the panels (call after tight_layout)."""
        handles, labels = {}, []
        for ax in axes:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in handles:
                    handles[lab] = h
                    labels.append(lab)
        if handles:
            ncol = len(labels) if len(labels) <= 5 else (len(labels) + 1) // 2
            fig.legend([handles[lab] for lab in labels], labels, loc="lower center", ncol=ncol,
                       frameon=False, bbox_to_anchor=(0.5, 1.0), borderaxespad=0.2)

    def _ratio(self, values: dict, s, l):
        """Value ÷ the baseline's at the same load, evaluated when the table is written (once
        `values` holds every scheme's)."""

        def ratio() -> Optional[float]:
            if self.baseline is None:
                return None
            b, v = values.get((self.baseline, l)), values.get((s, l))
            if b is None or v is None or b == 0:
                return None
            return v / b

        return ratio

    def throughput_over_time(self, names: Optional[Sequence[str]]) -> None:
        """Per-second goodput of chosen flows, one panel per scheme (first load, first seed)."""
        load0 = self.loads[-1] if self.loads else None
        picks = []
        for s in self.schemes:
            rs = self.runs_of(s, load0)
            if rs:
                picks.append((s, rs[0]))
        import numpy as np

        shown = np.isin(self.f_run, [self.d.runs.index(r) for _, r in picks])
        shown_names = [self.name_names[k] for k in dict.fromkeys(self.f_name[shown].tolist()) if k >= 0]
        chosen = names is not None
        if names is None:
            # background flows first, then long ones, from every run shown (a scheme without
            # background traffic has none), up to 4
            names = []
            for cat in ("background", "long"):
                m = shown & self._mask(category=cat)
                for k in dict.fromkeys(self.f_name[m].tolist()):
                    if k >= 0 and self.name_names[k] not in names:
                        names.append(self.name_names[k])
            if not names:
                names = list(shown_names)
            names = names[:4]
        series = {r["run_id"]: _flow_series(self.d.run_dirs[r["run_id"]] / "flow_series.parquet") for _, r in picks}
        found = {nm for ser in series.values() for nm in names if nm in ser}
        missing = [nm for nm in names if nm not in found]
        if missing and chosen:
            raise ReportError(f"--flows: no flow called {', '.join(map(repr, missing))} in the runs shown; expected "
                              f"names from the flows table, e.g. "
                              f"{', '.join(sorted(shown_names)[:8]) or '(none: the runs shown have no flows)'}")
        names = [nm for nm in names if nm in found]
        if not names:
            self._section("Throughput over time", None, "No per-second flow series in these runs.", "")
            return
        plt = self.plt
        n = len(picks)
        ncol = min(n, 3)
        nrow = (n + ncol - 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(7.0, 2.3 * nrow + 0.4), squeeze=False, sharey=True)
        flow_colors = {name: PALETTE[(k + 1) % len(PALETTE)] for k, name in enumerate(names)}
        rows = []
        for k, (s, r) in enumerate(picks):
            ax = axes[k // ncol][k % ncol]
            for name in names:
                if name not in series[r["run_id"]]:
                    continue
                xs, ys = series[r["run_id"]][name]
                ax.stairs(ys, [*xs, xs[-1] + 1], baseline=None, color=flow_colors[name], label=name,
                          linewidth=1.5)
                ok = ys[np.isfinite(ys)]
                rows.append((str(s), name, r["run_id"], float(ok.mean()) if ok.size else None,
                             float(ok.max()) if ok.size else None))
            ax.set_title(f"{s}" + (" (baseline)" if s == self.baseline else ""))
            ax.set_xlabel("time (s)")
            ax.set_ylim(bottom=0)
            if k % ncol == 0:
                ax.set_ylabel("throughput (Mbit/s)")
        for k in range(n, nrow * ncol):
            axes[k // ncol][k % ncol].set_visible(False)
        fig.tight_layout()
        self._legend(fig, axes.ravel())
        img = self.save(fig, "throughput")
        where = f"{self.d.load} = {load0}, " if self.d.load else ""
        self._section("Throughput over time", img,
                      f"Per-second goodput of {', '.join(names)}; {where}one run per scheme (its first seed).",
                      table_html(["scheme", "flow", "run", "mean Mbit/s", "max Mbit/s"], rows))

    def fct_short(self) -> None:
        """Short-flow FCT percentiles per scheme and load."""
        import numpy as np

        vals: dict[str, dict] = {lab: {} for _, lab in FCT_PERCENTILES}
        rows = []
        any_short = False
        for s in self.schemes:
            for l in self.loads:
                m = self._mask(s, l, "short")
                n_short = int(m.sum())
                done = self.f_fct[m & self.f_done & np.isfinite(self.f_fct)] * 1000
                if n_short:
                    any_short = True
                ps = [float(np.percentile(done, q)) if len(done) else None for q, _ in FCT_PERCENTILES]
                for (q, lab), v in zip(FCT_PERCENTILES, ps):
                    if v is not None:
                        vals[lab][(s, l)] = v
                if n_short:
                    rows.append([str(s), str(l), f"{len(done)}/{n_short}", *ps, self._ratio(vals["p99"], s, l)])
        if not any_short:
            self._section("Short-flow completion times", None, "No short flows (finite, ≤ 256 KB) in these runs.", "")
            return
        plt = self.plt
        fig, axes = plt.subplots(1, 3, figsize=(7.0, 2.6))
        for ax, (_, lab) in zip(axes, FCT_PERCENTILES):
            # A linear axis from 0: on a log axis (or one starting near the smallest bar) a
            # 5 % difference between schemes looks like a large one.
            self._grouped_bars(ax, vals[lab], log=False)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{lab} FCT")
        axes[0].set_ylabel("flow completion time (ms)")
        fig.tight_layout()
        self._legend(fig, axes)
        img = self.save(fig, "fct_short")
        rows.sort(key=lambda r: (self.loads.index(_orig(self.loads, r[1])), self.schemes.index(_orig(self.schemes, r[0]))))
        self._section("Short-flow completion times", img,
                      "FCT percentiles of completed short flows (≤ 256 KB), pooled over the runs of each scheme and "
                      "load (linear scale from 0)." + self._baseline_note(),
                      table_html(["scheme", self.d.load or "load", "completed", "p50 ms", "p99 ms", "p99.9 ms",
                                   "p99 ÷ baseline"], rows))

    def throughput_categories(self) -> None:
        """Mean per-flow goodput of medium, long and background flows per scheme and load."""
        import numpy as np

        present = [c for c in THROUGHPUT_CATEGORIES if self._mask(category=c).any()]
        if not present:
            self._section("Flow throughput", None, "No medium, long or background flows in these runs.", "")
            return
        means: dict[str, dict] = {c: {} for c in present}
        errs: dict[str, dict] = {c: {} for c in present}
        rows = []
        for c in present:
            for l in self.loads:
                for s in self.schemes:
                    sel = self._mask(s, l, c)
                    if not sel.any():
                        continue
                    tput, runs = self.f_tput[sel], self.f_run[sel]
                    sums = np.bincount(runs, weights=tput)
                    counts = np.bincount(runs)
                    run_means = sums[counts > 0] / counts[counts > 0]
                    m = float(np.mean(tput))
                    means[c][(s, l)] = m
                    errs[c][(s, l)] = float(np.std(run_means)) if len(run_means) > 1 else 0.0
                    rows.append([c, str(s), str(l), int(sel.sum()), len(run_means), m, errs[c][(s, l)],
                                 self._ratio(means[c], s, l)])
        plt = self.plt
        fig, axes = plt.subplots(1, len(present), figsize=(7.0 if len(present) > 1 else 3.6, 2.6), squeeze=False)
        axes = axes[0]
        for ax, c in zip(axes, present):
            self._grouped_bars(ax, means[c], errs[c])
            ax.set_title(f"{c} flows")
            ax.set_ylim(bottom=0)
        axes[0].set_ylabel("mean flow throughput (Mbit/s)")
        fig.tight_layout()
        self._legend(fig, axes)
        img = self.save(fig, "throughput_categories")
        self._section("Flow throughput", img,
                      "Mean goodput of a flow over its life (start to completion, stop or end of run), by category; "
                      "error bars: standard deviation of the per-run means." + self._baseline_note(),
                      table_html(["category", "scheme", self.d.load or "load", "flows", "runs", "mean Mbit/s",
                                   "std over runs", "÷ baseline"], rows))

    def queue_delay(self) -> None:
        """Queue-delay CDFs: one panel per load, one line per scheme (mean of the runs' CDFs)."""
        import numpy as np

        plt = self.plt
        n = len(self.loads)
        if n == 0:
            self._section("Queue delay", None, "No runs in this folder.", "")
            return
        ncol = min(n, 3)
        nrow = (n + ncol - 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(7.0 if ncol > 1 else 3.6, 2.4 * nrow + 0.4), squeeze=False,
                                 sharey=True, sharex=True)
        rows = []
        drawn = False
        x_lo, x_hi = float("inf"), 0.0
        for i, l in enumerate(self.loads):
            ax = axes[i // ncol][i % ncol]
            for s in self.schemes:
                rs = self.runs_of(s, l)
                curves = []
                for r in rs:
                    x, y = _cdf(self.d.run_dirs[r["run_id"]] / "queue_delay_cdf.parquet")
                    if x.size:
                        curves.append((x, y))
                if not curves:
                    continue
                lo = max(min(float(c[0][c[0] > 0].min()) if (c[0] > 0).any() else 0.01 for c in curves), 0.01)
                hi = max(float(c[0].max()) for c in curves)
                grid = np.geomspace(lo, max(hi, lo * 1.01), 400)
                ys = np.mean([np.interp(grid, x, y, left=0.0, right=1.0) for x, y in curves], axis=0)
                ax.plot(grid, ys, color=self.colors[s], linestyle="--" if s == self.baseline else "-",
                        label=str(s) + (" (baseline)" if s == self.baseline else ""))
                drawn = True
                # The axis spans where the curves rise: from the first delay any scheme's CDF
                # reaches 0.1 % to the last one where it is below 99.9 % (the max, often one
                # straggler far to the right, is in the table).
                x_lo = min(x_lo, float(grid[min(np.searchsorted(ys, CDF_AXIS_TAIL), len(grid) - 1)]))
                x_hi = max(x_hi, float(grid[min(np.searchsorted(ys, 1.0 - CDF_AXIS_TAIL), len(grid) - 1)]))
                p50, p99, mx = (mean(r[k] for r in rs) for k in ("queue_delay_p50_ms", "queue_delay_p99_ms",
                                                                   "queue_delay_max_ms"))
                rows.append([str(s), str(l), len(rs), p50, p99, mx])
            ax.set_xscale("log")
            ax.set_xlabel("queue delay (ms)")
            ax.set_ylim(0, 1.0)
            if self.d.load:
                ax.set_title(f"{self.d.load} = {l}")
            if i % ncol == 0:
                ax.set_ylabel("CDF of packets")
        for k in range(n, nrow * ncol):
            axes[k // ncol][k % ncol].set_visible(False)
        if not drawn:
            self.plt.close(fig)
            self._section("Queue delay", None, "No packets were queued at the base station.", "")
            return
        if x_hi <= x_lo:
            x_lo, x_hi = x_lo / 1.5, x_lo * 1.5
        for ax in axes.ravel():
            ax.set_xlim(x_lo / 1.1, x_hi * 1.1)
        fig.tight_layout()
        _fit_log_ticks(fig, [ax.xaxis for ax in axes.ravel() if ax.get_visible()])
        self._legend(fig, axes.ravel())
        img = self.save(fig, "queue_delay_cdf")
        self._section("Queue delay", img,
                      "CDF of every packet's base-station sojourn (arrival to the end of the TTI carrying its last "
                      "byte), averaged over the runs of each scheme and load; log x axis from where the first "
                      "0.1 % to where the last 0.1 % of the packets lie (the maximum is in the table).",
                      table_html(["scheme", self.d.load or "load", "runs", "mean p50 ms", "mean p99 ms", "mean max ms"],
                                  rows))

    def jain(self) -> None:
        """Jain's index of the flows' throughput per scheme and load."""
        import numpy as np

        vals, errs, rows = {}, {}, []
        for l in self.loads:
            for s in self.schemes:
                rs = self.runs_of(s, l)
                if not rs:
                    continue
                xs = finite(r["jain_index"] for r in rs)
                if not xs:
                    continue
                vals[(s, l)] = float(np.mean(xs))
                errs[(s, l)] = float(np.std(xs)) if len(xs) > 1 else 0.0
                rows.append([str(s), str(l), len(rs), vals[(s, l)], errs[(s, l)], self._ratio(vals, s, l)])
        if not rows:
            self._section("Fairness", None, "No Jain's index in these runs.", "")
            return
        fig, ax = self.plt.subplots(1, 1, figsize=(3.6, 2.6))
        self._grouped_bars(ax, vals, errs)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("Jain's fairness index")
        fig.tight_layout()
        self._legend(fig, [ax])
        img = self.save(fig, "jain")
        self._section("Fairness", img,
                      "Jain's index (Σx)²/(n·Σx²) of all flows' throughput in a run, mean over runs; error bars: "
                      "standard deviation." + self._baseline_note(),
                      table_html(["scheme", self.d.load or "load", "runs", "Jain", "std", "÷ baseline"], rows))

    def overview(self) -> str:
        rows = []
        for l in self.loads:
            for s in self.schemes:
                rs = self.runs_of(s, l)
                if not rs:
                    continue

                rows.append([str(s), str(l), len(rs), *(mean(r.get(k) for r in rs) for k in (
                    "prb_utilization", "delivered_mbps", "foreground_mbps", "background_mbps"))])
        return table_html(["scheme", self.d.load or "load", "runs", "PRB utilization", "cell Mbit/s",
                            "foreground Mbit/s", "background Mbit/s"], rows)

    def _baseline_note(self) -> str:
        return f" Dashed black: {self.baseline} (the baseline)." if self.baseline is not None else ""

    def _section(self, title: str, img: Optional[str], caption: str, table: str) -> None:
        fig = f'<figure><img src="{html.escape(img)}" alt="{html.escape(title)}"><figcaption>{html.escape(caption)} ' \
              f'<a href="{html.escape(img[:-4])}.pdf">PDF</a></figcaption></figure>' if img else \
              f"<p>{html.escape(caption)}</p>"
        self.sections.append(f'<section id="{html.escape(title.lower().replace(" ", "-"))}"><h2>'
                             f"{html.escape(title)}</h2>{fig}{table}</section>")

    def page(self) -> str:
        d = self.d
        pooled = [p for p in d.params if p not in (d.scheme, d.load)]
        facts = [f"{len(d.runs)} run{'s' if len(d.runs) != 1 else ''}"]
        if d.scheme:
            facts.append(f"scheme: <code>{html.escape(d.scheme)}</code> ({', '.join(html.escape(str(s)) for s in self.schemes)})")
        if d.load:
            facts.append(f"load: <code>{html.escape(d.load)}</code> ({', '.join(html.escape(str(l)) for l in self.loads)}) — "
                         "the values the sweep sets, named as it names them; the load the cell carried is the "
                         "PRB utilization in the overview")
        if self.baseline is not None:
            facts.append(f"baseline: {html.escape(str(self.baseline))}")
        if pooled:
            facts.append(f"pooled over: {', '.join(f'<code>{html.escape(p)}</code>' for p in pooled)} and seeds")
        css = ("body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}"
               "img{max-width:100%}table{border-collapse:collapse;font-size:0.9em;margin:0.5em 0 2em}"
               "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}"
               "td:first-child,th:first-child{text-align:left}figcaption{font-size:0.9em;color:#444}")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(d.title)}"
                f"</title><style>{css}</style></head><body><h1>{html.escape(d.title)}</h1><p>{'; '.join(facts)}.</p>"
                f"<section id=\"overview\"><h2>Overview</h2>{self.overview()}</section>"
                + "".join(self.sections) + "</body></html>\n")


def _flow_series(path: Path) -> dict[str, tuple[list, Any]]:
    """A run's ``flow_series.parquet``: flow name -> (seconds, Mbit/s as a float array with
    NaN for null), in time order; rows without a name or second are left out."""
    import numpy as np

    t = parquet(path)
    if t.num_rows == 0:
        return {}
    check_columns(path, t.schema, {"name": "text", "second": "integer", "mbps": "number"})
    t = cast(path, cast(path, cast(path, t, "name", pa.string()), "second", pa.int64(), True), "mbps", pa.float64())
    out: dict[str, tuple[list, list]] = {}
    for nm, sec, v in zip(t.column("name").to_pylist(), t.column("second").to_pylist(), t.column("mbps").to_pylist()):
        if nm is not None and sec is not None:
            xs, ys = out.setdefault(nm, ([], []))
            xs.append(sec)
            ys.append(float("nan") if v is None else v)
    res = {}
    for nm, (xs, ys) in out.items():
        order = sorted(range(len(xs)), key=xs.__getitem__)
        res[nm] = ([xs[i] for i in order], np.array([ys[i] for i in order], dtype=float))
    return res


def _cdf(path: Path):
    """A run's ``queue_delay_cdf.parquet`` as (delay_ms, fraction) float arrays, the points
    with a finite delay and fraction only, in delay order."""
    import numpy as np

    t = parquet(path)
    if t.num_rows == 0:
        return np.zeros(0), np.zeros(0)
    check_columns(path, t.schema, {"delay_ms": "number", "fraction": "number"})
    x = np.asarray(cast(path, t, "delay_ms", pa.float64()).column("delay_ms").to_numpy(zero_copy_only=False), float)
    y = np.asarray(cast(path, t, "fraction", pa.float64()).column("fraction").to_numpy(zero_copy_only=False), float)
    ok = np.isfinite(x) & np.isfinite(y)
    order = np.argsort(x[ok], kind="stable")
    return x[ok][order], y[ok][order]


def _tick_labels_overlap(fig, axis) -> bool:
    """Whether any two visible tick labels of `axis` overlap once drawn."""
    renderer = fig.canvas.get_renderer()
    lo, hi = sorted(axis.get_view_interval())
    boxes = [t.label1.get_window_extent(renderer) for t in axis.get_major_ticks()
             if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]
    boxes.sort(key=lambda b: (b.x0, b.y0))
    return any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))


def _fit_log_ticks(fig, axes_) -> None:
    """Plain-number labels on log axes, as dense as fits: 1-2-5 per decade, else 1-3, else
    one per decade, else one every other decade — the first where no two labels overlap."""
    from matplotlib.ticker import LogLocator

    for base, subs in ((10, (1.0, 2.0, 5.0)), (10, (1.0, 3.0)), (10, (1.0,)), (100, (1.0,))):
        for axis in axes_:
            plain_log(axis, LogLocator(base=base, subs=subs))
        fig.canvas.draw()
        if not any(_tick_labels_overlap(fig, a) for a in axes_):
            return


def _orig(values: Sequence, text: str):
    for v in values:
        if str(v) == text:
            return v
    return values[0]


def _quiet_numpy():
    import numpy as np

    return np.errstate(all="ignore")


def write_report(folder: Union[str, os.PathLike], *, out: Optional[Union[str, os.PathLike]] = None,
                 scheme: Optional[str] = None, load: Optional[str] = None, baseline: Optional[str] = None,
                 flows: Optional[Sequence[str]] = None, force: bool = False) -> Path:
    """Writes the report of a sweep or run folder into `out` (default ``FOLDER/report``),
    atomically, and returns the path of its ``index.html``. An existing `out` must be empty,
    or a cellshare output replaced with `force` (:mod:`cellshare.output`)."""
    from .output import atomic_dir, check_out

    folder = Path(folder)
    target = Path(out) if out is not None else folder / "report"
    data = load_folder(folder, scheme, load)
    check_out(target, kind="report", force=force)
    with atomic_dir(target, kind="report", force=force) as tmp, warnings.catch_warnings(), _quiet_numpy():
        # numbers at the edge of a float's range (a damaged table) overflow while drawn: the
        # page shows them, numpy's and matplotlib's warnings would only add noise
        warnings.simplefilter("ignore")
        rep = _Report(data, tmp, baseline)
        rep.throughput_over_time(list(flows) if flows else None)
        rep.fct_short()
        rep.throughput_categories()
        rep.queue_delay()
        rep.jain()
        from .report_apps import app_sections

        app_sections(rep)
        (tmp / "index.html").write_text(rep.page())
    return target / "index.html"
