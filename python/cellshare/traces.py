"""The Mahimahi traces shipped with cellshare.

Seven cellular capacity traces (AT&T LTE, T-Mobile LTE and UMTS, Verizon EVDO, measured while
driving; recorded by Winstein et al. for Sprout [sprout] and distributed with Mahimahi [mahimahi]: provenance and
licence in ``cellshare/data/traces/README.md``) are package data, and the same bytes are
compiled into the extension and the emulator. A scenario names one as
``file = "builtin:TMobile-LTE-driving.down"``; the simulator, :func:`cellshare.run` and
``cellshare emulate`` resolve it with no path and no environment variable. This module lists
them and gives their files, for code that wants the file itself (to plot it, or to hand it to
Mahimahi's ``mm-link``).

Kept free of the extension and of pyarrow, so that listing traces stays cheap.
"""

from __future__ import annotations

from pathlib import Path

#: The prefix that names a shipped trace in a scenario's ``file`` key.
PREFIX = "builtin:"

#: The folder of the shipped traces (package data).
DIR = Path(__file__).resolve().parent / "data" / "traces"

#: The suffixes of trace files: downlink and uplink.
SUFFIXES = (".down", ".up")


def names() -> list[str]:
    """The file names of the shipped traces, sorted (``ATT-LTE-driving.down``, ...)."""
    return sorted(p.name for p in DIR.iterdir() if p.suffix in SUFFIXES and p.is_file())


def path(name: str) -> Path:
    """The file of the shipped trace `name` (with or without the ``builtin:`` prefix);
    :class:`KeyError` naming the shipped ones for any other name."""
    name = name.removeprefix(PREFIX)
    if name not in names():
        raise KeyError(f"no shipped trace {name!r}: expected one of {', '.join(names())}")
    return DIR / name


def stats(name: str) -> dict:
    """A shipped trace's size as Mahimahi replays it: its period (its last timestamp, s), its
    delivery opportunities and their mean rate (Mbit/s, 1500-byte packets)."""
    stamps = [int(line) for line in path(name).read_text().split() if line]
    period_s = stamps[-1] / 1000.0
    return {"name": name, "period_s": period_s, "opportunities": len(stamps),
            "mean_mbps": len(stamps) * 1500 * 8 / period_s / 1e6}
