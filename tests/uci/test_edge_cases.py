"""Protocol edge cases: each is answered without a crash or a hang, and every `go` ends in a `bestmove`."""

import random
import subprocess
import time

import chess


def legal_reply(board: chess.Board, line: str) -> bool:
    return chess.Move.from_uci(line.split()[1]) in board.legal_moves


def test_stalemate_gives_null_move(session):
    session.send("position fen 7k/8/6QK/8/8/8/8/8 b - - 0 1")
    assert chess.Board("7k/8/6QK/8/8/8/8/8 b - - 0 1").is_stalemate()
    session.send("go depth 6")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert best == "bestmove 0000"
    # And with a clock, as a GUI would send it.
    session.send("go wtime 1000 btime 1000")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert best == "bestmove 0000"


def test_only_kings_is_searched_and_drawn(session):
    session.send("position fen 8/8/3k4/8/8/4K3/8/8 w - - 0 1")
    session.send("go depth 12")
    _, best = session.expect(lambda l: l.startswith("bestmove"), timeout=30)
    assert legal_reply(chess.Board("8/8/3k4/8/8/4K3/8/8 w - - 0 1"), best)
    scores = [l for l in session.transcript if " score cp " in l]
    assert scores and all(int(l.split(" score cp ")[1].split()[0]) == 0 for l in scores), scores[-3:]


def test_position_with_hundreds_of_moves(session):
    """A 600-ply game (knights shuffling, then a random legal game) is set in one line and searched."""
    board = chess.Board()
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2  # a repetition on the way
    for m in moves:
        board.push_uci(m)
    rng = random.Random(7)
    while len(moves) < 600 and not (board.is_checkmate() or board.is_stalemate()):
        m = rng.choice(list(board.legal_moves))
        board.push(m)
        moves.append(m.uci())
    session.send("position startpos moves " + " ".join(moves))
    session.sync()
    assert not any(l.startswith("info string error") for l in session.transcript)
    session.send("go depth 5")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    if board.is_checkmate() or board.is_stalemate():
        assert best == "bestmove 0000"
    else:
        assert legal_reply(board, best)


def test_options_change_between_searches(session):
    board = chess.Board()
    for hash_mb, threads in [(1, 1), (64, 2), (2, 1), (16, 3)]:
        session.send(f"setoption name Hash value {hash_mb}")
        session.send(f"setoption name Threads value {threads}")
        session.send("position startpos moves e2e4 e7e5")
        session.send("go depth 7")
        _, best = session.expect(lambda l: l.startswith("bestmove"), timeout=30)
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        assert legal_reply(board, best)
    assert not any(l.startswith("info string error") for l in session.transcript)


def test_ucinewgame_mid_game(session):
    session.send("position startpos moves e2e4 e7e5 g1f3")
    session.send("go depth 6")
    session.expect(lambda l: l.startswith("bestmove"))
    session.send("ucinewgame")
    session.send("position startpos moves d2d4")
    session.send("go depth 6")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    board = chess.Board()
    board.push_uci("d2d4")
    assert legal_reply(board, best)


def test_stop_and_ponderhit_without_a_search_are_ignored(session):
    for line in ["stop", "ponderhit", "stop", "ponderhit"]:
        session.send(line)
    session.sync()
    lines = session.drain(0.3)
    assert not any(l.startswith("bestmove") for l in session.transcript + lines), session.transcript
    session.send("position startpos")
    session.send("go depth 4")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert legal_reply(chess.Board(), best)


def test_stop_with_two_threads_answers_within_50ms(session):
    session.send("setoption name Threads value 2")
    session.send("position startpos moves e2e4 c7c5 g1f3")
    worst = 0.0
    for _ in range(5):
        session.send("go infinite")
        session.expect(lambda l: l.startswith("info depth"))
        time.sleep(0.3)
        sent = session.send("stop")
        at, line = session.expect(lambda l: l.startswith("bestmove"), timeout=2)
        worst = max(worst, at - sent)
        board = chess.Board()
        for m in ["e2e4", "c7c5", "g1f3"]:
            board.push_uci(m)
        assert legal_reply(board, line)
    assert worst < 0.05, f"bestmove {1000 * worst:.0f} ms after stop"


def test_quit_during_a_two_thread_search_exits_at_once(engine_bin):
    proc = subprocess.Popen([engine_bin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write("uci\nsetoption name Threads value 2\nposition startpos\ngo infinite\n")
    proc.stdin.flush()
    time.sleep(0.5)
    started = time.monotonic()
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    assert proc.wait(timeout=5) == 0
    assert time.monotonic() - started < 1.0


def test_tiny_node_budgets_still_report_a_score(session):
    """Even a search stopped after one node says what it found before `bestmove`."""
    for nodes in [1, 2, 10]:
        session.send("position startpos moves e2e4")
        mark = len(session.transcript)
        session.send(f"go nodes {nodes}")
        _, best = session.expect(lambda l: l.startswith("bestmove"))
        board = chess.Board()
        board.push_uci("e2e4")
        assert legal_reply(board, best)
        infos = [l for l in session.transcript[mark:] if l.startswith("info") and " score " in l]
        assert infos, f"go nodes {nodes}: no score before bestmove: {session.transcript[mark:]}"
