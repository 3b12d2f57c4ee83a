"""One replayed log -> rows for every table. It reshapes the engine's facts; it decides nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson

from replay.engine import ClaimChecked, Replay, RoundDealt, RoundScored, verdict
from replay.games import color_stacks, plotters, rage, under_the_radar

Rows = dict[str, list[tuple[Any, ...]]]


def decode_text(data: bytes) -> str:
    """The log as text for the `logs` table (gunzipped; invalid UTF-8 shown as U+FFFD)."""
    from replay.reader import decompress

    try:
        text = decompress(data, "")
    except Exception:  # an unreadable gzip keeps its bytes as they are
        text = data
    return text.decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def _played_on(meta: dict[str, Any]) -> dt.date | None:
    d = meta.get("date")
    if isinstance(d, str):
        try:
            return dt.date.fromisoformat(d[:10])
        except ValueError:
            return None
    return None


def replay_rows(r: Replay, data: bytes, now: dt.datetime) -> Rows:
    """All rows of one log. Unreadable logs give a `logs` and an `ingest_errors` row only."""
    out: Rows = {}
    err = r.error
    text = decode_text(data)
    h = r.header
    gid = h.id if h else None
    out["logs"] = [(r.sha256, r.file, len(data), now, text, r.status, gid,
                    err.line if err else None, err.message if err else None)]
    if err is not None:
        out["ingest_errors"] = [(r.file, r.sha256, r.status, err.line, err.message, now)]
    st = r.state
    if st is None or h is None:
        return out
    v = verdict(r)
    winners = v["winners"]
    n_claims = len(st.claims)
    n_bad = sum(1 for c in st.claims if not c.match)
    out["games"] = [(gid, r.sha256, r.file, h.game, h.edition, sorted(h.variants), st.n,
                     st.rounds_total, len(st.rounds), r.status, err.line if err else None,
                     err.message if err else None, winners, _played_on(h.meta), r.events,
                     n_claims, n_bad, orjson.dumps(h.meta).decode(), now)]
    out["players"] = [(gid, i, p, st.totals[p], p in winners) for i, p in enumerate(st.players)]
    rows = FactRows(gid, st.players)
    for f in st.facts:
        handler = HANDLERS.get(type(f))
        if handler is not None:
            handler(rows, f)
    rows.flush_unfinished(st)
    out.update(rows.tables)
    return out


class FactRows:
    """Accumulates the fact tables of one game."""

    def __init__(self, gid: str, players: tuple[str, ...]) -> None:
        self.gid = gid
        self.players = players
        self.tables: Rows = {t: [] for t in ("rounds", "tricks", "plays", "takes", "keeps",
                                             "trumps", "bids", "turns", "round_scores",
                                             "claims")}
        self.round_info: dict[int, dict[str, Any]] = {}
        self.running = {p: 0 for p in players}
        self.turn_seq = 0
        self.trump_seq = 0

    def info(self, rnd: int) -> dict[str, Any]:
        return self.round_info.setdefault(rnd, {})

    def plays(self, rnd: int, trick: int, cards: Any, kind: str = "play") -> None:
        add = self.tables["plays"].append
        for seq, pc in enumerate(cards, 1):
            add((self.gid, rnd, trick, seq, pc[0], pc[1], pc[2] if len(pc) > 2 else None, kind))

    def flush_unfinished(self, st: Any) -> None:
        """Cards of a trick still open when the log stopped (or was illegal) are plays too."""
        trick = getattr(st, "trick_cards", None)
        if trick is None:
            trick = getattr(st, "trick", None)
        if not trick or not isinstance(trick, list) or not getattr(st, "in_round", False):
            return
        cards = []
        for item in trick:
            seat, card = item[0], item[1]
            joker = item[2] if len(item) > 2 else None
            cards.append((st.players[seat], card.name, joker))
        self.plays(st.round_no, st.trick_no + 1, cards)


def _dealt(rows: FactRows, f: RoundDealt) -> None:
    info = rows.info(f.round)
    info["dealt"] = f
    rows.turn_seq = 0
    rows.trump_seq = 0


def _scored(rows: FactRows, f: RoundScored) -> None:
    info = rows.info(f.round)
    dealt: RoundDealt | None = info.get("dealt")
    ex = f.extra
    rows.tables["rounds"].append((
        rows.gid, f.round, f.dealer, dealt.leader if dealt else None, ex.get("tricks"),
        ex.get("ended_early"), ex.get("early_end_player"), info.get("early_end_trick"),
        info.get("trump"), dealt.extra.get("hand_size") if dealt else None, ex.get("turns"),
        ex.get("ender"), info.get("end_reason"), f.line))
    for p in rows.players:
        rows.running[p] += f.scores[p]
        rows.tables["round_scores"].append((rows.gid, f.round, p, f.scores[p], rows.running[p],
                                            f.derivations[p]))


def _claim(rows: FactRows, f: ClaimChecked) -> None:
    rows.tables["claims"].append((rows.gid, f.line, f.round, f.player, f.claimed, f.computed,
                                  f.match, f.derivation))


def _plotters_trick(rows: FactRows, f: plotters.TrickFinished) -> None:
    stacks = {p: {"B": s[0], "G": s[1], "R": s[2], "Y": s[3], "discarded": s[4]}
              for p, s in zip(rows.players, f.stacks)}
    rows.tables["tricks"].append((
        rows.gid, f.round, f.trick, f.leader, f.led_color, [c for _, c in f.cards],
        [p for p, _ in f.cards], f.first_winner, f.first_card, f.second_winner, f.second_card,
        f.monochrome, None, None, None, None, None, None, None, len(f.cards), 1, None,
        f.next_leader, orjson.dumps(stacks).decode(), f.line))
    rows.plays(f.round, f.trick, f.cards)
    takes = rows.tables["takes"]
    takes.append((rows.gid, f.round, f.trick, f.first_winner, "first_pick", list(f.first_pick),
                  len(f.first_pick), f.kept_cards[0]))
    if f.second_winner is not None:
        takes.append((rows.gid, f.round, f.trick, f.second_winner, "second", list(f.second_got),
                      len(f.second_got), f.kept_cards[1]))


def _plotters_kept(rows: FactRows, f: plotters.ColorsKept) -> None:
    rows.tables["keeps"].append((rows.gid, f.round, f.trick, f.player, list(f.colors),
                                 f.discarded, f.line))


def _plotters_ended(rows: FactRows, f: plotters.RoundEnded) -> None:
    info = rows.info(f.round)
    info["early_end_trick"] = f.early_end_trick
    info["end_reason"] = "early end" if f.ended_early else "all tricks played"
    if f.unfinished:
        rows.plays(f.round, f.tricks + 1, f.unfinished)


def _rage_trump(rows: FactRows, f: rage.TrumpTurned) -> None:
    rows.trump_seq += 1
    info = rows.info(f.round)
    if f.reason == "deal" and f.trump is not None:
        info["trump"] = f.trump
    rows.tables["trumps"].append((rows.gid, f.round, f.trick, rows.trump_seq, f.card, f.reason,
                                  f.trump, f.line))


def _rage_trick(rows: FactRows, f: rage.RageTrickFinished) -> None:
    rows.tables["tricks"].append((
        rows.gid, f.round, f.trick, f.leader, f.led_color, [c for _, c, _ in f.cards],
        [p for p, _, _ in f.cards], None, None, None, None, None, f.winner, f.winning_card,
        f.trump, f.notrump, f.change, f.plus5, f.minus5, len(f.cards), 1, None, f.winner,
        None, f.line))
    rows.plays(f.round, f.trick, f.cards)
    rows.tables["takes"].append((rows.gid, f.round, f.trick, f.winner, "whole_trick",
                                 [c for _, c, _ in f.cards], len(f.cards), len(f.cards)))


def _rage_bid(rows: FactRows, f: rage.BidSettled) -> None:
    rows.tables["bids"].append((rows.gid, f.round, f.player, f.hand_size, f.bid, f.won,
                                f.bid_error, f.exact, f.plus5, f.minus5, f.trumps_held,
                                f.jokers_held, f.marching, f.score))


def _stacks_turn(rows: FactRows, f: color_stacks.TurnTaken) -> None:
    rows.turn_seq += 1
    rows.tables["turns"].append((rows.gid, f.round, rows.turn_seq, f.turn, f.player, f.kind,
                                 list(f.cards), orjson.dumps(dict(f.stacks)).decode(), f.ended,
                                 f.line))
    rows.plays(f.round, rows.turn_seq, [(f.player, c) for c in f.cards], f.kind)
    if f.ended:
        rows.info(f.round)["end_reason"] = "stack reached six by " + f.kind


def _radar_trick(rows: FactRows, f: under_the_radar.UTRTrickFinished) -> None:
    rows.tables["tricks"].append((
        rows.gid, f.round, f.trick, f.leader, None, [c for _, c in f.cards],
        [p for p, _ in f.cards], None, None, None, None, None, f.taker, f.taking_card, None, None,
        None, None, None, f.length, f.laps, list(f.closed), f.taker, None, f.line))
    rows.plays(f.round, f.trick, f.cards)
    if f.taker is not None:
        rows.tables["takes"].append((rows.gid, f.round, f.trick, f.taker, "whole_trick",
                                     [c for _, c in f.cards], f.length, f.length))


def _radar_ended(rows: FactRows, f: under_the_radar.UTRRoundEnded) -> None:
    rows.info(f.round)["end_reason"] = ("trick taken with the last card" if f.how == "last card"
                                        else "nobody has cards left")


HANDLERS: dict[type, Any] = {
    RoundDealt: _dealt,
    RoundScored: _scored,
    ClaimChecked: _claim,
    plotters.TrickFinished: _plotters_trick,
    plotters.ColorsKept: _plotters_kept,
    plotters.RoundEnded: _plotters_ended,
    rage.TrumpTurned: _rage_trump,
    rage.RageTrickFinished: _rage_trick,
    rage.BidSettled: _rage_bid,
    color_stacks.TurnTaken: _stacks_turn,
    under_the_radar.UTRTrickFinished: _radar_trick,
    under_the_radar.UTRRoundEnded: _radar_ended,
}
