"""`prb_utilization` is PRBs used over PRBs *offered* (docs/outputs.md): on a trace
channel only the milliseconds with a delivery opportunity offer PRBs; the old figure (used
over all PRBs) is `prb_used_share_of_all`. Radio and fixed cells offer every TTI and keep
their value exactly."""

import pytest

import cellshare


def _scenario(ues, flows, duration_s=5.0, **cell):
    return {"name": "prb", "simulation": {"duration_s": duration_s, "seed": 3}, "cell": cell, "ues": ues,
            "flows": flows}


def _cbr(ue, mbps):
    return {"ue": ue, "transport": {"kind": "cbr", "rate_mbps": mbps}}


def _trace(path, offset_ms=0):
    return {"channel": {"kind": "trace", "file": str(path), "offset_ms": offset_ms}}


def _rate_mbps(path, duration_s):
    """The trace's capacity over the run's first `duration_s` (IP bytes)."""
    stamps = [int(x) for x in path.read_text().split()]
    return sum(1 for t in stamps if t < duration_s * 1000) * 1500 * 8 / duration_s / 1e6


@pytest.fixture
def sparse_trace(tmp_path):
    # One delivery opportunity (1500 B) in every 10th millisecond: 1.2 Mbit/s.
    p = tmp_path / "sparse.down"
    p.write_text("10\n")
    return p


def test_saturated_ue_on_a_sparse_trace_uses_every_offered_prb(sparse_trace):
    s = cellshare.run(_scenario([_trace(sparse_trace)], [_cbr(0, 10.0)])).summary
    assert s["prb_offered_share"] == pytest.approx(0.1)
    assert s["prb_utilization"] > 0.99
    # The old figure, under its own name: the PRBs of milliseconds without an opportunity
    # count as unused.
    assert s["prb_used_share_of_all"] == pytest.approx(0.1, abs=0.002)
    assert s["prb_used_share_of_all"] == pytest.approx(s["prb_utilization"] * s["prb_offered_share"])


def test_half_the_trace_capacity_shows_half(sparse_trace, traces_dir):
    # 1500-byte packets at 0.6 Mbit/s fill half the opportunities of a 1.2 Mbit/s trace.
    s = cellshare.run(_scenario([_trace(sparse_trace)], [_cbr(0, 0.6)])).summary
    assert s["prb_utilization"] == pytest.approx(0.5, abs=0.03)
    # A real trace (up to several opportunities in a millisecond) at half its capacity over
    # the run: PRBs count with the bytes they carry in their millisecond. Unweighted (every
    # offered millisecond alike) the same run shows 0.58.
    real = traces_dir / "TMobile-LTE-driving.down"
    s = cellshare.run(_scenario([_trace(real)], [_cbr(0, _rate_mbps(real, 20.0) / 2)], duration_s=20.0)).summary
    assert s["prb_utilization"] == pytest.approx(0.5, abs=0.02), s["prb_utilization"]
    assert s["prb_used_share_of_all"] / s["prb_offered_share"] > 0.55
    full = cellshare.run(_scenario([_trace(real)], [_cbr(0, 100.0)], duration_s=20.0)).summary
    assert full["prb_utilization"] > 0.99
    assert full["prb_used_share_of_all"] < 0.5  # the figure that looked like an idle cell


def test_two_trace_ues_offer_the_union_of_their_opportunities(sparse_trace):
    # Interleaved: UE 0 in ms 0, 10, 20 ..., UE 1 in ms 5, 15, 25 ...: 20 % of the TTIs offer.
    r = cellshare.run(_scenario([_trace(sparse_trace), _trace(sparse_trace, offset_ms=5)],
                                [_cbr(0, 10.0), _cbr(1, 10.0)]))
    s = r.summary
    assert s["prb_offered_share"] == pytest.approx(0.2)
    assert s["prb_utilization"] > 0.99
    # Only UE 0 sends: UE 1's opportunities are offered but unused.
    s = cellshare.run(_scenario([_trace(sparse_trace), _trace(sparse_trace, offset_ms=5)],
                                [_cbr(0, 10.0)])).summary
    assert s["prb_utilization"] == pytest.approx(0.5, abs=0.01)
    # The per-second series: used over offered, and the share of all PRBs.
    t = r.cell_series().to_pydict()
    assert t["prb_utilization"][0] > 0.95  # the first packets are on their way at 0 ms
    assert all(v == 1.0 for v in t["prb_utilization"][1:])
    assert all(v == pytest.approx(0.2) for v in t["prb_used_share_of_all"][1:])


@pytest.mark.parametrize("channel", [{"kind": "radio", "distance_m": 400.0}, {"kind": "fixed", "rate_mbps": 20.0}])
def test_radio_and_fixed_cells_offer_every_prb(channel):
    r = cellshare.run(_scenario([{"channel": channel}, {"channel": channel}], [_cbr(0, 6.0), _cbr(1, 30.0)],
                                duration_s=3.0))
    s = r.summary
    assert s["prb_offered_share"] == 1.0
    assert 0.5 < s["prb_utilization"] <= 1.0
    assert s["prb_utilization"] == s["prb_used_share_of_all"]  # the same number, to the bit
    t = r.cell_series().to_pydict()
    assert t["prb_utilization"] == t["prb_used_share_of_all"]


def test_a_trace_without_opportunities_in_a_second_has_no_utilization_that_second(tmp_path):
    # Opportunities at 0 ms (the period's end wraps there) and 500 ms, then an outage to
    # 3.5 s: seconds 1 and 2 offer nothing. The first data packet is still on its way at 0 ms.
    p = tmp_path / "outage.down"
    p.write_text("500\n3500\n")
    r = cellshare.run(_scenario([_trace(p)], [_cbr(0, 1.0)], duration_s=3.0))
    t = r.cell_series().to_pydict()
    assert t["prb_utilization"][0] in (pytest.approx(0.5), pytest.approx(1.0))
    assert t["prb_utilization"][1:] == [None, None]
    assert t["prb_used_share_of_all"][1:] == [0.0, 0.0]
