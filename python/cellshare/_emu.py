"""The installed package's `cellshare-emu` command: the real-time emulator's command line
(Rust, `cellshare_emu::cli`) run inside the extension module, so `pip install` of the wheel
installs the emulator with the simulator from one build (`docs/emulator.md`, "Installed
package"). A source checkout runs its own `target/release/cellshare-emu` instead
(`cellshare.emulate.emulator_binary`).

Kept light: it imports only the extension module, since the emulator starts this command for
every traffic process (`cellshare-emu traffic send ...`) inside its namespaces.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

#: What pip writes into the console script it generates for this entry point (how
#: `cellshare.emulate` tells the package's script from a user's own `cellshare-emu`).
ENTRY_MARK = "cellshare._emu"


def _script() -> Path:
    """The executable the emulator restarts for its traffic tool: this console script."""
    p = Path(sys.argv[0])
    if p.name == "cellshare-emu" and p.is_file() and os.access(p, os.X_OK):
        return p.resolve()
    from .emulate import package_entry  # pragma: no cover - `python -m cellshare._emu`

    found = package_entry()
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
