"""Validators (argparse ``type=``) for the command line's numbers and paths, with the reason of each bound.

A bad value makes argparse exit with status 2 and the message ``argument --seed: <condition>, got '-1'``.
`SHARED` gives every option of the same name the same rule in every command: `apply_shared` sets it on
each subcommand after the commands have registered (so `flow`, `run`, `report`, `check-ode` … agree on
what a seed, a λ, a precision, a budget or a path is), and turns argparse's abbreviations off everywhere
(``--time 1,2`` is an unknown option, not ``--times``), so an option is always named as the user typed it.
Output directories (``--out``) are then checked by `proofs_checks.journal.prepare_out_dir` before anything
is computed.
"""
from __future__ import annotations

import argparse
import math

MAX_SEED = 2**63 - 1  # numpy's SeedSequence takes any integer ≥ 0; int64 keeps it exact in results.csv and JSON readers
MAX_SECONDS = 86400.0  # a budget longer than a day is a typo, not a plan
MIN_MEMORY_MIB, MAX_MEMORY_MIB = 64, 2**20  # below 64 MiB SymPy cannot start a simplification; 1 TiB is no limit
# --precision D: the precision guard reruns at 2·D digits, each mpmath operation costs ≳ D² and the limb
# kernel's work arrays grow as D³ (≈ 0.7 GB at 2000 digits; 100000 digits would need 78 TiB).
MAX_DIGITS = 1000
MAX_WORKERS = 4096  # more worker processes than that is a typo, not a cluster
MAX_HORIZON = 1e6  # accelerated time τ: Algorithm 1's jumps are at τ = O(1) … O(n); 1e6 is far beyond any
# GD's step η in t units: GD is stable only below 2/sharpness (≈ 2/(Σ_i y_i²/n) once the data are fitted); a step
# above 100 is unstable for any labels the instance format accepts at O(1) and is a typo, not a plan
MAX_GD_STEP = 100.0


def _fail(condition: str, text: str):
    raise argparse.ArgumentTypeError(f"{condition}, got {text!r}")


def ascii_number(text: str, condition: str) -> None:
    """Refuse a number written with non-ASCII characters: Python's int() and float() read any Unicode digit
    ('５', '１e-4') and spaces of every script, so a value could mean something else than what a reader of the command
    line (or a log of it) sees; and they read '1e-10_0' as 1e-100: digits grouped with '_' are refused too.
    ``condition``: the message, e.g. "must be an integer seed ≥ 0"."""
    if not text.isascii() or "_" in text:
        _fail(f"{condition} written in ASCII digits without '_'", text)


def _integer(text: str, what: str) -> int:
    ascii_number(text, f"must be {what}")
    try:
        return int(text)
    except ValueError:
        _fail(f"must be {what}", text)


def _positive(text: str, what: str, high: float) -> float:
    """A finite float in (0, high]."""
    ascii_number(text, f"must be {what}")
    try:
        value = float(text)
    except ValueError:
        _fail(f"must be {what}", text)
    if not math.isfinite(value):
        _fail(f"must be {what} (finite)", text)
    if not 0 < value <= high:
        _fail(f"must be {what} in (0, {high:g}]", text)
    return value


def seed(text: str) -> int:
    value = _integer(text, "an integer seed ≥ 0")
    if not 0 <= value <= MAX_SEED:
        _fail("must be an integer in [0, 2^63 − 1] (numpy seeds are non-negative)", text)
    return value


def seconds(text: str) -> float:
    return _positive(text, "a number of seconds", MAX_SECONDS)


def memory_mib(text: str) -> int:
    value = _integer(text, "an integer number of MiB")
    if not MIN_MEMORY_MIB <= value <= MAX_MEMORY_MIB:
        _fail(f"must be in [{MIN_MEMORY_MIB}, {MAX_MEMORY_MIB}] MiB", text)
    return value


def digits(text: str) -> int:
    from relucheck.numerics.mp_arrays import MIN_DIGITS

    value = _integer(text, "an integer number of decimal digits")
    if not MIN_DIGITS <= value <= MAX_DIGITS:
        _fail(f"must be in [{MIN_DIGITS}, {MAX_DIGITS}] digits (below {MIN_DIGITS} use a float64 engine; above "
              f"{MAX_DIGITS} the guard's rerun at twice the digits needs hours and gigabytes)", text)
    return value


def init_scale(text: str) -> str:
    """λ ∈ (0, 1) as a decimal string (kept as text: "1e-1000" is below float64's range)."""
    from relucheck.numerics.errors import RelucheckInputError
    from relucheck.numerics.scale import InitScale

    ascii_number(text, "must be a decimal number in (0, 1)")
    try:
        scale = InitScale(text.strip())
    except RelucheckInputError:
        _fail("must be a decimal number in (0, 1), e.g. 1e-40", text)
    if not scale.mpf() < 1:
        _fail("must be < 1 (accelerated time τ = t / ln(1/λ) needs ln(1/λ) > 0)", text)
    return scale.text


def horizon(text: str) -> float:
    return _positive(text, "an accelerated time", MAX_HORIZON)


def gd_step(text: str) -> float:
    return _positive(text, "a gradient-descent step η in t units", MAX_GD_STEP)


def workers(text: str) -> int:
    value = _integer(text, "an integer number of worker processes ≥ 1")
    if not 1 <= value <= MAX_WORKERS:
        _fail(f"must be in [1, {MAX_WORKERS}] worker processes", text)
    return value


def executor_options(parser, default: str = "process") -> None:
    """``--executor``, ``--workers``, ``--scheduler`` (`numerics.executor`) on a command that runs independent tasks."""
    parser.add_argument("--executor", choices=("serial", "process", "dask"), default=None,
                        help=f"where tasks run: serial, a local process pool (default: {default}, all cores), or Dask "
                             "(a LocalCluster on 127.0.0.1 unless --scheduler is given)")
    parser.add_argument("--workers", type=workers, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (implies --executor dask)")
    parser.set_defaults(executor_default=default)


def executor_of(args):
    """The executor the options of `executor_options` ask for."""
    from relucheck.numerics.executor import make_executor

    kind = args.executor or ("dask" if args.scheduler else args.executor_default)
    return make_executor(kind, workers=args.workers, scheduler=args.scheduler)


def path_text(text: str) -> str:
    """A file or directory path: not empty (``--out=`` would otherwise mean the working directory)."""
    if not text.strip():
        _fail("must be a path, not empty", text)
    return text


path_text.checks_not_blank = True  # `not_blank` would only repeat its check, with a vaguer message

SHARED = {"--seed": seed, "--lam": init_scale, "--precision": digits, "--horizon": horizon, "--budget": seconds,
          "--memory": memory_mib, "--out": path_text, "--results": path_text, "--checks": path_text}


def not_blank(check=None):
    """A validator that refuses an empty (or blank) value, then applies ``check`` (None: the text as is).

    An option given explicitly with an empty value (``--only=``, ``--engine ''``) would otherwise mean its default
    (the whole suite, engine auto) without a word; no option of relucheck gives an empty value a meaning."""
    def validate(text: str):
        if isinstance(text, str) and not text.strip():
            _fail("must not be empty", text)
        return text if check is None else check(text)

    validate.__name__ = getattr(check, "__name__", "string")  # argparse names the type in "invalid int value"
    validate.checks_not_blank = True
    return validate


def apply_shared(subparsers) -> None:
    """Give every subcommand option named in `SHARED` its validator (the same rule in every command), make every
    option that takes a value refuse an empty one (`not_blank`), and turn off abbreviated options in every
    subcommand (and in their own subcommands, if any)."""
    for parser in subparsers.choices.values():
        parser.allow_abbrev = False
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                apply_shared(action)
            for option in action.option_strings:
                if option in SHARED:
                    action.type = SHARED[option]
            takes_value = action.option_strings and action.nargs != 0 and not isinstance(
                action, (argparse._HelpAction, argparse._VersionAction))
            if takes_value and not getattr(action.type, "checks_not_blank", False):
                action.type = not_blank(action.type)
