"""UCI_LimitStrength / UCI_Elo: a limited engine searches its small node
budget whatever the clock, varies its moves, still takes a mate, and plays
complete legal games; full strength is untouched while the option is off."""

import chess
import chess.engine


def limited(engine_bin, elo=None):
    """The engine with UCI_LimitStrength at `elo`, or at the lowest UCI_Elo it declares."""
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo or engine.options["UCI_Elo"].min})
    return engine


def test_options_are_declared_with_the_calibrated_range(engine_bin):
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    try:
        elo = engine.options["UCI_Elo"]
        assert engine.options["UCI_LimitStrength"].default is False
        assert elo.min < elo.max and elo.min <= elo.default <= elo.max
    finally:
        engine.quit()


def test_the_node_budget_holds_whatever_the_clock(engine_bin):
    engine = limited(engine_bin)
    try:
        board = chess.Board()
        info = engine.analyse(board, chess.engine.Limit(white_clock=60, black_clock=60), multipv=1)
        # 60 s on the clock (about 2 s and a million nodes at full strength),
        # yet the lowest setting stops at its budget of a few thousand nodes.
        assert info[0]["nodes"] <= 10_000, info[0]
    finally:
        engine.quit()


def test_a_limited_engine_varies_its_moves_and_full_strength_does_not(engine_bin):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    try:
        # A new game each time (`ucinewgame` clears the table): same search, same move.
        full = {engine.play(board, chess.engine.Limit(nodes=2000), game=i).move for i in range(8)}
        assert len(full) == 1, full
    finally:
        engine.quit()
    engine = limited(engine_bin)
    try:
        chosen = {engine.play(board, chess.engine.Limit(nodes=2000), game=i).move for i in range(30)}
        assert len(chosen) >= 2, chosen
    finally:
        engine.quit()


def test_a_limited_engine_still_mates_in_one(engine_bin):
    engine = limited(engine_bin)
    try:
        board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")  # Ra8#
        for _ in range(10):
            assert engine.play(board, chess.engine.Limit(time=1)).move == chess.Move.from_uci("a1a8")
    finally:
        engine.quit()


def test_limited_engines_play_a_whole_game(engine_bin):
    white = limited(engine_bin, 1500)
    black = limited(engine_bin, 2000)
    try:
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and len(board.move_stack) < 300:
            engine = white if board.turn == chess.WHITE else black
            move = engine.play(board, chess.engine.Limit(white_clock=30, black_clock=30)).move
            assert move in board.legal_moves
            board.push(move)
    finally:
        white.quit()
        black.quit()


def test_the_top_setting_searches_one_line_with_a_large_budget(engine_bin):
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    top = engine.options["UCI_Elo"].max
    engine.quit()
    assert top >= 2500
    engine = limited(engine_bin, top)
    try:
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        info = engine.analyse(board, chess.engine.Limit(white_clock=600, black_clock=600))
        # Above the four-line levels (65,536 nodes in all) the budget keeps
        # growing, up to 2^20 nodes of a single line at the top.
        assert 65_536 < info["nodes"] <= (1 << 20) + 1_000, info
        # No deliberate error is left: a fresh game gives the same move each time.
        chosen = {engine.play(board, chess.engine.Limit(nodes=3000), game=i).move for i in range(6)}
        assert len(chosen) == 1, chosen
    finally:
        engine.quit()
