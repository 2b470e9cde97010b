"""The installed package's `cellshare-emu` command: the real-time emulator's command line
(Rust, `cellshare_emu::cli`) run inside the extension module, so `pip install` of the wheel
installs the emulator with the simulator from one build (`docs/emulator.md`, "Installed
package"). A source checkout runs its own `target/release/cellshare-emu` instead
(`cellshare.emulate.emulator_binary`).

Kept light: it imports only the extension module and the standard library, since the
emulator starts this command for every traffic process (`cellshare-emu traffic send ...`)
inside its namespaces. It also tells where this installation's console script is
(:func:`package_entry`), which :mod:`cellshare.emulate` asks when it picks the emulator to run.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Optional

#: What pip writes into the console script it generates for this entry point (how
#: `cellshare.emulate` tells the package's script from a user's own `cellshare-emu`).
ENTRY_MARK = "cellshare._emu"


def runnable(p: Path) -> bool:
    """Whether `p` is an executable file."""
    return p.is_file() and os.access(p, os.X_OK)


def is_package_entry(p: Path) -> bool:
    """Whether `p` is this package's `cellshare-emu` console script (a small Python script
    pip generates, naming `cellshare._emu`), not a binary of the user's."""
    try:
        with open(p, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return head.startswith(b"#!") and ENTRY_MARK.encode() in head


def package_entry() -> Optional[Path]:
    """The installed package's `cellshare-emu` (its console script, running the emulator in
    the extension module), on the PATH or in this interpreter's scripts folder; `None` when
    this installation has none."""
    import shutil
    import sysconfig

    cands = [shutil.which("cellshare-emu"), Path(sys.executable).parent / "cellshare-emu",
             Path(sysconfig.get_path("scripts")) / "cellshare-emu"]
    for c in cands:
        if c and runnable(Path(c)) and is_package_entry(Path(c)):
            return Path(c)
    return None


def _script() -> Path:
    """The executable the emulator restarts for its traffic tool: this console script."""
    p = Path(sys.argv[0])
    if p.name == "cellshare-emu" and runnable(p):
        return p.resolve()
    found = package_entry()  # pragma: no cover - `python -m cellshare._emu`
    if found is None:
        sys.stderr.write("error: cannot find the cellshare-emu script of this installation\n")
        raise SystemExit(1)
    return found


def main() -> None:
    from . import _core

    if not hasattr(_core, "emu_main"):  # pragma: no cover - not Linux
        sys.stderr.write("error: the emulator needs Linux (network namespaces, TUN devices)\n")
        raise SystemExit(1)
    exe = _script()
    # As the Rust binary: SIGINT terminates unless the emulator installs its own handler
    # (`run` does; Python's handler would otherwise turn it into KeyboardInterrupt later).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    code = _core.emu_main(["cellshare-emu", *sys.argv[1:]], exe)
    raise SystemExit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
