"""How the command line's help reads: plain text and click's usage line.

The typer application is created with ``rich_markup_mode=None`` (cli.py), so help text is
printed as written: rich markup would swallow ``[[flows]]``, ``[workload]`` and
``cellshare[ray]``, and flags would show a ``<bool>`` metavar. :class:`Command` writes the
usage line as click does — ``SCENARIO``, ``[SCENARIO]``, ``SCENARIO...`` — where typer ≥ 0.20
writes a required argument as ``{SCENARIO}``, which reads like a placeholder for a set.
"""

from __future__ import annotations

import re

from typer.core import TyperCommand

_BRACED = re.compile(r"^\{(.*)\}(\.\.\.)?$")


class Command(TyperCommand):
    """A typer command whose usage line writes required arguments without braces."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        return [_BRACED.sub(r"\1\2", p) for p in super().collect_usage_pieces(ctx)]
