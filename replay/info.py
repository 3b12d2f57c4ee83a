"""A game's declaration: `GameInfo`, the metadata and parts a game module gives the registry
(`replay.registry`), and the types of those parts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .cards import Card, CardTable
from .state import Move

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
    - `tables`: the game's own database tables, by name, as (column, SQL type) pairs; the
      schema creates them beside the shared ones (ingest.schema);
    - `deck`: every card of the game with its number of copies, and `trick_winner`: the
      seat that won the trick a fact closes, or None for any other fact (the hand
      estimates of bidding games, ingest.hands, need both);
    - `deferrable`: by variant, the move type that variant lets wait until after the
      round's last trick (rage's `secret_bid` lets the `bid`s come then): a simulated game
      of that variant writes them there half of the time (`replay.simulate`);
    - `seen_after_deal`: the chance event types that may follow a deal and show their
      `card` to every player before anyone moves (rage's turned `trump`): ingest.hands
      counts those cards as seen.
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
    tables: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    deck: Mapping[Card, int] | None = None
    trick_winner: Callable[[Any], int | None] | None = None
    deferrable: Mapping[str, str] = field(default_factory=dict)
    seen_after_deal: tuple[str, ...] = ()


