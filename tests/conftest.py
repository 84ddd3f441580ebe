"""Shared by the Python suites (tests/uci, tests/tournaments): the engine binary."""

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
