"""Legilimens backgrounds started together in the real-time emulator, with Linux's eBPF twin as
shipped and with its NORMAL window cap taken on the minimum RTT as the simulator's is.

The simulator's Legilimens backgrounds that start together on identical fixed channels are
served by PF in a strict rotation and never yield (docs/legilimens.md, "Known limits"); Linux's
did in the multi-flow cross-check. This tool runs `scenarios/emu-mixed-legilimens.toml` (a
CUBIC foreground at UE 0, Legilimens at UEs 1-3, flows started together) in the emulator twice,
recording every forwarded packet (`[emulator] pcap = true`):

- ``shipped``: the eBPF program as it ships; its NORMAL window cap is 0.8 · capacity · smoothed
  RTT;
- ``min-rtt-cap``: the same program with that cap on the minimum RTT, the simulator's rule
  (``capacity_cap · capacity · min_rtt``), built from a copy of the sources.

From the capture it counts, per UE, the milliseconds in which the cell delivered data to it,
how many of them were back to back (Algorithm 1 learns the capacity only from back-to-back
slots) and the longest run; from the summary, each flow's rate, drops and queue sojourn.

    python tools/legilimens_in_step_linux.py --out tools/data/legilimens-in-step-linux.json

Needs root, clang and bpftool (the emulator and `cellshare bpf load`); runs 2 × the duration in
real time. The `legilimens` control is left loaded as shipped if it was loaded before, unloaded
otherwise.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "emu-mixed-legilimens.toml"
#: The shipped program's NORMAL cap line, and the simulator's rule in its place.
CAP_SRTT = "\tu32 srtt = cs_srtt_us(tp), mss = cs_max(tp->mss_cache, 1);"
CAP_MIN_RTT = "\tu32 srtt = cs_min_rtt_us(tp), mss = cs_max(tp->mss_cache, 1);"
CAP_GUARD = ("\tif (!l->cap || !srtt)\n\t\treturn 0xffffffffu;", "\tif (!l->cap || !srtt || srtt == ~0U)\n\t\treturn 0xffffffffu;")


def _cellshare(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from cellshare.cli import main; sys.exit(main())", *args],
                          capture_output=True, text=True, env=env)


def delivery_ms(pcap: Path) -> dict[str, list[int]]:
    """Per destination address, the sorted milliseconds (of the engine's clock) in which the
    emulator wrote a data packet (IPv4 total length ≥ 1000 bytes) to it."""
    data = pcap.read_bytes()
    nano = struct.unpack("<I", data[:4])[0] == 0xA1B23C4D
    off, out = 24, collections.defaultdict(set)
    while off + 16 <= len(data):
        s, frac, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(pkt) < 20 or pkt[0] >> 4 != 4 or struct.unpack(">H", pkt[2:4])[0] < 1000:
            continue
        t_ms = s * 1000 + frac // (1_000_000 if nano else 1000)
        out[".".join(map(str, pkt[16:20]))].add(t_ms)
    return {k: sorted(v) for k, v in out.items()}


def runs_of(ms: list[int]) -> dict:
    """Milliseconds with data, back-to-back pairs among them, and the longest run."""
    pairs = longest = cur = 0
    prev = None
    for k in ms:
        cur = cur + 1 if prev is not None and k == prev + 1 else 1
        pairs += prev is not None and k == prev + 1
        longest = max(longest, cur)
        prev = k
    return {"ms_with_data": len(ms), "back_to_back_pairs": pairs, "longest_run_ms": longest}


def run_variant(name: str, src: Path, scenario: Path, out: Path) -> dict:
    env = dict(os.environ, CELLSHARE_BPF_DIR=str(src))
    _cellshare("bpf", "unload", "legilimens")
    p = _cellshare("bpf", "load", "legilimens", env=env)
    if p.returncode != 0:
        sys.exit(f"legilimens_in_step_linux: cellshare bpf load ({name}) failed: {p.stderr.strip().splitlines()[-1:]}")
    res = out / name
    p = _cellshare("emulate", str(scenario), "--out", str(res))
    if p.returncode != 0:
        sys.exit(f"legilimens_in_step_linux: cellshare emulate ({name}) failed: {p.stderr.strip().splitlines()[-1:]}")
    summary = json.loads((res / "summary.json").read_text())
    ms = delivery_ms(res / "emu.pcap")
    # UE i's address is 10.201.(i / 250).(i % 250 + 1) (crates/emu/src/netns.rs); one flow per UE here.
    flows = []
    for f in sorted(summary["flows"], key=lambda f: f["ue"]):
        i = f["ue"]
        addr = f"10.201.{i // 250}.{i % 250 + 1}"
        m = ms.get(addr)
        if not m:
            sys.exit(f"legilimens_in_step_linux: no data to UE {i} ({addr}) in the capture of {name}")
        first = m[0]
        flows.append({"name": f["name"], "ue": f["ue"], "class": f.get("class"), "cc": f.get("cc"),
                      "throughput_mbps": f["throughput_mbps"], "drops": f["drops"],
                      "sojourn_p99_ms": f["queue_delay_ms"]["p99"], "per_second_mbps": f.get("per_second_mbps"),
                      "address": addr, "first_data_ms": first, "first_3s": runs_of([k for k in m if k < first + 3000]),
                      "run": runs_of(m)})
    return {"variant": name, "flows": flows, "load_1min_after": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds per emulator run (default 20)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("legilimens_in_step_linux: needs root (the emulator and the eBPF loader)")
    from cellshare import bpf

    shipped = bpf.source_dir()
    listing = [ln for ln in _cellshare("bpf", "list").stdout.splitlines() if "legilimens" in ln]
    was_loaded = any("yes" in ln for ln in listing)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        variant = tmp / "bpf-min-rtt-cap"
        shutil.copytree(shipped, variant)
        c = (variant / "legilimens.bpf.c").read_text()
        if CAP_SRTT not in c or CAP_GUARD[0] not in c:
            sys.exit("legilimens_in_step_linux: the eBPF source's NORMAL cap is not the one this tool replaces")
        (variant / "legilimens.bpf.c").write_text(c.replace(CAP_SRTT, CAP_MIN_RTT).replace(*CAP_GUARD))
        sc = SCENARIO.read_text().replace("duration_s = 45.0", f"duration_s = {a.duration!r}") + "\n[emulator]\npcap = true\n"
        (tmp / "sc.toml").write_text(sc)
        try:
            variants = [run_variant("shipped", shipped, tmp / "sc.toml", tmp),
                        run_variant("min-rtt-cap", variant, tmp / "sc.toml", tmp)]
        finally:
            _cellshare("bpf", "unload", "legilimens")
            if was_loaded:
                _cellshare("bpf", "load", "legilimens")
    doc = {"what": "Legilimens backgrounds started together in the emulator (scenarios/emu-mixed-legilimens.toml): "
                   "the eBPF program as shipped (NORMAL window cap 0.8 · capacity · smoothed RTT) and with the cap on "
                   "the minimum RTT, the simulator's rule",
           "generated_by": f"python tools/legilimens_in_step_linux.py --out FILE --duration {a.duration:g}",
           "duration_s": a.duration, "kernel": platform.release(), "cores": os.cpu_count(), "variants": variants}
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"written to {a.out}")


if __name__ == "__main__":
    main()
