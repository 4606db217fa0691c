"""The rules ship with the product: rules pages, rule citations, rule_url and the /errors pages.

- every rule citation an engine can raise (read from the engines' source, and seen on refusals of
  seeded random matches) names a numbered heading of ``docs/rules/<game>.md``, served with that
  anchor, and §8's Rule column of the page lists the section for that code;
- ``GET /v1/games/{id}/rules`` serves every game as Markdown (default) and as HTML for a browser,
  with a strict CSP; the catalogue links it (``rules_url``);
- every problem carrying ``rule`` carries ``rule_url``, and it resolves; every problem ``type``
  the service can emit (``/errors/<code>``) resolves to a page with the code's true status;
- nothing in the repository points at documents outside it.
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import functools
import hashlib
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.api.problems import _HTTP_CODES
from service.cards.shuffle import deal_deck
from service.engines import ENGINES
from service.engines.base import RulesError
from service.engines.moves import NextDeal
from service.schemas import SCHEMAS
from tests.codes import documented, statuses
from tests.playouts import candidate_moves, random_playout

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "docs" / "rules"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
CITATION = re.compile(r"([a-z][a-z0-9_]*) §(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{1,4} (\d+(?:\.\d+)*)\.?(?:\s|$)", re.MULTILINE)


def anchor(section: str) -> str:
    return "s" + section.replace(".", "-")


# --- what the engines can cite, read from their source ---------------------------------------


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _values(expr: ast.AST) -> list[str]:
    """The strings an expression can evaluate to: a literal, or either branch of ``a if c else b``."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, ast.IfExp):
        return _values(expr.body) + _values(expr.orelse)
    return []


def _is_rule_call(node: ast.AST) -> bool:
    """``GAME.rule(...)``: how an engine cites its rules (engines/base.py ``GameInfo.rule``)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rule"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "GAME" and bool(node.args))


def _game_info(tree: ast.Module) -> ast.Call | None:
    """The module's ``GAME = GameInfo(...)`` call."""
    for n in tree.body:
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(n.value, ast.Call):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id == "GAME" for t in targets):
                return n.value
    return None


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _claim_rules() -> dict[str, set[str]]:
    """engines/claims.py's ClaimChecks: code → which of its rules it cites (``flip``: §6.1,
    ``claim``: the game's ``claim_section``, or a literal section such as ``7``)."""
    tree = ast.parse((REPO / "service" / "engines" / "claims.py").read_text(encoding="utf-8"))
    out: dict[str, set[str]] = defaultdict(set)
    checks = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ClaimChecks")
    for fn in [n for n in ast.walk(checks) if isinstance(n, ast.FunctionDef)]:
        local_rule = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) for t in ast.walk(n.targets[0])
                      if isinstance(t, ast.Name) and t.id == "rule"}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "IllegalMove"):
                continue
            if len(node.args) < 3 or not _values(node.args[0]):
                continue  # move.code: the edge's parse problems, cited by the claim or flip rule (both below)
            rule = node.args[2]
            for code in _values(node.args[0]):
                for part in ast.walk(rule):
                    if isinstance(part, ast.Attribute) and part.attr in ("flip_rule", "claim_rule"):
                        out[code].add(part.attr.removesuffix("_rule"))
                    elif isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and part.func.attr == "rule":
                        out[code].update(s for a in part.args for s in _values(a))
                if isinstance(rule, ast.Name) and rule.id == "rule" and local_rule:
                    out[code].add("claim")
    return out


def _kit_rules() -> dict[str, list[tuple[str, str | int]]]:
    """engines/kit.py's refusing helpers: function → (code, section) for each refusal it raises,
    the section a literal or, where the caller names it, the index of that parameter
    (``check_dealt(GAME, deck, pack, "4")``)."""
    tree = ast.parse((REPO / "service" / "engines" / "kit.py").read_text(encoding="utf-8"))
    out: dict[str, list[tuple[str, str | int]]] = {}
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        params = [a.arg for a in fn.args.args]
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and len(node.exc.args) >= 3):
                continue
            code, rule = _values(node.exc.args[0]), node.exc.args[2]
            if not (code and isinstance(rule, ast.Call) and isinstance(rule.func, ast.Attribute) and rule.func.attr == "rule"):
                continue
            arg = rule.args[0]
            section: str | int | None = (_values(arg) or [None])[0]
            if section is None and isinstance(arg, ast.Name) and arg.id in params:
                section = params.index(arg.id)
            assert section is not None, f"kit.py:{node.lineno}: a citation this test cannot read"
            out.setdefault(fn.name, []).append((code[0], section))
    return out


@functools.cache
def static_citations() -> dict[str, dict[str, set[str]]]:
    """game → code → sections, for every citation in every engine module's source.

    Citations are ``GAME.rule(section)`` calls; a section given through a parameter
    (``_valid_deck(..., section)``) is followed to the calls of the enclosing function; a code given
    as a constant name is resolved in the module. The engine kit's shared checks cite too:
    ``refuse_early(GAME, move[, section])`` cites ``section`` (default ``8``) for each of the game's
    ``early_parse_codes``, the kit's setup checks (``check_players``, ``check_dealt`` ...) cite
    what ``_kit_rules`` reads of them, and ``ClaimChecks(GAME, ..., claim_section=...)`` cites §6.1 for flips, its
    claim section for claims and §7 once the game is over (engines/claims.py; the edge's parse
    problems it passes on are left to the observed refusals). The key ``"*"``
    collects every section, whatever its code. A citation the test cannot read fails it.
    """
    out: dict[str, dict[str, set[str]]] = {}
    unread: list[str] = []
    claim_rules = _claim_rules()
    kit_rules = _kit_rules()
    for path in sorted((REPO / "service" / "engines").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        info = _game_info(tree)
        if info is None:
            continue  # base, kit, claims, moves: no game of their own
        game_id_node = _keyword(info, "game_id")
        assert game_id_node is not None and _values(game_id_node), f"{path.name}: GAME names no game_id"
        game_id = _values(game_id_node)[0]
        consts = {
            t.id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value.value, str)
        }
        functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        enclosing = {child: fn for fn in functions.values() for child in ast.walk(fn)}
        parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        game = out.setdefault(game_id, defaultdict(set))
        early = _keyword(info, "early_parse_codes")
        early_codes = [s for n in ast.walk(early) for s in _values(n)] if early is not None else []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "refuse_early":
                sections = _values(node.args[2]) if len(node.args) > 2 else ["8"]
                if not sections:
                    unread.append(f"{path.name}:{node.lineno}")
                game["*"].update(sections)
                for code in early_codes:
                    game[code].update(sections)
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ClaimChecks":
                claim = _keyword(node, "claim_section")
                claim_sections = _values(claim) if claim is not None else []
                if not claim_sections:
                    unread.append(f"{path.name}:{node.lineno}")
                named = {"flip": ["6.1"], "claim": claim_sections}
                for code, rules in claim_rules.items():
                    sections = [s for r in rules for s in named.get(r, [r])]
                    game["*"].update(sections)
                    game[code].update(sections)
                # The edge's parse problems (early_parse_codes) are cited by the claim rule for a claim
                # and by the flip rule otherwise, which depends on the move's type: the refusals
                # observed over seeded matches (observed_refusals) show which, code by code.
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in kit_rules:
                for code, where in kit_rules[node.func.id]:
                    if isinstance(where, str):
                        sections = [where]
                    else:  # the caller's argument: a literal, or a parameter of the enclosing function
                        given = node.args[where] if where < len(node.args) else None
                        sections = _values(given) if given is not None else []
                        fn = enclosing.get(node)
                        if not sections and isinstance(given, ast.Name) and fn is not None:
                            params = [a.arg for a in fn.args.args]
                            index = params.index(given.id) if given.id in params else -1
                            for call in ast.walk(tree):
                                if index >= 0 and isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == fn.name:
                                    sections += [v for g in call.args[index:index + 1] for v in _values(g)]
                    if not sections:
                        unread.append(f"{path.name}:{node.lineno}")
                    game["*"].update(sections)
                    game[code].update(sections)
                continue
            if not _is_rule_call(node):
                continue
            assert isinstance(node, ast.Call)
            arg = node.args[0]
            sections = _values(arg)
            fn = enclosing.get(node)
            if not sections and isinstance(arg, ast.Name) and fn is not None:
                params = [a.arg for a in fn.args.args]
                if arg.id in params:
                    index = params.index(arg.id)
                    for call in ast.walk(tree):
                        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == fn.name:
                            given = [k.value for k in call.keywords if k.arg == arg.id] or call.args[index:index + 1]
                            sections += [s for g in given for s in _values(g)]
            if not sections:
                unread.append(f"{path.name}:{node.lineno}")
                continue
            game["*"].update(sections)
            raised = parents.get(node)
            while raised is not None and not (
                isinstance(raised, ast.Call) and isinstance(raised.func, ast.Name) and raised.func.id in ("IllegalMove", "BadSetup") and raised.args
            ):
                raised = parents.get(raised)
            if isinstance(raised, ast.Call):
                code = raised.args[0]
                names = _values(code) or ([consts[code.id]] if isinstance(code, ast.Name) and code.id in consts else [])
                for name in names:
                    game[name].update(sections)
    assert not unread, f"rule citations this test cannot read (make the section a literal): {unread}"
    return out


def literal_citations() -> set[tuple[str, str]]:
    """Citations written out whole anywhere in the service (``"schnapsen §6.1"`` as one string)."""
    found = set()
    for path in (REPO / "service").rglob("*.py"):
        for text in _strings(ast.parse(path.read_text(encoding="utf-8"))):
            m = CITATION.fullmatch(text)
            if m:
                found.add((m.group(1), m.group(2)))
    return found


# --- what the engines do cite, on refusals of seeded random matches --------------------------


def _wire_probes(engine: Any, legal: list[Any]) -> list[Any]:
    """Malformed and half-formed wire moves: parse-level refusals reach the engine as BadMove."""
    probes: list[Any] = ["x", {"type": "no_such_move", "player": 0}, {"player": 0}]
    for kind in engine.MOVE_TYPES:
        probes += [
            {"type": kind}, {"type": kind, "player": 99}, {"type": kind, "player": 0, "card": "ZZ"},
            {"type": kind, "player": 0, "cards": ["ZZ"]}, {"type": kind, "player": 0, "unknown": 1},
            {"type": kind, "player": 0, "claims": []}, {"type": kind, "player": 0, "at": -1},
            {"type": kind, "claims": [{"player": 0, "at": 5}, {"player": 0, "at": 5}]},
            {"type": kind, "player": 0, "amount": "x"}, {"type": kind, "player": 0, "deck": ["ZZ"]},
        ]
    for move in legal[:6]:
        wire = SCHEMAS[engine.GAME_ID].dump(move)
        if isinstance(wire, dict):
            for key in [k for k in wire if k != "type"]:
                probes += [{k: v for k, v in wire.items() if k != key}, {**wire, key: []}]
    return probes


@functools.cache
def observed_refusals() -> dict[str, dict[str, set[str]]]:
    """game → code → the ``rule`` of each refusal seen over a few seeded matches of every game."""
    seen: dict[str, dict[str, set[str]]] = {}
    for game_id, engine in ENGINES.items():
        codec = SCHEMAS[game_id]
        game = seen.setdefault(game_id, defaultdict(set))

        def attempt(state: Any, move: Any, game: dict[str, set[str]] = game, engine: Any = engine) -> None:
            if isinstance(move, NextDeal) and move.deck is None:
                return  # the HTTP layer fills a next_deal template before the engine sees it
            try:
                engine.step(state, move)
            except RulesError as exc:
                game[exc.code].add(str(exc.rule))

        options, players = engine.Options(), engine.DEFAULT_PLAYERS
        deck = deal_deck(engine.pack(options, players), 0)
        setups = [(options, players, deck[:-1]), (options, max(engine.PLAYER_COUNTS) + 1, deck)]  # a card short; a seat too many
        if any(f.name == "dealer" for f in dataclasses.fields(options)):
            setups.append((dataclasses.replace(options, dealer=players + 5), players, deck))  # no such dealer
        for bad_options, bad_players, bad_deck in setups:
            try:
                engine.new_game(bad_options, bad_players, bad_deck)
            except RulesError as exc:
                game[exc.code].add(str(exc.rule))
        for seed in range(2):
            last = None
            for i, (before, move, after) in enumerate(random_playout(engine, players, seed, max_moves=240)):
                last = (after, move)
                if i % 4:
                    continue
                for cand in candidate_moves(engine, before, salt=i):
                    attempt(before, cand)
                for wire in _wire_probes(engine, engine.legal_moves(before)):
                    attempt(before, codec.load_move(wire, players))
            if last is not None:
                attempt(*last)
    return seen


# --- the pages, as files --------------------------------------------------------------------


@functools.cache
def page(game_id: str) -> str:
    return (RULES / f"{game_id}.md").read_text(encoding="utf-8")


@functools.cache
def headings(game_id: str) -> frozenset[str]:
    """The section numbers of a page's numbered headings."""
    return frozenset(HEADING.findall(page(game_id)))


@functools.cache
def rule_column(game_id: str) -> dict[str, set[str]]:
    """§8's table: code → the sections its Rule cell names."""
    section = page(game_id).split("\n## 8. Errors", 1)[1].split("\n## 9.", 1)[0]
    out = {}
    for m in re.finditer(r"^\|\s*`([a-z_]+)`\s*\|(.*)\|\s*$", section, flags=re.MULTILINE):
        out[m.group(1)] = set(re.findall(r"§(\d+(?:\.\d+)*)", m.group(2).rsplit("|", 1)[-1]))
    return out


@functools.cache
def served_ids(client: FlaskClient, game_id: str) -> frozenset[str]:
    r = client.get(f"/v1/games/{game_id}/rules", headers={"Accept": BROWSER})
    assert r.status_code == 200
    return frozenset(re.findall(r'<h[1-6] id="([^"]+)"', r.get_data(as_text=True)))


def error_codes_documented() -> dict[str, int]:
    """docs/rules/errors.md: code → status."""
    return documented()


def raised_codes() -> dict[str, int]:
    """The codes the service's source raises with a status written beside them: the HTTP error
    boundary's table, ``ApiError(status, "code")``/``problem_body(...)``, and a match record's
    ``RecordError("code")`` (``Referee.adjudicate`` answers each 422)."""
    codes: dict[str, int] = {code: status for status, code in _HTTP_CODES.items()}
    codes.update({"unknown_game": 404, "internal": 500})
    for path in (REPO / "service").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for status, code in re.findall(r"\b(?:ApiError|problem_body)\(\s*(\d{3}),\s*\"([a-z_]+)\"", text):
            codes[code] = int(status)
        for code in re.findall(r"\bRecordError\(\s*\"([a-z_]+)\"", text):
            codes[code] = 422
    return codes


def emitted_codes() -> dict[str, int]:
    """Every problem code the service can answer with, and its status, from every source that makes one:
    the contract's families (tests/codes.py), what the source raises, and every game's refusals."""
    codes = statuses()
    codes.update(raised_codes())
    for path in (REPO / "service").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for code in re.findall(r"\b(?:IllegalMove|BadSetup|BadMove|_Bad|RulesError)\(\s*\"([a-z_]+)\"", text):
            codes.setdefault(code, 422)
    for game_id in ENGINES:
        for code in static_citations()[game_id]:  # codes given by name (MUST_TRUMP = "must_trump") included
            if code != "*":
                codes.setdefault(code, 422)
        for code in rule_column(game_id):
            codes.setdefault(code, 422)
        for code in observed_refusals()[game_id]:
            codes.setdefault(code, 422)
    return codes


# --- citations resolve ----------------------------------------------------------------------


def test_every_engine_citation_names_a_numbered_heading(client: FlaskClient) -> None:
    """Every section any engine can cite is a numbered heading of its page, served with its anchor."""
    cited = {(game, s) for game, codes in static_citations().items() for s in codes["*"]} | literal_citations()
    cited |= {(game, m.group(2)) for game, codes in observed_refusals().items() for rules in codes.values()
              for rule in rules if (m := CITATION.fullmatch(rule))}
    assert set(ENGINES) == {game for game, _ in cited}, "every game cites its rules"
    missing = sorted((g, s) for g, s in cited if s not in headings(g))
    assert not missing, f"citations without a heading in docs/rules: {missing}"
    unserved = sorted((g, s) for g, s in cited if anchor(s) not in served_ids(client, g))
    assert not unserved, f"citations whose anchor the served page lacks: {unserved}"
    assert len(cited) >= 60


def test_observed_refusals_cite_their_own_game() -> None:
    """Over seeded matches every refusal carries a rule of its own game (none without one)."""
    seen = observed_refusals()
    for game_id, codes in seen.items():
        assert len(codes) >= 8, f"{game_id}: too few refusals seen to mean anything: {sorted(codes)}"
        for code, rules in codes.items():
            for rule in rules:
                m = CITATION.fullmatch(rule)
                assert m and m.group(1) == game_id, f"{game_id} {code}: rule {rule!r}"


def test_rule_column_lists_every_cited_section() -> None:
    """§8's Rule column names, for each of its codes, every section the engine cites for it."""
    problems = []
    for game_id in ENGINES:
        column = rule_column(game_id)
        cited: dict[str, set[str]] = defaultdict(set)
        for code, sections in static_citations()[game_id].items():
            cited[code] |= sections
        for code, rules in observed_refusals()[game_id].items():
            cited[code] |= {CITATION.fullmatch(r).group(2) for r in rules if CITATION.fullmatch(r)}  # type: ignore[union-attr]
        for code, sections in cited.items():
            if code in column and not sections <= column[code]:
                problems.append(f"{game_id} {code}: cites {sorted(sections)}, §8 lists {sorted(column[code])}")
        for code, listed in column.items():
            bad = sorted(s for s in listed if s not in headings(game_id))
            if bad:
                problems.append(f"{game_id} {code}: §8 names sections without a heading {bad}")
    assert not problems, "\n".join(problems)


# --- the rules pages ------------------------------------------------------------------------


def test_catalogue_links_every_rules_page(client: FlaskClient) -> None:
    games = client.get("/v1/games").get_json()["games"]
    assert {g["id"] for g in games} == set(ENGINES)
    for entry in games:
        assert entry["rules_url"] == f"/v1/games/{entry['id']}/rules"
        assert client.get(entry["rules_url"]).status_code == 200
        assert client.get(f"/v1/games/{entry['id']}").get_json()["rules_url"] == entry["rules_url"]


@pytest.mark.parametrize("game_id", list(ENGINES))
@pytest.mark.parametrize("accept", [None, "text/markdown", "*/*", "application/json"])
def test_rules_page_is_markdown_by_default(client: FlaskClient, game_id: str, accept: str | None) -> None:
    r = client.get(f"/v1/games/{game_id}/rules", headers={"Accept": accept} if accept else {})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "Accept" in r.headers["Vary"]
    text = r.get_data(as_text=True)
    assert re.match(rf"# [^\n]+ \(`{game_id}`\)\n", text), text[:80]
    for section in ("2", "3", "4", "5", "6", "7", "8", "9"):
        assert re.search(rf"^## {section}\. ", text, flags=re.MULTILINE), f"§{section} heading"
    assert "## Conventions" in text
    assert not re.search(r"\]\([a-z_]+\.md", text), "a link to a .md file would not resolve when served"


@pytest.mark.parametrize("game_id", list(ENGINES))
def test_rules_page_is_html_for_a_browser(client: FlaskClient, game_id: str) -> None:
    r = client.get(f"/v1/games/{game_id}/rules", headers={"Accept": BROWSER})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    csp = {d.split()[0]: d.split()[1:] for d in (p.strip() for p in r.headers["Content-Security-Policy"].split(";")) if d}
    assert csp["default-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"]
    body = r.get_data(as_text=True)
    styles = re.findall(r"<style>(.*?)</style>", body, flags=re.DOTALL)
    assert len(styles) == 1
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    assert csp["style-src"] == [f"'sha256-{digest}'"], "the inline style is allowed by its hash, nothing else"
    assert "<script" not in body and " style=" not in body and "<img" not in body
    ids = served_ids(client, game_id)
    assert {anchor(s) for s in headings(game_id)} <= ids
    assert "<table>" in body and "<code>" in body
    for target, fragment in re.findall(r'href="(/v1/games/[a-z_]+/rules)?#([^"]+)"', body):  # every link lands on a heading
        other = target.split("/")[3] if target else game_id
        assert fragment in served_ids(client, other), f"{game_id}: link to {target}#{fragment}"


def test_rules_page_of_an_unknown_game_is_a_problem(client: FlaskClient) -> None:
    for path in ("/v1/games/chess/rules", "/v1/games/conventions/rules", "/v1/games/errors/rules"):
        r = client.get(path, headers={"Accept": BROWSER})
        assert r.status_code == 404
        assert r.mimetype == "application/problem+json"
        assert r.get_json()["code"] == "unknown_game"


# --- rule_url on refusals -------------------------------------------------------------------


def _assert_rule_url(client: FlaskClient, problem: dict[str, Any], game_id: str) -> None:
    assert "rule" in problem, problem
    m = CITATION.fullmatch(problem["rule"])
    assert m and m.group(1) == game_id
    assert problem["rule_url"] == f"/v1/games/{game_id}/rules#{anchor(m.group(2))}"
    path, fragment = problem["rule_url"].split("#")
    assert client.get(path).status_code == 200
    assert fragment in served_ids(client, game_id)


def _wrong_seat_move(envelope: dict[str, Any]) -> dict[str, Any]:
    """A listed move sent by a seat that is not to move (so the rules refuse it)."""
    n = len(envelope["scores"]["totals"]) if "totals" in envelope["scores"] else 2
    for move in envelope["legal_moves"]:
        for other in range(max(n, 2)):
            if other not in envelope["to_move"]:
                candidate = {**move, "player": other}
                if candidate not in envelope["legal_moves"]:
                    return candidate
    raise AssertionError(f"no seat out of turn in {envelope['to_move']}")


@pytest.mark.parametrize("game_id", list(ENGINES))
def test_refusals_carry_a_resolving_rule_url(client: FlaskClient, game_id: str) -> None:
    """moves (422), check (its error) and replay (first_illegal) all link the rule they cite."""
    engine = ENGINES[game_id]
    env = client.post(f"/v1/games/{game_id}/new", json={"seed": 7, "players": engine.DEFAULT_PLAYERS}).get_json()
    move = _wrong_seat_move(env)
    r = client.post(f"/v1/games/{game_id}/moves", json={"state": env["state"], "move": move})
    assert r.status_code == 422, r.get_json()
    _assert_rule_url(client, r.get_json(), game_id)
    assert client.get(r.get_json()["type"]).status_code == 200
    check = client.post(f"/v1/games/{game_id}/check", json={"state": env["state"], "move": move}).get_json()
    assert check["legal"] is False
    _assert_rule_url(client, check["error"], game_id)
    replay = client.post(f"/v1/games/{game_id}/replay", json={"seed": 7, "players": engine.DEFAULT_PLAYERS, "moves": [move]})
    _assert_rule_url(client, replay.get_json()["first_illegal"]["error"], game_id)


def test_sealed_refusals_carry_rule_url_too(sealed: FlaskClient) -> None:
    env = sealed.post("/v1/games/schnapsen/new", json={"seed": 3}).get_json()
    r = sealed.post("/v1/games/schnapsen/moves", json={"token": env["token"], "move": {"type": "close", "player": 1 - env["to_move"][0]}},
                    headers={"X-Seat-Key": env["table_key"]})
    assert r.status_code == 422
    body = r.get_json()
    assert body["code"] == "not_your_turn"
    assert body["rule_url"] == "/v1/games/schnapsen/rules#s6-1"


def test_problems_without_a_rule_have_no_rule_url(client: FlaskClient) -> None:
    bodies = [
        client.post("/v1/games/schnapsen/moves", data="[]", content_type="application/json").get_json(),
        client.get("/v1/games/chess").get_json(),
        client.post("/v1/games/schnapsen/state", json={"state": {"phase": "nope"}}).get_json(),
        client.post("/v1/games/schnapsen/new", json={"players": 3}).get_json(),
    ]
    for body in bodies:
        assert ("rule" in body) == ("rule_url" in body), body


# --- problem type pages ---------------------------------------------------------------------


def test_every_emitted_code_is_documented_with_its_status() -> None:
    documented = error_codes_documented()
    emitted = emitted_codes()
    assert len(emitted) >= 80
    assert not set(emitted) - set(documented), f"codes without a page: {sorted(set(emitted) - set(documented))}"
    wrong = {c: (s, documented[c]) for c, s in emitted.items() if documented[c] != s}
    assert not wrong, f"status emitted vs documented: {wrong}"


def test_the_errors_page_lists_the_contracts_codes_with_their_status() -> None:
    """docs/rules/errors.md's table is the contract's codes (``ProblemCode``'s ``x-enum-known``), no more
    and no fewer, each with its status (HttpProblemCode's description; every other family 422), and
    what the service's source raises agrees."""
    stated = statuses()
    page = documented()
    assert set(page) == set(stated), f"errors.md vs the contract: {sorted(set(page) ^ set(stated))}"
    assert {c: (s, page[c]) for c, s in stated.items() if page[c] != s} == {}
    raised = raised_codes()
    assert set(raised) <= set(stated), sorted(set(raised) - set(stated))
    assert {c: (s, stated[c]) for c, s in raised.items() if stated[c] != s} == {}


@pytest.mark.parametrize("code", sorted(error_codes_documented()))
def test_problem_type_page_resolves(client: FlaskClient, code: str) -> None:
    status = error_codes_documented()[code]
    r = client.get(f"/errors/{code}", headers={"Accept": BROWSER})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    html_page = r.get_data(as_text=True)
    assert f"<code>{code}</code>" in html_page and f"<strong>{status}</strong>" in html_page
    games = [g for g in ENGINES if code in rule_column(g)]
    for game_id in games:  # each game raising it, linked to its §8
        assert f'href="/v1/games/{game_id}/rules#s8"' in html_page
    md = client.get(f"/errors/{code}", headers={"Accept": "text/markdown"})
    assert md.status_code == 200 and md.mimetype == "text/markdown"
    assert f"HTTP status **{status}**" in md.get_data(as_text=True)


def test_problem_type_pages_link_the_rules_cited() -> None:
    """must_follow_suit: each game's wording and the section it cites, linked."""
    from service.api.rules import error_markdown

    text = error_markdown("must_follow_suit")
    assert text is not None
    for game_id in ("schnapsen", "seven_up", "california_jack", "yukon", "stukolka"):
        for section in rule_column(game_id)["must_follow_suit"]:
            assert f"(/v1/games/{game_id}/rules#{anchor(section)})" in text


def test_problem_type_page_of_an_unknown_code_is_a_404_problem(client: FlaskClient) -> None:
    for code in ("no_such_code", "x" * 300, "Must_trump", "must-trump"):
        r = client.get(f"/errors/{code}", headers={"Accept": BROWSER})
        assert r.status_code == 404
        assert r.mimetype == "application/problem+json"
        assert r.get_json()["code"] == "not_found"


def test_problem_types_emitted_resolve(client: FlaskClient) -> None:
    """The type of problems the service answers with, followed as a client would."""
    bodies = [
        client.post("/v1/games/schnapsen/moves", data="{", content_type="application/json").get_json(),
        client.post("/v1/games/schnapsen/moves", data="{}", content_type="text/plain").get_json(),
        client.get("/v1/games/chess").get_json(),
        client.delete("/v1/games").get_json(),
        client.get("/no/such/path").get_json(),
    ]
    assert {b["code"] for b in bodies} == {"invalid_request", "unsupported_media_type", "unknown_game", "method_not_allowed", "not_found"}
    for body in bodies:
        assert client.get(body["type"]).status_code == 200


# --- nothing points outside the repository ---------------------------------------------------


def test_nothing_points_at_documents_outside_the_repository() -> None:
    """The product carries its own documents: no path to the team's shared folder, no design doc."""
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run([git, "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    patterns = ["../" + "shared", "shared/" + "rules", "shared/" + "seeds", "DESIGN" + ".md", "/work/" + "shared"]
    hits = []
    for name in filter(None, files):
        path = REPO / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits += [f"{name}:{number}: {p}" for p in patterns if p in line]
    assert not hits, "\n".join(hits)
