"""The tables' column holders and writers (replay.rows, replay.tables, replay.rowgen,
ingest.rows): each writer takes exactly its declared columns and puts each value in the column
of its name, another game's columns NULL; the writers are what the declarations generate now;
the tables are laid out from the declarations in a fixed order; Arrow built from the flat
lists is the Arrow of the same rows as Python values; every game's projection fills them."""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
from pathlib import Path

import pyarrow as pa
import pytest
import toy_high_card

from trickledger.ingest.batch import holder_arrow, to_arrow
from trickledger.ingest.rows import Rows, replay_rows
from trickledger.ingest.schema import COLUMNS, FACT_TABLES, TABLES
from trickledger.replay import rowgen, rows
from trickledger.replay.engine import replay_bytes
from trickledger.replay.facts import RoundOutcome, RoundScored, TrickAbandoned
from trickledger.replay.games import color_stacks, plotters, rage, under_the_radar
from trickledger.replay.registry import registry
from trickledger.replay.rows import CORE_PROJECT, RowWriter, StackLists, StringLists
from trickledger.replay.simulate import SimOptions, simulate_one
from trickledger.replay.tables import SHARED, Column, SharedColumns, check_declaration, fact_tables

ROOT = Path(__file__).resolve().parents[2]
NOW = dt.datetime(2026, 1, 1)
# every game's sample logs and score sheets
SAMPLES = [*sorted((ROOT / "sample_logs").glob("*/*.jsonl"))]
# every generated writer: the core's and each game's
WRITERS: list[type[RowWriter]] = [
    rows.TricksRows, rows.PlaysRows, rows.TakesRows, rows.RoundScoresRows, rows.ClaimsRows,
    plotters.KeepsRows, plotters.TricksRows, rage.TrumpsRows, rage.BidsRows, rage.TricksRows,
    under_the_radar.TricksRows, color_stacks.TurnsRows]


def sentinel(table: str, column: str) -> object:
    """A value that says which column it was given for, of the column's type (the compiled
    writers check the types): a column's own text, or a number made from its place."""
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


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: f"{w.__module__}.{w.__name__}")
def test_a_writer_takes_its_columns_by_name_and_leaves_the_others_null(
        writer: type[RowWriter]) -> None:
    sink = Rows().facts
    sink.begin("game-id-value", ("Ann", "Bob"))
    w = sink.rows(writer)
    table = writer.TABLE
    signature = inspect.signature(w.add).parameters  # type: ignore[attr-defined]
    assert all(p.default is inspect.Parameter.empty for p in signature.values()), \
        "a column left out must be an error, not a silent NULL"
    mine = [c for c in COLUMNS[table] if c in writer.COLUMNS]
    assert list(signature) == [c for c in mine if c != "game_id"]
    given = {c: sentinel(table, c) for c in signature}
    w.add(**given)  # type: ignore[attr-defined]
    held = sink.tables()[table]
    stored = held.python(0, held.rows())
    assert list(stored) == list(COLUMNS[table])
    for column in COLUMNS[table]:
        want = (given.get(column, "game-id-value") if column in writer.COLUMNS else None)
        assert stored[column] == [as_stored(want)], column
    with pytest.raises(TypeError):
        w.add(**{k: v for k, v in list(given.items())[1:]})  # type: ignore[attr-defined]
    assert sink.rows(writer) is w  # one writer a sink


def test_the_generated_writers_are_what_the_declarations_give_now() -> None:
    assert rowgen.stale(rowgen.modules()) == []
    # the module's .py (shipped beside the compiled module, whose file is the library)
    text = Path(plotters.__file__ or "").with_name("plotters.py").read_text(encoding="utf-8")
    changed = text.replace('Column("discarded", "INTEGER")', 'Column("discards", "INTEGER")')
    info = dataclasses.replace(plotters.INFO, tables={"keeps": tuple(
        dataclasses.replace(c, name="discards") if c.name == "discarded" else c
        for c in plotters.TABLES["keeps"])})
    assert changed != text
    new = "\n".join(rowgen.game_writers(info))
    assert 'rows.values("discards")' in new and "discards: int" in new
    assert rowgen.rewritten(text, rowgen.section("trickledger.replay.games.plotters"),
                            "plotters.py") == text


def test_log_level_and_plugin_tables_are_filled_by_keyword_every_column_named(
        toy_game: object) -> None:
    assert "toy_boasts" in COLUMNS  # the example game registered it (for this test)
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
    logs = Rows().logs
    with pytest.raises(TypeError, match="table logs needs"):
        logs.add(sha256="x")


def test_the_shared_tables_keep_the_games_columns_in_place() -> None:
    assert COLUMNS["tricks"] == (
        "game_id", "round", "trick", "leader", "led_color", "cards", "players", "first_winner",
        "first_card", "second_winner", "second_card", "monochrome", "winner", "winning_card",
        "trump", "notrump", "change", "plus5", "minus5", "length", "laps", "closed",
        "next_leader", "stacks", "line")
    assert COLUMNS["rounds"] == (
        "game_id", "round", "dealer", "leader", "tricks", "ended_early", "early_end_player",
        "early_end_trick", "trump", "hand_size", "turns", "ender", "end_reason", "line")
    # whatever the order the games registered in
    games = list(registry().values())
    assert fact_tables(reversed(games)) == fact_tables(games) == FACT_TABLES
    assert [c.name for c in SHARED["tricks"]] == [
        "game_id", "round", "trick", "leader", "led_color", "cards", "players", "winner",
        "winning_card", "length", "laps", "next_leader", "stacks", "line"]


def test_a_games_declared_tables_are_checked_when_it_registers() -> None:
    info = toy_high_card.INFO
    bad = [
        ({"tricks": (Column("game_id", "VARCHAR"),)}, (), "has a shared table's name"),
        ({"toy_x": (Column("round", "INTEGER"),)}, (), r"must start with Column\('game_id'"),
        ({"toy_x": (Column("game_id", "VARCHAR"), Column("n", "DOUBLE"))}, (), "has the type"),
        ({"Toy X": (Column("game_id", "VARCHAR"),)}, (), "not a plain lower-case name"),
    ]
    for tables, columns, message in bad:
        with pytest.raises(TypeError, match=message):
            check_declaration(dataclasses.replace(info, tables=tables, columns=columns), True)
    extra = (SharedColumns("tricks", after="players", columns=(Column("boast", "BOOLEAN"),)),)
    with pytest.raises(TypeError, match="only a game shipped with trickledger"):
        check_declaration(dataclasses.replace(info, columns=extra), False)
    check_declaration(dataclasses.replace(info, columns=extra), True)
    for run, message in (
            (SharedColumns("keeps", after="round", columns=(Column("x", "INTEGER"),)),
             "not a shared table"),
            (SharedColumns("tricks", after="first_winner", columns=(Column("x", "INTEGER"),)),
             "placed after or before one of its core columns"),
            (SharedColumns("tricks", after="players", columns=(Column("winner", "VARCHAR"),)),
             "already has the core column winner")):
        with pytest.raises(TypeError, match=message):
            check_declaration(dataclasses.replace(info, columns=(run,)), True)
    twice = dataclasses.replace(info, name="toy_twice", columns=(SharedColumns(
        "tricks", after="laps", columns=(Column("closed", "VARCHAR[]"),)),))
    with pytest.raises(ValueError, match="'toy_twice' and 'under_the_radar' both add the "
                                         "column 'closed' to tricks"):
        fact_tables([*registry().values(), twice])


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


def test_every_game_fills_its_tables_and_arrow_from_the_flat_lists_is_the_same(
        toy_game: object) -> None:
    sink = batch_of(SAMPLES)
    opts = SimOptions(game=toy_high_card.NAME, games=4, players=(2, 4), claims=True)
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
    tricks = holder_arrow("tricks", sink.facts.tables()["tricks"])
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
