"""Legilimens backgrounds that start in step (the layout of `scenarios/emu-mixed-legilimens.toml`:
a CUBIC foreground at UE 0, a Legilimens background at each of UEs 1-3, a PF cell).

Established behaviour, a limit of the paper's Algorithm 1 (docs/legilimens.md, "Known limits";
the estimator-level case is `rotation_from_the_first_tti_hides_the_competitors_until_a_back_to_back_slot`
in crates/transport/src/cc/legilimens.rs): backgrounds whose bursts reach PF in the same TTI on
constant channels are served in a strict rotation from their first TTI, none is ever served two
TTIs in a row, none learns the cell's capacity, and none yields. Started a few milliseconds
apart (the first is alone for a few TTIs), or on independently fading channels, they yield.
Linux's eBPF Legilimens yielded in the emulator run of the same layout (docs/emulator.md)."""

import json
from pathlib import Path

import pytest

from cellshare import legilimens_in_step as lis

REPO = Path(__file__).resolve().parents[1]
ARTEFACT = REPO / "tools" / "data" / "legilimens-in-step.json"
CASES = {c["id"]: c for c in lis.CASES}
#: One segment (1448 bytes) per 1 ms TTI, in Mbit/s: in a strict rotation with delayed and
#: quick ACKs at 20 Mbit/s (about 1.7 segments per TTI) a slot carries at most two segments
#: and is followed by a gap of at least two TTIs, so no rate, and no estimate, exceeds it.
ONE_SEGMENT_PER_TTI_MBPS = 1448 * 8 / 1000


@pytest.fixture(scope="module")
def measured() -> dict:
    return {c["id"]: lis.measure_case(c) for c in lis.CASES}


def test_in_step_backgrounds_never_learn_the_capacity_and_never_yield(measured):
    together = measured["fixed-together"]
    # Each of the four UEs gets about its quarter of the 20 Mbit/s cell.
    assert together["fg_mbps"] < 6.0
    assert together["bg_mbps"] > 13.0
    assert not together["bg_backed_off"]
    # A strict rotation: no background receives data in two consecutive TTIs, ever.
    assert together["bg_longest_run_ms"] == 1
    # The estimate never leaves the share a rotation gives: at most one segment per TTI,
    # under 60 % of the cell's 20 Mbit/s.
    assert together["bg_estimate_max_mbps"] <= ONE_SEGMENT_PER_TTI_MBPS + 1e-9
    # A millisecond apart changes nothing: the bursts still meet PF in step.
    assert measured["fixed-1ms"]["fg_mbps"] < 6.0 and not measured["fixed-1ms"]["bg_backed_off"]
    assert measured["fixed-1ms"]["bg_longest_run_ms"] == 1


def test_backgrounds_started_apart_learn_the_capacity_and_yield(measured):
    apart = measured["fixed-5ms"]
    # A quarter of the cell would be 5 Mbit/s; yielding leaves the foreground most of it.
    assert apart["fg_mbps"] > 10.0
    assert apart["bg_backed_off"]
    assert apart["bg_estimate_max_mbps"] > 20.0
    assert apart["bg_longest_run_ms"] >= 5
    # Four TTIs alone are not enough for the estimate to climb past the rotation's rates.
    assert measured["fixed-4ms"]["fg_mbps"] < 6.0 and not measured["fixed-4ms"]["bg_backed_off"]


def test_it_is_not_the_tie_break_but_constant_channels(measured):
    # Fixed channels of different rates (no equal PF metrics to break) lock in the same way;
    # radio channels without fading too; independent Rayleigh fading breaks the rotation.
    assert measured["fixed-unequal"]["fg_mbps"] < 6.0 and not measured["fixed-unequal"]["bg_backed_off"]
    assert measured["radio-together"]["fg_mbps"] < 7.0 and not measured["radio-together"]["bg_backed_off"]
    assert measured["radio-5ms"]["fg_mbps"] > 10.0
    assert measured["rayleigh-together"]["fg_mbps"] > 10.0 and measured["rayleigh-together"]["bg_backed_off"]


def test_a_first_slot_of_several_segments_is_enough(measured):
    # Without quick ACKs the first ACK covers three segments, the initial capacity (half the
    # slot) is near a TTI's worth, and the rotation reads as busy.
    assert measured["fixed-no-quickack"]["fg_mbps"] > 10.0 and measured["fixed-no-quickack"]["bg_backed_off"]


def test_stored_artefact_is_what_the_simulator_gives_now(measured):
    # The simulator is deterministic: the numbers docs/legilimens.md and docs/emulator.md
    # render from tools/data/legilimens-in-step.json must be today's.
    stored = json.loads(ARTEFACT.read_text())
    assert stored["generated_by"] == lis.COMMAND
    assert [c["id"] for c in stored["cases"]] == list(CASES)
    for c in stored["cases"]:
        assert c == measured[c["id"]], f"{c['id']}: stored {c}, now {measured[c['id']]}; run {lis.COMMAND}"
