"""Base-station queue management through the CLI and the Python API: per-class results and
the Sneaker and BoDe reproductions (default, quick runs: a few seconds each)."""

import json

import pyarrow.parquet as pq

import cellshare


def _claims(out):
    return {c["id"]: c for c in json.loads((out / "claims.json").read_text())["claims"]}


def test_per_class_results_table(run_cli, tmp_path):
    out = tmp_path / "ds"
    p = run_cli("run", "scenarios/bode-diffserv.toml", "--out", out, "--duration", "10")
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    classes = {c["class"]: c for c in s["classes"]}
    assert {"foreground", "background", "dscp1", "dscp2", "dscp3"} <= set(classes)
    for d in ("dscp1", "dscp2"):
        assert set(classes[d]["queue_delay_ms"]) >= {"p50", "p99"}
        assert classes[d]["power"] > 0 and classes[d]["delivered_mbps"] > 0
    table = pq.read_table(out / "classes.parquet").to_pydict()
    assert "queue_delay_p99_ms" in table and "power" in table and "drops" in table


def test_queue_wait_is_a_flow_column_and_bode_bounds_it(run_cli, tmp_path):
    """The wait before service (what BoDe bounds) reaches the summary and `flows.parquet`;
    on an overloaded fixed link BoDe keeps every delivered packet's wait under D, and the
    queue delay adds at least the TTI that carries the packet."""
    scenario = tmp_path / "bode.toml"
    scenario.write_text(
        "[simulation]\nduration_s = 5\n[cell]\naqm = { kind = \"bode\", bounded_delay_ms = 20 }\n"
        "[[ues]]\nchannel = { kind = \"fixed\", rate_mbps = 10 }\n"
        "[[flows]]\nname = \"cbr\"\nue = 0\ntransport = { kind = \"cbr\", rate_mbps = 15 }\n")
    out = tmp_path / "out"
    p = run_cli("run", scenario, "--out", out)
    assert p.returncode == 0, p.stderr
    flow = json.loads((out / "summary.json").read_text())["flows"][0]
    wait, delay = flow["queue_wait_ms"], flow["queue_delay_ms"]
    assert wait["count"] == delay["count"] > 1000
    assert wait["max"] < 20.0 < delay["max"], (wait, delay)
    assert delay["mean"] - wait["mean"] >= 1.0
    table = pq.read_table(out / "flows.parquet").to_pydict()
    cols = [c for c in table if c.startswith("queue_wait")]
    assert cols == ["queue_wait_samples", "queue_wait_mean_ms", "queue_wait_p50_ms", "queue_wait_p99_ms",
                    "queue_wait_max_ms"]
    assert table["queue_wait_max_ms"] == [wait["max"]] and table["queue_wait_samples"] == [wait["count"]]


def test_sneaker_cell_scenario_yields():
    r = cellshare.run("scenarios/sneaker-cell.toml")
    bg, fg = r.flow("background")["per_second_mbps"], r.flow("foreground")["per_second_mbps"]
    on = [s for s in range(12, 20)] + [s for s in range(32, 40)]
    share = sum(bg[s] for s in on) / sum(bg[s] + fg[s] for s in on)
    assert share < 0.15, share
    assert r.summary["drops"]["bs_admission"] > 0


def test_sneaker_yields_among_100_users():
    # Figure 7's cell at 50 % load, 60 s: with Eq. (6)'s N counting the UEs with data queued,
    # Sneaker drops enough for its Reno background to yield (counting every flow seen in the
    # last second put rho below Eq. (5)'s threshold and Sneaker dropped almost nothing, so
    # the background kept its PF share, as under tail drop). The formula and rho measured
    # from the scheduler agree.
    from cellshare.reproduce.workloads import sneaker_scenario, summarize

    def background(aqm):
        sc = sneaker_scenario("sneaker-at-scale-test", "Sneaker", 0.5, 1, 60.0)
        sc["cell"]["aqm"] = aqm
        r = cellshare.run(sc)
        return summarize(r)["background_mbps"], r.summary["drops"]["bs_admission"]

    tail, _ = background({"kind": "tail_drop"})
    formula, drops = background({"kind": "sneaker"})
    measured, _ = background({"kind": "sneaker", "rho": "measured"})
    assert formula < 0.6 * tail, (formula, tail)
    assert drops > 50, drops
    assert abs(formula - measured) < 0.15 * measured, (formula, measured)


def test_sneaker_reproductions(run_cli, tmp_path):
    # sneaker-prioritization's idle-cell claim misses (Reno's AIMD against Eq. (5)'s fluid
    # model, docs/reproductions.md): exit code 1.
    out = tmp_path / "prio"
    p = run_cli("reproduce", "sneaker-prioritization", "--out", out, "--no-sensitivity")
    assert p.returncode in (0, 1), p.stderr
    c = _claims(out)
    for cid in ("yield-order", "strict-priority-blocks", "strict-causes-timeouts"):
        assert c[cid]["verdict"] == "holds", c[cid]
    assert c["yield-order"]["ours"]["Sneaker"] < 0.15
    assert "sneaker-serves-idle" in c
    assert (out / "sneaker-prioritization.png").stat().st_size > 10_000
    out = tmp_path / "sneaker-scaling"
    run_cli("reproduce", "sneaker-scaling", "--out", out, "--no-sensitivity")
    c = _claims(out)
    for cid in ("gain-L1", "pfs-degrades", "sneaker-degrades-less"):
        assert c[cid]["verdict"] == "holds", c[cid]
    assert c["gain-L8"]["ours"] > 5.0  # overshoots the paper's 5× (a miss; the paper's own Eq. (3) gives ~8)
    assert (out / "sneaker-scaling.png").stat().st_size > 10_000
    out = tmp_path / "sneaker-fairness"
    p = run_cli("reproduce", "sneaker-fairness", "--out", out, "--no-sensitivity")
    # (a)'s worst 10 s share moves with the seed (0.76-1.34 over seeds 1-3, either link:
    # docs/reproductions.md), so it may miss; the flows still share fairly (Jain per period).
    assert p.returncode in (0, 1), p.stdout + p.stderr
    c = _claims(out)
    assert c["foreground-fair-share"]["verdict"] == "holds", c["foreground-fair-share"]
    jain_a = [float(x) for x in c["background-fair-share"]["detail"].split("Jain per period ")[1].split(", ")]
    assert len(jain_a) == 5 and min(jain_a) > 0.95, jain_a
    assert (out / "sneaker-fairness.png").stat().st_size > 10_000


def test_bode_reproductions(run_cli, tmp_path, traces_dir):
    # BoDe's bound does not hold on the slow and bursty traces (the paper says the overall
    # delay can exceed it at low capacity; docs/reproductions.md).
    out = tmp_path / "bode"
    p = run_cli("reproduce", "bode", "--out", out, "--no-sensitivity")
    assert p.returncode in (0, 1), p.stderr
    c = _claims(out)
    assert c["delay-cut-bbr"]["verdict"] == "holds"
    # The bound claims judge the wait before service against D = 20 ms. On the AT&T trace
    # the p99 wait is within D + 1 % under most controllers; under Westwood+ and Sprout the
    # packets BoDe serves by its third rule pass 1 % and the p99 lands within a TTI above D
    # (reproduce/causes.py). The wait leaves out the TTI that carries the packet.
    bound = c["bound-ATT-LTE-driving"]
    assert bound["target"]["value"] == 20.0 and bound["ours"] < 21.0, bound
    waits = dict(kv.split(" ") for kv in bound["detail"].split("controller: ")[1].split("; ")[0].split(", "))
    assert sum(float(v) <= 20.2 for v in waits.values()) >= 5, waits
    assert c["delay-cut-sprout"]["verdict"] == "holds" and c["delay-cut-vivace"]["verdict"] == "holds"
    assert c["throughput-cost-cubic"]["verdict"] == "holds"
    assert isinstance(c["bound-NYC-LTE-subway"]["ours"], float)
    assert (out / "bode.png").stat().st_size > 10_000
    out = tmp_path / "ds"
    p = run_cli("reproduce", "bode-diffserv", "--out", out, "--no-sensitivity")
    assert p.returncode == 0, p.stdout + p.stderr
    c = _claims(out)
    assert c["bode-class1-TMobile-LTE-driving"]["verdict"] == "holds" and c["fifo-fails-on-test-trace"]["verdict"] == "holds"
