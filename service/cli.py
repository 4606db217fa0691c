"""``card-referee``: the service's command line (installed with the package).

    card-referee serve [gunicorn options...]   # gunicorn with service/gunicorn_conf.py
    card-referee check-config                  # validate REFEREE_* settings, load what serve loads, print the mode

``serve`` is exactly ``gunicorn -c python:card_referee.gunicorn_conf 'card_referee:create_app()'``
(``service`` for ``card_referee`` in a checkout), so a wheel installed anywhere serves like the
checkout: the settings travel inside the package.

    card-referee verify RECORD [--keys KEYS]   # check a match record offline (as python3 -m card_referee.verify)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

USAGE = "usage: card-referee serve [gunicorn options...] | card-referee check-config | card-referee verify RECORD [--keys KEYS]"
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
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
