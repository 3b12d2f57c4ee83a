"""The dashboard's data access, one module per topic; a page imports the ones it asks.

Pages never open the database themselves, nor write SQL: they ask page queries by name
(`standings.results(f)`, plotters' `splits_by_player(f)`). The data lives in one `Store`
(ingest.store: the database file, or a lake).

- `access`: the store, the short read-only connections and a page run's waits for a file
  another process holds (`Busy`), the cached `query` kept for the database's state
  (`data_state`), the write jobs (`WriteFailed`), `observe_queries`.
- `filters`: the sidebar's choice (`Filters`) and `filtered`, which runs a query for it.
- `console`: the SQL console, in a worker process killed at its limits.
- `uploads`: loading what a visitor brings (an upload, a saved paste or score sheet).
- `analyses`: the summaries, ratings and hand estimates a page brings up to date.
- `admin`: the audit log, finding and taking out a log.
- the page queries, by page: `overview`, `standings` (results, ratings, head-to-head,
  seats), `decisions`, `players`, `viewer`. A game's own are in its module under
  `dashboard/games/`.

Nothing here holds a lock while it works: the console's queries run in a worker process
(ingest.console), and writes — uploads, ratings, hand estimates — in a child process
(ingest.jobs), because DuckDB lets one process hold a file read-write or read-only, not
both. A slow query or upload never blocks another visitor's page.
"""
