"""The Python API's input handling: a scenario given as a Python mapping,
whatever its Python types, is either run or refused with `ScenarioInvalid` naming the key
path; None means "the default"; bad `limits` are a ValueError naming the limit; and
`cellshare.run` runs every scenario `cellshare run` runs, LLN scenarios included."""

import copy
import json
import re

import pytest

import cellshare
from cellshare import ScenarioInvalid
from cellshare.api import validate
from conftest import REPO

#: A small valid scenario; each case below breaks one key of a copy.
SMALL = {
    "simulation": {"duration_s": 0.2, "seed": 1},
    "ues": [{"count": 1, "channel": {"kind": "fixed", "rate_mbps": 10.0}}],
    "flows": [{"ue": 0, "name": "cbr", "transport": {"kind": "cbr", "rate_mbps": 1.0}}],
}


def small(**changes):
    doc = copy.deepcopy(SMALL)
    for path, value in changes.items():
        node = doc
        parts = path.split("__")
        for p in parts[:-1]:
            node = node[int(p)] if p.isdigit() else node[p]
        last = parts[-1]
        node[int(last) if last.isdigit() else last] = value
    return doc


def test_a_small_mapping_runs():
    r = cellshare.run(SMALL)
    assert r.summary["duration_s"] == pytest.approx(0.2)


def _reference_default(key: str) -> dict:
    """The default `cellshare scenario-reference` prints for the first row of `key`."""
    from cellshare.docs import scenario_reference

    for line in scenario_reference().splitlines():
        if line.startswith(f"| `{key}` |"):
            return json.loads(line.split("|")[3].strip().strip("`"))
    raise AssertionError(f"no row {key!r} in the reference")


def test_none_means_the_default_as_the_reference_prints_it():
    """`cellshare scenario-reference` prints defaults with nulls (`limit_packets: null`);
    copied into a mapping they were a TypeError from tomli_w."""
    cell = _reference_default("cell")
    cc = _reference_default("cc")
    assert None in cell["aqm"].values() and None in cc.values()
    doc = small(cell=cell)
    doc["flows"].append({"ue": 0, "transport": {"kind": "tcp", "cc": cc}})
    doc["name"] = None          # a top-level key left to its default
    doc["flows"][0]["stop_s"] = None
    validate(doc)
    r = cellshare.run(doc)
    assert r.summary["duration_s"] == pytest.approx(0.2)


class Weird:
    def __repr__(self):
        return "<weird>"


SELF_LIST: list = []
SELF_LIST.append(SELF_LIST)
SELF_DICT: dict = {}
SELF_DICT["x"] = SELF_DICT


def _deep(n):
    doc = 1
    for _ in range(n):
        doc = {"a": doc}
    return doc


@pytest.mark.parametrize("doc,path,words", [
    (small(flows__0__transport__rate_mbps="fast"), "flows[0].transport.rate_mbps", ["string", "f64"]),
    (small(flows__0__transport__rate_mbps={1, 2}), "flows[0].transport.rate_mbps", ["set", "expected"]),
    (small(flows__0__transport__rate_mbps=b"1"), "flows[0].transport.rate_mbps", ["bytes"]),
    (small(flows__0__transport__rate_mbps=1 + 2j), "flows[0].transport.rate_mbps", ["complex"]),
    (small(flows__0__transport__rate_mbps=Weird()), "flows[0].transport.rate_mbps", ["<weird>", "Weird"]),
    (small(flows__0__name="caf\udce9"), "flows[0].name", ["surrogate", "UTF-8"]),
    (small(flows__0__transport={1: "cbr"}), "flows[0].transport", ["the key 1", "text keys"]),
    (small(flows__0__transport={"kind\ud800": "cbr"}), "flows[0].transport", ["surrogate"]),
    (small(flows__0__transport={"a\nb": {1: 2}}), 'flows[0].transport."a\\nb"', ["the key 1"]),  # stays one line
    (small(simulation__seed=2 ** 64), "simulation.seed", ["18446744073709551616", "TOML integer"]),
    (small(simulation__seed=10 ** 400), "simulation.seed", ["401 digits"]),
    (small(ues__0__channel=SELF_LIST), "ues[0].channel[0]", ["contains itself"]),
    (small(ues__0__channel=SELF_DICT), "ues[0].channel.x", ["contains itself"]),
    (small(ues=[None]), "ues[0]", ["got None"]),
    (small(workload=_deep(1000)), "workload.a.a.a", ["nested more than 64"]),
])
def test_bad_python_values_are_scenario_invalid_naming_the_key(doc, path, words):
    """Each was a TypeError, UnicodeEncodeError, RecursionError or OverflowError."""
    for call in (validate, cellshare.run):
        with pytest.raises(ScenarioInvalid) as e:
            call(doc)
        msg, key, detail = e.value.args
        assert key.startswith(path) and msg.startswith(f"`{key}`: ") and detail in msg, e.value.args
        assert "\n" not in msg and len(msg) < 400, msg
        for w in words:
            assert w in msg, (w, msg)


def test_int_key_at_the_top_and_other_scenario_types():
    with pytest.raises(ScenarioInvalid, match="got the key 3 .* in the top-level table, expected text keys"):
        cellshare.run({3: "x"})
    for bad in (42, b"scenarios/two-ues-pf.toml", ["a"], 1.5):
        with pytest.raises(ScenarioInvalid, match="expected a scenario: a TOML file path, a mapping, or None"):
            cellshare.run(bad)


def test_errors_about_a_mapping_cite_no_toml_line():
    """A mapping's error cited "(line 5)" of TOML text the user never wrote; the same error
    from a file keeps its line."""
    doc = small(flows__0__transport__rate_mbps="fast")
    with pytest.raises(ScenarioInvalid) as e:
        cellshare.run(doc)
    assert "line" not in e.value.args[0] and "line" not in e.value.args[2], e.value.args
    with pytest.raises(ScenarioInvalid) as e:
        validate({"ues": [{"count": 1, "channel": {"kind": "fixed", "rate_mbps": "x"}}]})
    assert not re.search(r"line \d", e.value.args[0]), e.value.args


def test_a_file_error_keeps_its_line(tmp_path):
    import tomli_w

    p = tmp_path / "s.toml"
    p.write_text(tomli_w.dumps(small(flows__0__transport__rate_mbps="fast")))
    with pytest.raises(ScenarioInvalid, match=r"\(line \d+\)"):
        validate(p)


@pytest.mark.parametrize("limits,words", [
    ({"max_ues": -1}, ["limits.max_ues", "got -1", "integer"]),
    ({"max_ues": 0}, ["limits.max_ues", "got 0"]),
    ({"max_flows": 2 ** 64}, ["limits.max_flows", "18446744073709551616"]),
    ({"max_memory_mb": 1.5}, ["limits.max_memory_mb", "1.5"]),
    ({"max_memory_mb": "100"}, ["limits.max_memory_mb", "'100'"]),
    ({"max_ues": True}, ["limits.max_ues", "True"]),
    ({"max_users": 5}, ["unknown limit 'max_users'", "max_ues, max_flows, max_memory_mb"]),
    ([("max_ues", 5)], ["limits: got list", "expected a mapping"]),
])
def test_bad_limits_are_a_value_error_naming_the_limit(limits, words):
    """`max_ues = -1` was an OverflowError, an unknown key a TypeError from the extension."""
    for call in (validate, cellshare.run):
        with pytest.raises(ValueError) as e:
            call(SMALL, limits=limits)
        for w in words:
            assert w in str(e.value), (w, str(e.value))


def test_good_limits_apply():
    with pytest.raises(ScenarioInvalid, match="at most 1"):
        validate(small(ues__0__count=2), limits={"max_ues": 1})
    validate(small(ues__0__count=2), limits={"max_ues": 2, "max_flows": None})


def test_run_runs_the_shipped_lln_scenario_as_the_cli_does():
    """`cellshare.run("scenarios/lln-10-6hop.toml")` failed with "unknown field `lln`"."""
    from cellshare.lln import LlnResult

    r = cellshare.run(REPO / "scenarios" / "lln-10-6hop.toml")
    assert isinstance(r, LlnResult) and len(r.raw["nodes"]) == 10
    validate(REPO / "scenarios" / "lln-10-6hop.toml")


def test_an_lln_mapping_runs_and_its_errors_name_the_key():
    from cellshare.scenario_files import tomllib

    doc = tomllib.loads((REPO / "scenarios" / "lln-10-6hop.toml").read_text())
    doc["simulation"]["duration_s"] = 5.0
    doc["lln"]["mac"]["congestion_be"] = None  # the reference's null default
    r = cellshare.run(doc)
    assert r.summary["duration_s"] == pytest.approx(5.0)
    doc["lln"]["nodes"][0]["parent"] = "x"
    with pytest.raises(ScenarioInvalid) as e:
        cellshare.run(doc)
    assert e.value.args[1].startswith("lln.nodes[0]"), e.value.args
    assert not re.search(r"line \d", e.value.args[0]), e.value.args


def test_the_api_accepts_what_the_cli_accepts(run_cli):
    """Every shipped scenario: `cellshare validate` and `cellshare.api.validate` agree."""
    files = sorted((REPO / "scenarios").glob("*.toml"))
    p = run_cli("validate", *files)
    cli_ok = {line.split(" ", 1)[1].strip() for line in p.stdout.splitlines() if line.startswith("ok ")}
    for f in files:
        try:
            validate(f)
            api_ok = True
        except ScenarioInvalid:
            api_ok = False
        assert api_ok == (str(f) in cli_ok), (f, p.stderr)
