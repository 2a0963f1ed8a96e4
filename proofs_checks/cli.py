"""The ``relucheck`` command line.

Core commands: ``list``, ``run``, ``show``. Further commands (``limit-process``, ``flow``,
``report``, ``check-ode``, ``extremal-vectors``, …) live in `proofs_checks.commands`, one module
each with a ``register(subparsers)`` function, and are discovered automatically.

Exit codes: 0 success (nothing refuted), 1 something refuted (or a mutant not caught), 2 an error
(bad input included), 3 inconclusive (commands that give one verdict, e.g. check-ode), 130 interrupted,
141 standard output closed early (``relucheck list | head``, as for a process ended by SIGPIPE).

`main` is the one error boundary of every command: bad input (`RelucheckInputError`, an unreadable or
unwritable file) is one line ``relucheck: error: <argument>: <violated condition>`` and exit 2; any other
exception is ``relucheck: internal error: …`` with exit 2 and a hint to rerun with ``--debug``, which
prints the traceback. Exit 1 means refuted and nothing else.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from pathlib import Path

from relucheck.numerics.errors import RelucheckInputError

DEFAULT_OUT = "relucheck-out"
DEFAULT_RESULTS = f"{DEFAULT_OUT}/results.json"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a process ended by Ctrl-C
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE


def _paper_filter(paper: str | None) -> str | None:
    """``--paper``: a registered paper id (A, B, C are also accepted in lower case)."""
    from relucheck.theory.statement import PAPERS

    if paper is None:
        return None
    if paper.upper() in ("A", "B", "C"):
        return paper.upper()
    if paper not in PAPERS:
        raise RelucheckInputError(f"--paper {paper!r}: unknown paper; registered papers are {', '.join(sorted(PAPERS))}")
    return paper


def _cmd_list(args) -> int:
    from relucheck.theory.statements import all_statements

    from .plugins import load_checks
    from .registry import all_checks, checks_of_statement

    load_checks(args.checks)
    paper = _paper_filter(args.paper)
    checks_by_id = all_checks()
    rows = []
    for st in sorted(all_statements().values(), key=lambda s: s.id):
        if paper and st.paper != paper:
            continue
        checks = checks_of_statement(st.id)
        rows.append({"id": st.id, "paper": st.paper, "number": st.number, "title": st.title,
                     "confidence": st.confidence, "checks": checks,
                     "mutants": {c: checks_by_id[c].mutant for c in checks},
                     "not_checkable_reason": "" if checks else (st.not_checkable_reason or "no check yet")})
    if args.json:
        import json

        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        checks = ", ".join(r["checks"]) if r["checks"] else f"(not checked: {r['not_checkable_reason']})"
        print(f"{r['id']:<24} {r['number']:<28} [{r['confidence']}] {r['title']}\n{'':<26}checks: {checks}")
    return 0


def _cmd_run(args) -> int:
    """`relucheck run` (`proofs_checks.run_command`, imported when the command runs)."""
    from .run_command import cmd_run

    return cmd_run(args)


def _cmd_show(args) -> int:
    from relucheck.theory.statements import all_statements, get_statement

    from . import reader_text
    from .plugins import load_checks
    from .registry import all_checks, checks_of_statement, get_check

    latest_results = _latest_results(args.results)  # before anything is printed (or a plugin may chdir)
    load_checks(args.checks)
    checks = all_checks()
    if args.id in checks:
        chk = get_check(args.id)
        st = get_statement(chk.statement)
        check_ids = [chk.id]
    elif args.id in all_statements():
        st = get_statement(args.id)
        check_ids = checks_of_statement(st.id)
    else:
        raise RelucheckInputError(f"ID {args.id!r}: unknown check or statement id; `relucheck list` shows the ids")
    print(st.to_markdown(check_ids, terminal=True))
    results_path = Path(args.results or DEFAULT_RESULTS)
    latest = {}
    for rec in latest_results:
        if rec["check"] in check_ids:
            latest[rec["id"]] = rec
    for cid in check_ids:
        chk = checks[cid]
        print(f"check {cid} (suites: {', '.join(chk.suites)}; mutant: {chk.mutant})")
        for key in (cid, cid + ".mutant"):
            rec = latest.get(key)
            if rec:
                tol = reader_text.as_float(rec["tolerance"])
                print(f"  latest {key}: {rec['status']} — prediction "
                      f"{reader_text.plain_cell(rec['prediction'], tolerance=tol)}; measurement "
                      f"{reader_text.plain_cell(rec['measurement'], tolerance=tol)}; tolerance "
                      f"{reader_text.plain_cell(rec['tolerance'])} ({rec['tolerance_reason']}); {rec['message']}")
        if cid not in latest:
            print(f"  no result in {results_path} (run `relucheck run --only {cid}`)")
    return 0


def _latest_results(results: str | None) -> list[dict]:
    """The records of ``--results`` (a file given must exist; the default may be missing: no records)."""
    from .results_file import load_results

    path = Path(results or DEFAULT_RESULTS)
    if results is None and _missing(path):
        return []
    return load_results(path)


def _missing(path: Path) -> bool:
    """No file at ``path`` (a symlink loop or a path without permission is not "missing": reading it says why)."""
    try:
        path.stat()
    except FileNotFoundError:
        return True
    except OSError:
        pass
    return False


def _version() -> str:
    from relucheck import __version__

    return __version__


def _checks_option(parser) -> None:
    parser.add_argument("--checks", action="append", default=[], metavar="FILE.py|MODULE",
                        help="also load a user's checks from a Python file or an importable module (repeatable; "
                             "docs/api.md); installed plugins (entry points 'relucheck.checks') load always")


_NEGATIVE_NUMBER = re.compile(r"-(\d|\.\d|inf|nan)", re.IGNORECASE)


class OneLineParser(argparse.ArgumentParser):
    """argparse with the standard of bad input: one line ``relucheck: error: argument --seed: <condition>, got
    '-1' (relucheck run --help lists the options)`` and exit 2, instead of a usage block. Its subparsers are of this
    class too (``add_subparsers`` makes them with the parent's class)."""

    def parse_known_args(self, args=None, namespace=None):
        self._arguments_seen = list(sys.argv[1:] if args is None else args)
        self._refuse_repeated_options(self._arguments_seen)
        return super().parse_known_args(args, namespace)

    def _refuse_repeated_options(self, tokens: list) -> None:
        """An option that takes one value, given twice (``--lam 1e-10 --lam 0.5``), would be the last one silently,
        as a duplicate JSON key was (issue 20, "inputs taken silently"): refused naming the option and both values.
        Options meant to repeat (``--checks``, action append) and flags are left alone; a subcommand's parser checks
        its own options on the tokens after the command name."""
        seen: dict = {}
        for k, token in enumerate(tokens):
            if token == "--":
                break
            name, eq, value = token.partition("=")
            action = self._option_string_actions.get(name) if name.startswith("--") else None
            if action is None or action.nargs == 0 or isinstance(action, (argparse._AppendAction,
                                                                           argparse._CountAction)):
                continue
            if not eq and (k + 1 >= len(tokens) or tokens[k + 1].startswith("--")):
                continue  # no value: argparse says "expected one argument", the more useful message
            value = value if eq else tokens[k + 1]
            if action.dest in seen:
                first_name, first_value = seen[action.dest]
                self.error(f"argument {name}: given twice ({first_name} {first_value!r} and {name} {value!r}); "
                           "give it once")
            seen[action.dest] = (name, value)

    def error(self, message):
        message = self._negative_value_hint(message) or message
        self.exit(2, f"relucheck: error: {_one_line(message)} ({self.prog} --help lists the options)\n")

    def _negative_value_hint(self, message: str) -> str | None:
        """argparse reads ``--lam -1e-4`` as two options ("expected one argument"): say what was given."""
        match = re.fullmatch(r"argument (\S+): expected one argument", message)
        if not match:
            return None
        names = match.group(1).split("/")
        seen = getattr(self, "_arguments_seen", [])
        for k, token in enumerate(seen[:-1]):
            if token in names and _NEGATIVE_NUMBER.match(seen[k + 1]):
                return (f"argument {token}: got the negative value {seen[k + 1]!r}, which is not allowed here "
                        f"(a value beginning with '-' is written {token}={seen[k + 1]}, and is checked as any value)")
        return None


def _refuse_version_with_arguments(argv: list) -> None:
    """``relucheck --version x`` would print the version and exit 0, ignoring x: --version stands alone."""
    command = next((k for k, a in enumerate(argv) if not a.startswith("-")), len(argv))
    if "--version" in argv[:command]:
        others = [a for a in argv if a not in ("--version", "--debug")]
        if others:
            build_parser().error(f"argument --version: takes no other arguments, got {others[0]!r}")


CORE_COMMANDS = ("list", "run", "show")  # defined here; the others are modules of `proofs_checks.commands`


def _command_of(argv) -> str | None:
    """The command named on the command line: its first word that is not an option (no global option takes a
    value), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The command line's parser. With ``argv``, only the command it names is registered besides the core commands
    (`commands.register_commands`); without, every command."""
    from .arguments import apply_shared, executor_options, seconds
    from .array_options import array_options

    parser = OneLineParser(prog="relucheck", description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--debug", action="store_true", help="print the traceback of an error")
    parser.add_argument("--version", action="version", version=f"relucheck {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="statements with their checks")
    p.add_argument("--paper", help="only this paper's statements (A, B, C or a registered paper id)")
    p.add_argument("--json", action="store_true")
    _checks_option(p)
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("run", help="run a suite of checks and write the reports")
    p.add_argument("--suite", default="default", choices=["default", "full"])
    p.add_argument("--only", help="glob or substring on check ids, e.g. 'C.*' or balancedness")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mutate", action="store_true", help="also run every check's mutant (must be refuted)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--resume", action="store_true",
                   help="continue the run journaled in --out (same options): run only the missing checks; without "
                        "it, a --out that holds a journal is refused")
    _checks_option(p)
    p.add_argument("--with-builtin", action="store_true",
                   help="with --checks: run the built-in checks too (by default only the --checks files' checks)")
    executor_options(p)
    p.add_argument("--check-timeout", type=seconds, default=None, metavar="SECONDS",
                   help="time limit of each check and mutant (default 600 s, 3600 s for full-suite-only checks); "
                        "past it the record is an error")
    array_options(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("show", help="a statement or check, its formula and its latest results")
    p.add_argument("id")
    p.add_argument("--results", default=None,
                   help=f"a results.json written by `run` (default {DEFAULT_RESULTS}, which may be missing; a file "
                        "given here must exist)")
    _checks_option(p)
    p.set_defaults(func=_cmd_show)

    from .commands import register_commands

    command = _command_of(argv) if argv is not None else None
    if command not in CORE_COMMANDS:
        register_commands(sub, command)
    apply_shared(sub)
    for p in sub.choices.values():  # --debug also after the command name; SUPPRESS keeps the global one
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="print the traceback of an error")
    return parser


def _one_line(text) -> str:
    return " ".join(str(text).split())


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (tests capturing it)
        pass


def _raise_interrupted(signum, frame):
    from relucheck.numerics.interrupts import Interrupted

    raise Interrupted(signum)


def _end_on_termination_signals() -> dict:
    """SIGTERM and SIGHUP end every command as Ctrl-C does (exit 143, 129; `numerics.interrupts`), from the first
    line on: `run` replaces this by its own handling while checks run and gives it back after. Only in the main
    thread (tests call `main` from others), and a signal ignored at start (``nohup``) stays ignored. Returns the
    handlers replaced, which `main` puts back when the command returns."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, _raise_interrupted) for sig in (signal.SIGTERM, signal.SIGHUP)
            if signal.getsignal(sig) is signal.SIG_DFL}


def _printable_on_any_terminal() -> None:
    """Output that the terminal's encoding cannot hold (λ, τ, ≤ under LC_ALL=C with PYTHONUTF8=0, or
    PYTHONIOENCODING=ascii) is written with backslash escapes instead of ending the command in a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and (stream.encoding or "").lower().replace("-", "") != "utf8":
            stream.reconfigure(errors="backslashreplace")


def main(argv=None) -> int:
    """Run one command; the error boundary of every command (module docstring)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    _printable_on_any_terminal()
    replaced = _end_on_termination_signals()
    try:
        return _main(argv, debug)
    finally:
        import signal

        for sig, handler in replaced.items():
            if signal.getsignal(sig) is _raise_interrupted:  # after an interrupted `run`, its handlers stay
                signal.signal(sig, handler)


def _main(argv: list, debug: bool) -> int:
    try:
        _refuse_version_with_arguments(argv)
        args = build_parser(argv).parse_args(argv)
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_PIPE_CLOSED
    except KeyboardInterrupt as exc:
        from relucheck.numerics.interrupts import exit_status

        if debug:
            traceback.print_exc()
        print("relucheck: interrupted", file=sys.stderr)
        return exit_status(exc)  # 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP
    except (RelucheckInputError, OSError) as exc:  # bad input, or a file that cannot be read or written
        if debug:
            traceback.print_exc()
        if isinstance(exc, OSError):
            where = f"{exc.filename}: " if exc.filename is not None else ""
            message = f"{where}{exc.strerror or exc}"
        else:
            message = exc.args[0] if exc.args else type(exc).__name__
        print(f"relucheck: error: {_one_line(message)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the boundary: a bug is reported, never shown as a verdict
        if debug:
            traceback.print_exc()
        kind = "out of memory" if isinstance(exc, MemoryError) else type(exc).__name__
        print(f"relucheck: internal error: {_one_line(f'{kind}: {exc}')[:500]}; rerun with --debug for the "
              "traceback and please report it", file=sys.stderr)
        return 2


def entry() -> None:
    """The console script and ``python -m relucheck``: `main`, then end the process with its exit code even when a
    plugin left a non-daemon thread running (the interpreter would wait for it forever after the output). `main`
    itself returns normally, for callers in the same process."""
    import threading

    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed by a plugin, or a broken pipe
            pass
    left = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if left:
        try:
            print(f"relucheck: note: a plugin left {len(left)} thread{'s' if len(left) > 1 else ''} running; ending "
                  "anyway", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        os._exit(code)
    import gc

    gc.freeze()  # the interpreter's shutdown would collect the whole heap (the loaded modules' objects): ~0.3 s of CPU
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
