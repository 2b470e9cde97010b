"""The scenario reference, rendered from the JSON Schema the Rust types generate."""

from __future__ import annotations

import json

from . import _core


def _resolve(s: dict, defs: dict) -> dict:
    while True:
        if "$ref" in s:
            s = {**defs[s["$ref"].split("/")[-1]], **{k: v for k, v in s.items() if k != "$ref"}}
        elif "allOf" in s and len(s["allOf"]) == 1:
            inner = s["allOf"][0]
            s = {**_resolve(inner, defs), **{k: v for k, v in s.items() if k != "allOf"}}
        else:
            return s


def _type(s: dict, defs: dict) -> str:
    s = _resolve(s, defs)
    if "anyOf" in s:
        parts = [_type(x, defs) for x in s["anyOf"] if x.get("type") != "null"]
        return " or ".join(parts) + " (optional)"
    if "enum" in s:
        return " or ".join(json.dumps(v) for v in s["enum"])
    if "oneOf" in s:
        # Tagged tables (`{ kind = "pf", ... }`) and plain strings (`fading = "none"`) are
        # written as what they are: a string enum is not a table.
        kinds, strings = [], []
        for v in s["oneOf"]:
            v = _resolve(v, defs)
            k = v.get("properties", {}).get("kind", {})
            if "enum" in k:
                kinds.extend(k["enum"])
            elif "enum" in v:
                strings.extend(v["enum"])
        forms = []
        if strings:
            forms.append("string: " + " or ".join(json.dumps(x) for x in strings))
        if kinds:
            forms.append("table: kind = " + " or ".join(json.dumps(k) for k in kinds))
        return ", or ".join(forms) if forms else "one of several forms"
    t = s.get("type", "table")
    if isinstance(t, list):
        t = " or ".join(x for x in t if x != "null")
    if t == "array":
        return f"array of {_type(s.get('items', {}), defs)}"
    if t == "object":
        return "table"
    return {"number": "float", "integer": "integer", "string": "string", "boolean": "bool"}.get(t, t)


def _first_line(s: dict) -> str:
    return " ".join((s.get("description") or "").split())


def _walk(path: str, s: dict, defs: dict, out: list[str], title: str | None = None,
          ancestors: dict[str, str] | None = None) -> None:
    """Renders the table of `s` and its nested tables. `ancestors` maps the one-of schemas
    being walked above this one to their key path, so a recursive schema (a DiffServ class
    holds a queue discipline) refers back instead of recursing."""
    ancestors = dict(ancestors or {})
    s = _resolve(s, defs)
    props = s.get("properties", {})
    if not props:
        return
    out.append(f"\n### `{title or path or '(top level)'}`\n")
    desc = _first_line(s)
    if desc:
        out.append(desc + "\n")
    out.append("| key | type | default | description |")
    out.append("|---|---|---|---|")
    nested: list[tuple[str, dict, str | None]] = []
    required = set(s.get("required", []))
    for key, p in props.items():
        if key == "kind" and "enum" in _resolve(p, defs):
            continue
        rp = _resolve(p, defs)
        default = p.get("default", rp.get("default"))
        dflt = "required" if key in required else ("—" if default is None else f"`{json.dumps(default)}`")
        out.append(f"| `{key}` | {_type(p, defs)} | {dflt} | {_first_line(p) or _first_line(rp)} |")
        full = f"{path}.{key}" if path else key
        target = rp
        if "anyOf" in rp:
            target = next((_resolve(x, defs) for x in rp["anyOf"] if x.get("type") != "null"), rp)
        if target.get("type") == "array":
            nested.append((f"{full}[]", _resolve(target.get("items", {}), defs), None))
        elif target.get("properties"):
            nested.append((full, target, None))
        elif "oneOf" in target:
            sig = json.dumps(target["oneOf"], sort_keys=True)
            if sig in ancestors:
                out.append(f"\n`{full}` takes the same tables as `{ancestors[sig]}` (see above).")
                continue
            ancestors[sig] = full
            for v in target["oneOf"]:
                v = _resolve(v, defs)
                k = v.get("properties", {}).get("kind", {}).get("enum", [None])[0]
                if k is not None:
                    nested.append((full, v, f'{full} (kind = "{k}")'))
    for np, ns, nt in nested:
        _walk(np, ns, defs, out, nt, ancestors)


def scenario_reference() -> str:
    """Markdown reference of every scenario key."""
    schema = json.loads(_core.scenario_schema())
    defs = schema.get("definitions", {})
    out = ["# Scenario reference", "",
           "Generated from the scenario schema (`cellshare scenario-reference`); do not edit by hand.",
           "Times are seconds (`_s`) or milliseconds (`_ms`), rates Mbps, sizes bytes unless the key says otherwise."]
    _walk("", schema, defs, out)
    lln = json.loads(_core.lln_scenario_schema())
    out += ["", "## LLN scenarios", "",
            "A scenario with a top-level `[lln]` table is a multi-hop low-power network (IEEE 802.15.4-like "
            "radio, TCP Reno uplinks to an end host behind the border router, optional DTPA); the cellular keys "
            "above do not apply to it. Node 0 is the border router; `[[lln.nodes]]` are nodes 1, 2, … in order."]
    _walk("", lln, lln.get("definitions", {}), out, "(LLN top level)")
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    """`text` safe in a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


_WRITTEN = {
    "always": "always",
    "network": "with `[network]`",
    "apps": "with an interactive app (ping, game, voip)",
    "sessions": "with sessions of its app",
}
_PRESENT = {
    "always": "always",
    "nullable": "always (null when it does not apply)",
    "network": "with `[network]`",
    "sessions": "with sessions of that app",
}


def output_reference() -> str:
    """Markdown reference of every table a run writes (columns with type, unit and meaning) and
    every key of ``summary.json``, rendered from the result contract the extension describes
    (``_core.result_contract()``)."""
    contract = json.loads(_core.result_contract())
    tables = contract["tables"]
    out = ["# Output reference", "",
           "Generated from the result contract (`python -m cellshare.docs output-reference`); do not edit by hand.",
           "How output folders are written and what the figures mean: [Output folders](outputs.md).", "",
           "A run (`cellshare run --out DIR`, every run of a sweep or a reproduction) writes `summary.json`, "
           "`scenario.toml` (the scenario with the overrides applied), the marker `.cellshare-output` and one "
           "Parquet file per table below. In Python, `Result.table(name)` (or the method of the same name) "
           "returns the same table as a pyarrow table, `Result.TABLES` names them all and `Result.tables()` "
           "those a run has; `Result.summary` is `summary.json`. A float column holds null where the value is "
           "not finite.", "",
           "| table | one row | written |", "|---|---|---|"]
    out += [f"| [`{t['name']}.parquet`](#{t['name']}) | {_cell(t['rows'])} | {_WRITTEN[t['written']]} |" for t in tables]
    out += ["", "## Tables"]
    for t in tables:
        out += ["", f"### `{t['name']}`", "", f"`{t['name']}.parquet`, `Result.{t['name']}()`: one row {t['rows'].removeprefix('one ')}. "
                + _cell(t["meaning"]) + (" Written " + _WRITTEN[t["written"]] + "." if t["written"] != "always" else "")]
        if t["inferred"]:
            out += ["", "Built from the summary's entries: the column types are those pyarrow infers from the values "
                    "(a column that is null in every row has type `null`), and a column present only for some "
                    "flows is there when the first flow has it."]
        out += ["", "| column | type | unit | meaning |", "|---|---|---|---|"]
        for c in t["columns"]:
            only = f" Only {'in a network' if c['only'] == 'network' else 'when ' + c['only']}." if c["only"] else ""
            out.append(f"| `{c['name']}` | {c['type']} | {c['unit'] or '—'} | {_cell(c['meaning'])}.{only} |")
    out += ["", "## `summary.json`", "",
            "The run's figures (`Result.summary`), keys sorted in the file. `sim_speed` and `wall_s` depend on the "
            "machine; everything else is the same for the same scenario.", "",
            "| key | type | unit | present | meaning |", "|---|---|---|---|---|"]
    for k in contract["summary"]:
        out.append(f"| `{k['name']}` | {_cell(k['type'])} | {k['unit'] or '—'} | {_PRESENT[k['presence']]} | "
                   f"{_cell(k['meaning'])} |")
    return "\n".join(out) + "\n"


_PAGES = {"output-reference": output_reference, "scenario-reference": scenario_reference}


def main(argv: list[str] | None = None) -> int:
    """``python -m cellshare.docs PAGE [-o FILE]``: prints (or writes) a generated page."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m cellshare.docs", description="Renders a generated documentation page.")
    ap.add_argument("page", choices=sorted(_PAGES), help="the page to render")
    ap.add_argument("-o", "--out", help="write it to this file instead of standard output")
    args = ap.parse_args(argv)
    text = _PAGES[args.page]()
    if args.out is None:
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
