"""CITATION.cff (Citation File Format 1.2.0) names the version being released: ``version`` equals
``relucheck.__version__``, and the fields a citation needs are there (validated against the CFF schema with
``cffconvert --validate``: docs/paper_output.md)."""
from __future__ import annotations

from pathlib import Path

import yaml

import relucheck

CFF = Path(__file__).resolve().parents[1] / "CITATION.cff"


def test_citation_version_is_the_package_version():
    meta = yaml.safe_load(CFF.read_text(encoding="utf-8"))
    assert meta["version"] == relucheck.__version__
    assert meta["cff-version"] == "1.2.0"
    assert meta["license"] == "MIT" and meta["title"].startswith("relucheck")
    assert all("name" in a or "family-names" in a for a in meta["authors"]) and meta["authors"]
    assert str(meta["date-released"])[:4].isdigit() and meta["message"]
