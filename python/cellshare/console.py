"""The command line's output: the console for results (standard output), the console for
errors and warnings (standard error), and the one-line error that ends a command. Shared by
every command module (:mod:`cellshare.cli`, :mod:`cellshare.emu_cli`)."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

# Piped output is not cut to 80 columns: tables stay readable in logs and CI.
out_console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def fail(msg: str, code: int = 2) -> typer.Exit:
    """Prints ``error: MSG`` on standard error and returns the exit to raise (exit 2: bad
    input, unless `code` says otherwise)."""
    from rich.markup import escape

    # The message is plain text: a key like flows[x] must not be read as markup.
    err_console.print(f"[bold red]error:[/] {escape(msg)}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(code)
