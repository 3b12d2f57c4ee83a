"""The dashboard's parts that are about one game each: its pages (Streamlit scripts, named by
the game's declaration, `GameInfo.pages`) and the module of its queries and of its parts of
the core's pages (`GameInfo.dashboard`). The core's pages know no game: they show what the
games declare (trickledger.dashboard.game_parts)."""
