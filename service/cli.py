"""``card-referee``: the service's command line (installed with the package).

    card-referee serve [gunicorn options...]   # gunicorn with service/gunicorn_conf.py
    card-referee check-config                  # validate REFEREE_* settings, load what serve loads, print the mode

``serve`` is exactly ``gunicorn -c python:card_referee.gunicorn_conf 'card_referee:create_app()'``
(``service`` for ``card_referee`` in a checkout), so a wheel installed anywhere serves like the
checkout: the settings travel inside the package.

    card-referee verify RECORD [--keys KEYS]   # check a match record offline (as python3 -m card_referee.verify)

    card-referee ledger-copy --from URL --to URL [--verify] [--batch N]
                                               # move the ledger, with its epoch, to another store

``ledger-copy`` moves the sealed ledger whole to another store (Redis, PostgreSQL or SQLite, any to
any: the simple Redis to the PostgreSQL overlay, say), keeping its epoch, every match's seq, moves
(byte for byte, in order), finished mark and what is left of each lifetime, so every match in
progress goes on on the new store; a new store with another epoch would refuse every live token
(409 ``ledger_lost``). ``--from-file PATH`` / ``--to-file PATH`` read a URL from a file instead (a
URL holds a password, and a command line is visible in the process list); no URL is ever printed.
The target must be empty (no epoch, no match) or hold the source's epoch already: a copy that was
interrupted, or the store it was copied from, which can be run again; a match the target holds at
a later seq is left as it is (never taken back). It prints what it copied (matches, moves, skipped
as expired) and exits 0; on any failure one line on stderr and 1 (2: a usage error).

**Stop the referees first** (scale the Deployment to 0, nothing scaling it up again: docs/deploy.md,
"Moving the ledger to another store") and keep them stopped until they are pointed at the new
store: a sealed move accepted on the source after its match was copied is not on the target, where
that match stands as before the move (the token before it current again: a rewind; the token after
it refused). ``--verify`` reads both stores again once the
copy is done and exits 3 if the source moved on meanwhile (a move accepted, a match begun) or the
target does not hold a match as copied; a move accepted after that second reading it cannot see.
"""

from __future__ import annotations

import os
import sys
import urllib.parse
from collections.abc import Sequence

__all__ = ["main"]

USAGE = ("usage: card-referee serve [gunicorn options...] | card-referee check-config | card-referee verify RECORD [--keys KEYS]"
         " | card-referee ledger-copy --from URL --to URL [--verify]")
COPY_USAGE = """usage: card-referee ledger-copy (--from URL | --from-file PATH) (--to URL | --to-file PATH) [--verify] [--batch N]

Move the sealed ledger, with its epoch, to another store (redis://, postgresql://, sqlite:///), so
that every match in progress goes on there. Stop the referees first (scale them to 0, and remove
anything that would start them again), and keep them stopped until they use the new store: a move
accepted on the old store after its match was copied is not on the new one, where the token before
it is current again.

  --from URL, --from-file PATH   the ledger now in use (a file holding its URL: URLs hold passwords)
  --to URL, --to-file PATH       the new store: empty, or holding this ledger's epoch (a copy run again)
  --verify                       then read both stores again: exit 3 if the old one moved on meanwhile
                                 or the new one does not hold a match as copied
  --batch N                      matches per round trip (default 200)

Prints the matches and moves copied and the matches skipped as expired (never a URL). Exit status
0 copied (and verified), 1 failed or refused (one line on stderr), 2 usage, 3 --verify found a difference."""
_PACKAGE = __name__.rpartition(".")[0]  # card_referee when installed, service in a checkout


def _check_config() -> int:
    """Validate the settings and load everything ``serve`` loads: the worker class and the app.

    A missing dependency (the gevent worker's ``packaging``, say) fails here exactly as it would
    fail ``serve``, instead of passing a check that proves nothing.
    """
    from .config import Config, ConfigError
    from .gunicorn_conf import EX_CONFIG, settings

    try:
        cfg = Config.from_env()
        gunicorn = settings()
    except (ConfigError, ValueError) as exc:
        print(f"card-referee: configuration refused: {exc}", file=sys.stderr)
        return EX_CONFIG
    try:
        from gunicorn.util import load_class

        from . import create_app

        load_class(gunicorn["worker_class"])
        create_app()
    except ConfigError as exc:
        print(f"card-referee: configuration refused: {exc}", file=sys.stderr)
        return EX_CONFIG
    except (ImportError, RuntimeError) as exc:  # gunicorn's load_class reports an import failure as RuntimeError
        print(f"card-referee: cannot load what serve needs: {exc}", file=sys.stderr)
        return EX_CONFIG
    print(f"card-referee: {cfg.mode} mode, bind {', '.join(gunicorn['bind'])}, {gunicorn['workers']} worker(s)")
    return 0


def _serve(args: Sequence[str]) -> int:
    from gunicorn.app.wsgiapp import WSGIApplication

    sys.argv = ["card-referee serve", "-c", f"python:{_PACKAGE}.gunicorn_conf", *args, f"{_PACKAGE}:create_app()"]
    WSGIApplication("%(prog)s [OPTIONS]").run()
    return 0


def _copy_args(args: Sequence[str]) -> dict[str, str] | str:
    """The options of ``ledger-copy``, or why they are unusable (never quoting a value: a URL)."""
    known = {"--from": "from", "--from-file": "from-file", "--to": "to", "--to-file": "to-file", "--batch": "batch"}
    out: dict[str, str] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if arg == "--verify":
            out["verify"] = "1"
            continue
        if name not in known:
            shown = name if name.startswith("-") and "://" not in name and len(name) < 40 else "an argument"
            return f"unknown option {shown}" if shown != "an argument" else "unexpected argument (options are --from, --to, ...)"
        if not eq:
            if not rest:
                return f"{name} needs a value"
            value = rest.pop(0)
        if known[name] in out:
            return f"{name} given twice"
        out[known[name]] = value
    for side in ("from", "to"):
        given = [k for k in (side, f"{side}-file") if k in out]
        if len(given) != 1:
            return f"give exactly one of --{side} URL and --{side}-file PATH"
    if "batch" in out and not (out["batch"].isdigit() and 1 <= int(out["batch"]) <= 10_000):
        return "--batch takes a whole number from 1 to 10000"
    return out


def _secrets(url: str) -> list[str]:
    """What of ``url`` must never be printed: itself and its password (URL or libpq query)."""
    found = [url]
    try:
        password = urllib.parse.urlsplit(url).password
    except ValueError:
        password = None
    if password:
        found += [password, urllib.parse.unquote(password)]
    for key, values in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items():
        if key == "password":
            found += values
    return sorted({s for s in found if s}, key=len, reverse=True)


def _scrub(message: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        message = message.replace(secret, "***")
    return " ".join(message.split())  # one line


def _ledger_copy(args: Sequence[str]) -> int:
    """``card-referee ledger-copy``: see the module's docstring and ``COPY_USAGE``."""
    if any(a in ("-h", "--help") for a in args):
        print(COPY_USAGE)
        return 0
    parsed = _copy_args(args)
    if isinstance(parsed, str):
        print(f"card-referee ledger-copy: {parsed}\n{COPY_USAGE.splitlines()[0]}", file=sys.stderr)
        return 2
    prog = "card-referee ledger-copy"
    secrets: list[str] = []
    try:
        urls = {}
        for side in ("from", "to"):
            if side in parsed:
                urls[side] = parsed[side].strip()
            else:
                try:
                    with open(parsed[f"{side}-file"], encoding="utf-8") as f:
                        urls[side] = f.read().strip()
                except OSError as exc:
                    print(f"{prog}: cannot read the --{side}-file: {exc.strerror}", file=sys.stderr)
                    return 1
            secrets += _secrets(urls[side])
        return _run_copy(prog, urls["from"], urls["to"], int(parsed.get("batch", "200")), "verify" in parsed, secrets)
    except Exception as exc:  # noqa: BLE001 - any failure is one line, never a traceback that may quote a URL
        print(f"{prog}: failed: {_scrub(f'{exc.__class__.__name__}: {exc}', secrets)}", file=sys.stderr)
        return 1


def _run_copy(prog: str, source_url: str, target_url: str, batch: int, verify: bool, secrets: Sequence[str]) -> int:
    from .ledger import LedgerRefused, LedgerUnavailable, check_url, copy_ledger, open_ledger, store_name, verify_copy

    for side, url in (("--from", source_url), ("--to", target_url)):
        problem = check_url(url)
        if problem:
            print(f"{prog}: {side}: {problem}", file=sys.stderr)
            return 1
    if source_url == target_url:
        print(f"{prog}: --from and --to name the same store", file=sys.stderr)
        return 1
    if source_url.startswith("sqlite:///") and not os.path.isfile(source_url[len("sqlite:///"):]):
        print(f"{prog}: --from: no SQLite file at that path (a ledger file is never created by a copy from it)", file=sys.stderr)
        return 1
    names = store_name(source_url), store_name(target_url)
    source, target = open_ledger(source_url), open_ledger(target_url)
    try:
        for side, ledger in (("--from", source), ("--to", target)):
            try:
                ledger.epoch()  # reachable, and readable, before anything is written
            except LedgerUnavailable as exc:
                print(f"{prog}: {side}: the store cannot be reached or read: {_scrub(str(exc), secrets)}", file=sys.stderr)
                return 1
        try:
            report = copy_ledger(source, target, *names, batch=batch, remember=verify)
            if not report.epoch_kept and not report.matches and not report.ahead:
                print(f"{prog}: the source holds no ledger (no epoch, no match): nothing to copy; is --from the store in use?",
                      file=sys.stderr)
                return 1
            found = verify_copy(source, target, report, batch) if verify else None
        except LedgerRefused as exc:
            print(f"{prog}: refused: {_scrub(str(exc), secrets)}", file=sys.stderr)
            return 1
        except LedgerUnavailable as exc:
            print(f"{prog}: a ledger could not be read or written: {_scrub(str(exc), secrets)}", file=sys.stderr)
            return 1
    finally:
        for ledger in (source, target):
            close = getattr(ledger, "close", None)
            if close is not None:
                close()
    def n(count: int, noun: str) -> str:
        return f"{count} {noun if count == 1 else noun + 'es' if noun.endswith('ch') else noun + 's'}"

    again = " (a copy run again: the target already held this epoch)" if report.again else ""
    print(f"{prog}: copied {n(report.matches, 'match')} ({n(report.moves, 'move')}) from {names[0]} to {names[1]}"
          f"{', the epoch kept' if report.epoch_kept else ' (the source has no epoch yet)'}{again}; "
          f"skipped {report.expired} expired")
    if report.ahead:
        print(f"{prog}: left {n(report.ahead, 'match')} as the target holds them, at a later seq than the source's "
              "(referees have used the target)")
    if found is not None:
        if not found.ok:
            print(f"{prog}: verify: {n(len(found.moved_on), 'match')} moved on at the source during the copy, "
                  f"{len(found.not_held)} not held by the target as copied: stop every referee and run the copy again",
                  file=sys.stderr)
            return 3
        print(f"{prog}: verified: the source did not move on during the copy and the target holds every match as copied")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "serve":
        return _serve(rest)
    if command == "check-config":
        return _check_config()
    if command == "verify":
        from .verify import main as verify

        return verify(rest, prog="card-referee verify")
    if command == "ledger-copy":
        return _ledger_copy(rest)
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
