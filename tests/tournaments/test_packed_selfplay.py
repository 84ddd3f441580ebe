"""tools/datagen/packed-selfplay.sh with a stand-in datagen: a timed run stops
the generator with SIGINT and packs what it saved with a checksum, and unpack
refuses a file that does not match it or would overwrite one."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "datagen" / "packed-selfplay.sh"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("xz", "timeout", "sha256sum")),
    reason="[xz] needs xz, timeout and sha256sum",
)

# Writes two 32-byte records to the -o file, then waits to be interrupted, as
# tessera-datagen does (it saves its finished games on SIGINT and exits 0).
FAKE_DATAGEN = """#!/usr/bin/env bash
echo "args: $*"
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
head -c 64 /dev/urandom > "$out"
echo "started $out"
trap 'echo interrupted; exit 0' INT
while true; do sleep 0.1; done
"""


def script(args, pack, out=None, cwd=None, **extra_env):
    env = {"PATH": os.environ["PATH"], "PACK": str(pack), **extra_env}
    if out is not None:
        env["OUTPUT_DIR"] = str(out)
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60,
                          cwd=cwd or pack.parent)


def unpack(folder, here):
    """`unpack folder`, run in `here` (where it writes the records)."""
    return subprocess.run([str(SCRIPT), "unpack", str(folder)], capture_output=True, text=True, cwd=here, timeout=60)


def make_pack(tmp_path, datagen):
    """A pack as `pack` leaves it, with `datagen` (a script) standing in for tessera-datagen."""
    p = tmp_path / "pack"
    p.mkdir()
    (p / "tessera-datagen").write_text(datagen)
    (p / "tessera-datagen").chmod(0o755)
    (p / "stockfish").write_text("#!/bin/sh\n")
    (p / "stockfish").chmod(0o755)
    (p / "book.epd.zst").write_bytes(b"")
    (p / "syzygy").mkdir()
    (p / "PACKED").write_text("datagen commit test\n")
    return p


@pytest.fixture
def pack(tmp_path):
    return make_pack(tmp_path, FAKE_DATAGEN)


def test_a_timed_run_packs_the_saved_records_and_unpack_restores_them(pack, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    r = script(["run", "7", "1", "2"], pack, out)
    assert r.returncode == 0, r.stderr
    names = sorted(f.name for f in out.iterdir())
    assert names == ["all-own400-s7.bin.part00.xz", "all-own400-s7.log", "all-own400-s7.sha256"]
    log = (out / "all-own400-s7.log").read_text()
    assert "interrupted" in log and "2 records" in log and "datagen commit test" in log
    # The recipe's flags, the games ended at the packed tables among them;
    # by default the games' own scores are the labels: no labeller.
    assert "--skip-capture" in log and f"--syzygy {pack}/syzygy" in log, log
    assert "--label-" not in log and "--jobs 2 " in log, log

    here = tmp_path / "here"
    here.mkdir()
    r = unpack(out, here)
    assert r.returncode == 0, r.stderr
    assert "all-own400-s7.bin: 2 records" in r.stdout
    assert (here / "all-own400-s7.bin").stat().st_size == 64

    # A second unpack would overwrite the file: refused, the file kept.
    r = unpack(out, here)
    assert r.returncode != 0 and "not overwriting" in r.stderr
    assert (here / "all-own400-s7.bin").stat().st_size == 64


def test_stockfish_labels_are_asked_for_by_name_and_need_a_packed_stockfish(pack, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    r = script(["run", "5", "1", "1"], pack, out, LABELS="stockfish")
    assert r.returncode == 0, r.stderr
    log = (out / "all-d7k-s5.log").read_text()
    assert f"--label-engine {pack}/stockfish --label-option Hash=1 --label-depth 7 --label-keep-hash" in log, log
    r = script(["run", "5", "1", "1"], pack, out, LABELS="sf")
    assert r.returncode != 0 and "LABELS is 'own' or 'stockfish'" in r.stderr
    (pack / "stockfish").unlink()
    r = script(["run", "5", "1", "1"], pack, out, LABELS="stockfish")
    assert r.returncode != 0 and "pack with Stockfish" in r.stderr
    # Own labels need no Stockfish.
    assert script(["run", "6", "1", "1"], pack, out).returncode == 0


def test_records_come_back_in_parts_that_unpack_joins_in_order(pack, tmp_path):
    # A long run's records travel in parts of PART_RECORDS records (a transfer
    # with a limit on a file's size takes them).
    out = tmp_path / "out"
    out.mkdir()
    r = script(["run", "8", "1", "1"], pack, out, PART_RECORDS="1")
    assert r.returncode == 0, r.stderr
    parts = sorted(f.name for f in out.glob("*.xz"))
    assert parts == ["all-own400-s8.bin.part00.xz", "all-own400-s8.bin.part01.xz"]
    records = [subprocess.run(["xz", "-dc", str(out / p)], capture_output=True, check=True).stdout for p in parts]
    assert [len(r) for r in records] == [32, 32]

    here = tmp_path / "here"
    here.mkdir()
    r = unpack(out, here)
    assert r.returncode == 0, r.stderr
    assert "all-own400-s8.bin: 2 records" in r.stdout
    assert (here / "all-own400-s8.bin").read_bytes() == b"".join(records)

    r = script(["run", "8", "1", "1"], pack, out, PART_RECORDS="0")
    assert r.returncode != 0 and "PART_RECORDS" in r.stderr


def test_unpack_refuses_a_file_that_does_not_match_its_checksum(pack, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    assert script(["run", "9", "1", "1"], pack, out).returncode == 0
    xz = out / "all-own400-s9.bin.part00.xz"
    data = bytearray(xz.read_bytes())
    data[-1] ^= 0xFF
    xz.write_bytes(bytes(data))
    here = tmp_path / "here"
    here.mkdir()
    r = unpack(out, here)
    assert r.returncode != 0 and "does not match its checksum" in r.stderr
    assert not (here / "all-own400-s9.bin").exists()


def test_bad_arguments_are_refused_with_a_reason(pack, tmp_path):
    # Without OUTPUT_DIR the parts go to selfplay-out/ in the current folder.
    here = tmp_path / "default-out"
    here.mkdir()
    r = script(["run", "7", "1", "1"], pack, cwd=here)
    assert r.returncode == 0, r.stderr
    assert (here / "selfplay-out" / "all-own400-s7.sha256").exists()
    r = script(["run", "seven", "1"], pack, tmp_path)
    assert r.returncode != 0 and "whole numbers" in r.stderr
    r = script(["run", "7", "1"], tmp_path / "no-pack", tmp_path)
    assert r.returncode != 0 and "run 'pack'" in r.stderr
    r = script([], pack)
    assert r.returncode == 2 and "usage:" in r.stderr


# Like tessera-datagen with its labeller: a child process that dies on SIGINT
# (as Stockfish does) must outlive the interrupt, because the games in flight
# still need their labels; and one interrupt must arrive, not two (the second
# means "quit at once" to datagen).
FAKE_DATAGEN_WITH_LABELLER = """#!/usr/bin/env python3
import signal, subprocess, sys, time
out = sys.argv[sys.argv.index("-o") + 1]
labeller = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100)"])
interrupts = 0
def on_int(*_):
    global interrupts
    interrupts += 1
signal.signal(signal.SIGINT, on_int)
open(out, "wb").write(bytes(32))
while interrupts == 0:
    time.sleep(0.05)
time.sleep(0.5)  # finishing the games in flight
alive = labeller.poll() is None
labeller.kill()
print(f"interrupts {interrupts}, labeller {'alive' if alive else 'died'}", flush=True)
sys.exit(0)
"""


def test_the_timed_stop_interrupts_datagen_once_and_spares_its_labeller(tmp_path):
    pack = make_pack(tmp_path, FAKE_DATAGEN_WITH_LABELLER)
    out = tmp_path / "out"
    out.mkdir()
    r = script(["run", "3", "1", "1"], pack, out, LABELS="stockfish")
    assert r.returncode == 0, r.stderr
    log = (out / "all-d7k-s3.log").read_text()
    assert "interrupts 1, labeller alive" in log, log
