"""The sample logs shipped with trickledger (package data, so an installed wheel has them):
curated games per game and a small simulated corpus. `SAMPLES` is their folder."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent
