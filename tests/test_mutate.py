"""scripts/mutate.py, the mutation-testing tool (docs/dev/mutation.md): its mutator makes valid,
distinct mutants of the rule code only, and a run never leaves the engine source changed, even when
stopped. No mutation run here (minutes per engine): the tool is run by hand around refactors."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "mutate.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutate_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


M = _load()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_mutants_of_an_engine_are_valid_distinct_and_seeded() -> None:
    """Every mutant of a real engine compiles, differs from the original and from every other one,
    changes one place; the sample depends only on the seed; the baseline is the same program."""
    path = M.ENGINES / "snap.py"
    before = _digest(path)
    source = path.read_text()
    baseline, mutants = M.mutants(source, 12, seed=3)
    assert ast.dump(ast.parse(baseline)) == ast.dump(ast.parse(source))  # unparse is faithful
    assert len(mutants) == 12
    texts = {m.source for m in mutants}
    assert len(texts) == 12 and baseline not in texts
    base_lines = baseline.splitlines()
    for m in mutants:
        compile(m.source, f"<mutant {m.id}>", "exec")
        assert m.before != m.after, m.label
        changed = [i for i, (a, b) in enumerate(zip(base_lines, m.source.splitlines(), strict=False)) if a != b]
        assert changed, m.label  # (a dropped statement shifts nothing: it becomes `pass`)
        assert changed[-1] - changed[0] < 40, m.label  # one place: within one statement
    again = M.mutants(source, 12, seed=3)[1]
    assert [m.id for m in again] == [m.id for m in mutants]
    assert [m.id for m in M.mutants(source, 12, seed=4)[1]] != [m.id for m in mutants]
    assert _digest(path) == before


def test_the_mutator_covers_its_operators_and_spares_what_is_not_rule_code() -> None:
    source = textwrap.dedent('''
        """Module docstring 1."""
        LIMIT: int = 2
        OPTION_INFO = {"x": {"minimum": 1}}

        def f(a: int, b: list[int]) -> int:
            """Docstring 3."""
            assert a is not None
            if a < LIMIT and not b:
                return min(a, 1)
            for x in b:
                if x == a:
                    raise ValueError(f"bad {x + 1}")
            total = sum(y for y in b if y > 0)
            total += 1
            return total - a if any(b) else 0
    ''')
    _, mutants = M.mutants(source, None, seed=0)
    afters = {(m.site.kind, m.after) for m in mutants}
    expected = {
        ("int", "LIMIT: int = 3"),  # a constant is shown with what holds it
        ("compare", "a <= LIMIT"), ("compare", "a > LIMIT"), ("boolop", "a < LIMIT or not b"),
        ("drop_operand", "not b"), ("drop_not", "b"), ("if_true", "if True: ..."), ("if_false", "if False: ..."),
        ("drop", "pass"), ("call", "max(a, 1)"), ("compare", "x != a"), ("drop_filter", "(y for y in b)"),
        ("augop", "total -= 1"), ("binop", "total + a"), ("ifexp", "0 if any(b) else total - a"), ("call", "all(b)"),
    }  # fmt: skip
    assert expected <= afters, expected - afters
    labels = " ".join(m.label for m in mutants)
    for spared in ("Docstring", "minimum", "x - 1", "is None"):  # docstrings, OPTION_INFO, f-strings, assert
        assert spared not in labels, spared
    assert not any(m.site.line == 8 for m in mutants)  # the assert statement
    assert not any(m.site.line == 4 for m in mutants)  # OPTION_INFO


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the runner forks")
def test_a_stopped_run_leaves_the_source_and_no_copy(tmp_path: Path) -> None:
    """SIGTERM (as Ctrl-C) in the middle of a run: the engine source is byte for byte unchanged, the
    forked test run is gone and the temporary copy of the repository is removed."""
    engine = M.ENGINES / "snap.py"
    before = _digest(engine)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "snap", "--max", "1"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("mutate-snap-*/repo/service/engines/snap.py")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list(tmp_path.glob("mutate-snap-*")), "the run made no copy"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "interrupted" in output, output
    assert not list(tmp_path.glob("mutate-*")), "the copy was left behind"
    assert _digest(engine) == before
