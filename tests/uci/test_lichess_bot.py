"""The engine driven the way lichess-bot drives it, with deploy/lichess-bot/config.yml:
python-chess `SimpleEngine.popen_uci`, `configure` with the config's uci_options, then
`play` under clock limits with pondering on, the opponent's moves arriving while the
engine ponders."""

import random
import time
from pathlib import Path

import chess
import chess.engine
import yaml

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "lichess-bot" / "config.yml"
# Options python-chess sets itself (lichess-bot cannot pass them) and buttons.
MANAGED = {"Ponder", "MultiPV", "UCI_Chess960"}
BUTTONS = {"Clear Hash"}


def load_config():
    with open(CONFIG) as f:
        return yaml.safe_load(f)


def test_config_declares_every_engine_option(engine_bin):
    config = load_config()["engine"]
    assert config["protocol"] == "uci" and config["ponder"] is True
    assert config["name"] == "tessera"
    engine = chess.engine.SimpleEngine.popen_uci(engine_bin)
    try:
        declared = set(engine.options)
        elo = engine.options["UCI_Elo"]
    finally:
        engine.quit()
    configured = set(config["uci_options"])
    assert configured | MANAGED | BUTTONS == declared, f"missing: {declared - configured - MANAGED - BUTTONS}"
    assert "Move Overhead" in configured
    # The comments tell an operator the ranges: they must be the engine's.
    assert f"# {elo.min}-{elo.max}, Stockfish's UCI_Elo scale" in CONFIG.read_text()


def test_short_game_the_lichess_bot_way(engine_bin):
    config = load_config()["engine"]
    engine = chess.engine.SimpleEngine.popen_uci([engine_bin])
    engine.configure(config["uci_options"])
    board = chess.Board()
    rng = random.Random(7)
    clock, inc = 20.0, 0.2  # seconds, for the engine; the opponent's clock stays full
    ponder_moves = 0
    try:
        while not board.is_game_over() and board.ply() < 40:
            limit = chess.engine.Limit(
                white_clock=clock if board.turn == chess.WHITE else 60.0,
                black_clock=clock if board.turn == chess.BLACK else 60.0,
                white_inc=inc,
                black_inc=inc,
            )
            start = time.monotonic()
            result = engine.play(board, limit, info=chess.engine.INFO_ALL, ponder=config["ponder"])
            clock -= time.monotonic() - start
            assert clock > 0, f"flagged at ply {board.ply()}"
            clock += inc
            assert result.move in board.legal_moves, f"illegal {result.move} in {board.fen()}"
            board.push(result.move)
            if result.ponder is not None:
                assert result.ponder in board.legal_moves, f"illegal ponder move {result.ponder}"
                ponder_moves += 1
            if board.is_game_over():
                break
            # The opponent thinks a moment while the engine ponders, then answers:
            # the predicted move half the time (a ponder hit for lichess-bot), else another.
            time.sleep(0.1)
            if result.ponder is not None and rng.random() < 0.5:
                board.push(result.ponder)
            else:
                board.push(rng.choice(list(board.legal_moves)))
        assert board.ply() >= 40 or board.is_game_over()
        assert ponder_moves > 5, "the engine should offer moves to ponder on"
    finally:
        engine.quit()
