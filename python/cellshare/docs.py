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
        # written as what they are: a string enum is not a table (issue 29).
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
