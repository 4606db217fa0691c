#!/usr/bin/env python3
"""Mutation testing of one engine: would the tests notice a wrong rule?

    python3 scripts/mutate.py <game> [--max N] [--seed S] [--timeout SECONDS] [--only ID,ID] [--list]
                              [--json FILE] [--no-contract] [--tests NODEID ...]

Makes small edits ("mutants") to the rule code of ``service/engines/<game>.py``: a comparison
flipped or loosened (``<`` to ``<=`` or ``>``, ``==`` to ``!=``, ``in`` to ``not in``), ``and`` to
``or`` or one operand of it dropped, a ``not`` removed, an integer constant moved by one, ``+`` and
``-`` swapped, ``min`` and ``max`` or ``any`` and ``all`` swapped, an ``if`` made always or never
true, a comprehension filter dropped, a conditional expression's branches swapped, an early
``return``, a ``raise`` or a call statement dropped. Docstrings, annotations, f-strings (messages)
and ``assert`` statements (type narrowing) are left alone.

Each mutant is run, one at a time, against that game's tests: its rule tests
(``tests/engines/test_<game>.py``), its worked examples and the generic contract tests filtered to
the game, with ``-x`` (stop at the first failure), no xdist and a timeout (``--no-contract``
leaves the contract tests out: the score of the game's own rule tests and worked examples, the
conservative one, and much quicker where the contract's random playouts are slow). A mutant is *killed*
when a test fails, *timeout* when the run exceeds the limit (an endless loop: detected, so counted
with the killed), and *survived* when every test passes: then either a test is missing or the
mutant is equivalent (it changes no behaviour), which a person has to judge.

The source is never edited: the repository is copied to a temporary directory once, the mutant is
written there, and pytest runs in a forked child of this process (which has already imported the
heavy third-party packages, so a run costs the tests' time plus one to three seconds). The rule
tests run first, in a run of their own (cheap to collect); only a mutant they miss goes on to the
scenarios and contract tests. Within each run tests go in order of their baseline duration, the
quickest first. The copy is removed on exit, Ctrl-C included.

The sample is fixed by ``--seed``: mutation sites are enumerated in source order, shuffled with
the seed and taken until ``--max`` distinct mutants (different from each other and from the
original) are found. Mutant ids are indices in the enumeration (``--list`` prints them all), so
``--only`` re-runs chosen ones. Slow (minutes per engine): a tool to run before and after a
refactor, not a CI gate. Run it with ``nice -n 10`` on a shared machine.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import copy
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "service" / "engines"
NOT_GAMES = {"__init__", "base", "claims", "moves"}

# --- the mutator -----------------------------------------------------------------------------

Path_ = tuple[tuple[str, int | None], ...]
"""Where a node sits in the module's tree: (field, index in a list field or None) from the root."""

_COMPARE_SWAPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
_CALL_SWAPS = {"min": "max", "max": "min", "any": "all", "all": "any"}
_SKIP_ASSIGNMENTS = {"OPTION_INFO", "__all__", "GAME_ID", "NAME", "RULES_VERSION", "MOVE_TYPES"}
"""Module-level names that describe the game rather than rule it (schema text, ids)."""
_SKIP_FUNCTIONS = {"_rule"}


@dataclass(frozen=True)
class Site:
    """One possible mutation: what to do to the node at ``path``."""

    path: Path_
    kind: str
    arg: Any
    line: int


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


class _Sites:
    """Enumerates mutation sites in the rule code of a module, in source order."""

    def __init__(self) -> None:
        self.sites: list[Site] = []

    def add(self, path: Path_, kind: str, arg: Any, node: ast.AST) -> None:
        self.sites.append(Site(path, kind, arg, getattr(node, "lineno", 0)))

    def module(self, tree: ast.Module) -> None:
        for i, stmt in enumerate(tree.body):
            path: Path_ = (("body", i),)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(stmt, path)
            elif isinstance(stmt, ast.ClassDef):
                for j, inner in enumerate(stmt.body):
                    ipath = (*path, ("body", j))
                    if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.function(inner, ipath)
                    elif isinstance(inner, (ast.Assign, ast.AnnAssign)) and inner.value is not None:
                        self.expr(inner.value, (*ipath, ("value", None)))
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                if not names & _SKIP_ASSIGNMENTS:
                    self.expr(stmt.value, (*path, ("value", None)))

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, path: Path_) -> None:
        if fn.name in _SKIP_FUNCTIONS:
            return
        start = 1 if fn.body and _is_docstring(fn.body[0]) else 0
        self.block(fn.body, path, "body", start, top=True)

    def block(self, stmts: list[ast.stmt], path: Path_, field: str, start: int = 0, top: bool = False) -> None:
        for i in range(start, len(stmts)):
            stmt = stmts[i]
            spath = (*path, (field, i))
            last_of_function = top and i == len(stmts) - 1
            droppable = (
                isinstance(stmt, (ast.Raise, ast.Continue, ast.Break))
                or (isinstance(stmt, ast.Return) and not last_of_function)
                or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call))
            )
            if droppable:
                self.add(spath, "drop", None, stmt)
            self.stmt(stmt, spath)

    def stmt(self, stmt: ast.stmt, path: Path_) -> None:
        if isinstance(stmt, ast.Assert) or _is_docstring(stmt):
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(stmt, path)
            return
        if isinstance(stmt, ast.ClassDef):
            return
        if isinstance(stmt, ast.If):
            self.add(path, "if_true", None, stmt)
            self.add(path, "if_false", None, stmt)
            self.expr(stmt.test, (*path, ("test", None)))
            self.block(stmt.body, path, "body")
            self.block(stmt.orelse, path, "orelse")
            return
        if isinstance(stmt, ast.AugAssign):
            if type(stmt.op) in _BINOP_SWAPS:
                self.add(path, "augop", _BINOP_SWAPS[type(stmt.op)], stmt)
            self.expr(stmt.value, (*path, ("value", None)))
            return
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.expr(stmt.value, (*path, ("value", None)))
            return
        for field, value in ast.iter_fields(stmt):
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.block(value, path, field)
                elif field == "handlers":
                    for k, handler in enumerate(value):
                        self.block(handler.body, (*path, (field, k)), "body")
                else:
                    for k, item in enumerate(value):
                        if isinstance(item, ast.expr):
                            self.expr(item, (*path, (field, k)))
            elif isinstance(value, ast.expr):
                self.expr(value, (*path, (field, None)))

    def expr(self, node: ast.expr, path: Path_) -> None:
        if isinstance(node, ast.JoinedStr):
            return
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SKIP_FUNCTIONS:
            return
        if isinstance(node, ast.Compare):
            for j, op in enumerate(node.ops):
                for new in _COMPARE_SWAPS.get(type(op), ()):
                    self.add(path, "compare", (j, new), node)
        elif isinstance(node, ast.BoolOp):
            self.add(path, "boolop", None, node)
            for j in range(len(node.values)):
                self.add(path, "drop_operand", j, node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.add(path, "drop_not", None, node)
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
            self.add(path, "binop", _BINOP_SWAPS[type(node.op)], node)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            self.add(path, "int", +1, node)
            self.add(path, "int", -1, node)
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            self.add(path, "bool", None, node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALL_SWAPS:
            self.add(path, "call", _CALL_SWAPS[node.func.id], node)
        elif isinstance(node, ast.IfExp):
            self.add(path, "ifexp", None, node)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for g, gen in enumerate(node.generators):
                for k in range(len(gen.ifs)):
                    self.add(path, "drop_filter", (g, k), node)
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if isinstance(item, ast.expr):
                        self.expr(item, (*path, (field, k)))
                    elif isinstance(item, ast.comprehension):
                        cpath = (*path, (field, k))
                        self.expr(item.iter, (*cpath, ("iter", None)))
                        for m, cond in enumerate(item.ifs):
                            self.expr(cond, (*cpath, ("ifs", m)))
                    elif isinstance(item, ast.keyword):
                        self.expr(item.value, (*path, (field, k), ("value", None)))
            elif isinstance(value, ast.expr) and field != "ctx":
                self.expr(value, (*path, (field, None)))


def sites(tree: ast.Module) -> list[Site]:
    """Every mutation site of the module's rule code, in source order (ids are indices here)."""
    finder = _Sites()
    finder.module(tree)
    return finder.sites


def _get(tree: ast.AST, path: Path_) -> ast.AST:
    node: Any = tree
    for field, index in path:
        node = getattr(node, field)
        if index is not None:
            node = node[index]
    assert isinstance(node, ast.AST)
    return node


def _set(tree: ast.AST, path: Path_, new: ast.AST) -> None:
    parent = _get(tree, path[:-1])
    field, index = path[-1]
    if index is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[index] = new


def _mutated(node: ast.AST, site: Site) -> ast.AST:
    """The replacement for ``node`` (a changed copy; ``node`` itself is left alone)."""
    node = copy.deepcopy(node)
    if site.kind == "drop":
        return ast.copy_location(ast.Pass(), node)
    if site.kind in ("if_true", "if_false"):
        assert isinstance(node, ast.If)
        node.test = ast.Constant(site.kind == "if_true")
    elif site.kind == "compare":
        assert isinstance(node, ast.Compare)
        j, op = site.arg
        node.ops[j] = op()
    elif site.kind == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif site.kind == "drop_operand":
        assert isinstance(node, ast.BoolOp)
        del node.values[site.arg]
        if len(node.values) == 1:
            return node.values[0]
    elif site.kind == "drop_not":
        assert isinstance(node, ast.UnaryOp)
        return node.operand
    elif site.kind in ("binop", "augop"):
        assert isinstance(node, (ast.BinOp, ast.AugAssign))
        node.op = site.arg()
    elif site.kind == "int":
        assert isinstance(node, ast.Constant)
        return ast.copy_location(ast.Constant(node.value + site.arg), node)
    elif site.kind == "bool":
        assert isinstance(node, ast.Constant)
        return ast.copy_location(ast.Constant(not node.value), node)
    elif site.kind == "call":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        node.func = ast.Name(site.arg, ast.Load())
    elif site.kind == "ifexp":
        assert isinstance(node, ast.IfExp)
        node.body, node.orelse = node.orelse, node.body
    elif site.kind == "drop_filter":
        g, k = site.arg
        assert isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))
        del node.generators[g].ifs[k]
    else:  # pragma: no cover - every kind above
        raise ValueError(site.kind)
    return node


def apply(tree: ast.Module, site: Site) -> tuple[str, str, str]:
    """The module's source with one mutation, and the changed code before and after (for the report).
    The mutated node is swapped into ``tree`` only while it is written out."""
    node = _get(tree, site.path)
    after = _mutated(node, site)
    # a constant is shown with what holds it (``tricks[0] -> tricks[-1]``, not ``0 -> -1``)
    parent = _get(tree, site.path[:-1]) if site.kind in ("int", "bool") and len(site.path) > 1 else None
    shown_before = _short(parent if parent is not None else node)
    _set(tree, site.path, after)
    try:
        ast.fix_missing_locations(after)
        text = ast.unparse(tree)
        shown_after = _short(parent if parent is not None else after)
    finally:
        _set(tree, site.path, node)
    return text, shown_before, shown_after


def _short(node: ast.AST, width: int = 90) -> str:
    if isinstance(node, ast.If):
        text = f"if {ast.unparse(node.test)}: ..."
    elif isinstance(node, ast.stmt) and not isinstance(node, ast.Pass):
        text = ast.unparse(node).splitlines()[0]
    else:
        text = ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(frozen=True)
class Mutant:
    id: int
    site: Site
    source: str
    before: str
    after: str

    @property
    def label(self) -> str:
        return f"L{self.site.line} {self.site.kind}: {self.before}  ->  {self.after}"


def mutants(source: str, count: int | None, seed: int, only: Sequence[int] | None = None) -> tuple[str, list[Mutant]]:
    """The baseline (the module as ``ast.unparse`` writes it) and up to ``count`` distinct,
    compilable mutants of it, drawn in the seed's order (or exactly the ``only`` ids)."""
    tree = ast.parse(source)
    baseline = ast.unparse(tree)
    all_sites = sites(tree)
    order = list(only) if only is not None else random.Random(seed).sample(range(len(all_sites)), len(all_sites))
    seen = {baseline}
    found: list[Mutant] = []
    for index in order:
        if count is not None and len(found) >= count:
            break
        site = all_sites[index]
        text, before, after = apply(tree, site)
        if text in seen:
            continue
        try:
            compile(text, "<mutant>", "exec")
        except SyntaxError:
            continue
        seen.add(text)
        found.append(Mutant(index, site, text, before, after))
    found.sort(key=lambda m: (m.site.line, m.id))
    return baseline, found


# --- the runner ------------------------------------------------------------------------------

_PRELOAD = (
    "pytest", "_pytest.python", "_pytest.junitxml", "_hypothesis_pytestplugin", "hypothesis", "flask", "werkzeug",
    "marshmallow", "cryptography.fernet", "yaml", "jsonschema", "openapi_spec_validator", "prometheus_client",
    "flask.cli", "pdb", "tomllib", "platformdirs", "faulthandler", "_pytest.config", "_pytest.main",
)  # fmt: skip
"""Third-party packages imported once here, so each forked test run starts warm. Never
``service`` or ``tests``: those must come from the copy that holds the mutant."""
_PLUGINS_OFF = ("xdist", "xdist.looponfail", "cacheprovider", "benchmark", "anyio", "typeguard", "schemathesis")


def _pytest_args(extra: Sequence[str]) -> list[str]:
    off = [arg for name in _PLUGINS_OFF for arg in ("-p", f"no:{name}")]
    return ["-o", "addopts=", *off, "-q", "-rfE", "--tb=line", "-W", "ignore", *extra]


def _fork_pytest(repo: Path, args: Sequence[str], log: Path, timeout: float) -> tuple[str, int | None, float]:
    """Run pytest on the copy in a forked child; (outcome, exit code, seconds)."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            os.setpgid(0, 0)
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(repo)
            sys.path.insert(0, str(repo))
            sys.dont_write_bytecode = True
            import importlib.util

            import pytest

            spec = importlib.util.find_spec("service")
            if spec is None or not str(spec.origin).startswith(str(repo)):
                print(f"mutate.py: `service` resolves to {spec and spec.origin}, not the copy in {repo}", flush=True)
                code = 71
            else:
                code = int(pytest.main(list(args)))
        except BaseException as exc:  # noqa: BLE001 - the child reports and exits whatever happens
            print(f"mutate.py: child failed: {exc!r}", flush=True)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = start + timeout
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                return ("passed" if code == 0 else "failed"), code, time.monotonic() - start
            if time.monotonic() > deadline:
                _kill(pid)
                return "timeout", None, time.monotonic() - start
            time.sleep(0.02)
    except BaseException:
        _kill(pid)
        raise


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _game_test_ids(repo: Path, game: str, log: Path, contract: bool = True) -> list[str]:
    files = [f"tests/engines/test_{game}.py", "tests/test_scenarios.py"]
    if contract:
        files.append("tests/test_engine_contract.py")
    outcome, code, _ = _fork_pytest(repo, _pytest_args(["--collect-only", *files]), log, 300)
    text = log.read_text()
    if outcome != "passed":
        raise SystemExit(f"collecting the tests failed ({outcome}, {code}):\n{text[-3000:]}")
    own = re.compile(r"\[" + re.escape(game) + r"([-/\]])")
    ids = []
    for line in text.splitlines():
        if "::" not in line or line.startswith(" "):
            continue
        if line.startswith(files[0]) or own.search(line):
            ids.append(line.strip())
    return ids


def _durations(junit: Path) -> dict[tuple[str, str], float]:
    """(classname, name) as JUnit XML writes them -> seconds."""
    return {(c.get("classname", ""), c.get("name", "")): float(c.get("time", "0")) for c in ET.parse(junit).iter("testcase")}


def _junit_key(node_id: str) -> tuple[str, str]:
    """``tests/x/test_y.py::TestZ::test_w[p]`` -> ("tests.x.test_y.TestZ", "test_w[p]")."""
    path, *scopes = node_id.split("::")
    return ".".join([path.removesuffix(".py").replace("/", "."), *scopes[:-1]]), scopes[-1]


def _failed_test(log: Path) -> str:
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0]
    return "(see the pytest output)"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the running child is killed and the copy removed


def run(
    game: str,
    count: int | None,
    seed: int,
    timeout: float | None,
    only: Sequence[int] | None,
    report: Path | None,
    tests: Sequence[str] = (),
    contract: bool = True,
) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    source = (ENGINES / f"{game}.py").read_text()
    baseline, chosen = mutants(source, count, seed, only)
    for name in _PRELOAD:
        try:
            __import__(name)
        except ImportError:
            pass
    results: list[dict[str, Any]] = []
    suite = list(tests) or ["rules", "scenarios", *(["contract"] if contract else [])]
    meta: dict[str, Any] = {"game": game, "seed": seed, "tests": suite}
    with tempfile.TemporaryDirectory(prefix=f"mutate-{game}-") as tmp:
        repo = Path(tmp) / "repo"
        # Only what the tests read: no virtualenvs (CI keeps .venv in the checkout), builds or caches.
        ignore = shutil.ignore_patterns(".git", "__pycache__", ".*_cache", ".hypothesis", "*.egg-info", "node_modules",
                                        ".venv*", "venv", "build", "dist")
        shutil.copytree(ROOT, repo, ignore=ignore)
        target = repo / "service" / "engines" / f"{game}.py"
        log = Path(tmp) / "pytest.log"
        # compiled once for every run; never the target, whose source changes (the children write no .pyc)
        compileall.compile_dir(repo / "service", quiet=2)
        compileall.compile_dir(repo / "tests", quiet=2)
        for pyc in (target.parent / "__pycache__").glob(f"{game}.*.pyc"):
            pyc.unlink()
        target.write_text(baseline)
        if tests:
            ids, stages = list(tests), [list(tests)]
        else:
            ids = _game_test_ids(repo, game, log, contract)
            rules = [i for i in ids if i.startswith(f"tests/engines/test_{game}.py")]
            stages = [rules, [i for i in ids if i not in rules]]
        print(
            f"{game}: {len(chosen)} mutants, {len(ids)} tests{' (given)' if tests else ''}; baseline run (the unmutated module)...",
            flush=True,
        )
        limits = []
        for k, stage in enumerate(stages):
            junit = Path(tmp) / f"baseline{k}.xml"
            outcome, code, seconds = _fork_pytest(repo, _pytest_args([f"--junitxml={junit}", *stage]), log, 3600)
            if outcome != "passed":
                print(log.read_text()[-4000:])
                raise SystemExit(f"the baseline does not pass ({outcome}, exit {code}): fix the tests first")
            times = _durations(junit)
            stage.sort(key=lambda i: times.get(_junit_key(i), 0.0))
            limits.append(timeout if timeout is not None else 2 * seconds + 30)
            print(f"  stage {k + 1} ({len(stage)} tests) passed in {seconds:.1f} s; timeout {limits[-1]:.0f} s", flush=True)
        started = time.monotonic()
        try:
            for n, mutant in enumerate(chosen, 1):
                target.write_text(mutant.source)
                seconds = 0.0
                for stage, limit in zip(stages, limits, strict=True):
                    outcome, code, took = _fork_pytest(repo, _pytest_args(["-x", "-p", "no:junitxml", *stage]), log, limit)
                    seconds += took
                    if outcome != "passed":
                        break
                status = {"failed": "killed", "passed": "SURVIVED", "timeout": "timeout"}[outcome]
                by = _failed_test(log) if outcome == "failed" else ""
                print(f"[{n:>3}/{len(chosen)}] #{mutant.id:<5} {status:<8} {seconds:6.1f}s  {mutant.label}", flush=True)
                if by:
                    print(f"{'':>26}by {by}", flush=True)
                results.append({"id": mutant.id, "status": status, "seconds": round(seconds, 2), "line": mutant.site.line,
                                "kind": mutant.site.kind, "before": mutant.before, "after": mutant.after, "by": by})  # fmt: skip
                if report is not None:  # after every mutant: a stopped run keeps what it found
                    report.write_text(json.dumps({**meta, "results": results}, indent=1) + "\n")
        except KeyboardInterrupt:
            print("\ninterrupted: the source was never changed; partial results follow", flush=True)
        finally:
            target.write_text(baseline)
    elapsed = time.monotonic() - started
    killed = sum(r["status"] == "killed" for r in results)
    timeouts = sum(r["status"] == "timeout" for r in results)
    survivors = [r for r in results if r["status"] == "SURVIVED"]
    total = len(results)
    score = (killed + timeouts) / total if total else 0.0
    print(f"\n{game}: {total} mutants, {killed} killed, {timeouts} timeout, {len(survivors)} survived; "
          f"score {killed + timeouts}/{total} = {score:.0%}  ({elapsed:.0f} s)")  # fmt: skip
    if survivors:
        print("survivors (missing tests, or equivalent mutants to argue):")
        for r in survivors:
            print(f"  #{r['id']:<5} L{r['line']} {r['kind']}: {r['before']}  ->  {r['after']}")
    if report is not None:
        report.write_text(json.dumps({**meta, "results": results}, indent=1) + "\n")
    return 0


def games() -> list[str]:
    return sorted(p.stem for p in ENGINES.glob("*.py") if p.stem not in NOT_GAMES)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("game", choices=games())
    parser.add_argument("--max", type=int, default=40, help="mutants to run (default 40)")
    parser.add_argument("--seed", type=int, default=17, help="fixes the sample (default 17)")
    parser.add_argument("--timeout", type=float, help="seconds per test run (default: 2 x its baseline + 30)")
    parser.add_argument("--only", help="comma-separated mutant ids to run (from an earlier run or --list)")
    parser.add_argument("--list", action="store_true", help="print the sampled mutants and exit (no tests)")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    parser.add_argument("--no-contract", action="store_true", help="leave out tests/test_engine_contract.py: "
                        "score the game's rule tests and worked examples only")  # fmt: skip
    parser.add_argument("--tests", nargs="+", default=(), help="pytest node ids to run instead of the game's tests "
                        "(e.g. to check that a new test kills a survivor; not for scores)")  # fmt: skip
    ns = parser.parse_args(argv)
    only = [int(x) for x in ns.only.split(",")] if ns.only else None
    if ns.list:
        source = (ENGINES / f"{ns.game}.py").read_text()
        _, chosen = mutants(source, None if only else ns.max, ns.seed, only)
        total = len(sites(ast.parse(source)))
        for m in chosen:
            print(f"#{m.id:<5} {m.label}")
        print(f"{len(chosen)} mutants shown of {total} sites")
        return 0
    try:
        return run(ns.game, None if only else ns.max, ns.seed, ns.timeout, only, ns.json, ns.tests, not ns.no_contract)
    except KeyboardInterrupt:
        print("\ninterrupted before the first mutant: the source was never changed", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
