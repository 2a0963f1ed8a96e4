"""Tests that kill mutants of theory/ and of the verdict code that no other test saw (bench/mutation.py; docs/mutation.md)."""
