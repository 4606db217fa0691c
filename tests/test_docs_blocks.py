"""Every code block README.md and docs/ tell a user to run is run by the suite, and every relative
link in them resolves.

``test_every_runnable_block_is_accounted_for`` lists every fenced block of README.md and docs/
(docs/rules/ holds data examples only, checked by tests/api/test_rules_pages.py and the scenario
tests) whose language is a shell, Python or TypeScript, and requires each to be in ``BLOCKS``,
which says where it is run: here, in another test file, or not at all and why. A new block
without an entry fails, and so does an entry whose block is gone.

Run here, against real servers started as tests/servers.py starts them (gunicorn on a free
127.0.0.1 port, every wait bounded; ``localhost:8000`` / ``127.0.0.1:8000`` in a block become
that server's address, and ``python3`` is this environment's interpreter, as after the README's
command 1): the README's worked example (three shell blocks, their printed answers compared with
what the server says), ``card-referee serve`` and ``card-referee check-config`` of command 1, the
openapi-python-client setup's download and config lines, the offline verifier of
docs/fair-play.md on a record the server's keys signed, the key generator inside the Docker and
kubectl blocks, and ``scripts/mutate.py --list``.

Not run here, and why:
- README command 1's venv and ``pip install -e .``: that is how this environment was made; command
  2 as a whole is what .ci/run runs, read out of README.md (tests/test_layout.py checks that).
- ``pip install`` of openapi-python-client, ``openapi-python-client generate`` and ``pip install``
  of the client (docs/integrate.md): no package downloads in a test; tests/test_generators.py and
  tests/clients/test_python_client.py generate the client from the same contract with the same
  config, with the version the block pins (checked here).
- ``npm install`` (docs/integrate.md): tests/clients/test_typescript_client.py uses the same
  packages pinned by its package-lock.json, then runs the block's ``npx openapi-typescript`` line
  and ``tsc --strict`` on the block's files as printed.
- ``docker build`` / ``docker run`` (docs/deploy.md): no container engine here; the Dockerfile is
  checked offline by tests/deploy/test_manifests.py (hadolint) and built by
  scripts/prove-image-build.sh (buildah, outside CI).
- ``kubectl create secret`` (docs/deploy.md): no cluster here; the manifests are validated offline
  by tests/deploy/test_manifests.py against the Kubernetes schemas.
- ``scripts/mutate.py`` sweeps (docs/dev/mutation.md): each costs minutes per mutant;
  tests/test_mutate.py checks the tool.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.fernet import Fernet
from flask import Flask
from flask.testing import FlaskClient

from tests.servers import Gunicorn, call
from tests.tools import BIN, missing, tool_env

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
RUNNABLE = {"sh", "shell", "bash", "console", "python", "py", "ts", "typescript", "js", "javascript"}


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    body: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file (``` fences at the start of a line)."""
    found, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if m:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            found.append(Block(path, i + 1, m.group(1), "\n".join(lines[i + 1 : end]) + "\n"))
            i = end
        i += 1
    return found


def documents() -> list[Path]:
    """README.md and every page under docs/ except the rules pages."""
    return [README, *sorted(p for p in DOCS.rglob("*.md") if "rules" not in p.relative_to(DOCS).parts)]


def block(doc: str, first: str) -> Block:
    """The one block of ``doc`` whose first line starts with ``first``."""
    (found,) = [b for b in blocks(ROOT / doc) if b.body.startswith(first)]
    return found


# (document, how its block starts) -> where it is run. "here: <test>" is a test of this file.
BLOCKS: dict[tuple[str, str], str] = {
    ("README.md", "# 1. set up and start the service"):
        "here: test_command_1_serves (card-referee serve); command 2: .ci/run, tests/test_layout.py",
    ("README.md", "# a new Schnapsen match from a fixed deck"): "here: test_the_worked_example_answers_as_printed",
    ("README.md", "python3 -c 'import json; s=json.load(open(\"new.json\"))[\"state\"]; print(json.dumps({\"state\": s, \"move\": {\"type\": \"play\", \"player\": 1"):
        "here: test_the_worked_example_answers_as_printed",
    ("README.md", "python3 -c 'import json; s=json.load(open(\"new.json\"))[\"state\"]; print(json.dumps({\"state\": s, \"move\": {\"type\": \"play\", \"player\": 0"):
        "here: test_the_worked_example_answers_as_printed",
    ("docs/integrate.md", "python3 -m venv .venv && . .venv/bin/activate"):
        "here: test_the_python_client_setup_downloads_the_contract_and_writes_the_config (the rest: tests/clients/test_python_client.py)",
    ("docs/integrate.md", "from typing import cast"):
        "tests/clients/test_python_client.py::test_the_readme_example_runs_as_written and ::test_the_readme_example_passes_mypy_strict",
    ("docs/integrate.md", "npm install openapi-fetch"):
        "tests/clients/test_typescript_client.py::test_the_readme_project_passes_tsc_strict_as_printed (npx line run; npm install: the lockfile's packages)",
    ("docs/integrate.md", "import createClient from \"openapi-fetch\""):
        "tests/clients/test_typescript_client.py::test_the_readme_project_passes_tsc_strict_as_printed",
    ("docs/fair-play.md", "curl -s localhost:8000/v1/keys > keys.json"): "here: test_the_offline_verifier_block_verifies_a_record",
    ("docs/deploy.md", "docker build"): "not run: no container engine (tests/deploy/test_manifests.py: hadolint); key generator here: test_the_key_generators_make_fernet_keys",
    ("docs/deploy.md", "card-referee ledger-copy --from-file"):
        "tests/fairplay/test_ledger_copy.py (the command through service.cli.main, URL files, --verify, between real stores)",
    ("docs/deploy.md", "kubectl create secret"): "not run: no cluster (tests/deploy/test_manifests.py); key generator here: test_the_key_generators_make_fernet_keys",
    **{("docs/runbook.md", first): "not run: each asks a live cluster; the runbook's PromQL is checked by promtool and its metrics "
       "against the service's (tests/deploy/test_alerts.py::test_the_runbooks_queries_parse_and_name_known_metrics)"
       for first in ("kubectl port-forward", "kubectl logs deploy/card-referee -c referee --since=10m", "kubectl top pod",
                     "kubectl exec card-referee-ledger-0 -c redis -- redis-cli info memory", "kubectl get pvc",
                     "kubectl logs deploy/card-referee -c referee --since=1h", "kubectl logs deploy/card-referee -c referee --since=15m",
                     "kubectl logs deploy/card-referee -c referee --since=30m", "kubectl get pods", "kubectl logs POD")},
    ("docs/library.md", ">>> from card_referee.engines import ENGINES, find"): "tests/test_library_doc.py (doctest)",
    ("docs/library.md", ">>> from card_referee.cards.shuffle import deal_deck"): "tests/test_library_doc.py (doctest)",
    ("docs/library.md", ">>> from card_referee.engines.base import IllegalMove"): "tests/test_library_doc.py (doctest)",
    ("docs/library.md", ">>> import dataclasses"): "tests/test_library_doc.py (doctest: a whole match, next_deal completed)",
    ("docs/library.md", ">>> mine = schnapsen.view(after, 0)"): "tests/test_library_doc.py (doctest)",
    ("docs/library.md", ">>> from card_referee.schemas import codec_of"): "tests/test_library_doc.py (doctest)",
    ("docs/library.md", ">>> import base64, secrets"): "tests/test_library_doc.py (doctest)",
    ("docs/dev/faults.md", ".venv/bin/python scripts/faults.py --fault sigkill"):
        "tests/deploy/test_faults.py (the runner itself, short: none,sigkill); the full runs: minutes each, their figures in the page",
    ("docs/dev/testing.md", "# open: REFEREE_ALLOW_FIXED_DECKS=1 card-referee serve"):
        "tests/fuzz/test_schemathesis_cli.py (the same command, per mode, against 2-worker gunicorn; checked as printed there)",
    ("docs/dev/mutation.md", "nice -n 10 python3 scripts/mutate.py"):
        "here: test_mutate_list_runs (--list); the sweeps: not run (minutes per mutant), tests/test_mutate.py",
}


def test_every_runnable_block_is_accounted_for() -> None:
    runnable = [b for doc in documents() for b in blocks(doc) if b.lang in RUNNABLE]
    unclaimed = [b.where for b in runnable
                 if not any(str(b.path.relative_to(ROOT)) == doc and b.body.startswith(first) for doc, first in BLOCKS)]
    assert not unclaimed, f"blocks a user is told to run with no test (add one, or say in BLOCKS why not): {unclaimed}"
    for doc, first in BLOCKS:
        block(doc, first)  # each entry names exactly one block that exists
    here = {re.match(r"here: (\w+)", v).group(1) for v in BLOCKS.values() if v.startswith("here:")}  # type: ignore[union-attr]
    assert here <= set(globals()), here - set(globals())


def test_no_document_mentions_paths_outside_the_repository() -> None:
    for doc in [*documents(), *sorted((DOCS / "rules").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for outside in ("../" + "shared", "/" + "work/"):  # spelled apart so that this file does not mention them
            assert outside not in text, (doc, outside)


# --- relative links ---------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The headings' GitHub anchors; a rules page also has the ids the service gives its headings
    (``s6-1``: what a problem's ``rule_url`` points at)."""
    from service.api.rules import heading_anchor

    rules = path.parent == DOCS / "rules"
    found: set[str] = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and (m := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)):
            base, n = slug(m.group(1)), 1
            name = base
            while name in found:
                name, n = f"{base}-{n}", n + 1
            found.add(name)
            if rules:
                found.add(heading_anchor(m.group(1)))
    return found


def link_docs() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("doc", link_docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans hold no links
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue  # http(s), mailto: not this test's business
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif not file.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
        elif anchor and file.suffix == ".md" and path and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, broken


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    """The checker itself: a missing file and a missing heading are found, a good link is not."""
    (tmp_path / "a.md").write_text("# Title\n\n## Two words\n")
    assert anchors(tmp_path / "a.md") == {"title", "two-words"}
    assert slug("The ledger (rewind guard)") == "the-ledger-rewind-guard"
    assert slug("Integrate: generated clients in Python and TypeScript") == "integrate-generated-clients-in-python-and-typescript"
    assert LINK.findall("see [x](a.md#two-words) and ![img](b.png) and [`y`](c.md)") == ["a.md#two-words", "b.png", "c.md"]


# --- blocks run here --------------------------------------------------------------------------------

def run_sh(script: str, cwd: Path, url: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A block as a user runs it, against ``url`` instead of 127.0.0.1:8000."""
    host = url.removeprefix("http://")
    script = script.replace("localhost:8000", host).replace("127.0.0.1:8000", host)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=tool_env(), capture_output=True,
                          text=True, timeout=timeout, check=False)


def need(*programs: str) -> None:
    for program in programs:
        if shutil.which(program) is None:
            missing(f"{program} is not installed (Debian's package of that name)")


def shown(printed: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` differs from an abridged printed answer: "…" in a list ends what is shown,
    a member "…" stands for the rest of an object."""
    if isinstance(printed, dict):
        if not isinstance(actual, dict):
            return [f"{path}: not an object"]
        return [d for k, v in printed.items() if k != "…" for d in
                ([f"{path}/{k}: missing"] if k not in actual else shown(v, actual[k], f"{path}/{k}"))]
    if isinstance(printed, list):
        if not isinstance(actual, list):
            return [f"{path}: not a list"]
        head = printed[: printed.index("…")] if "…" in printed else printed
        if "…" not in printed and len(actual) != len(printed):
            return [f"{path}: {len(actual)} items, {len(printed)} printed"]
        if len(actual) < len(head):
            return [f"{path}: fewer items than printed"]
        return [d for i, v in enumerate(head) for d in shown(v, actual[i], f"{path}/{i}")]
    return [] if printed == actual else [f"{path}: {actual!r}, printed {printed!r}"]


def section(doc: Path, heading: str) -> str:
    text = doc.read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    return after[: after.index("\n## ", 1)] if "\n## " in after[1:] else after


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    with Gunicorn(tmp_path_factory.mktemp("docs-open"), workers=1, env={"REFEREE_MODE": "open"}, name="open") as g:
        yield g


def test_the_worked_example_answers_as_printed(open_server: Gunicorn, tmp_path: Path) -> None:
    """README "A worked example": the three shell blocks run as printed (in a scratch directory, in
    order), and the server answers what the README prints after each."""
    need("curl")
    example = section(README, "## A worked example")
    shells = [b for b in blocks(README) if b.lang == "sh" and b.body in example]
    jsons = [json.loads(b.body) for b in blocks(README) if b.lang == "json" and b.body in example]
    assert len(shells) == 3 and len(jsons) == 2
    new = run_sh(shells[0].body, tmp_path, open_server.url)
    assert new.returncode == 0, new.stderr
    env = json.loads((tmp_path / "new.json").read_text())
    assert not shown(jsons[0], env), shown(jsons[0], env)
    moved = run_sh(shells[1].body, tmp_path, open_server.url)
    assert moved.returncode == 0, moved.stderr
    after = json.loads(moved.stdout)
    # printed in words: → 200, "to_move": [0], the card_played event, and seat 0's five legal plays
    assert '`"to_move": [0]`' in example and after["to_move"] == [0]
    assert after["events"] == [{"type": "card_played", "player": 1, "card": "10S"}]
    assert "seat 0's five legal plays" in example and len([m for m in after["legal_moves"] if m["type"] == "play"]) == 5
    bad = run_sh(shells[2].body, tmp_path, open_server.url)
    assert bad.returncode == 0, bad.stderr
    problem = json.loads(bad.stdout)
    assert not shown(jsons[1], problem), shown(jsons[1], problem)
    assert problem["status"] == 422


def test_command_1_serves(tmp_path: Path) -> None:
    """README command 1 ends in ``.venv/bin/card-referee serve``: run (this environment's script,
    a free loopback port, one worker), it answers /readyz and the catalogue, and stops on SIGTERM.
    ``card-referee check-config``, which the same section names, passes in this environment."""
    (command_1,) = [line for line in block("README.md", "# 1. set up").body.splitlines() if line.startswith("python3 -m venv")][:1]
    serve = command_1.split("&&")[-1].split()
    assert serve[0] == ".venv/bin/card-referee" and serve[1:] == ["serve"]
    checked = subprocess.run([str(BIN / "card-referee"), "check-config"], cwd=ROOT, env=Gunicorn(tmp_path, workers=1).env,
                             capture_output=True, text=True, timeout=120, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "open" in (checked.stdout + checked.stderr).lower()
    with Gunicorn(tmp_path, workers=1, command=[BIN / "card-referee", *serve[1:]], name="command-1") as g:  # waits for /readyz
        status, games = call(f"{g.url}/v1/games")
        assert status == 200 and "schnapsen" in json.dumps(games)
        assert g.terminate() == 0  # stops on SIGTERM


def test_the_python_client_setup_downloads_the_contract_and_writes_the_config(open_server: Gunicorn, tmp_path: Path) -> None:
    """docs/integrate.md's setup block: its ``curl`` line fetches the contract the repository holds,
    its ``printf`` line writes exactly the repository's openapi-python-client.yaml (as its comment
    says), and the generator version it pins is the one the suite generates with."""
    need("curl")
    lines = block("docs/integrate.md", "python3 -m venv .venv && . .venv/bin/activate").body.splitlines()
    (fetch,) = [line for line in lines if line.startswith("curl ")]
    (config,) = [line for line in lines if line.startswith("printf ")]
    done = run_sh(f"{fetch}\n{config}\n", tmp_path, open_server.url)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "openapi.yaml").read_bytes() == (ROOT / "openapi.yaml").read_bytes()
    settings = [(tmp_path / "openapi-python-client.yaml"), (ROOT / "openapi-python-client.yaml")]
    written, repository = (yaml.safe_load(p.read_text()) for p in settings)
    assert written == repository == {"content_type_overrides": {"application/yaml": "text/plain"}}  # the file's comments aside
    pin = re.search(r"'openapi-python-client>=([\d.]+),<([\d.]+)'", lines[0])
    assert pin is not None
    from importlib.metadata import version
    have = tuple(int(x) for x in version("openapi-python-client").split(".")[:2])
    assert tuple(int(x) for x in pin.group(1).split(".")[:2]) <= have < tuple(int(x) for x in pin.group(2).split(".")[:2])
    later = [line for line in lines if line not in (fetch, config)]
    assert any("openapi-python-client generate --path openapi.yaml --config openapi-python-client.yaml" in line for line in later)


def _finished_record(app: Flask) -> dict[str, Any]:
    from tests.fairplay.helpers import SHORT, new_match, play

    plain = FlaskClient(app, app.response_class)
    env = new_match(app.test_client(), "schnapsen", None, SHORT["schnapsen"] or None)
    for _, _, after in play(plain, "schnapsen", env, 3, short=True):
        env = after
    assert env["status"] == "finished"
    return env["record"]  # type: ignore[no-any-return]


def test_the_offline_verifier_block_verifies_a_record(tmp_path: Path) -> None:
    """docs/fair-play.md's offline check, as printed: ``curl`` the keys of a live sealed server,
    then ``card-referee verify record.json --keys keys.json`` on a record signed with that
    server's keys (played in-process with the same seal key); the output has the printed shape
    and the exit status is 0. The same record with a changed move exits 1."""
    need("curl")
    from tests.conftest import make_app

    key = Fernet.generate_key().decode()
    record = _finished_record(make_app(SEAL_KEYS=[key]))
    (tmp_path / "record.json").write_text(json.dumps(record))
    verify = block("docs/fair-play.md", "curl -s localhost:8000/v1/keys > keys.json")
    (comment,) = [line[2:] for line in verify.body.splitlines() if line.startswith("# ")]
    pattern = re.escape(comment)
    pattern = re.sub(r"\\ \d+\\ ", r"\\ \\d+\\ ", pattern)
    pattern = re.sub(r"\S*…", ".*?", pattern.replace("\\…", "…"))  # an elided id, key or tail
    with Gunicorn(tmp_path, workers=1, env={"REFEREE_SEAL_KEYS": key}, name="sealed") as g:
        done = run_sh(verify.body, tmp_path, g.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.fullmatch(pattern, done.stdout.strip().splitlines()[0]), (pattern, done.stdout)
    record["result"]["totals"] = [t + 1 for t in record["result"]["totals"]]
    (tmp_path / "record.json").write_text(json.dumps(record))
    again = subprocess.run(["bash", "-c", verify.body.splitlines()[1]], cwd=tmp_path, env=tool_env(), capture_output=True,
                           text=True, timeout=120, check=False)
    assert again.returncode == 1 and "FAILED" in again.stdout + again.stderr, again.stdout + again.stderr


def test_the_key_generators_make_fernet_keys() -> None:
    """The ``$(python3 -c '…')`` inside the Docker and kubectl blocks (and README's sealed mode)
    prints a key the service accepts."""
    texts = [block("docs/deploy.md", "docker build").body, block("docs/deploy.md", "kubectl create secret").body,
             README.read_text(encoding="utf-8")]
    commands = {c for text in texts for c in re.findall(r"python3 -c '(from cryptography\.fernet import[^']*)'", text)}
    assert commands
    for code in commands:
        out = subprocess.run(["python3", "-c", code], env=tool_env(), capture_output=True, text=True, timeout=60, check=True)
        key = out.stdout.strip()
        Fernet(key.encode())
        from service.config import Config  # the service starts sealed with it

        assert Config.from_env({"REFEREE_SEAL_KEYS": key}).sealed


def test_mutate_list_runs() -> None:
    """docs/dev/mutation.md's ``--list`` line (the sampled mutants, no tests) runs as printed."""
    (listing,) = [line for line in block("docs/dev/mutation.md", "nice -n 10").body.splitlines() if "--list" in line.split("#")[0]]
    command = listing.split("#")[0].split()
    assert command[:2] == ["python3", "scripts/mutate.py"]
    done = subprocess.run(command, cwd=ROOT, env=tool_env(), capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"^\d+ mutants shown of \d+ sites$", done.stdout, re.MULTILINE), done.stdout[-2000:]

