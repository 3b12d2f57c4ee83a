"""The sample logs shipped with trickledger (package data, so an installed wheel has them):
curated games per game and a small simulated corpus. `SAMPLES` is their folder."""

from __future__ import annotations

if __name__ != "trickledger.sample_logs":  # the checkout's folder, imported by its folder name
    raise ImportError("sample_logs/ is installed as trickledger.sample_logs: import "
                      "trickledger.sample_logs (pip install . or pip install -e . first)")

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent
