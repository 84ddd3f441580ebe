"""Shared by the Python suites (tests/uci, tests/tournaments): the engine binary,
and the ledger of skipped tests.

A test that cannot run here skips with a reason that starts with the resource
it lacks in brackets (`[shared-data] ../shared/data/puzzles is absent`). Each
skip is appended to $TESSERA_SKIP_LOG, which `make test` prints at the end
(the Rust tests write there too: tessera::testing::skip), and a skip for a
resource that $TESSERA_EXPECT (a comma list, set by CI for what it installs)
names fails the test instead."""

import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_engine import engine_path, tune_engine_path  # noqa: E402


@pytest.fixture(scope="session")
def engine_bin() -> str:
    return engine_path()


@pytest.fixture(scope="session")
def tune_engine_bin() -> str:
    return tune_engine_path()


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    tag = re.match(r"\[([\w-]+)\]", reason)
    resource = tag.group(1) if tag else "unnamed"
    expected = {r.strip() for r in os.environ.get("TESSERA_EXPECT", "").split(",")}
    if resource in expected:
        report.outcome = "failed"
        report.longrepr = f"{reason}, but TESSERA_EXPECT says {resource} is here"
        return
    if log := os.environ.get("TESSERA_SKIP_LOG"):
        with open(log, "a") as f:
            f.write(f"{report.nodeid} {reason if tag else '[' + resource + '] ' + reason}\n")
