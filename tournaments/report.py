"""Shared pieces of the Python measurement scripts: finding the engine, the
machine and commit lines of a result table, and writing results/NAME.md."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import chess.engine

TOURNAMENTS = Path(__file__).resolve().parent
ROOT = TOURNAMENTS.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


def die(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def check_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9._+-]+", name):
        die("NAME may hold letters, digits and . _ + - only")
    return name


def engine_path(path: str) -> str:
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        die(f"{path} is not an executable (build the engine with `cargo build --release`)")
    return path


def open_engine(path: str, hash_mb: int, threads: int):
    """A UCI engine with Hash and Threads set, and the name it gives itself."""
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Hash": hash_mb, "Threads": threads})
    return engine, engine.id.get("name", path)


def hardware() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown CPU")
    except OSError:
        model = "unknown CPU"
    return f"{model}, {os.cpu_count()} cores"


# The paths that make the engine binary: a result's commit row names the newest
# commit that changed one of them, so a table re-rendered later (its games
# played, no code changed) keeps the commit its games were played at.
ENGINE_PATHS = ["src", "build.rs", "Cargo.toml", "Cargo.lock", "nets/default.nnue"]


def commit(root: Path = ROOT) -> str:
    if os.environ.get("ENGINE_COMMIT"):
        return os.environ["ENGINE_COMMIT"]
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h", "--", *ENGINE_PATHS],
                             capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def provenance_rows() -> list[list[str]]:
    """The machine, commit and date rows every result table ends with."""
    return [["hardware", hardware()], ["commit", commit()], ["date", time.strftime("%Y-%m-%d", time.gmtime())]]


def finish(name: str, script: str, text: str) -> None:
    """Adds the command line, writes results/NAME.md and prints it."""
    text += f"\nCommand: `tournaments/{script} {' '.join(sys.argv[1:])}`\n"
    path = write_result(name, text)
    print(text)
    print(f"wrote {path}", file=sys.stderr)


def write_result(name: str, text: str) -> Path:
    # RESULTS_DIR lets tests write elsewhere than the committed tables.
    results = Path(os.environ.get("RESULTS_DIR") or TOURNAMENTS / "results")
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"{name}.md"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return path


def table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def cells(line: str) -> list[str]:
    """The cells of one row of a markdown table, as `table` writes it."""
    return [c.strip() for c in line.strip().strip("|").split("|")]
