"""Syzygy tablebases over UCI, with the shared 3-, 4- and two 5-piece tables
(`../shared/data/syzygy`); skipped where that folder is absent."""

from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest

TABLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "syzygy"
pytestmark = pytest.mark.skipif(not TABLES.is_dir(), reason=f"[shared-data] {TABLES} is absent: no Syzygy tables to test with")


def engine_with_tables(engine_bin, path=None):
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    engine.configure({"SyzygyPath": str(path or TABLES)})
    return engine


def play_out(engine, fen, nodes=3000, max_plies=200):
    """The engine against itself from `fen`; the board at the end, and the
    highest halfmove clock seen."""
    board = chess.Board(fen)
    highest = 0
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < max_plies:
        move = engine.play(board, chess.engine.Limit(nodes=nodes)).move
        assert move in board.legal_moves
        board.push(move)
        highest = max(highest, board.halfmove_clock)
    return board, highest


def test_options_are_declared_and_the_tables_counted(engine_bin):
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    try:
        for name in ["SyzygyPath", "SyzygyProbeDepth", "Syzygy50MoveRule", "SyzygyProbeLimit"]:
            assert name in engine.options, name
        assert engine.options["SyzygyProbeLimit"].max == 7
    finally:
        engine.quit()


def test_tbhits_in_info_and_a_won_krk_is_mated_within_the_50_move_rule(engine_bin):
    engine = engine_with_tables(engine_bin)
    try:
        info = engine.analyse(chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"), chess.engine.Limit(nodes=20000))
        assert info.get("tbhits", 0) > 0, info
        # Far from mate: the king in the middle, the rook's king away.
        board, highest = play_out(engine, "8/8/8/3k4/8/8/8/R6K w - - 0 1")
        assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
        assert highest < 100, f"the 50-move rule was reached ({highest})"
    finally:
        engine.quit()


def test_kqkr_is_won_with_the_tables(engine_bin):
    if not (TABLES / "KQvKR.rtbz").exists():
        pytest.skip("[shared-data] no KQvKR table")
    engine = engine_with_tables(engine_bin)
    try:
        board, highest = play_out(engine, "8/8/8/8/2k5/8/5r2/1Q4K1 w - - 0 1", max_plies=260)
        assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
        assert highest < 100
    finally:
        engine.quit()


def test_a_drawn_kpk_is_held(engine_bin):
    # Black to move must take the opposition (Ke5); every other move loses.
    engine = engine_with_tables(engine_bin)
    try:
        board = chess.Board("8/8/4k3/8/8/4K3/4P3/8 b - - 0 1")
        assert engine.play(board, chess.engine.Limit(nodes=500)).move == chess.Move.from_uci("e6e5")
        board, _ = play_out(engine, board.fen(), max_plies=150)
        assert not board.is_checkmate(), board.fen()
        assert board.outcome(claim_draw=True) is None or board.outcome(claim_draw=True).winner is None
        with chess.syzygy.open_tablebase(str(TABLES)) as tb:
            if chess.popcount(board.occupied) <= 5 and not board.castling_rights:
                assert tb.probe_wdl(board) == 0, board.fen()
    finally:
        engine.quit()


def test_bad_paths_and_tables_are_reported_and_play_goes_on(session, tmp_path):
    (tmp_path / "KRvK.rtbw").write_bytes(b"\x71\xe8\x23\x5d truncated")
    (tmp_path / "KQvK.atbw").write_bytes(b"atomic")
    session.send(f"setoption name SyzygyPath value {tmp_path}:/no/such/folder")
    session.sync()
    text = "\n".join(session.transcript)
    assert "info string error: SyzygyPath: skipping" in text and "KRvK.rtbw" in text and "truncated" in text
    assert "cannot read folder '/no/such/folder'" in text
    assert "ignored 1 tables of chess variants" in text
    assert "info string syzygy: 0 WDL and 0 DTZ tables, up to 0 pieces" in text
    session.send("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    session.send("go nodes 2000")
    _, line = session.expect(lambda l: l.startswith("bestmove"))
    assert line != "bestmove 0000"
    # A good folder afterwards: the tables are found and used.
    session.send(f"setoption name SyzygyPath value {TABLES}")
    session.sync()
    assert any(l.startswith("info string syzygy: 37 WDL and 37 DTZ tables") for l in session.transcript)
    session.send("go nodes 2000")
    _, line = session.expect(lambda l: l.startswith("bestmove"))
    assert any(" tbhits " in l for l in session.transcript if l.startswith("info depth"))
