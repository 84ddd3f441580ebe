"""The ledger of skipped tests (tests/conftest.py): a skip names the resource it
lacks and goes to $TESSERA_SKIP_LOG, and one that $TESSERA_EXPECT names fails."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

SAMPLE = '''
import pytest

def test_lacks_a_widget():
    pytest.skip("[widget] no widget on this machine")

@pytest.mark.skipif(True, reason="[gadget] no gadget")
def test_lacks_a_gadget():
    pass

def test_runs():
    assert True
'''


def run_sample(tmp_path, expect):
    for name in ("conftest.py", "conftest_engine.py"):
        shutil.copy(TESTS / name, tmp_path / name)
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    log = tmp_path / "skips.txt"
    log.unlink(missing_ok=True)
    env = {**os.environ, "TESSERA_SKIP_LOG": str(log), "TESSERA_EXPECT": expect}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    return out, (log.read_text().splitlines() if log.exists() else [])


def test_skips_are_logged_with_their_resource(tmp_path):
    out, lines = run_sample(tmp_path, "")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed, 2 skipped" in out.stdout
    assert sorted(lines) == ["test_sample.py::test_lacks_a_gadget [gadget] no gadget",
                             "test_sample.py::test_lacks_a_widget [widget] no widget on this machine"]


def test_a_skip_for_an_expected_resource_fails(tmp_path):
    out, lines = run_sample(tmp_path, "stockfish,widget")
    assert out.returncode != 0
    assert "1 failed, 1 passed, 1 skipped" in out.stdout, out.stdout
    assert "TESSERA_EXPECT says widget is here" in out.stdout
    assert lines == ["test_sample.py::test_lacks_a_gadget [gadget] no gadget"]
