"""Malformed input gets `info string error: …` naming the problem; the engine keeps its state.
(`go` lines and illegal moves in `position` are answered differently: tests/uci/test_gui_never_waits.py.)"""

import chess
import pytest

CASES = [
    ("flibbertigibbet", "unknown command"),
    ("position fen not/a/fen w - - 0 1", "invalid FEN"),
    ("position fen 8/8/8/8/8/8/8/8 w - - 0 1", "invalid FEN"),
    ("position sideways", "startpos"),
    ("position fen", "needs a FEN"),
    ("setoption name Contempt value 20", "unknown option"),
    ("setoption name Hash value 0", "outside"),
    ("setoption name Hash value 999999999", "outside"),
    ("setoption name Threads value many", "integer"),
    ("setoption name Ponder value perhaps", "true or false"),
    ("setoption Hash 32", "name"),
]


@pytest.mark.parametrize("line,message", CASES)
def test_bad_line_reports_and_keeps_state(session, line, message):
    # A valid position to keep: after 1.e4 it is black to move.
    session.send("position startpos moves e2e4")
    session.sync()
    session.send(line)
    _, reply = session.expect(lambda l: l.startswith("info string error:") or l == "readyok" or l.startswith("bestmove"))
    assert reply.startswith("info string error:"), f"{line!r} got {reply!r}"
    assert message.lower() in reply.lower(), reply
    session.send("go depth 3")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    if line.startswith("position"):
        # A refused position: no move for the old one, which the GUI no longer means.
        assert best == "bestmove 0000", best
        assert any("was refused" in l for l in session.transcript), session.transcript
        # The next good position is searched again.
        session.send("position startpos")
        session.send("go depth 3")
        _, best = session.expect(lambda l: l.startswith("bestmove"))
        assert chess.Move.from_uci(best.split()[1]) in chess.Board().legal_moves
        return
    # Still alive, still in the old position: the reply is a black move after 1.e4.
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(best.split()[1]) in board.legal_moves


# What `position` does with a doubtful FEN (the README's table, row by row):
# the line, what the engine must hold after it, and the warning it gives.
POLICY = [
    ("position fen 4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "castling rights 'KQ'"),
    ("position fen 4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "castling rights 'KQkq'"),
    ("position fen 4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "en passant square 'e6' dropped"),
    ("position fen 4k3/8/8/8/8/8/8/R3K3 w - - 0 1 garbage here", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "'garbage here'"),
    ("position fen 4k3/8/8/8/8/8/8/R3K3", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "no side to move"),
    ("position fen 4k3/8/8/8/8/8/8/R3K3 b", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", None),
    ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", None),
    ("position startpos e2e4", chess.STARTING_FEN, "ignored 'e2e4' after 'position startpos'"),
]


@pytest.mark.parametrize("line,fen,warning", POLICY)
def test_a_doubtful_fen_is_repaired_as_the_table_says_and_searched(session, line, fen, warning):
    session.send("position startpos moves e2e4")
    session.send(line)
    session.send("d")
    _, shown = session.expect(lambda l: l.startswith("Fen: "))
    assert shown == f"Fen: {fen}", (line, shown)
    warnings = [l for l in session.transcript if l.startswith("info string warning:")]
    if warning:
        assert any(warning in l for l in warnings), warnings
    else:
        assert not warnings, warnings
    session.send("go depth 5")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert chess.Move.from_uci(best.split()[1]) in chess.Board(fen).legal_moves, (fen, best)


@pytest.mark.parametrize("fen,why", [
    ("8/8/8/8/8/8/8/4K3 w - - 0 1", "king is missing"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "more than one king"),
    ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "not to move is in check"),
    ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"),
])
def test_a_position_no_game_reaches_is_refused_and_go_answers_no_move(session, fen, why):
    session.send("position startpos moves e2e4")
    session.send(f"position fen {fen}")
    _, error = session.expect(lambda l: l.startswith("info string error:"))
    assert why in error and "refused" in error, error
    for go in ("go depth 5", "go wtime 1000 btime 1000", "go infinite"):
        session.send(go)
        _, best = session.expect(lambda l: l.startswith("bestmove"), timeout=2)
        assert best == "bestmove 0000", (go, best)
        assert f"'position fen {fen}' was refused" in session.transcript[-2], session.transcript[-3:]


@pytest.mark.parametrize(
    "line,note",
    [
        ("go movestogo 0 wtime 1000 btime 1000", "go movestogo 0 is out of range; using 1"),
        ("go wtime 99999999999999999999 btime 99999999999999999999 depth 4", "go wtime 99999999999999999999 is out of range"),
        ("go depth -3", "go depth -3 is out of range; using 1"),
        ("go wtime -100 btime -100", "go wtime -100 is out of range; using 0"),
        ("go nodes 0", "go nodes 0 is out of range; using 1"),
    ],
)
def test_out_of_range_go_values_are_clamped_and_a_move_follows(session, line, note):
    session.send("position startpos moves e2e4")
    session.send(line)
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert any(l == f"info string warning: {note}" or l.startswith(f"info string warning: {note}") for l in session.transcript), session.transcript
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(best.split()[1]) in board.legal_moves


def test_position_during_a_search_is_for_the_next_go(session):
    session.send("position startpos")
    session.send("go infinite")
    session.expect(lambda l: l.startswith("info depth"))
    session.send("position startpos moves e2e4")
    # Settings cannot change under an infinite search: refused, and said so.
    session.send("setoption name Hash value 32")
    _, reply = session.expect(lambda l: l.startswith("info string"))
    assert "search is running" in reply and "setoption" in reply, reply
    session.send("stop")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert chess.Move.from_uci(best.split()[1]) in chess.Board().legal_moves
    session.send("go depth 3")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert chess.Move.from_uci(best.split()[1]) in after_e4.legal_moves


def test_no_legal_moves_gives_null_move(session):
    session.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    session.send("go depth 5")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert best == "bestmove 0000"


def test_end_of_input_exits_cleanly(engine_bin):
    import subprocess

    proc = subprocess.run([engine_bin], input="uci\nposition startpos\ngo infinite\n", capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0
    assert "bestmove" in proc.stdout


def test_chess960_castling(session):
    session.send("setoption name UCI_Chess960 value true")
    # King b1, rooks a1 and h1: castling queenside is king takes rook, b1a1.
    session.send("position fen 4k1r1/8/8/8/8/8/8/RK5R w HA - 0 1 moves b1a1")
    session.sync()
    session.send("go depth 3")
    _, best = session.expect(lambda l: l.startswith("bestmove"))
    assert not any(l.startswith("info string error") for l in session.transcript)
    board = chess.Board("4k1r1/8/8/8/8/8/8/RK5R w HA - 0 1", chess960=True)
    board.push_uci("b1a1")
    assert chess.Move.from_uci(best.split()[1]) in board.legal_moves


def test_input_that_is_not_utf8_is_reported_and_the_session_goes_on(engine_bin):
    import subprocess

    out = subprocess.run(
        [engine_bin], input=b"uci\n\xff\xfe go\nisready\nquit\n", capture_output=True, timeout=20
    ).stdout.decode()
    assert "info string error: unknown command" in out
    assert out.rstrip().endswith("readyok")
