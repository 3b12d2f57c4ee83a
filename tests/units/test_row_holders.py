"""The tables' column holders (replay.rows, ingest.rows): each takes exactly its table's
declared columns and puts each value in the column of its name; Arrow built from their flat
lists is the Arrow of the same rows as Python values; every game's projection fills them."""

from __future__ import annotations

import datetime as dt
import inspect
from pathlib import Path

import pyarrow as pa
import pytest
import toy_game

from trickledger.ingest.batch import holder_arrow, to_arrow
from trickledger.ingest.rows import Rows, check_holders, replay_rows
from trickledger.ingest.schema import COLUMNS, TABLES
from trickledger.replay.engine import replay_bytes
from trickledger.replay.facts import RoundOutcome, RoundScored, TrickAbandoned
from trickledger.replay.rows import CORE_PROJECT, KeywordRows, StackLists, StringLists, TableRows
from trickledger.replay.simulate import SimOptions, simulate_one

ROOT = Path(__file__).resolve().parents[2]
NOW = dt.datetime(2026, 1, 1)
# every game's sample logs and score sheets
SAMPLES = [*sorted((ROOT / "sample_logs").glob("*/*.jsonl"))]


def sentinel(table: str, column: str) -> object:
    """A value that says which column it was given for, of the column's type (the compiled
    holders check the types): a column's own text, or a number made from its place."""
    sql = dict(TABLES[table])[column]
    place = [name for name, _ in TABLES[table]].index(column)
    if sql == "VARCHAR[]":
        return [f"{column}-1", f"{column}-2"]
    if sql.startswith("STRUCT"):
        return [(f"{column}-p", f"{column}-s", 3)]
    if sql in ("INTEGER", "BIGINT"):
        return 1000 + place
    if sql == "BOOLEAN":
        return place % 2 == 0
    return f"{column}-value"


def as_stored(value: object) -> object:
    """The sentinel as the holder gives it back (stack entries as dicts)."""
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return [{"player": p, "stack": s, "cards": c} for p, s, c in value]
    return value


@pytest.mark.parametrize("table", sorted(Rows().tables()))
def test_a_holder_takes_every_column_of_its_table_by_name_and_no_other(table: str) -> None:
    holder = Rows().tables()[table]
    holder.gid = "game-id-value"
    declared = list(COLUMNS[table])
    if isinstance(holder, KeywordRows):  # ingest's log-level tables: checked on each row
        params = [c for c in declared if c in holder.needs]
    else:  # the games' tables: typed, compiled; game_id from the sink
        signature = inspect.signature(holder.add).parameters  # type: ignore[attr-defined]
        params = list(signature)
        assert all(p.default is inspect.Parameter.empty for p in signature.values()), \
            "a column left out must be an error, not a silent NULL"
    assert params == [c for c in declared if c != "game_id" or "game_id" in params]
    given = {c: sentinel(table, c) for c in params}
    holder.add(**given)  # type: ignore[attr-defined]
    stored = holder.python(0, holder.rows())
    assert list(stored) == declared
    for column in declared:
        want = given.get(column, "game-id-value")
        assert stored[column] == [as_stored(want)], column


def test_a_holder_whose_columns_differ_from_the_schema_is_refused() -> None:
    class Swapped(TableRows):
        def __init__(self) -> None:
            super().__init__()
            self.a: list[str] = []
            self.b: list[str] = []

        def columns(self):  # type: ignore[no-untyped-def]
            return [("player", self.a), ("game_id", self.b)]

    with pytest.raises(ValueError, match="the claims rows hold the columns player, game_id; "
                                         "the schema declares game_id, line, round"):
        check_holders({"claims": Swapped()})


def test_a_games_own_table_needs_every_column_and_no_other() -> None:
    assert "toy_boasts" in COLUMNS  # toy_game registered it
    sink = Rows().facts
    sink.begin("g1", ("Ann", "Bob"))
    boasts = sink.table("toy_boasts")
    with pytest.raises(TypeError, match="table toy_boasts needs line"):
        boasts.add(round=1, player="Ann")
    with pytest.raises(TypeError, match="table toy_boasts has no column colour and needs line"):
        boasts.add(round=1, player="Ann", colour="red")
    boasts.add(round=1, player="Ann", line=7)
    assert boasts.python(0, 1) == {"game_id": ["g1"], "round": [1], "player": ["Ann"],
                                   "line": [7]}
    with pytest.raises(KeyError, match="tricks is a shared table"):
        sink.table("tricks")
    with pytest.raises(KeyError, match="there is no table toy_boats"):
        sink.table("toy_boats")


def test_list_columns_keep_null_and_empty_rows_apart_and_truncate() -> None:
    strings = StringLists()
    for row in (["a", "b"], None, [], ["c"]):
        strings.append(row)
    assert strings.python(0, 4) == [["a", "b"], None, [], ["c"]]
    strings.truncate(2)
    assert strings.python(0, 2) == [["a", "b"], None] and strings.values == ["a", "b"]
    strings.append(["d"])
    assert strings.python(0, 3) == [["a", "b"], None, ["d"]]
    stacks = StackLists()
    for entries in ([(None, "B", 1), ("Ann", "G", 2)], None, [("Bob", "R", 3)]):
        stacks.append(entries)
    stacks.truncate(1)
    stacks.append([])
    assert stacks.python(0, 2) == [[{"player": None, "stack": "B", "cards": 1},
                                    {"player": "Ann", "stack": "G", "cards": 2}], []]


def batch_of(paths: list[Path]) -> Rows:
    sink = Rows()
    for p in paths:
        data = p.read_bytes()
        replay_rows(replay_bytes(data, p.name), data, NOW, sink)
    return sink


def test_every_game_fills_its_tables_and_arrow_from_the_flat_lists_is_the_same() -> None:
    sink = batch_of(SAMPLES)
    opts = SimOptions(game=toy_game.NAME, games=4, players=(2, 4), claims=True)
    for i in range(opts.games):  # an interpreted game, with a table of its own
        name, toy, _ = simulate_one(opts, i)
        replay_rows(replay_bytes(toy, name), toy, NOW, sink)
    broken = SAMPLES[0].read_bytes() + b'{"type": "deal"}\n'  # after the last round
    replay_rows(replay_bytes(broken, "broken.jsonl"), broken, NOW, sink)
    filled = {t for t, holder in sink.tables().items() if holder.rows()}
    assert filled == {"logs", "games", "players", "rounds", "round_scores", "claims", "tricks",
                      "plays", "takes", "keeps", "trumps", "bids", "turns", "toy_boasts",
                      "ingest_errors"}
    for table, holder in sink.tables().items():
        n = holder.rows()
        values = holder.python(0, n)
        assert {len(v) for v in values.values()} == {n}, table
        if n:
            built = holder_arrow(table, holder)
            assert built.equals(to_arrow(table, values)), table
            assert built.to_pydict() == to_arrow(table, values).to_pydict()


def test_nulls_in_list_and_stack_columns_reach_arrow_as_nulls() -> None:
    sink = batch_of([ROOT / "sample_logs" / "rage" / "rage-5p-hidden-bid.jsonl",
                     ROOT / "sample_logs" / "plotters" / "plotters-6p.jsonl"])
    tricks = holder_arrow("tricks", sink.facts.tricks)
    games = tricks.column("game_id").to_pylist()
    stacks = tricks.column("stacks").to_pylist()
    closed = tricks.column("closed").to_pylist()
    rage = [i for i, g in enumerate(games) if g == games[0]]
    assert rage and all(stacks[i] is None and closed[i] is None for i in rage)
    plotters = [i for i, g in enumerate(games) if g != games[0]]
    assert plotters and all(stacks[i] and stacks[i][0]["player"] for i in plotters)
    assert tricks.schema.field("stacks").type == pa.list_(
        pa.struct([("player", pa.string()), ("stack", pa.string()), ("cards", pa.int32())]))


def test_a_log_that_fails_half_way_leaves_no_rows() -> None:
    first, second = SAMPLES[0], SAMPLES[1]
    alone = batch_of([first])
    sink = batch_of([first])
    marks = {t: h.rows() for t, h in sink.tables().items()}
    data = second.read_bytes()
    replay_rows(replay_bytes(data, second.name), data, NOW, sink)
    for t, holder in sink.tables().items():
        holder.truncate(marks.get(t, 0))
    assert sink.columns == alone.columns


def test_a_log_cut_mid_trick_stores_the_abandoned_cards_as_plays() -> None:
    lines = (ROOT / "sample_logs" / "rage" / "rage-5p-hidden-bid.jsonl").read_bytes()
    cut = b"\n".join(lines.splitlines()[:40]) + b"\n"
    r = replay_bytes(cut, "cut.jsonl")
    abandoned = [f for f in r.facts if isinstance(f, TrickAbandoned)]
    assert r.status == "incomplete" and abandoned and abandoned[-1].cards
    sink = replay_rows(r, cut, NOW)
    plays = sink.columns["plays"]
    last = abandoned[-1]
    mine = [i for i, t in enumerate(plays["trick"]) if t == last.trick]
    assert len(mine) == len(last.cards)


def test_a_round_outcome_naming_a_column_rounds_lacks_is_an_error() -> None:
    class Odd(RoundOutcome):
        def columns(self, players: tuple[str, ...]) -> dict[str, object]:
            return {"tricks": 3, "colour": "red"}

    sink = Rows().facts
    sink.begin("g1", ("Ann", "Bob"))
    with pytest.raises(KeyError, match="table rounds has no column colour"):
        CORE_PROJECT[RoundScored](RoundScored(1, 0, (1, 2), ("1", "2"), Odd(), 9), sink)
