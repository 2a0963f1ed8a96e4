"""`python -m relucheck`: the relucheck command line (`relucheck.proofs_checks.cli`)."""
import sys

from relucheck.proofs_checks.cli import main

sys.exit(main())
