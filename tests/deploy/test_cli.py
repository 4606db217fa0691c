"""``card-referee check-config`` fails whenever ``serve`` would (issue 20, item 1).

A fresh machine once had ``check-config`` say all was well while ``serve`` died importing the
gevent worker (gunicorn's ``ggevent`` needs ``packaging``, which only gunicorn's ``gevent`` extra
brings). The check now loads the worker class and builds the app, so a missing module fails it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import requires

from tests.servers import ROOT

# Runs the command line in a child interpreter with some modules made unimportable first.
_CHILD = """
import sys
for name in sys.argv[1:]:
    sys.modules[name] = None  # `import name` now raises ImportError, as when it is not installed
from service.cli import main
raise SystemExit(main(["check-config"]))
"""


def _check_config(*blocked: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "PROMETHEUS_"))}
    base.update(env)
    return subprocess.run(
        [sys.executable, "-c", _CHILD, *blocked], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60, check=False,
    )


def test_check_config_passes_when_serve_can_load_everything() -> None:
    done = _check_config()
    assert done.returncode == 0, done.stderr
    assert "open mode" in done.stdout


def test_check_config_fails_when_the_worker_class_cannot_be_imported() -> None:
    done = _check_config("packaging", "packaging.version")  # what a fresh machine lacked
    assert done.returncode == 78, (done.stdout, done.stderr)
    assert "cannot load what serve needs" in done.stderr
    assert "packaging" in done.stderr


def test_check_config_fails_when_the_app_cannot_be_built() -> None:
    done = _check_config("markdown_it")  # the rules pages' renderer, imported when the app is built
    assert done.returncode == 78, (done.stdout, done.stderr)
    assert "markdown_it" in done.stderr


def test_check_config_still_refuses_an_unusable_setting() -> None:
    done = _check_config(REFEREE_MODE="sealed")
    assert done.returncode == 78
    assert "configuration refused" in done.stderr


def test_the_package_declares_the_gevent_workers_dependencies() -> None:
    declared = [r.replace(" ", "") for r in requires("card-referee") or [] if "extra ==" not in r]
    assert any(r.startswith("gunicorn[gevent]") for r in declared), declared


def test_ledger_copy_is_a_command_whose_usage_errors_never_quote_a_value() -> None:
    """``card-referee ledger-copy`` (issue 30's follow-up: moving the ledger to another store) is
    dispatched by the installed command line; its help says to stop the referees, and a usage
    error names the option, never the value given (a URL holds a password)."""
    run = [sys.executable, "-m", "service.cli", "ledger-copy"]
    helped = subprocess.run([*run, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert helped.returncode == 0 and "--from-file" in helped.stdout and "Stop the referees first" in helped.stdout
    wrong = subprocess.run([*run, "--from", "redis://:Pa55word@db:6379/0", "postgresql://u:Pa55word@h/db"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60, check=False)
    assert wrong.returncode == 2 and wrong.stdout == "" and "Pa55word" not in wrong.stderr and "unexpected argument" in wrong.stderr
    listed = subprocess.run([sys.executable, "-m", "service.cli", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert "ledger-copy" in listed.stdout
