"""How `test.sh` runs the Python tests: the files marked serial exist (a renamed file would
otherwise silently run in parallel with the rest), and the script runs both parts."""

from pathlib import Path

from conftest import SERIAL_FILES

TESTS = Path(__file__).resolve().parent


def test_every_serial_file_exists():
    missing = sorted(f for f in SERIAL_FILES if not (TESTS / f).is_file())
    assert not missing, f"tests/conftest.py SERIAL_FILES names files that do not exist: {missing}"


def test_test_sh_runs_the_parallel_part_and_the_serial_part():
    text = (TESTS.parent / "test.sh").read_text()
    assert '-m "not serial"' in text and "-m serial" in text and "--dist loadfile" in text

