"""Tests written against the surviving mutants of docs/mutation.md (issue 12); each compares with an independent computation."""
