"""trickledger's store: the DuckDB schema, loading, the lake, analytics and SQL access."""

if __name__ != "trickledger.ingest":  # the checkout's folder, imported by its folder name
    raise ImportError("ingest/ is installed as trickledger.ingest: import trickledger.ingest "
                      "(pip install . or pip install -e . first)")
