"""The README's tour runs as written from a clone.

Every command of the tour (the `## A short tour` block and the generated sweep block after it)
must parse as written, with the files it names present; the quick ones then run as written in
a folder beside the clone's `scenarios/`, so their outputs land there and not in the clone.
The long ones (every reproduction, the head-to-head study, the benchmark, a 63-run sweep and its
report) only parse here: their own tests run them on shorter settings (test_reproductions,
test_study, test_bench, test_sweep, test_report)."""

import re
import shlex

import pytest
import typer

from cellshare import cli
from conftest import REPO, cellshare

#: The tour's commands that run here as written: each takes a few seconds at most.
RUN_AS_WRITTEN = ("run", "validate", "traces", "calibrate", "scenario-reference")
#: ... and these, by their first two words.
RUN_AS_WRITTEN_2 = (("reproduce", "--list"), ("reproduce", "pf-fairness"))


def tour_commands() -> list[list[str]]:
    """The tour's `cellshare ...` commands, as argument lists without the program name."""
    text = (REPO / "README.md").read_text()
    start = text.index("## A short tour")
    end = text.index("\n## ", start + 1)
    blocks = re.findall(r"```sh\n(.*?)```", text[start:end], re.S)
    cmds = [shlex.split(ln) for b in blocks for ln in b.splitlines() if ln.strip() and not ln.startswith("#")]
    return cmds


def test_the_tour_has_its_commands():
    cmds = tour_commands()
    assert len(cmds) >= 12, cmds
    assert all(c[0] == "cellshare" for c in cmds), [c for c in cmds if c[0] != "cellshare"]
    assert ["cellshare", "report", "out/bg"] in cmds


@pytest.mark.parametrize("cmd", tour_commands(), ids=lambda c: " ".join(c[1:]))
def test_every_tour_command_parses_as_written(cmd):
    command = typer.main.get_command(cli.app)
    ctx, args = command.context_class(command, info_name="cellshare"), list(cmd[1:])
    # Down the groups (`study head-to-head`) by name, then parse the command's own arguments as
    # it would: an unknown option, a missing argument or a bad value raises a usage error.
    # (Typer carries its own copy of click, so a group is told by what it does.)
    while hasattr(command, "get_command"):
        assert args, f"{cmd}: names a group, not a command"
        sub = command.get_command(ctx, args[0])
        assert sub is not None, f"{cmd}: no command {args[0]!r}"
        ctx, command, args = sub.context_class(sub, info_name=args[0], parent=ctx), sub, args[1:]
    command.make_context(ctx.info_name, args, parent=ctx.parent)
    for word in cmd[1:]:
        if word.startswith("scenarios/"):
            assert (REPO / word).is_file(), f"{cmd}: {word} is not in the clone"


def _runs_here(cmd: list[str]) -> bool:
    return cmd[1] in RUN_AS_WRITTEN or tuple(cmd[1:3]) in RUN_AS_WRITTEN_2


@pytest.mark.parametrize("cmd", [c for c in tour_commands() if _runs_here(c)], ids=lambda c: " ".join(c[1:]))
def test_the_quick_tour_commands_run_as_written(cmd, tmp_path):
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    p = cellshare(*cmd[1:], cwd=tmp_path)
    assert p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-500:]}"
    assert p.stdout.strip(), f"{' '.join(cmd)} printed nothing"
    out = next((cmd[i + 1] for i, w in enumerate(cmd) if w in ("--out", "-o")), None)
    if out is not None:
        assert (tmp_path / out).is_dir() and any((tmp_path / out).iterdir()), f"{' '.join(cmd)} wrote nothing to {out}"


def test_the_tour_runs_the_commands_it_only_parses_elsewhere():
    """What runs here and what only parses: the split covers the tour, so a new tour command is
    either run here or named as long."""
    long = {"reproduce --all", "study head-to-head", "bench", "sweep", "report"}
    for cmd in tour_commands():
        if not _runs_here(cmd):
            key = " ".join(cmd[1:3]) if cmd[1] in ("reproduce", "study") else cmd[1]
            assert key in long, f"{' '.join(cmd)}: neither run by this test nor one of the long commands {sorted(long)}"
