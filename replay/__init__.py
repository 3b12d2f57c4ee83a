"""trickledger's replay engine: reader, engine core, games, bots."""

from .engine import Replay, exit_status, replay_bytes, replay_path, verdict

__all__ = ["Replay", "exit_status", "replay_bytes", "replay_path", "verdict"]
