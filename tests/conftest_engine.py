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
