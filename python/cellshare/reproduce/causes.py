"""Why each claim that misses misses: the one place the causes are kept.

Keyed ``"<reproduction>/<claim id>"``. Each names its category and the measurement that
shows it (a run, a sensitivity row of the scoreboard, the ns-3 cross-check, ...). The
scoreboard joins them with the verdicts of ``python/cellshare/data/scoreboard.json``; a test fails when a
claim misses without a cause here, or when an entry names a claim that does not exist or
(for a miss category) now holds — so after the simulator changes, regenerate the scoreboard
(``cellshare reproduce --all --update-docs``), then update this file and run
``cellshare reproduce --render-docs``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The categories of cause, and what each means.
CATEGORIES = {
    "model gap": "the simulator lacks something the paper's network has (named), shown by a measurement",
    "set-up not given": "the paper does not give a parameter the result rests on; the measurement shows the claim "
                        "moving with it (usually a sensitivity row of the scoreboard)",
    "set-up substituted": "the reproduction runs a different set-up than the paper's (named: traces, workload), for "
                          "availability or cost; the measurement shows what the paper's set-up gives",
    "paper's own evidence differs": "the paper's own simulator (ns-3: docs/crosscheck.md), its own analysis or "
                                    "its other documents give what we measure, not the paper's number",
    "paper's model is idealised": "the paper's number follows from its analytical model, and the protocol it models "
                                  "measurably departs from that model (named)",
    "simulator bug": "a defect in cellshare, reported, not fixed by the reproduction",
    "not explained": "measured, with what was tried, but no measurement isolates the cause yet",
    "holds for another reason": "the claim holds, but a measurement shows it is not for the paper's reason",
}


@dataclass(frozen=True)
class Cause:
    category: str
    measurement: str


_BACKOFF = ("the back-off cap (`max_backoff_exp`, not in the paper): ")
_ATSCALE = ("with a background flow at every UE, every UE stays backlogged and PF gives each about 1/100 of the TTIs "
            "whatever the background's controller")

CAUSES: dict[str, Cause] = {
    # -- Legilimens ------------------------------------------------------------------------
    "lpt-fifo-vs-cell/ledbat-cell-idle": Cause(
        "paper's own evidence differs",
        "the thesis describes the same experiment the other way round (Sec. 2.4, line 260: \"LEDBAT ends up competing "
        "with the foreground flow\", TCP-LP \"sending very less traffic\"); ours has LEDBAT competing too (0.51 of the "
        "cell while CUBIC is on, observation) and alone it fills the idle cell (29.8 Mbps against CUBIC's 28.6). The "
        "paper blames delay profiles that vary across cells (line 64); our base delay is constant (no HARQ), so that "
        "part is not measurable here"),
    "legilimens-onoff/yields": Cause(
        "set-up not given",
        _BACKOFF + "0.079 of the cell at cap 3, 0.033 at cap 10 (sensitivity). Of Legilimens' bytes while CUBIC is "
        "on, 37 % go in NORMAL (its GAP probes passed while CUBIC was on), 27 % in GAP I-III and 37 % are probe tails "
        "delivered during back-off (modes of the 100 ms trace): \"backs off completely in GAP mode\" still probes"),
    "legilimens-onoff/yields-rayleigh": Cause(
        "set-up not given",
        _BACKOFF + "0.083 at cap 3, 0.077 at cap 10 (sensitivity); as without fading, the rest is GAP probing. "
        "Before NORMAL's verdicts also counted in congestion avoidance after a loss it was 0.25: "
        "Reno's halvings after blocks lost on HARQ's last try kept the window below the half BDP the gate asked "
        "for (docs/legilimens.md, Known limits)"),
    "legilimens-onoff/uses-spare-rayleigh": Cause(
        "set-up not given",
        "the channel of Figure 7's real-network run (distance, fading) is not given: 0.15 at 300 m with Rayleigh "
        "fading, 0.44 at 150 m (sensitivity), 0.887 without fast fading (uses-spare). A lone Legilimens flow on "
        "the 300 m Rayleigh channel (60 s, seed 1) enters NORMAL 36 times and GAP I 62 times: deep fades, which "
        "HARQ turns into 8-TTI gaps followed by delayed delivery while our data waits at the eNodeB, look to "
        "Algorithm 1 exactly like a competitor's TTIs (docs/legilimens.md, Known limits), and NORMAL's Reno "
        "window halves at every block lost on HARQ's last try. It carried 9.9 Mbit/s against CUBIC's 65.4 "
        "(34.0 on the ideal link, 63.6 without fading)"),
    "legilimens-fairness/jain-2": Cause(
        "not explained",
        "the back-off lottery evens out slower than the paper's 20 s periods: the same two flows over 195 s give "
        "0.9986-0.9999 (seeds 1-3), over 15 s windows 0.72-1.00 (mean 0.92-0.97); seeds 1-6 give 0.965-0.997 for this "
        "period. The cap of 10 makes it worse (0.95); why the paper's flows converge within 20 s is not measured"),
    "legilimens-fairness/jain-3": Cause(
        "not explained",
        "as jain-2: a lottery of back-offs between flows of one UE. Seed 1 gives 0.951, seeds 1-6 0.855-0.979 "
        "(mean 0.925) with the current estimator rules, 0.917-0.997 (mean 0.970) before them, when seed 1 "
        "held (0.991); which of the flows' verdicts the rules changed is not traced"),
    "legilimens-fairness/jain-4": Cause(
        "not explained",
        "as jain-2 (0.983 for seed 1). Seeds 1-6 give 0.928-0.991 (mean 0.967) with the current "
        "estimator rules (docs/legilimens.md, Known limits), 0.881-0.999 (mean 0.943) before them"),
    "legilimens-fairness/jain-8": Cause(
        "not explained",
        "as jain-2; 8 flows started 2 s apart 0.955, 20 s apart 0.904 (sensitivity; 0.905 and 0.925 before the "
        "receiver's SACK compression); before it, seeds 1-6 at 20 s apart "
        "0.925-0.977 (mean 0.949) with the current estimator rules, 0.876-0.997 (mean 0.952) before them"),
    "legilimens-fairness/jain-24": Cause(
        "not explained",
        "as jain-2: a lottery of back-offs between flows of one UE. Seeds 1-6 give 0.965-0.971 (mean 0.968) with the "
        "receiver's SACK compression, 0.911-0.990 (mean 0.955) without it (`comp_sack_nr = 0`), when "
        "seed 1 held (0.990): the compression narrowed the spread and seed 1 left the top of it"),
    "legilimens-sensitivity/lambda-1-starves-background": Cause(
        "not explained",
        "λ = 1 gives exactly λ = 0.5's background on the on/off pair (a lone flow sees no gap, so λ is never "
        "consulted; after a competitor's gap PF's alternation puts the slot rate near half the capacity, busy at "
        "both), and at scale too (the paper's set-up, one run at 60 % load, seed 1: 0.97 of λ = 0.5's background, "
        "which lives on its GAP probes whatever λ). What starves the paper's background at λ = 1 is not measured"),
    "legilimens-sensitivity/wait-background-better-at-300": Cause(
        "set-up not given",
        _BACKOFF + "at cap 3 T = 300 ms gives 0.98 of the default's background and T = 200 ms 1.02; at cap 10 the "
        "order is the paper's (1.69 against 1.52, sensitivity)"),
    "legilimens-mobile/no-disruption-at-hand-offs": Cause(
        "set-up not given",
        "the other users' load (not in the paper, \"a large volume of regular traffic\") sets how long Legilimens "
        "backs off, and its back-offs, not the hand-offs, make the stalls: its longest stall is 1.45 s on average in "
        "the 5 s after a hand-off and 1.57 s in 5 s windows away from any hand-off (observations), while the CUBIC "
        "background, which never backs off, stalls 0.45 s after one (the 30 ms interruption and the HARQ blocks lost "
        "there); with 6 other users per cell instead of 3 the excess is 4.7 s (sensitivity)"),
    "legilimens-at-scale/fg-within-12-of-wobg": Cause(
        "paper's own evidence differs",
        "it misses in the paper's own simulator too: Legilimens in ns-3's LTE module (docs/legilimens-ns3.md, "
        "100 UEs, 30/60/80 % load, 10 s per case) leaves the long foreground flows 0 to 0.26 Mbit/s beside a "
        "background at every UE, and 37 % below w/o bg at 60 and 80 % with backgrounds at 10 UEs; and the "
        "background's placement and the back-off cap (neither in the paper): " + _ATSCALE + ", and 100 "
        "Legilimens flows' GAP probes alone exceed the cell (docs/workloads.md). 0.98 as shipped; at 60 % load and one seed "
        "(sensitivity) 0.99 as shipped, 0.56 with the background at 10 UEs, 0.28 at cap 10, 0.98 with 64 KB RLC "
        "queues, 0.99 with the UEs within 300 m: none within 12 %"),
    "legilimens-at-scale/fg-within-12-of-ideal": Cause(
        "set-up not given", "as fg-within-12-of-wobg: 0.97; at 60 % load and one seed 0.55 with 10 background UEs, "
        "0.26 at cap 10 (sensitivity)"),
    "legilimens-at-scale/bg-vs-lpt-average": Cause(
        "paper's own evidence differs",
        _ATSCALE + ". ns-3's LTE module, the paper's simulator, does the same: with a background at each of 10 UEs it "
        "gives each background flow 3.05 (LEDBAT), 2.80 (Vegas), 3.17 (CUBIC) Mbit/s, ours 3.19 (docs/crosscheck.md), "
        "so Legilimens can beat LEDBAT and Vegas only by taking more than its UE's share (1.01 here; 0.53 with 10 "
        "background UEs at 60 % load, one seed). Legilimens itself in ns-3 (docs/legilimens-ns3.md, 30/60/80 %, 10 s): "
        "its background / LEDBAT's 0.89 at every UE and 0.37 at 10 UEs, / Vegas' 0.97 and 0.47"),
    "legilimens-at-scale/bg-vs-lpt-max": Cause(
        "paper's own evidence differs", "as bg-vs-lpt-average: the largest ratio over the protocols and loads is 1.12"),
    "legilimens-at-scale/bg-vs-ideal-priority": Cause(
        "holds for another reason",
        "1.69 against the paper's 1.84, but because Legilimens takes the foreground's capacity (its long foreground "
        "flows get 1.30 Mbps against 40.0 beside ideal priority), not because it recaptures spare capacity faster; "
        "with the background at 10 UEs it misses (0.69 at 60 % load, one seed: sensitivity)"),
    "thesis-randomized/bg-ratio": Cause(
        "not explained",
        "the CUBIC background fills every PRB the foreground leaves (PRB utilization 0.9996 on the realistic link, "
        "no timeouts) while Legilimens caps NORMAL at 80 % and yields (0.740), so in our cell it can only move fewer "
        "bytes (0.683: 1.588 vs 2.326 GB). The thesis's real cell let Legilimens move more than CUBIC; with block "
        "errors and HARQ modelled our CUBIC run still wastes no capacity, and what made the thesis's "
        "CUBIC background move less is not measured. Rayleigh fading (sensitivity) gives 0.172"),
    "thesis-randomized/total-ratio": Cause(
        "not explained", "as bg-ratio: 0.736 (2.006 vs 2.727 GB); Rayleigh fading 0.308"),
    # -- Sneaker ---------------------------------------------------------------------------
    "sneaker-prioritization/sneaker-serves-idle": Cause(
        "paper's model is idealised",
        "Eq. (5) with τ_F = 0 sets the drop rate so that the mean Reno window equals the BDP (the fluid model of Eq. "
        "(1)); Reno's sawtooth around that mean, with almost no standing queue, leaves a lone Sneaker-managed flow at "
        "~80 % of tail drop's rate, and after each stop it climbs from the ε window one packet per RTT (~4 s to 70 % "
        "of the cell, observation). 0.67 at ε = 0.1, 0.72 / 0.78 at ε = 0.05 / 0.2, 0.55 at β = 0.3 (sensitivity)"),
    "sneaker-scaling/gain-L8": Cause(
        "paper's own evidence differs",
        "the paper's own analysis predicts ours: Eq. (3) gives the L background flows ε·c together whatever L, so "
        "the foreground keeps about (1 − ε) of the cell while PFS only gives it 1/(L + 1): a gain of (1 − ε)(L + 1) "
        "= 8.1 at L = 8, ε = 0.1. Measured 8.7 (8.0-8.8 for ε 0.05-0.2, β 0.3, no fading: sensitivity)"),
    "sneaker-scaling/sneaker-degrades": Cause(
        "paper's own evidence differs",
        "Eq. (3) gives the foreground the same share whatever L; measured 65.7, 66.6, 68.0, 69.7 Mbps at L = 1, 2, 4, "
        "8 (more background flows, each with a smaller window, take slightly less); the same rise at every ε, β and "
        "without fading (sensitivity)"),
    "sneaker-fairness/background-fair-share": Cause(
        "not explained",
        "the worst of eight flow-periods (10 s each) is a lottery of where each Reno flow's losses fall: seeds 1-6 give "
        "0.748, 0.960, 0.836, 0.670, 0.915, 0.913 (4 of 6 within 0.8-1.25) with the receiver's SACK compression"
        ", and 1.216, 0.859, 1.414, 0.829, 0.835, 0.843 (5 of 6) without it (`comp_sack_nr = 0`), when seed 1 "
        "held; Jain's index per period stays 0.969-1.000. Why the paper's flows converge in every period is not "
        "measured"),
    "sneaker-at-scale/bg-most-at-20": Cause(
        "paper's model is idealised",
        "each medium foreground flow queues more than a TTI at its UE for a fraction of a second, τ_F exceeds 1 and "
        "Sneaker drops at the ε rate; Reno then climbs back one packet per RTT, ~4 s to the BDP, longer than the "
        "~1.4 s between medium flows (docs/workloads.md), so Sneaker leaves the cell 41 % idle (PRB utilization 0.59, "
        "observation): 26.5 Mbps against LEDBAT's 57.3 and TCP-LP's 32.4; at ε = 0.2 34.8. LEDBAT alone in its UE's "
        "queue never yields; with ns-3's LEDBAT window rule (`allowed_increase = 0`) it still takes 42.5 Mbps "
        "(3 seeds), so ns-3's LEDBAT does not explain the paper's order"),
    "bode/power-westwood": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); BoDe's throughput cost under Westwood+ (see throughput-cost-westwood) lowers its power; why Westwood+ loses more rate than the other controllers under BoDe is not isolated"),
    "bode/throughput-cost-westwood": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); Westwood+ sets its window from the delivery-rate estimate after each BoDe drop, which the bursty traces keep low; no run isolates this yet"),
    "bode/bound-ATT-LTE-driving": Cause(
        "paper's own evidence differs",
        "the paper says BoDe bounds the wait before service only and \"the overall queuing delay can be larger than "
        "BoundedDelay\" when capacity is low, and BoDe always serves the last 3 packets (Sec. VI-A, line 175; its own "
        "Fig. 4c: p99 107 ms for a 100 ms bound). Our queue delay runs to the end of the TTI that carries the packet, "
        "and this trace's gaps between delivery opportunities add to a packet's sojourn after BoDe admitted it; the "
        "p99 under each controller is in the claim's detail"),
    "bode/bound-TMobile-LTE-driving": Cause(
        "paper's own evidence differs",
        "the paper says BoDe bounds the wait before service only and \"the overall queuing delay can be larger than "
        "BoundedDelay\" when capacity is low, and BoDe always serves the last 3 packets (Sec. VI-A, line 175; its own "
        "Fig. 4c: p99 107 ms for a 100 ms bound). Our queue delay runs to the end of the TTI that carries the packet, "
        "and this trace's gaps between delivery opportunities add to a packet's sojourn after BoDe admitted it; the "
        "p99 under each controller is in the claim's detail"),
    "bode/bound-NYC-LTE-subway": Cause(
        "paper's own evidence differs",
        "the paper says BoDe bounds the wait before service only and \"the overall queuing delay can be larger than "
        "BoundedDelay\" when capacity is low, and BoDe always serves the last 3 packets (Sec. VI-A, line 175; its own "
        "Fig. 4c: p99 107 ms for a 100 ms bound). Our queue delay runs to the end of the TTI that carries the packet, "
        "and this trace's gaps between delivery opportunities add to a packet's sojourn after BoDe admitted it; the "
        "p99 under each controller is in the claim's detail"),
    "bode/throughput-worst-TMobile-LTE-driving": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); each service gap of this trace longer than 20 ms leaves the whole queue stale and BoDe drops all but the last 3 packets; the paper does not name this trace among those of its throughput claim, and no run isolates the cost"),
    "bode-apps/call-throughput-cost": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); GCC's loss-based controller reacts to BoDe's drops in the traces' service gaps; no run isolates the paper's 2x"),
    "bode-apps/stream-delay-vs-codel": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); CoDel (target 10 ms, interval 50 ms) keeps one TCP stream's p99 sojourn within about 2x of BoDe's; the paper's CoDel values for YouTube and Amazon are not given"),
    "bode-apps/stream-throughput-cost": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); BoDe drops in the traces' service gaps cost the stream rate against CoDel; no run isolates it"),
    "bode-apps/abr-qoe-bb": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); BoDe's drops in the traces' service gaps lower the chunk bitrate, so the QoE ratio falls below the claim; no run isolates it"),
    "bode-apps/abr-qoe-festive": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); as abr-qoe-bb"),
    "bode-apps/abr-qoe-bola": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); as abr-qoe-bb"),
    "bode-apps/abr-qoe-mpc": Cause(
        "not explained",
        "measured on the paper's LTE traces (per-trace values in the claim's detail); as abr-qoe-bb"),
    # -- RTAC / SORPC / DTPA ----------------------------------------------------------------
    "sorpc/download-gain": Cause(
        "set-up not given",
        "the download's start within the upload's congestion cycle and the device queue's size (neither given): the "
        "single queue's download leaves slow start by HyStart when the upload's regrowing window lengthens its ACKs' "
        "wait (12.06 s in the 10 s run), so its 10 s are set by how far slow start got by then. Started at 9, 9.5, 10, "
        "10.5, 11, 11.5, 12 s it gets 6.84, 6.83, 4.87, 3.17, 2.49, 2.47, 2.43 Mbit/s (gain 7.5-21 against SORPC's "
        "51.5); the TCP handshake (its SYN-ACK waits 475 ms behind the upload) put the 10 s run one round "
        "trip later in that cycle (7.40 Mbit/s with `handshake = false`, gain 6.93). At txqueue 750 KB the gain is "
        "3.4 (sensitivity): the thesis's 5.97 lies between"),
    "sorpc/web-single-vs-alone": Cause(
        "set-up not given",
        "the device queue's size (not given): every page's connections now open with a handshake whose uplink "
        "segments wait behind the upload in the single queue (4.16 without the handshake); 5.44 at "
        "the 1.5 MB default, 2.67 at 750 KB (sensitivity): the thesis's 3.75 lies between"),
    "sorpc/youtube-single-vs-alone": Cause(
        "model gap",
        "the server: the thesis blames the variation on \"the bottleneck at the server\" (Sec. 3.4.3, line 2570) and "
        "its start-up without upload is 4.4 s; ours, with no server delay, starts in 0.23 s, so the single queue's "
        "added 1.47 s (its requests, ACKs and handshakes wait behind the upload in the device queue) is 6.5x that, "
        "against the thesis's +3.6 s on 4.4 s"),
    "sorpc/youtube-sorpc-vs-alone": Cause(
        "not explained",
        "ours: SORPC puts the requests and pure ACKs in FIFO0, where they wait 2 ms (p99) as without the upload, and "
        "the start-up is the same (0.226 vs 0.227 s). The thesis's SORPC still adds 1.9 s (6.3 vs 4.4 s); where its "
        "phone delayed the download's packets below the qdisc is not measured"),
    "sorpc/web-sorpc-vs-alone": Cause(
        "not explained",
        "as youtube-sorpc-vs-alone: the requests and ACKs wait 2 ms (p99) in FIFO0 and the mean page load time is "
        "0.297 s against 0.266 s without the upload (1.12); the thesis's 6.2 vs 3.2 s is not reproduced"),
    "rtac/lte-rtt-cut-rtac": Cause(
        "set-up not given",
        "the LTE per-UE queue (not given): with 4 MiB auto-tuning's window is the whole 2.56 MB rmem_max (363 ms; "
        "Linux 3.0 advertised about half of it, tcp_adv_win_scale) against RTAC's 60 ms: 6.0; with 1 MiB 2.77 "
        "(holds), but DRWA's cut then falls to 1.37 (sensitivity)"),
    "rtac/wifi-rtt-cut-rtac": Cause(
        "set-up not given",
        "RTAC's Δ (the thesis's 8 ms for Wi-Fi, ours 0 on a constant base RTT): at the thesis's Δ the cut is 7.67 "
        "(holds), at ours 11.3 (auto-tuning 258 ms against RTAC's 22.8 ms), 23.0 with a 2 ms server distance "
        "(sensitivity). With RFC 6675 recovery (the scoreboard before Linux-like loss recovery) it was 9.56"),
    "rtac/ic-drwa-share": Cause(
        "not explained",
        "DRWA's flow gets 0.5 Mbit/s beside auto-tuning's 14.3 (0.032 against the thesis's 0.02, 0.025 the edge of the "
        "tolerance): the same starvation, 0.1 Mbit/s above the edge. It was 0.024 (holds) before TCP recovered losses "
        "as Linux does (RACK-TLP, F-RTO, undo); no sensitivity row moves it (0.032 at every AP buffer, Δ, server "
        "distance and LTE queue tried); which of the recovery changes lifts DRWA is not isolated"),
    "rtac/wifi-rtt-cut-drwa": Cause(
        "set-up not given",
        "the Wi-Fi path's base RTT (not given): DRWA's window holds about λ = 3 base RTTs of data, 47 ms on our 20 ms "
        "path against the thesis's 32 ms; at a 12 ms base RTT the cut is 8.5 (holds) but RTAC's becomes 18.5 "
        "(misses, sensitivity). In the thesis DRWA's RTT is below RTAC's (32 vs 37.8 ms); in ours it is 2.2× "
        "RTAC's at both base RTTs"),
    "rtac/dc-rtac-share": Cause(
        "set-up not given",
        "the AP's buffer (not given; 750 KB from the thesis's 337 ms): RTAC's Eq. (2.14) fixed point is about 115 "
        "packets (docs/rtac-sorpc-dtpa.md) while auto-tuning holds the rest of the buffer: 0.41 at 750 KB, 0.68 at 300 KB, 0.89 "
        "(holds) at 150 KB (sensitivity)"),
    "rtac/dc-drwa-share": Cause(
        "set-up not given",
        "the AP's buffer, as dc-rtac-share: 0.012 at 750 KB, 0.014 at 300 KB, 0.026 at 150 KB (sensitivity); DRWA "
        "starves harder than the thesis's 6 % at every buffer tried"),
    "rtac/dc-three-rtac-share": Cause(
        "set-up not given",
        "the AP's buffer, as dc-rtac-share: 0.52 at 750 KB, 0.71 at 300 KB, 0.89 at 150 KB (sensitivity), against "
        "the thesis's \"more than 94%\""),
    "sorpc/game-single-worst": Cause(
        "set-up not given",
        "the uplink rates of Fig. 3.10 are not given: the single queue's worst game RTT is 4.9 s at 5 Mbit/s, 1.24 s "
        "(within the tolerance of 1.5 s) at 10 and 0.52 s at 25; with a 750 KB transmit queue 1.24 s at the worst "
        "rate (sensitivity)"),
    "dtpa/reno-6hop-vs-1hop": Cause(
        "set-up not given",
        "the motes' link layer (not given): 0.42 with 2 % frame loss (3 seeds); 0.41 / 0.33 with 0 / 5 % loss and 1.0 "
        "with the IEEE 802.15.4 default MAC (sensitivity, one seed): none of these gives the thesis's 0.20"),
    "dtpa/dtpa-goodput-drop-10": Cause(
        "set-up not given",
        "DTPA's c (not given, \"future work\"): the drop is 0.07 at c = 2 (ours), 0.48 at c = 1 and 0.02 at c = 4 "
        "(sensitivity); the thesis's 23 % lies between c = 1 and 2 (docs/rtac-sorpc-dtpa.md: 24 % at c = 1.5)"),
    "dtpa/eq-4-3-vs-measured": Cause(
        "paper's model is idealised",
        "Eq. (4.3) is a Mathis-style equilibrium that ignores the idle time of retransmission timeouts; among the "
        "window-limited nodes 6370 of 8866 loss events are RTOs (72 %; 1 s minimum RTO against 0.5-2.5 s RTTs), so "
        "the formula overestimates by 2.45× (2.2-2.6 at every c and frame loss tried)"),
}
