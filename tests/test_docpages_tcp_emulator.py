"""The ``te-*`` renderers of docs/tcp.md and docs/emulator.md (cellshare.docpages.tcp_emulator):
each reads its stored artefact, the crosscheck's constants or a test file, a changed input
changes the page, a bad argument is one clear error; and the test thresholds the emulator page
types beside a test's name are the ones that test asserts."""

from __future__ import annotations

import inspect
import json
import re
import shutil
from pathlib import Path

import pytest

from cellshare import docgen, emulate
from cellshare.docgen import DocgenError, _Artefacts
from cellshare.docpages import tcp_emulator as te

REPO = Path(__file__).resolve().parents[1]


def render(root: Path, spec: str) -> str:
    """One inline section rendered against the artefacts under `root`."""
    page = f"x <!-- generated: {spec} -->?<!-- end generated -->"
    out = docgen.render_page(page, _Artefacts(root))
    return out.removeprefix(f"x <!-- generated: {spec} -->").removesuffix("<!-- end generated -->")


@pytest.fixture
def copy(tmp_path):
    """A root with copies of the artefacts the renderers read; returns (root, loaded process file)."""
    for rel in (te.EMU_PROCESS, te.EMU_NR, te.EMU_BODE):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    (tmp_path / "tests").mkdir()
    shutil.copy(REPO / "tests" / "test_emulator.py", tmp_path / "tests" / "test_emulator.py")
    return tmp_path, json.loads((REPO / te.EMU_PROCESS).read_text())


def _save(root: Path, d: dict) -> None:
    (root / te.EMU_PROCESS).write_text(json.dumps(d))


def test_the_pages_use_the_te_renderers():
    emu = (REPO / "docs" / "emulator.md").read_text()
    tcp = (REPO / "docs" / "tcp.md").read_text()
    for marker in ("te-kill back-exit", "te-kill front-clean", "te-start-cost script", "te-run script",
                   "te-first-packet binary", "te-nr-wait", "te-const emulate.HOST_STEAL_FLOOR_PERCENT",
                   "te-const emulate.RTT_TOLERANCE pct"):
        assert f"<!-- generated: {marker} -->" in emu, marker
    for marker in ("te-crosscheck", "te-bode", "te-clock-start", "te-first-packet traces", "te-const emulate.THROUGHPUT_TOLERANCE pct",
                   "te-const emulate.TIMEOUTS_PER_MINUTE_TOLERANCE"):
        assert f"<!-- generated: {marker} -->" in tcp, marker
    # What the pages typed before is gone from them (it is in CHANGELOG.md now).
    for typed in ("0.11–0.20 s", "9.67 Mbps", "97.7 %", "0.1–0.25 s", "3–5 ms instead of 0.2 ms", "exited 247"):
        assert typed not in emu, typed
    for typed in ("5–20 ms after", "about half a second", "(±5 %)", "(within 25 %)", "225 ms at the emulator's"):
        assert typed not in tcp, typed


def test_te_const_reads_the_crosschecks_constants(monkeypatch):
    assert render(REPO, "te-const emulate.THROUGHPUT_TOLERANCE pct") == f"{emulate.THROUGHPUT_TOLERANCE * 100:g} %"
    assert render(REPO, "te-const emulate.RETX_PER_DROP_TOLERANCE pct") == "25 %"
    assert render(REPO, "te-const emulate.TIMEOUTS_PER_MINUTE_TOLERANCE") == "1"
    assert render(REPO, "te-const emulate.HOST_STEAL_FLOOR_PERCENT") == "0.5"
    monkeypatch.setattr(emulate, "RTT_TOLERANCE", 0.125)
    assert render(REPO, "te-const emulate.RTT_TOLERANCE pct") == "12.5 %"


@pytest.mark.parametrize("spec, message", [
    ("te-const", "expected `te-const MODULE.NAME [pct]`"),
    ("te-const emulate.NO_SUCH", "cellshare.emulate has no constant 'NO_SUCH'"),
    ("te-const emulate.REPO", "expected a number"),
    ("te-const emulate.RTT_TOLERANCE percent", "expected `te-const MODULE.NAME [pct]`"),
    ("te-test test_emulator.py", "expected `te-test FILE NAME`"),
    ("te-test test_emulator.py test_nothing_of_the_kind", "tests/test_emulator.py has no test 'test_nothing_of_the_kind'"),
    ("te-test no_such_file.py test_x", "tests/no_such_file.py not found"),
    ("te-start-cost", "expected `te-start-cost script|binary`"),
    ("te-start-cost wheel", "expected script or binary, got 'wheel'"),
    ("te-first-packet wheel", "expected script, binary or traces, got 'wheel'"),
    ("te-run wheel", "expected script or binary, got 'wheel'"),
    ("te-run", "expected `te-run script|binary`"),
    ("te-kill", "expected `te-kill back-exit|back-clean|front-clean`"),
    ("te-idle-rtt median", "expected `te-idle-rtt [rto]`"),
    ("te-kill sideways", "expected one of back-exit, back-clean, front-clean, got 'sideways'"),
])
def test_a_bad_argument_is_one_line_naming_what_was_expected(spec, message):
    with pytest.raises(DocgenError) as e:
        render(REPO, spec)
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_missing_artefact_names_its_file(tmp_path):
    with pytest.raises(DocgenError, match="tools/data/emu-process.json not found"):
        render(tmp_path, "te-machine")


def test_te_test_follows_the_test_file(copy):
    root, _ = copy
    name = "test_bode_bounds_sojourn_in_the_emulator"
    assert render(root, f"te-test test_emulator.py {name}") == f"`{name}`"
    f = root / "tests" / "test_emulator.py"
    f.write_text(f.read_text().replace(f"def {name}(", "def test_renamed("))
    with pytest.raises(DocgenError, match="has no test"):
        render(root, f"te-test test_emulator.py {name}")
    # A tree without the test file says so.
    shutil.rmtree(root / "tests")
    with pytest.raises(DocgenError, match="tests/test_emulator.py not found"):
        render(root, f"te-test test_emulator.py {name}")


def test_the_process_renderers_follow_the_stored_runs(copy):
    root, d = copy
    ms = lambda xs: f"{te._num(min(xs) * 1000)}–{te._num(max(xs) * 1000)} ms"  # noqa: E731
    assert render(root, "te-start-cost script") == ms(d["start_cost"]["script"])
    assert render(root, "te-start-cost binary") == ms(d["start_cost"]["binary"])
    script_run = next(r for r in d["runs"] if r["emulator"] == "package script")
    text = render(root, "te-run script")
    assert f"ran its {script_run['duration_s']:g} s in real time" in text
    assert f"PRB utilization {script_run['prb_utilization'] * 100:.1f} %" in text
    assert f"against the modelled {script_run['base_rtt_ms']:g} ms" in text
    # A changed artefact changes the page.
    script_run["kept_real_time"] = False
    script_run["flows"][0]["throughput_mbps"] = 7.0
    script_run["flows"][1]["throughput_mbps"] = 8.0
    script_run["flows"][1]["first_packet_s"] = 0.5
    d["start_cost"]["binary"] = [0.002, 0.004]
    d["kills"] = [{"killed": "back end", "front_end_exit_s": 0.3, "nothing_left_s": 0.3},
                  {"killed": "back end", "front_end_exit_s": 0.5, "nothing_left_s": 0.6},
                  {"killed": "front end", "front_end_exit_s": None, "nothing_left_s": 0.25}]
    d["trace_starts"] = [{"trace": "a.down", "clock_start_tti": 400, "first_packet_s": 0.004},
                         {"trace": "b.down", "clock_start_tti": 900, "first_packet_s": 0.02}]
    _save(root, d)
    text = render(root, "te-run script")
    assert "behind real time" in text and "two CUBIC flows at 7.00 and 8.00 Mbps" in text, text
    assert render(root, "te-first-packet script").endswith("–500 ms")
    assert render(root, "te-start-cost binary") == "2–4 ms"
    assert render(root, "te-kill back-exit") == "0.30–0.50 s after the kill (two kills)"
    assert render(root, "te-kill back-clean") == "0.30–0.60 s after the kill (two kills)"
    assert render(root, "te-kill front-clean") == "0.25 s after the kill (one kill)"
    assert render(root, "te-clock-start") == "400 ms on a, 900 ms on b"
    assert render(root, "te-first-packet traces") == "4–20 ms"
    for r in d["runs"]:
        r["idle_rtt_median_ms"] = [30.0, 120.0]
    _save(root, d)
    assert render(root, "te-idle-rtt") == "30.0–120.0 ms"
    # RTT + max(2·RTT, 200 ms): 30 + 200, 120 + 240
    assert render(root, "te-idle-rtt rto") == "230–360 ms"
    d["kills"] = [k for k in d["kills"] if k["killed"] == "back end"]
    _save(root, d)
    with pytest.raises(DocgenError, match="no kill of the front end"):
        render(root, "te-kill front-clean")


def test_the_crosscheck_table_follows_the_stored_run(copy):
    root, d = copy
    page = "<!-- generated: te-crosscheck -->\n<!-- end generated -->\n"
    out = docgen.render_page(page, _Artefacts(root))
    for f in d["crosscheck"]["flows"]:
        assert f"| {f['name']} | {f['sim_mbps']:.2f} / {f['emu_mbps']:.2f} " in out
    assert ("within every tolerance" if d["crosscheck"]["ok"] else "outside a tolerance") in out
    d["crosscheck"]["flows"][0]["emu_mbps"] = 3.21
    d["crosscheck"]["ok"] = False
    _save(root, d)
    out = docgen.render_page(page, _Artefacts(root))
    assert "/ 3.21 (" in out and "outside a tolerance" in out


def test_the_bode_table_and_ratios_follow_the_stored_runs(copy):
    root, _ = copy
    page = "<!-- generated: te-bode -->\n<!-- end generated -->\n"
    d = json.loads((root / te.EMU_BODE).read_text())
    runs = {r["aqm"]: r["flows"][0] for r in d["runs"]}
    out = docgen.render_page(page, _Artefacts(root))
    for f in runs.values():
        assert f"| {f['sim_mbps']:.2f} / {f['emu_mbps']:.2f} | {f['sim_drops']} / {f['emu_drops']} |" in out, out
    ratio = runs["bode"]["emu_mbps"] / runs["tail_drop"]["emu_mbps"]
    assert f"Linux's {ratio:.2f}." in out
    # A changed artefact changes the page.
    next(r for r in d["runs"] if r["aqm"] == "bode")["flows"][0]["emu_mbps"] = runs["tail_drop"]["emu_mbps"] / 2
    (root / te.EMU_BODE).write_text(json.dumps(d))
    assert "Linux's 0.50." in docgen.render_page(page, _Artefacts(root))
    # A file without both runs is an error naming what it holds.
    d["runs"] = [r for r in d["runs"] if r["aqm"] == "bode"]
    (root / te.EMU_BODE).write_text(json.dumps(d))
    with pytest.raises(DocgenError, match="expected one flow in each of a tail_drop and a bode run, got bode"):
        docgen.render_page(page, _Artefacts(root))


def test_the_nr_wait_is_one_and_a_half_slots_of_each_stored_numerology(copy):
    root, _ = copy
    assert render(root, "te-nr-wait") == "1.5, 0.75, 0.375, 0.1875 ms"
    d = json.loads((root / te.EMU_NR).read_text())
    d["runs"] = [r for r in d["runs"] if r["rat"] == "lte" or r["slot_ms"] >= 0.5]
    (root / te.EMU_NR).write_text(json.dumps(d))
    assert render(root, "te-nr-wait") == "1.5, 0.75 ms"


def test_the_process_artefact_states_its_command_and_machine():
    d = json.loads((REPO / te.EMU_PROCESS).read_text())
    assert d["generated_by"].startswith("python tools/emu_process_measure.py --out FILE")
    assert {"cores", "cpu", "load_1min_before", "load_1min_after"} <= set(d["machine"])
    assert {r["emulator"] for r in d["runs"]} == set(te.EMULATORS.values())
    assert {k["killed"] for k in d["kills"]} == {"back end", "front end"}
    assert all(k["front_end_returncode"] == 1 for k in d["kills"] if k["killed"] == "back end")
    assert all(k["front_end_exit_s"] is not None for k in d["kills"] if k["killed"] == "back end")
    assert d["crosscheck"]["throughput_tolerance"] == emulate.THROUGHPUT_TOLERANCE


#: Per test the emulator page names: (what the page types in that test's bullet, what the test's
#: source asserts). A threshold changed on one side only fails here.
THRESHOLDS = {
    "test_fixed_20mbps_ue_carries_cubic_at_90_percent_with_base_rtt_when_idle": [
        ("at ≥ 90 % of its rate", ">= 0.9 * 20.0"), ("within 2 ms of the configured base RTT", "<= base + 2.0"),
        ("median within 1 ms of the base plus 1.5 ms", "- (base + 1.5)) <= 1.0")],
    "test_two_cubic_ues_share_fairly_and_match_the_simulator": [("Jain's index ≥ 0.9", '["jain_index"] >= 0.9')],
    "test_the_realistic_link_delays_and_repairs_what_real_tcp_sees": [("adds 1–3.5 ms", "1.0 <= rtt(real) - rtt(ideal) <= 3.5")],
    "test_legilimens_ebpf_background_yields_to_on_off_cubic_as_in_figure_7": [
        ("≤ 20 % of the cell while the foreground is on", "<= 0.2 * cap"), ("≥ 60 % while it is", ">= 0.6 * cap")],
    "test_bode_bounds_sojourn_in_the_emulator": [
        ("sojourn p99 within 3 ms", '["p99"] <= 30.0 + 3.0'), ("maximum within 5 ms of the bound", '["max"] <= 30.0 + 5.0'),
        ("within 2 ms of the simulator's", '["p99"]) <= 2.0'), ("at ≥ 80 %", ">= 0.8 * 20.0")],
}


def _bullet(page: str, test: str) -> str:
    """The list item of the page that names `test`, joined into one line."""
    for item in re.split(r"\n(?=- )", page):
        if f"te-test test_emulator.py {test} -->" in item:
            return " ".join(item.split())
    raise AssertionError(f"docs/emulator.md names no test {test}")


def test_the_thresholds_on_the_emulator_page_are_those_its_tests_assert():
    import test_emulator

    page = (REPO / "docs" / "emulator.md").read_text()
    for test, pairs in THRESHOLDS.items():
        source = " ".join(inspect.getsource(getattr(test_emulator, test)).split())
        bullet = _bullet(page, test)
        for typed, asserted in pairs:
            assert typed in bullet, (test, typed, bullet)
            assert asserted in source, (test, asserted)


def test_te_start_range_reads_the_start_sweep(tmp_path):
    rel = docgen.START_SENSITIVITY
    d = json.loads((docgen.ROOT / rel).read_text())
    case = next(c for c in d["cases"] if c["trace"] == "TMobile-UMTS-driving.down" and c["cc"] == "bbr")
    r = case["rtt_p50_ms"]
    assert render(docgen.ROOT, "te-start-range TMobile-UMTS-driving.down bbr") == f"{r['min']:.0f}–{r['max']:.0f} ms"
    case["rtt_p50_ms"] = {"min": 100.4, "median": 200.0, "max": 300.6}
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text(json.dumps(d))
    assert render(tmp_path, "te-start-range TMobile-UMTS-driving.down bbr") == "100–301 ms"
    with pytest.raises(DocgenError, match="has no case TMobile-UMTS-driving.down / reno"):
        render(tmp_path, "te-start-range TMobile-UMTS-driving.down reno")
