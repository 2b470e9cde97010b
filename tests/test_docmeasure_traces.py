"""`python -m cellshare.docmeasure emu-traces --from OUT` condenses an earlier trace
cross-check: each case's means, Linux's ranges and differences, and the loads its emulator
runs met (not the load at the time of condensing)."""

import json

from cellshare import docmeasure


def _case(trace: str, cc: str, loads: list[float]) -> dict:
    flow = {"name": "flow0", "ue": 0, "sim_mbps": 5.0, "emu_mbps": 4.9, "throughput_rel_diff": 0.02,
            "sim_retransmits": 10, "emu_retransmits": 12, "sim_drops": 10, "emu_drops": 11,
            "sim_retx_per_drop": 1.0, "emu_retx_per_drop": 1.09, "retx_per_drop_rel_diff": 0.09,
            "sim_timeouts": 0, "emu_timeouts": 1, "sim_rtt_p50_ms": 100.0, "emu_rtt_p50_ms": 110.0, "rtt_rel_diff": 0.1,
            "emu_runs": [{"throughput_mbps": (4.8, 4.9)[i % 2], "drops": 10 + i, "retrans": 11 + i, "rto": i % 2,
                          "rtt_ms": 105.0 + i} for i in range(len(loads))]}
    compare = {"throughput_tolerance": 0.05, "rtt_tolerance": 0.1, "retx_per_drop_tolerance": 0.25,
               "timeouts_per_minute_tolerance": 1.0, "emu_kept_real_time": True, "flows": [flow]}
    return {"trace": trace, "cc": cc, "load": loads[0], "compare": compare,
            "attempts": [{"run": i + 1, "load": x, "kept": True} for i, x in enumerate(loads)]}


def test_condensed_from_an_earlier_run_with_the_loads_its_runs_met(tmp_path):
    doc = {"cases": [_case("A.down", "cubic", [0.4, 0.7]), _case("A.down", "bbr", [0.2, 0.05])], "ok": False}
    (tmp_path / "crosscheck.json").write_text(json.dumps(doc))
    d = docmeasure.run_emu_traces(tmp_path)
    assert [(c["trace"], c["cc"]) for c in d["cases"]] == [("A.down", "cubic"), ("A.down", "bbr")]
    c = d["cases"][0]
    assert c["mbps"] == {"sim": 5.0, "emu": 4.9, "emu_range": [4.8, 4.9], "rel_diff": 0.02}
    assert c["rtt_p50_ms"]["emu_range"] == [105.0, 106.0] and c["real_time"] == "kept"
    m = d["machine"]
    assert (m["load_1min_before"], m["load_1min_after"], m["load_1min_runs"]) == (0.4, 0.05, [0.05, 0.7])
    assert d["tolerances"] == {"throughput": 0.05, "rtt": 0.1, "retx_per_drop": 0.25, "timeouts_per_minute": 1.0}
