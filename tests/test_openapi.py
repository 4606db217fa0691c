"""openapi.yaml is valid, complete for the engines it documents, and enforced by tests/contract.py.

The contract (docs/rules/conventions.md, each game's rules page, docs/wire.md) says what the document
must hold; these tests pin the parts that code can check: the document validates, every error
response is a problem, every error code is listed, the move unions and options match the engines,
the examples are true, and the response checker both accepts real responses and fails wrong ones.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from service.cards import Card
from service.engines import ENGINES
from service.engines import schnapsen as sch
from service.envelope import envelope as build_envelope
from service.schemas import SCHEMAS as SCHEMAS_BY_GAME
from service.sealing import Sealer
from tests.codes import COMMON_CODES, HTTP_CODES, RECORD_CODES, http_statuses
from tests.playouts import random_playout

try:
    from contract import SPEC, SPEC_PATH, assert_conforms, is_valid, plain_validator_at, validator_at
except ModuleNotFoundError:  # tests/ imported as a package
    from tests.contract import SPEC, SPEC_PATH, assert_conforms, is_valid, plain_validator_at, validator_at

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "docs" / "rules"  # the rules pages, with each game's §8 code table
SCHEMAS = SPEC["components"]["schemas"]
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")
PROBLEM_REF = "#/components/schemas/Problem"

# §10 Example 1 of docs/rules/schnapsen.md.
EXAMPLE_1_DECK = ["AH", "10S", "KD", "QC", "JH", "AS", "QH", "10H", "JD", "KH",
                  "KS", "AD", "JS", "QS", "10C", "AC", "KC", "JC", "QD", "10D"]

GAME_CODES = {game: frozenset(engine.GAME.codes) for game, engine in ENGINES.items()}
"""Each game's own codes, derived from its declaration (``GameInfo.codes``, which
tests/test_contract_generated.py pins to its rules page's §8 table), never copied here: a code a game
adds flows into every check below."""
# COMMON_CODES (docs/rules/conventions.md's "Common error codes"), HTTP_CODES (docs/wire.md's "Errors")
# and RECORD_CODES (a refused match record): the contract's families, read by tests/codes.py; the
# pages are checked against them below.


# --- helpers ----------------------------------------------------------------------------------


def deref(node: Any) -> Any:
    """Follow a local ``$ref`` chain."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in SPEC["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield path, method, item[method]


def enum_values(schema: dict[str, Any]) -> set[str]:
    """Every enum value of a schema, through anyOf/oneOf and $refs."""
    schema = deref(schema)
    out = set(schema.get("enum", ()))
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, ()):
            out |= enum_values(sub)
    return out


def problem_codes() -> set[str]:
    """The codes this version of the contract lists (``ProblemCode`` is an open string)."""
    return set(deref(SCHEMAS["Problem"]["properties"]["code"])["x-enum-known"])


def envelope(state: sch.State, events: list[dict[str, Any]], seat: int | None, full: bool) -> dict[str, Any]:
    """The service's own envelope of ``state``: open mode without ``as`` (full), ``seat``'s view, or
    (not full, no seat) the sealed public view."""
    codec = SCHEMAS_BY_GAME["schnapsen"]
    env = build_envelope(sch, codec, state, events, seat, full=full)
    if not full and seat is None:  # sealed: the public view and a (plain, unpadded) token
        env["token"] = _SEALER.seal(sch.GAME_ID, "match", codec.pack(state))
    return env


_SEALER = Sealer([Fernet.generate_key().decode()])


def playout(seed: int, options: sch.Options) -> Iterator[tuple[sch.State, list[dict[str, Any]]]]:
    """Every state of a seeded random match (tests/playouts.py), with the events that led to it."""
    steps = list(random_playout(sch, 2, seed, options))
    yield steps[0][0], sch.initial_events(steps[0][0])
    for before, move, _ in steps:
        yield sch.step(before, move)


def envelopes(seed: int, options: sch.Options) -> Iterator[dict[str, Any]]:
    for state, events in playout(seed, options):
        yield envelope(state, events, None, True)
        for seat in (0, 1, None):
            yield envelope(state, events, seat, False)


def problem(code: str, status: int, **extra: Any) -> dict[str, Any]:
    return {"type": f"/errors/{code}", "title": code.replace("_", " ").capitalize(), "status": status,
            "code": code, "detail": "Something about this request.", **extra}


# --- the document -----------------------------------------------------------------------------


def test_spec_validates() -> None:
    """openapi.yaml is a valid OpenAPI 3.1 document."""
    spec, _ = read_from_filename(str(SPEC_PATH))
    validate(spec)
    assert spec["openapi"] == "3.1.0"


GAME_OPS = ("new", "moves", "state", "check", "replay")


def prefix(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_"))


def test_every_endpoint_is_documented() -> None:
    """The HTTP contract (docs/rules/conventions.md), typed per game: each game's five operations under its own path,
    and the shared catalogue, rules, keys, error pages and operational paths."""
    want = {(f"/v1/games/{g}/{op}", "post") for g in ENGINES for op in GAME_OPS}
    want |= {
        ("/v1/games", "get"), ("/v1/games/{game_id}", "get"), ("/v1/games/{game_id}/rules", "get"),
        ("/v1/keys", "get"), ("/errors/{code}", "get"), ("/healthz", "get"), ("/readyz", "get"),
        ("/openapi.yaml", "get"), ("/docs", "get"), ("/metrics", "get"),
    }
    want |= {("/play", "get"), ("/play/assets/{name}", "get")}  # the playground (docs/playground.md)
    want |= {("/v1/keys", "get")}  # fair play: the keys that sign match records (docs/fair-play.md)
    assert {(path, method) for path, method, _ in operations()} == want
    assert set(deref(SPEC["paths"]["/openapi.yaml"]["get"]["responses"]["200"])["content"]) == {"application/yaml"}
    assert set(deref(SPEC["paths"]["/docs"]["get"]["responses"]["200"])["content"]) == {"text/html"}
    rules = deref(SPEC["paths"]["/v1/games/{game_id}/rules"]["get"]["responses"]["200"])["content"]
    assert set(rules) == {"text/markdown", "text/html"}
    ids = [op["operationId"] for _, _, op in operations()]
    assert len(ids) == len(set(ids))  # generators name functions after them


def test_parameters() -> None:
    """docs/wire.md: ``as`` on new, moves, state, replay (a seat of that game, or ``to_move``); X-Seat-Key as the
    optional ``SeatKey`` security of every game operation; X-Request-ID on every operation."""
    assert SPEC["components"]["securitySchemes"]["SeatKey"] == {
        **SPEC["components"]["securitySchemes"]["SeatKey"], "type": "apiKey", "in": "header", "name": "X-Seat-Key"}
    for path, method, op in operations():
        params = [deref(p) for p in [*SPEC["paths"][path].get("parameters", []), *op.get("parameters", [])]]
        names = {p["name"] for p in params}
        endpoint = path.rsplit("/", 1)[-1]
        game = path.split("/")[3] if path.count("/") == 4 and path.split("/")[3] in ENGINES else None
        assert ("as" in names) == (game is not None and endpoint in {"new", "moves", "state", "replay"}), path
        assert "X-Seat-Key" not in names, path  # a security scheme, not a bare header
        assert (op.get("security") == [{}, {"SeatKey": []}]) == (game is not None), path
        assert "X-Request-ID" in names, path
        assert ("game_id" in names) == ("{game_id}" in path), path
        if "as" in names:
            seats = max(ENGINES[game].PLAYER_COUNTS)
            assert next(p for p in params if p["name"] == "as")["schema"] == {"oneOf": [
                {"type": "integer", "minimum": 0, "maximum": seats - 1}, {"type": "string", "enum": ["to_move"]}]}, path
    assert SCHEMAS["GameId"]["enum"] == list(ENGINES)


def test_request_bodies() -> None:
    """docs/wire.md: closed, typed request bodies and their bounds, for every game."""
    for game_id, engine in ENGINES.items():
        p = prefix(game_id)
        for path_op, body in (("new", "NewRequest"), ("moves", "MoveRequest"), ("state", "StateRequest"),
                              ("check", "MoveRequest"), ("replay", "ReplayRequest")):
            op = SPEC["paths"][f"/v1/games/{game_id}/{path_op}"]["post"]
            assert op["requestBody"]["content"]["application/json"]["schema"] == {
                "$ref": f"#/components/schemas/{p}{body}"}, (game_id, path_op)
            assert op["x-body-limit"] == {"new": 16384, "replay": 1048576}.get(path_op, 65536)
        new = SCHEMAS[f"{p}NewRequest"]
        assert new["additionalProperties"] is False
        assert new["properties"]["players"]["enum"] == sorted(engine.PLAYER_COUNTS)
        for union in ("MoveRequest", "StateRequest", "ReplayRequest"):
            for branch in SCHEMAS[f"{p}{union}"]["oneOf"]:
                assert deref(branch)["additionalProperties"] is False, (p, union)
    assert deref(SCHEMAS["Seed"]) == {**deref(SCHEMAS["Seed"]), "minimum": 0, "maximum": 2**53 - 1}
    new = validator_at("/components/schemas/SchnapsenNewRequest")
    move = validator_at("/components/schemas/SchnapsenMoveRequest")
    replay = validator_at("/components/schemas/SchnapsenReplayRequest")
    assert is_valid(new, {})
    assert is_valid(new, {"players": 2, "deck": EXAMPLE_1_DECK, "seed": 2**53 - 1})
    assert not is_valid(new, {"seed": 2**53})
    assert not is_valid(new, {"players": 3})
    assert not is_valid(new, {"colour": "red"})
    assert not is_valid(new, {"deck": ["AH", "AH"]})
    play = {"type": "play", "player": 1, "card": "10S"}
    assert is_valid(move, {"token": "abc", "move": play, "expected_seq": 0})
    opening = SPEC["components"]["examples"]["SchnapsenMove"]["value"]["state"]
    assert is_valid(move, {"state": opening, "move": play})
    assert not is_valid(move, {"token": "abc", "state": opening, "move": play})  # both
    assert not is_valid(move, {"move": play})  # neither
    assert not is_valid(move, {"token": "abc", "move": play, "expected_seq": -1})
    assert not is_valid(move, {"token": "abc", "move": {"type": "flip", "player": 0}})  # another game's move
    assert is_valid(replay, {"seed": 1, "moves": []})
    assert is_valid(replay, {"deck": EXAMPLE_1_DECK, "seed": 1, "moves": []})
    assert not is_valid(replay, {"moves": []})  # deck or seed
    assert not is_valid(replay, {"seed": 1, "moves": [play] * 10_001})
    assert not is_valid(replay, {"seed": 1, "moves": [], "record": {}})


def test_every_error_response_is_a_problem() -> None:
    """Every non-2xx response is application/problem+json with the Problem schema.

    The one exception is the readiness probe's 503, whose body docs/wire.md fixes as
    ``{"status": "starting"|"draining", "mode": ...}``.
    """
    seen = 0
    for path, method, op in operations():
        for status, response in op["responses"].items():
            if status.startswith("2") or (path, status) == ("/readyz", "503"):
                continue
            content = deref(response)["content"]
            assert list(content) == ["application/problem+json"], (path, method, status)
            assert content["application/problem+json"]["schema"] == {"$ref": PROBLEM_REF}, (path, method, status)
            seen += 1
        assert "500" in op["responses"], (path, method)
    for name, response in SPEC["components"]["responses"].items():
        assert response["content"]["application/problem+json"]["schema"] == {"$ref": PROBLEM_REF}, name
    assert seen > 40


def test_error_statuses_per_operation() -> None:
    """docs/wire.md's status table, as it applies to each operation."""
    for path, method, op in operations():
        statuses = set(op["responses"])
        if method == "post":
            assert statuses >= {"400", "403", "404", "413", "415", "422", "500"}, path
        if "{game_id}" in path:
            assert "404" in statuses, path


def test_problem_codes_cover_every_code() -> None:
    """Every code of the contract's families (HTTP, rules and record: tests/codes.py) and every game's own
    (its declaration) is in ProblemCode's x-enum-known, and no other."""
    codes = problem_codes()
    own = frozenset().union(*GAME_CODES.values())
    assert codes == COMMON_CODES | own | HTTP_CODES | RECORD_CODES
    families = set()
    for name, schema in SCHEMAS.items():
        if name.endswith("ProblemCode") and name != "ProblemCode":
            families |= set(schema["enum"])
    assert families == codes  # every code sits in one family schema too


def test_http_problem_codes_state_their_status() -> None:
    """HttpProblemCode's description gives each of its codes a status (what docs/rules/errors.md and the
    service are checked against: tests/api/test_rules_pages.py), and names no other code."""
    stated = http_statuses()
    assert set(stated) == HTTP_CODES, set(stated) ^ HTTP_CODES
    assert all(400 <= status < 600 for status in stated.values()), stated


def _table_codes(text: str, start: str, end: str) -> set[str]:
    section = text.split(start, 1)[1].split(end, 1)[0]
    return set(re.findall(r"^\|\s*`([a-z_]+)`\s*\|", section, flags=re.MULTILINE))


def test_transcribed_codes_match_the_specs() -> None:
    """The common codes are those of docs/rules/conventions.md; each game's page lists only common
    codes and the game's own, and every one of its own."""
    conventions = (RULES / "conventions.md").read_text(encoding="utf-8")
    assert _table_codes(conventions, "## Common error codes", "\n## ") == COMMON_CODES
    for game, own in GAME_CODES.items():
        page = (RULES / f"{game}.md").read_text(encoding="utf-8")
        section8 = _table_codes(page, "## 8. Errors", "\n## 9.")
        assert section8 <= COMMON_CODES | own, game  # the page's codes: common ones or the game's own
        assert own <= section8, game


def test_wire_md_codes_are_listed() -> None:
    """docs/wire.md's error table (in the repository) names exactly the HTTP codes, plus the 422 families."""
    text = (REPO / "docs" / "wire.md").read_text(encoding="utf-8")
    table = text.split("## Errors", 1)[1].split("Sealed-mode rules", 1)[0]
    members = {"errors", "invalid_state", "type", "rule", "rule_url", "replay"}
    assert set(re.findall(r"`([a-z_]+)`", table)) - members == HTTP_CODES | RECORD_CODES


def test_engine_codes_are_listed() -> None:
    """Every code the engines and the edge raise is documented."""
    raised: set[str] = set()
    for source in [*(REPO / "service").rglob("*.py")]:
        text = source.read_text(encoding="utf-8")
        raised |= set(re.findall(r"\b(?:IllegalMove|BadSetup|BadMove|_Bad|RulesError)\(\s*\"([a-z_]+)\"", text))
        raised |= set(re.findall(r"\b(?:ApiError|problem_body)\(\s*\d+,\s*\"([a-z_]+)\"", text))
    assert raised, "found no raised codes"
    assert raised <= problem_codes(), raised - problem_codes()


# --- the games' components --------------------------------------------------------------------


def test_each_game_has_its_components() -> None:
    """One id everywhere: per-game components, wired into that game's operations."""
    for game_id in ENGINES:
        p = prefix(game_id)
        for suffix in ("Options", "State", "View", "Move", "Event", "Scores", "ProblemCode", "NewRequest",
                       "MoveRequest", "StateRequest", "ReplayRequest", "Envelope", "ReplayResult", "MatchRecord"):
            if suffix == "ProblemCode" and not ENGINES[game_id].GAME.codes:
                continue  # a game with no codes of its own has no (empty) code schema
            assert f"{p}{suffix}" in SCHEMAS, f"{p}{suffix}"
        envelope_ = SCHEMAS[f"{p}Envelope"]["properties"]
        assert envelope_["game"] == {"type": "string", "const": game_id}
        assert envelope_["state"]["anyOf"] == [{"$ref": f"#/components/schemas/{p}{k}"} for k in ("State", "View")]
        assert envelope_["legal_moves"]["items"] == {"$ref": f"#/components/schemas/{p}Move"}
        assert envelope_["events"]["items"]["anyOf"] == [
            {"$ref": f"#/components/schemas/{p}Event"}, {"$ref": "#/components/schemas/UnknownEvent"}]
        assert envelope_["scores"] == {"$ref": f"#/components/schemas/{p}Scores"}
        for op, status, schema in (("new", "201", "Envelope"), ("moves", "200", "Envelope"),
                                   ("state", "200", "Envelope"), ("replay", "200", "ReplayResult")):
            response = SPEC["paths"][f"/v1/games/{game_id}/{op}"]["post"]["responses"][status]
            assert response["content"]["application/json"]["schema"] == {"$ref": f"#/components/schemas/{p}{schema}"}
        for union in ("Move", "Event"):
            schema = SCHEMAS[f"{p}{union}"]
            assert schema["discriminator"]["propertyName"] == "type", (p, union)
            assert [b["$ref"] for b in schema["oneOf"]] == list(schema["discriminator"]["mapping"].values())
            for kind, ref in schema["discriminator"]["mapping"].items():
                assert deref({"$ref": ref})["properties"]["type"] == {"type": "string", "const": kind}, (p, ref)


def test_schnapsen_move_union_is_the_engines() -> None:
    """SchnapsenMove is a discriminated union over exactly MOVE_TYPES, each with the engine's fields."""
    move = SCHEMAS["SchnapsenMove"]
    mapping = move["discriminator"]["mapping"]
    assert move["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(sch.MOVE_TYPES)
    assert [b["$ref"] for b in move["oneOf"]] == list(mapping.values())
    for kind, ref in mapping.items():
        branch = deref({"$ref": ref})
        assert branch["properties"]["type"] == {"type": "string", "const": kind}
        assert "additionalProperties" not in branch  # open in the document, closed in the checker
        fields = [f for f in dataclasses.fields(sch.MOVE_CLASSES[kind]) if f.metadata.get("wire", True)]
        assert set(branch["properties"]) == {"type", "at"} | {f.name for f in fields}, kind
        required = {f.name for f in fields
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        assert set(branch["required"]) == {"type"} | required, kind
    expected = [f"Schnapsen{''.join(p.capitalize() for p in t.split('_'))}" for t in sch.MOVE_TYPES]
    assert [r.rsplit("/", 1)[-1] for r in mapping.values()] == expected


def test_schnapsen_options_are_the_engines() -> None:
    """SchnapsenOptions: the fields of Options, with the same defaults, types and bounds as OPTION_INFO."""
    schema = SCHEMAS["SchnapsenOptions"]
    defaults = {f.name: f.default for f in dataclasses.fields(sch.Options)}
    assert set(schema["properties"]) == set(defaults) == set(sch.OPTION_INFO)
    for name, prop in schema["properties"].items():
        info = sch.OPTION_INFO[name]
        assert prop["default"] == defaults[name] and type(prop["default"]) is type(defaults[name]), name
        assert prop["type"] == info["type"], name
        assert prop["description"] == info["description"], name
        for bound in ("minimum", "maximum"):
            assert prop.get(bound) == info.get(bound), (name, bound)


def test_examples_are_true() -> None:
    """Every game has a worked example for new, moves, state, check and replay; each request example
    validates against its request schema, each response example conforms, and the service answers
    each request example with exactly the documented response (open mode)."""
    from service import create_app

    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()
    for game_id in ENGINES:
        for op in GAME_OPS:
            post = SPEC["paths"][f"/v1/games/{game_id}/{op}"]["post"]
            media = post["requestBody"]["content"]["application/json"]
            (example,) = media["examples"].values()
            body = deref(example)["value"]
            assert is_valid(validator_at(media["schema"]["$ref"].removeprefix("#")), body), (game_id, op)
            answer = client.post(f"/v1/games/{game_id}/{op}", json=body)
            status = "201" if op == "new" else "200"
            assert str(answer.status_code) == status, (game_id, op, answer.json)
            assert_conforms("POST", f"/v1/games/{game_id}/{op}", answer.status_code, "application/json", answer.json)
            documented = post["responses"][status]["content"]["application/json"].get("examples")
            if documented:
                (response,) = documented.values()
                assert deref(response)["value"] == answer.json, (game_id, op)
    for name, schema in SCHEMAS.items():
        for example in schema.get("examples", []):
            if isinstance(example, dict):
                assert is_valid(validator_at(f"/components/schemas/{name}"), example), name


def test_info_version_is_the_package_version() -> None:
    """openapi.yaml's info.version is pyproject's version (clients generated from it say so)."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert SPEC["info"]["version"] == project["version"]


def _walk(node: Any, path: str = "#") -> Iterator[tuple[str, Any, Any]]:
    """Every (pointer, key, value) pair of the document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key, value
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


SCHEMA_KEYS = {"items", "not", "additionalProperties", "unevaluatedProperties", "contains", "propertyNames"}


def test_generator_friendly_shape() -> None:
    """Issue 14's list, checked on the document: no boolean schemas, no $ref into another
    schema's properties, no dependentSchemas, no boolean const, nullable written as anyOf/oneOf
    with {type: null} (a type list only for primitives), no allOf compositions."""
    for path, key, value in _walk(SPEC["components"]["schemas"], "#/components/schemas"):
        if path.endswith(("/properties", "/examples")) or "/examples/" in path:
            if path.endswith("/properties"):
                assert isinstance(value, dict), f"{path}/{key}: a boolean schema"
            continue
        if key in SCHEMA_KEYS and key != "additionalProperties":
            assert isinstance(value, dict), f"{path}/{key}: a boolean schema"
        if key == "$ref":
            assert "/properties/" not in value, f"{path}: $ref into another schema's properties"
        assert key not in ("dependentSchemas", "dependentRequired", "allOf", "unevaluatedProperties"), f"{path}/{key}"
        if key == "const":
            assert not isinstance(value, bool), f"{path}: const {value!r}"
        if key == "properties":
            owner = deref({"$ref": path}) if path.count("/") == 3 else None
            if owner is not None:
                assert not {"anyOf", "oneOf", "not"} & set(owner), f"{path}: an object with a sibling union"
        if key == "type" and isinstance(value, list):
            assert not {"object", "array"} & set(value), f"{path}: nullable object or array as a type list"


def _response_schemas() -> Iterator[str]:
    for path, method, op in operations():
        for response in op["responses"].values():
            for media in deref(response).get("content", {}).values():
                if "$ref" in media.get("schema", {}):
                    yield media["schema"]["$ref"]


def _reachable(refs: Iterator[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(refs)
    while todo:
        ref = todo.pop()
        if ref in seen or not ref.startswith("#/components/schemas/"):
            continue
        seen.add(ref)
        todo += [v for _, k, v in _walk(deref({"$ref": ref})) if k == "$ref"]
    return seen


def test_responses_are_open_and_requests_closed() -> None:
    """Evolution policy (docs/wire.md): no response schema forbids added members; every request
    body is closed; game ids, problem codes and event types are open in responses."""
    for ref in _reachable(_response_schemas()):
        schema = deref({"$ref": ref})
        for path, key, value in _walk(schema, ref):
            assert not (key == "additionalProperties" and value is False), f"{path}: closed response schema"
    for game_id in ENGINES:
        p = prefix(game_id)
        for body in ("NewRequest", "MoveWithState", "MoveWithToken", "StateWithState", "StateWithToken",
                     "ReplayFromDeck", "ReplayFromSeed", "ReplayRecord"):
            assert SCHEMAS[f"{p}{body}"]["additionalProperties"] is False, f"{p}{body}"
    assert SCHEMAS["GameEntry"]["properties"]["id"] == {
        **SCHEMAS["GameEntry"]["properties"]["id"], "type": "string", "x-enum-known": list(ENGINES)}
    assert "enum" not in SCHEMAS["GameEntry"]["properties"]["id"]
    assert SCHEMAS["ProblemCode"]["type"] == "string" and "enum" not in SCHEMAS["ProblemCode"]
    assert SCHEMAS["UnknownEvent"]["properties"]["type"] == {**SCHEMAS["UnknownEvent"]["properties"]["type"],
                                                            "type": "string"}


def test_the_closed_reading_still_catches_what_the_open_document_allows() -> None:
    """The checker reads responses closed: an undocumented member, an unknown problem code, an
    unknown game id or an event of an unlisted type from our own server fails, although the
    published document lets clients accept them."""
    entry = {"id": "hearts", "name": "Hearts", "players": [4], "default_players": 4, "rules_version": "hearts/1",
             "move_types": ["play"], "options": {}}
    with pytest.raises(AssertionError, match="'hearts' is not one of"):
        assert_conforms("GET", "/v1/games/{game_id}", 200, "application/json", entry)
    with pytest.raises(AssertionError, match="is not one of"):
        assert_conforms("POST", "/v1/games/schnapsen/moves", 422, "application/problem+json", problem("made_up", 422))
    body = _opening()
    body["events"] = [{"type": "confetti"}]
    with pytest.raises(AssertionError, match=re.escape("$.events[0]")):
        assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", body)
    body = _opening()
    body["mood"] = "cheerful"
    with pytest.raises(AssertionError, match="'mood' was unexpected"):
        assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", body)
    # ...while the published document, read as a client reads it, accepts all four
    plain = jsonschema_for("/paths/~1v1~1games~1schnapsen~1moves/post/responses/200/content/application~1json/schema")
    body["events"] = [{"type": "confetti"}]
    assert plain.is_valid(body)


def jsonschema_for(pointer: str) -> Any:
    """A stock validator of the published (open) document at ``pointer``."""
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    base = "urn:published"
    registry = Registry().with_resource(base, DRAFT202012.create_resource(SPEC))
    return Draft202012Validator({"$ref": f"{base}#{pointer}"}, registry=registry)


# --- the checker ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [sch.Options(), sch.Options(show_points=False, auto_claim=True, target=3),
     sch.Options(dealer=1, exchange_with_two_left=True, marriage_requires_trick=True)],
    ids=["defaults", "hidden-points-auto-claim", "dealer-1-variants"],
)
def test_checker_accepts_real_envelopes(options: sch.Options) -> None:
    """Envelopes built from every state of seeded matches (full, both seats, public) conform."""
    for seed in range(3):
        for body in envelopes(seed, options):
            assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", body)
            assert_conforms("POST", "/v1/games/schnapsen/state", 200, "application/json; charset=utf-8", body)


def test_checker_accepts_documented_shapes() -> None:
    """Problems, check and replay verdicts, catalogue, health, and the non-JSON pages."""
    assert_conforms("POST", "/v1/games/schnapsen/moves", 422, "application/problem+json",
                    problem("not_your_turn", 422, rule="schnapsen §6.1", move={"type": "play", "player": 0, "card": "QC"}))
    assert_conforms("POST", "/v1/games/schnapsen/state", 422, "application/problem+json",
                    problem("invalid_state", 422, errors={"hands": ["cards must be the pack"]}))
    assert_conforms("POST", "/v1/games/schnapsen/new", 400, "application/problem+json",
                    problem("invalid_request", 400, errors={"options": {"target": ["Not a valid integer."]}}))
    assert_conforms("GET", "/v1/games/{game_id}", 404, "application/problem+json", problem("unknown_game", 404))
    assert_conforms("GET", None, 404, "application/problem+json", problem("not_found", 404))
    assert_conforms("GET", "/v1/games/schnapsen/moves", 405, "application/problem+json",
                    problem("method_not_allowed", 405))
    assert_conforms("POST", "/v1/games/schnapsen/check", 200, "application/json", {"legal": True})
    assert_conforms("POST", "/v1/games/schnapsen/check", 200, "application/json",
                    {"legal": False, "error": problem("no_trump_jack", 422, rule="schnapsen §6.3")})
    state = sch.new_game(sch.Options(), 2, [Card.parse(c) for c in EXAMPLE_1_DECK])
    final = envelope(state, [], None, True)
    assert_conforms("POST", "/v1/games/schnapsen/replay", 200, "application/json",
                    {"game": "schnapsen", "moves_total": 1, "moves_legal": 0, "final": final,
                     "first_illegal": {"index": 0, "move": {"type": "play", "player": 0, "card": "QC"},
                                       "error": problem("not_your_turn", 422)}})
    entry = {"id": "schnapsen", "name": "Schnapsen", "players": [2], "default_players": 2,
             "rules_version": "schnapsen/1", "move_types": list(sch.MOVE_TYPES),
             "options": {k: {**v, "default": getattr(sch.Options(), k)} for k, v in sch.OPTION_INFO.items()}}
    assert_conforms("GET", "/v1/games", 200, "application/json", {"games": [entry]})
    assert_conforms("GET", "/v1/games/{game_id}", 200, "application/json", entry)
    assert_conforms("GET", "/healthz", 200, "application/json", {"status": "ok"})
    assert_conforms("GET", "/readyz", 200, "application/json", {"status": "ready", "mode": "sealed"})
    assert_conforms("GET", "/readyz", 503, "application/json", {"status": "draining", "mode": "open"})
    assert_conforms("GET", "/metrics", 200, "text/plain; version=1.0.0; charset=utf-8", "# HELP x\n")
    assert_conforms("GET", "/openapi.yaml", 200, "application/yaml; charset=utf-8", "openapi: 3.1.0\n")
    assert_conforms("GET", "/docs", 200, "text/html; charset=utf-8", "<!doctype html>")
    assert_conforms("HEAD", "/healthz", 200, "application/json", None)


def _opening() -> dict[str, Any]:
    state = sch.new_game(sch.Options(), 2, [Card.parse(c) for c in EXAMPLE_1_DECK])
    return envelope(state, [], 1, False)


@pytest.mark.parametrize(
    ("method", "rule", "status", "content_type", "body", "message"),
    [
        ("POST", "/v1/games/schnapsen/moves", 201, "application/json", {}, "status 201 is not documented"),
        ("POST", "/v1/games/schnapsen/moves", 200, "text/html", {}, "content type 'text/html' is not documented"),
        ("POST", "/v1/games/schnapsen/moves", 422, "application/json", {}, "content type 'application/json'"),
        ("DELETE", "/v1/games", 200, "application/json", {}, "method not documented"),
        ("GET", "/nowhere", 200, "application/json", {}, "path not in openapi.yaml"),
        ("POST", "/v1/games/schnapsen/moves", 422, "application/problem+json",
         problem("made_up_code", 422), "is not one of"),
        ("POST", "/v1/games/schnapsen/moves", 422, "application/problem+json",
         problem("not_your_turn", 400), "status member is 400"),
        ("POST", "/v1/games/schnapsen/moves", 422, "application/problem+json",
         {**problem("not_your_turn", 422), "type": "about:blank"}, "does not match"),
        ("POST", "/v1/games/schnapsen/moves", 422, "application/problem+json",
         {k: v for k, v in problem("not_your_turn", 422).items() if k != "detail"}, "'detail' is a required property"),
        ("POST", "/v1/games/schnapsen/check", 200, "application/json", {"legal": False, "error": "no"},
         "does not match"),
        ("GET", "/healthz", 200, "application/json", "{not json", "body is not JSON"),
    ],
)
def test_checker_refuses_undocumented_responses(
    method: str, rule: str, status: int, content_type: str, body: Any, message: str
) -> None:
    """assert_conforms can fail: undocumented status, media type, method, path, or body."""
    with pytest.raises(AssertionError, match=re.escape(message)):
        assert_conforms(method, rule, status, content_type, body)


def _broken(mutate: Any) -> dict[str, Any]:
    body = _opening()
    mutate(body)
    return body


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda b: b["state"]["hand"].__setitem__(0, "1H"), "$.state.hand[0]"),
        (lambda b: b["state"].pop("talon_count"), "'talon_count' is a required property"),
        (lambda b: b["state"].__setitem__("hands", [[], []]), "'hands' was unexpected"),
        (lambda b: b["state"].__setitem__("trick", [{"player": 1, "card": "AH"}, {"player": 0, "card": "QC"}]),
         "$.state.trick"),
        (lambda b: b["legal_moves"].append({"type": "play", "player": 1}), "'card' is a required property"),
        (lambda b: b["legal_moves"].append({"type": "no_such_move", "player": 1}), "$.legal_moves[7]"),
        (lambda b: b["events"].append({"type": "card_drawn", "player": 0, "card": "AD", "private_to": 0}),
         "'private_to' was unexpected"),
        (lambda b: b["scores"].pop("totals"), "'totals' is a required property"),
        (lambda b: b.__setitem__("status", "over"), "$.status"),
        (lambda b: b.__setitem__("winner", 0), "$.winner"),
    ],
    ids=["bad-card", "missing-field", "full-state-field-in-view", "two-card-trick", "incomplete-move",
         "unknown-move", "leaked-private-event", "no-totals", "bad-status", "winner-not-list"],
)
def test_checker_refuses_wrong_envelopes(mutate: Any, where: str) -> None:
    """A real seat-view envelope, broken in one place, fails with a message that points there."""
    body = _broken(mutate)
    with pytest.raises(AssertionError, match=re.escape(where)):
        assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", body)


def _mutations(body: Any, rng: random.Random, count: int) -> Iterator[Any]:
    """Copies of ``body``, each changed in one random place (a value replaced, a key dropped or added)."""
    replacements = [None, "XX", "10H", -1, 0, 2, True, 1.5, [], {}, ["AS"], {"type": "play"}]
    for _ in range(count):
        mutated = copy.deepcopy(body)
        node: Any = mutated
        while True:  # walk down to a random node
            children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
            if not children or rng.random() < 0.3:
                break
            key, child = rng.choice(children)
            if not isinstance(child, (dict, list)):
                node[key] = rng.choice(replacements)
                break
            node = child
        if isinstance(node, dict) and node and rng.random() < 0.5:
            if rng.random() < 0.5:
                node.pop(rng.choice(list(node)))
            else:
                node["zz"] = 1
        yield mutated


def test_checker_agrees_with_plain_jsonschema() -> None:
    """The checker's shortcuts never change a verdict: same answers as stock jsonschema on the raw schema."""
    rng = random.Random(7)
    plain = plain_validator_at(
        "/paths/~1v1~1games~1schnapsen~1moves/post/responses/200/content/application~1json/schema"
    )
    bodies = list(envelopes(1, sch.Options()))[::23] + list(envelopes(2, sch.Options(show_points=False)))[::29]
    verdicts = {True: 0, False: 0}
    for body in bodies:
        for mutated in [body, *_mutations(body, rng, 12)]:
            want = plain.is_valid(mutated)
            try:
                assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", mutated)
                got = True
            except AssertionError:
                got = False
            assert got == want, json.dumps(mutated)[:2000]
            verdicts[want] += 1
    assert min(verdicts.values()) > 30, verdicts


def test_checker_is_fast() -> None:
    """Cached validators: a full envelope checks in well under a millisecond."""
    bodies = list(envelopes(3, sch.Options()))[:60]
    for body in bodies:  # warm the caches
        assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", body)
    # CPU time of this process, so other load on the machine does not count; the best of three.
    runs = []
    for _ in range(3):
        start = time.process_time()
        for body in bodies * 5:
            assert_conforms("POST", "/v1/games/schnapsen/moves", 200, "application/json", body)
        runs.append((time.process_time() - start) / (len(bodies) * 5))
    per_response = min(runs)
    assert per_response < 0.001, f"{per_response * 1000:.3f} ms per response"


def test_the_servers_own_refusals_of_long_request_lines_and_headers_are_in_the_contract() -> None:
    """gunicorn refuses a request line past 4,094 bytes (414) and header fields past their limits
    (431) before the app sees the request (service.server.write_problem): their codes are documented
    codes, and every operation a client can make that long (a game's, with its ``as`` query and
    headers; one with a path parameter) lists them. The contract fuzzer once sent a huge ``as``."""
    import yaml

    from service.api.rules import codes
    from service.server import _CODES

    assert {_CODES[414], _CODES[431]} <= set(codes())
    paths = yaml.safe_load((REPO / "openapi.yaml").read_text(encoding="utf-8"))["paths"]
    for path, item in paths.items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            if path.startswith("/v1/games/") and "{" not in path:
                assert {"414", "431"} <= set(op["responses"]), (path, method)
            elif "{" in path:
                assert "414" in op["responses"], (path, method)
