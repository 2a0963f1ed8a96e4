"""`python -m relucheck`: the relucheck command line (`relucheck.proofs_checks.cli`)."""
from relucheck.proofs_checks.cli import entry

entry()
