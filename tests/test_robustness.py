"""Damaged folders, existing files, interrupted runs and flag values a user can get wrong:
each ends in one line naming what is wrong (exit 2 for bad input), with no traceback, no
partial output and no file replaced that the user did not ask to replace."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO

ONE_UE = """
[simulation]
duration_s = 1
[[ues]]
count = 1
channel = { kind = "fixed", rate_mbps = 20.0 }
[[flows]]
ue = 0
transport = { kind = "tcp" }
"""


def _one_line_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    assert p.stderr.startswith("error:"), p.stderr
    for n in needles:
        assert n in p.stderr, (n, p.stderr)


def test_single_file_outputs_replace_a_file_only_with_force(run_cli, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("precious")
    _one_line_error(run_cli("scenario-reference", "-o", precious), "precious.txt", "--force")
    # Refused before the runs, so an existing file costs nothing.
    _one_line_error(run_cli("calibrate", REPO / "scenarios" / "workload-at-scale.toml", "--loads", "0.3",
                            "--duration", "1", "-o", precious), "precious.txt", "--force")
    assert precious.read_text() == "precious"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["precious.txt"]
    p = run_cli("scenario-reference", "-o", precious, "--force")
    assert p.returncode == 0, p.stderr
    assert precious.read_text().startswith("# Scenario reference")
    # Not a regular file: refused even with --force (a device node is never replaced).
    _one_line_error(run_cli("scenario-reference", "-o", "/dev/null", "--force"), "/dev/null", "not a regular file")
    assert (tmp_path / "new.md").exists() is False
    assert run_cli("scenario-reference", "-o", tmp_path / "new.md").returncode == 0


@pytest.fixture
def run_folder(run_cli, tmp_path):
    (tmp_path / "s.toml").write_text(ONE_UE)
    p = run_cli("run", tmp_path / "s.toml", "--out", tmp_path / "run")
    assert p.returncode == 0, p.stderr
    return tmp_path / "run"


@pytest.mark.parametrize("name,content,says", [
    ("summary.json", "{bad json", "JSONDecodeError"),
    ("summary.json", "[]", "got a list, expected a table"),
    ("flows.parquet", None, "ArrowInvalid"),
    ("flows.parquet", "", "ArrowInvalid"),
])
def test_report_of_a_damaged_run_names_the_file(run_cli, run_folder, name, content, says):
    f = run_folder / name
    f.write_bytes(f.read_bytes()[:100] if content is None else content.encode())
    _one_line_error(run_cli("report", run_folder, "-o", run_folder.parent / "rep"), f"{name}", says)
    assert not (run_folder.parent / "rep").exists()


def test_sweep_resume_runs_a_damaged_run_again_and_a_damaged_dataset_is_named(run_cli, tmp_path):
    (tmp_path / "s.toml").write_text(ONE_UE)
    (tmp_path / "sw.toml").write_text('base = "s.toml"\n[parameters]\n"simulation.seed" = [1, 2]\n')
    out = tmp_path / "sw"
    assert run_cli("sweep", tmp_path / "sw.toml", "-o", out).returncode == 0
    first = sorted((out / "runs").iterdir())[0]
    (first / "run.json").write_text("{bad")
    p = run_cli("sweep", tmp_path / "sw.toml", "-o", out, "--dry-run")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("│ to run") == 1 and p.stdout.count("│ complete") == 1, p.stdout
    p = run_cli("sweep", tmp_path / "sw.toml", "-o", out)
    assert p.returncode == 0, p.stderr
    assert "1 ran" in p.stdout and "1 already complete" in p.stdout, p.stdout
    assert "scalars" in json.loads((first / "run.json").read_text())
    (out / "runs.parquet").write_bytes((out / "runs.parquet").read_bytes()[:50])
    _one_line_error(run_cli("report", out, "-o", tmp_path / "rep"), "runs.parquet", "ArrowInvalid")


def test_crosscheck_input_errors_are_one_line(run_cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(ONE_UE.replace('{ kind = "tcp" }', '{ kind = "cbr", rate_mbps = 0 }'))
    p = run_cli("crosscheck", bad, "-o", tmp_path / "x")
    _one_line_error(p, "`flows[0].transport.rate_mbps`: got 0, expected")
    assert "('" not in p.stderr, p.stderr
    good = tmp_path / "s.toml"
    good.write_text(ONE_UE)
    _one_line_error(run_cli("crosscheck", good, "-o", tmp_path / "x", "--cc", ""), "--cc ''", "empty")
    _one_line_error(run_cli("crosscheck", good, "-o", tmp_path / "x", "--trace", tmp_path), "a folder")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("flag", ["99999999999999999999999", "9223372036854775808"])
def test_seeds_beyond_a_toml_integer_name_the_flag(run_cli, tmp_path, flag):
    s = tmp_path / "s.toml"
    s.write_text(ONE_UE)
    _one_line_error(run_cli("calibrate", s, "--seeds", flag), "--seeds")
    _one_line_error(run_cli("calibrate", s, "--loads", "0.3,,0.6"), "--loads", "0.3,,0.6")
    p = run_cli("run", s, "--seed", flag, "--out", tmp_path / "o")
    assert p.returncode == 2 and "--seed" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "o").exists()


def test_ctrl_c_stops_a_run_at_once_and_leaves_nothing(tmp_path):
    # A long run without a terminal advances in one call into the extension, which checks
    # for Python signals every simulated second.
    s = tmp_path / "long.toml"
    s.write_text((REPO / "python" / "cellshare" / "data" / "bench.toml").read_text()
                 .replace("duration_s = 60.0", "duration_s = 3000.0"))
    assert "duration_s = 3000.0" in s.read_text()
    # The child gets SIGINT's default action, as a command typed at a terminal has. Started
    # from a script with `&` (a CI runner, `./test.sh &`), this process inherits SIGINT ignored
    # (POSIX: an asynchronous list of a shell without job control ignores SIGINT and SIGQUIT),
    # the child would too, and Python then installs no KeyboardInterrupt handler: the run
    # would rightly ignore Ctrl-C, as any program started in the background does.
    p = subprocess.Popen([sys.executable, "-m", "cellshare.cli", "run", str(s), "--out", str(tmp_path / "o")],
                         stdout=subprocess.DEVNULL, stderr=open(tmp_path / "err", "w"), text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)
    assert p.poll() is None, "the run ended before the signal"
    # "Went on" is measured as the CPU time the process spends after the signal: the run itself
    # (3000 simulated seconds) would take tens of CPU seconds, while a virtual machine's host may
    # hold the whole guest still for seconds of wall clock, which is not the run going on.
    ticks = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{p.pid}/stat") as f:
        stat = f.read()
    cpu_before = sum(int(x) for x in stat[stat.rindex(")") + 2:].split()[11:13]) / ticks
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = (tmp_path / "err").read_text()
    (tmp_path / "err").unlink()
    cpu_after = usage.ru_utime + usage.ru_stime - cpu_before
    assert cpu_after < 2.0, f"the run went on after Ctrl-C: {cpu_after:.1f} s of CPU, {wall:.1f} s wall, exit {p.returncode}"
    assert wall < 60, f"the run took {wall:.1f} s to stop after Ctrl-C ({cpu_after:.1f} s of CPU)"
    assert p.returncode == 130, (p.returncode, err)
    assert "Traceback" not in err, err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["long.toml"]


def test_a_failing_disk_is_one_line_naming_the_file(monkeypatch, capsys):
    import cellshare.cli as cli

    def full(*a, **k):
        raise OSError(28, "No space left on device", "/mnt/full/run/flows.parquet")

    monkeypatch.setattr(cli, "app", full)
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert "error: /mnt/full/run/flows.parquet: No space left on device" in err, err
