"""Shared fixtures for UCI sessions against the release binary."""

import queue
import subprocess
import threading
import time

import pytest



class Session:
    """A raw UCI session: lines are read on a thread so tests can time replies."""

    def __init__(self, path: str):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines: "queue.Queue[tuple[float, str]]" = queue.Queue()
        self.transcript: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, line: str) -> float:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def expect(self, predicate, timeout: float = 10.0) -> tuple[float, str]:
        """Waits for the first line satisfying `predicate`; returns (arrival time, line)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching line within {timeout}s; transcript tail: {self.transcript[-10:]}")
            try:
                at, line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"engine closed its output; transcript tail: {self.transcript[-10:]}")
            self.transcript.append(line)
            if predicate(line):
                return at, line

    def drain(self, wait: float = 0.2) -> list[str]:
        """Lines that arrive within `wait` seconds."""
        out = []
        deadline = time.monotonic() + wait
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                _, line = self.lines.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                break
            self.transcript.append(line)
            out.append(line)
        return out

    def sync(self):
        self.send("isready")
        self.expect(lambda l: l == "readyok")

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except BrokenPipeError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.returncode


@pytest.fixture
def session(engine_bin):
    s = Session(engine_bin)
    s.send("uci")
    s.expect(lambda l: l == "uciok")
    yield s
    code = s.close()
    assert code == 0, f"engine exited with {code}; stderr: {s.proc.stderr.read()}"
