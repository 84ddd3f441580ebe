"""The release binary the Python tests drive: $TESSERA_BIN, else target/release/tessera
(built on first use)."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def engine_path() -> str:
    path = os.environ.get("TESSERA_BIN", str(ROOT / "target" / "release" / "tessera"))
    if not Path(path).exists():
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    return path


def tune_engine_path() -> str:
    """A `--features tune` build (every search constant a UCI option): $TESSERA_TUNE_BIN
    (make test builds target/tessera-tune), else one built into target/tune on first use."""
    path = os.environ.get("TESSERA_TUNE_BIN", str(ROOT / "target" / "tessera-tune"))
    if Path(path).exists():
        return path
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--features", "tune", "--target-dir", str(ROOT / "target" / "tune")],
        cwd=ROOT,
        check=True,
    )
    return str(ROOT / "target" / "tune" / "release" / "tessera")
