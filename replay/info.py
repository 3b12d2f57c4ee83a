"""A game's declaration: `GameInfo`, the metadata and parts a game module gives the registry
(`replay.registry`), and the types of those parts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .cards import Card, CardTable
from .state import Move
from .tables import Column, SharedColumns

if TYPE_CHECKING:
    from .rows import RowSink
    from .state import GameState

Renderer = Callable[[Any, tuple[str, ...]], list[str]]
Projection = Callable[[Any, "RowSink"], None]
Heuristic = Callable[[Any, Move], float]


@dataclass(frozen=True)
class GameInfo:
    """A game's metadata and the parts that the generic layers need, declared as data.

    - `render`: for each of the game's fact types, the lines `trickledger replay` prints
      (a game may also render the core `RoundDealt` its own way);
    - `project`: for each of the game's fact types, how it becomes rows of the database
      tables (by column name);
    - `heuristic`: the greedy bot's score of a legal move (higher is better);
    - `cards`: every card name of the game (the conformance test tries them all);
    - `step`: what the viewer steps through ("trick" or "turn"), `step_facts`: the fact
      types that close one, and `step_label`: how one is named from its closing fact
      (default "Trick 3"), the same in `replay` and the viewer;
    - `sheet_state`: the state a score sheet of the game is folded through (a
      `replay.sheet.SheetState` declared in the game's module), or None when the game has
      no score sheet;
    - `events`: the event types of the game's move logs beside the shared `claim` (each
      handled by the state's `on_<type>`: `register` refuses a handler for a type not
      declared and a type declared without a handler), and `exact_numbers` those of them
      whose integers count (read exactly even beyond 64 bits, as claims are);
    - `injectable`: the move types `simulate --illegal` may change (player or card) to
      break a rule;
    - `tables`: the game's own database tables, by name, each a tuple of `Column`s starting
      with `game_id`, and `columns`: its own columns in the shared tables, as
      `SharedColumns` placed among the core's (replay.tables; only a game shipped with
      trickledger has those); the schema is made from them (ingest.schema), and so are the
      typed writers its projections fill them through (replay.rowgen);
    - `deck`: every card of the game with its number of copies, and `trick_winner`: the
      seat that won the trick a fact closes, or None for any other fact (the hand
      estimates of bidding games, ingest.hands, need both);
    - `deferrable`: by variant, the move type that variant lets wait until after the
      round's last trick (rage's `secret_bid` lets the `bid`s come then): a simulated game
      of that variant writes them there half of the time (`replay.simulate`);
    - `seen_after_deal`: the chance event types that may follow a deal and show their
      `card` to every player before anyone moves (rage's turned `trump`): ingest.hands
      counts those cards as seen;
    - `face_down`: the fields of a `deal` event that no player sees (cards dealt aside):
      the judge does not let a sampled hand know them;
    - `bands`: the judge's scale in the game's points (replay.judge): the certain part of
      a decision's cost from which it is an inaccuracy, a mistake, a blunder;
    - `colors`: by a card's `color`, the colour the dashboard paints its chip (CSS), and
      `color_names`: by a card's `color`, that colour's name in words (the Record page's
      labels of a group of cards);
    - `pages`: the dashboard's pages about the game (`GamePage`s), and `dashboard`: the
      module (`package.module`, "" for none) of its parts of the core's pages, which may
      define `player_section(filters, player)` (the Player page) and
      `round_section(game_id, round)` (the game viewer's round);
    - `analytics`: the game's SQL objects, each (kind "view", "macro" or "summary", name,
      body), created after the core's in the database (ingest.analytics), in this order; a
      "summary" is a query of the rows of the games in the list `ids`, made once per game
      into the table `name` (ingest.summaries) so that statistics sum a few rows per game;
    - `examples`: (question, SQL) pairs the SQL console offers beside the core's;
    - `estimated_hands`: SQL selecting the hands `trickledger analyse` estimates (columns
      game_id, round, player and won, the tricks taken: a bidding game's settled bids), ""
      for none (ingest.analyse, ingest.hands);
    - `step_rows`: the table holding one row per step with its `stacks`, and the column
      that numbers the steps there (the viewer shows the stacks after a step);
    - `native`: how the native analysis engine (replay/native) plays the rest of one of the
      game's rounds (a `NativeCodec`), or None: a game it does not know is judged in Python.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    state_class: type[GameState]
    cards: CardTable[Any]
    render: Mapping[type, Renderer]
    project: Mapping[type, Projection]
    heuristic: Heuristic
    variants: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    needs_suits: bool = False
    lowest_wins: bool = False
    step: str = "trick"
    step_facts: tuple[type, ...] = ()
    step_label: Callable[[Any], str] | None = None
    aliases: tuple[str, ...] = field(default=())
    # a replay.sheet.SheetState (register checks it; replay.sheet.sheet_class reads it as one)
    sheet_state: type[GameState] | None = None
    events: tuple[str, ...] = ()
    exact_numbers: tuple[str, ...] = ()
    injectable: tuple[str, ...] = ()
    tables: Mapping[str, tuple[Column, ...]] = field(default_factory=dict)
    columns: tuple[SharedColumns, ...] = ()
    deck: Mapping[Card, int] | None = None
    trick_winner: Callable[[Any], int | None] | None = None
    deferrable: Mapping[str, str] = field(default_factory=dict)
    seen_after_deal: tuple[str, ...] = ()
    face_down: tuple[str, ...] = ()
    bands: tuple[float, float, float] = (1.0, 2.0, 4.0)
    colors: Mapping[str, str] = field(default_factory=dict)
    color_names: Mapping[str, str] = field(default_factory=dict)
    pages: tuple[GamePage, ...] = ()
    dashboard: str = ""
    analytics: tuple[tuple[str, str, str], ...] = ()
    examples: tuple[tuple[str, str], ...] = ()
    estimated_hands: str = ""
    step_rows: tuple[str, str] = ("tricks", "trick")
    native: NativeCodec | None = None


@dataclass(frozen=True)
class GamePage:
    """A dashboard page about one game: its title in the navigation, the Streamlit script
    that draws it (`script`, a module name: `package.module`, run as a page, never
    imported by the engine), its icon (a Streamlit icon such as ":material/call_split:")
    and its address (`url_path`)."""

    title: str
    script: str
    icon: str
    url_path: str




@dataclass(frozen=True)
class NativeCodec:
    """What the native analysis engine needs of a game, declared in the game's module: which
    of the engine's rule sets plays it (`rules`, one of `replay.native.rules()`), and three
    translations between the Python state and the engine's position, all for a state in the
    middle of a round:

    - `position(state)`: the numbers the engine's position of that game is made from (the
      layout is the engine's, written down beside the encoder);
    - `move_code(state, move)`: a legal move (an event of the log) as the engine's move code;
    - `move_of(state, code)`: a move code back as the event.

    And the judge's defaults for the game (replay/native/judging.py; docs/native.md,
    "Defaults"), in cards left in the hands (every seat's): from `solve_cards` on, a sample's
    rest of the round is tried exactly (None: always), from `endgame_cards` on, a playout's
    rest is solved (None: never). At those counts the rest of a round at the game's common
    table takes a median of a few thousand, and a few hundred, native positions.
    """

    rules: str
    position: Callable[[Any], list[int]]
    move_code: Callable[[Any, Move], int]
    move_of: Callable[[Any, int], Move]
    solve_cards: int | None = None
    endgame_cards: int | None = None
