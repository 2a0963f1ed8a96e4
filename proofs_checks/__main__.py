"""`python -m relucheck.proofs_checks`: the relucheck command line (`relucheck.proofs_checks.cli`)."""
from relucheck.proofs_checks.cli import entry

entry()
