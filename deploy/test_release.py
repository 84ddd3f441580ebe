"""The release archives as players get them (`make release` writes them to dist/): each
unpacked into an empty folder, its binary run there, on Linux natively and under qemu on an
older CPU, on Windows under wine. The search must not depend on the OS or the CPU level:
every binary's `bench` counts the nodes of `cargo build --release`'s.

Run: .venv/bin/python -m pytest -q deploy/test_release.py   (after `make release`)
env: DIST (dist), REFERENCE (target/release/tessera, built if absent), WINE (wine64)."""

import hashlib
import os
import re
import shutil
import struct
import subprocess
import tarfile
import zipfile
from pathlib import Path

import chess
import chess.engine
import pytest

ROOT = Path(__file__).resolve().parents[1]
DIST = Path(os.environ.get("DIST", ROOT / "dist"))
VERSION = re.search(r'^version = "(.*)"', (ROOT / "Cargo.toml").read_text(), re.M).group(1)
WINE = os.environ.get("WINE") or shutil.which("wine64") or shutil.which("wine") or "/usr/lib/wine/wine64"
QEMU = shutil.which("qemu-x86_64")
# Older CPUs for qemu: one without AVX (below v3), one with AVX2 but no AVX-512 (below v4).
BELOW = {"x86-64-v3": ("Nehalem", "avx2"), "x86-64-v4": ("Haswell", "avx512f")}
CPU_FLAGS = set(Path("/proc/cpuinfo").read_text().split()) if Path("/proc/cpuinfo").exists() else set()
RUNS_HERE = {
    "x86-64": True,
    "x86-64-v3": {"avx2", "bmi2", "fma", "movbe"} <= CPU_FLAGS,
    "x86-64-v4": {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"} <= CPU_FLAGS,
}


def archives(os_name):
    found = sorted(DIST.glob(f"tessera-{VERSION}-{os_name}-*.{'zip' if os_name == 'windows' else 'tar.gz'}"))
    if not found:
        pytest.fail(f"no {os_name} archive in {DIST}: run `make release` first")
    return found


def level_of(archive):
    return re.search(r"-(x86-64(?:-v\d)?)\.(?:zip|tar\.gz)$", archive.name).group(1)


def unpack(archive, into):
    """The archive's one folder, unpacked into `into` (an empty folder)."""
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(into)
    else:
        with tarfile.open(archive) as t:
            t.extractall(into, filter="data")
    (folder,) = list(into.iterdir())
    for f in folder.iterdir():
        f.chmod(0o755) if f.suffix in ("", ".exe") else None
    return folder


def bench_nodes(command, cwd, depth=None, timeout=900):
    out = subprocess.run(command + ["bench"] + ([str(depth)] if depth else []), cwd=cwd, capture_output=True,
                         text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    last = out.stdout.strip().splitlines()[-1]
    words = last.split()
    assert len(words) == 4 and words[1] == "nodes" and words[3] == "nps", last
    return int(words[0])


def reference():
    path = Path(os.environ.get("REFERENCE", ROOT / "target" / "release" / "tessera"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "tessera"], cwd=ROOT, check=True)
    return path


REFERENCE_NODES = {}


def reference_nodes(depth=None):
    if depth not in REFERENCE_NODES:
        REFERENCE_NODES[depth] = bench_nodes([str(reference())], ROOT, depth)
    return REFERENCE_NODES[depth]


def is_static_elf(path):
    """No program interpreter (PT_INTERP): the kernel starts it without a dynamic loader or C
    library from the system, so it runs on any Linux (a static PIE keeps a dynamic section
    for relocating itself)."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF"
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    types = [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]
    return 3 not in types


def test_the_release_has_both_systems_two_levels_each_and_true_checksums():
    linux, windows = archives("linux"), archives("windows")
    assert len({level_of(a) for a in linux}) >= 2 and len({level_of(a) for a in windows}) >= 2
    sums = dict(reversed(line.split()) for line in (DIST / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == {a.name for a in linux + windows}, sums
    for a in linux + windows:
        assert hashlib.sha256(a.read_bytes()).hexdigest() == sums[a.name], a.name


@pytest.mark.parametrize("archive", archives("linux") if DIST.exists() else [], ids=lambda a: a.name)
def test_a_linux_archive_runs_from_an_empty_folder_with_the_same_bench(archive, tmp_path):
    folder = unpack(archive, tmp_path)
    level = level_of(archive)
    assert sorted(f.name for f in folder.iterdir()) == ["COPYING.txt", "README.txt", "tessera"]
    assert level in (folder / "README.txt").read_text()
    binary = folder / "tessera"
    assert is_static_elf(binary), "static: it starts on any Linux, whatever its C library"
    if RUNS_HERE[level]:
        version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout
        assert version.startswith(f"tessera {VERSION} net ") and version.strip().endswith(f"for {level}"), version
        assert bench_nodes([str(binary)], folder) == reference_nodes()
    else:
        refused = subprocess.run([str(binary), "bench"], capture_output=True, text=True)
        assert refused.returncode == 3 and f"built for {level}" in refused.stderr, refused


@pytest.mark.skipif(not QEMU, reason="qemu-x86_64 (Debian's qemu-user) is not installed")
@pytest.mark.parametrize("archive", archives("linux") if DIST.exists() else [], ids=lambda a: a.name)
def test_on_an_older_cpu_a_binary_says_what_it_needs_or_runs(archive, tmp_path):
    folder = unpack(archive, tmp_path)
    level = level_of(archive)
    binary = str(folder / "tessera")
    if level in BELOW:
        cpu, feature = BELOW[level]
        out = subprocess.run([QEMU, "-cpu", cpu, binary, "bench"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 3, (out.returncode, out.stderr)
        lines = [l for l in out.stderr.strip().splitlines() if not l.startswith("qemu-x86_64: warning")]
        assert len(lines) == 1 and f"built for {level}" in lines[0] and feature in lines[0], lines
        assert "x86-64 build" in lines[0]
        # A GUI reads stdout: it gets the reason as an info string.
        assert out.stdout.startswith("info string error: this Tessera binary is built for"), out.stdout
        # The same binary on a CPU that has the level starts (qemu has no AVX-512: v3 only).
        if level == "x86-64-v3":
            ok = subprocess.run([QEMU, "-cpu", "max", binary, "--version"], capture_output=True, text=True, timeout=60)
            assert ok.returncode == 0 and level in ok.stdout, ok
    else:
        # The portable build on a CPU without AVX: the scalar kernels, the same search.
        assert bench_nodes([QEMU, "-cpu", "Nehalem", binary], folder, depth=3) == reference_nodes(3)


def wine_env(tmp_path):
    return {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": str(Path.home() / ".wine-tessera-release")}


@pytest.mark.parametrize("archive", archives("windows") if DIST.exists() else [], ids=lambda a: a.name)
def test_a_windows_archive_plays_under_wine_from_an_empty_folder(archive, tmp_path):
    if not Path(WINE).exists():
        pytest.fail(f"{WINE} not found: apt-get install wine64 (or set WINE)")
    folder = unpack(archive, tmp_path)
    level = level_of(archive)
    assert sorted(f.name for f in folder.iterdir()) == ["COPYING.txt", "README.txt", "tessera.exe"]
    assert b"\r\n" in (folder / "README.txt").read_bytes()
    exe = str(folder / "tessera.exe")
    env = wine_env(tmp_path)
    os.environ.update(WINEDEBUG="-all", WINEPREFIX=env["WINEPREFIX"])
    if not RUNS_HERE[level]:
        refused = subprocess.run([WINE, exe, "bench"], capture_output=True, text=True, env=env, timeout=300)
        assert refused.returncode == 3, refused
        return
    version = subprocess.run([WINE, exe, "--version"], capture_output=True, text=True, env=env, timeout=300)
    assert f"for {level}" in version.stdout, version
    # The search does not depend on the OS.
    assert bench_nodes([WINE, exe], folder) == reference_nodes()
    # A GUI's session, python-chess speaking UCI to it: the net is inside (no file beside it).
    engine = chess.engine.SimpleEngine.popen_uci([WINE, exe], cwd=folder, env=env, timeout=120)
    try:
        assert engine.id["name"].startswith(f"Tessera {VERSION} ")
        engine.configure({"Hash": 32, "Move Overhead": 50})
        board = chess.Board()
        for uci in ("e2e4", "c7c5", "g1f3"):
            board.push_uci(uci)
        result = engine.play(board, chess.engine.Limit(depth=10))
        assert result.move in board.legal_moves
        board.push(result.move)
        result = engine.play(board, chess.engine.Limit(white_clock=10, black_clock=10, white_inc=0.1, black_inc=0.1))
        assert result.move in board.legal_moves
        with engine.analysis(board) as analysis:  # go infinite, then stop
            for info in analysis:
                if info.get("depth", 0) >= 6:
                    break
        assert analysis.info.get("pv") and analysis.info["pv"][0] in board.legal_moves
    finally:
        engine.quit()
