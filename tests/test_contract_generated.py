"""openapi.yaml's per-game move, request and answer components are generated from the games'
declarations (service/schemas/contract.py).

A hand edit of a generated component, or a declaration changed without running
``python3 -m service.schemas.contract``, fails here; so does a declaration whose schemas the
document does not hold as written.
"""

from __future__ import annotations

from service.engines import ENGINES
from service.resources import openapi_path
from service.schemas import SCHEMAS
from service.schemas.contract import generated, generated_sections, render, written
from tests.contract import SPEC

DOCUMENT = openapi_path().read_text(encoding="utf-8")


def test_openapi_yaml_is_what_the_declarations_give() -> None:
    assert written(DOCUMENT) == DOCUMENT, "run python3 -m service.schemas.contract"


def test_every_games_operations_and_as_parameter_are_generated() -> None:
    """The five operations of every game and its ``as`` parameter are written from its contract,
    and the document holds them as written."""
    sections = generated_sections()
    for game, codec in SCHEMAS.items():
        for op in ("new", "moves", "state", "check", "replay"):
            path = f"/v1/games/{game}/{op}"
            assert SPEC["paths"][path] == sections["paths"][path], path
        name = "As" + codec.moves.prefix
        assert SPEC["components"]["parameters"][name] == sections["parameters"][name], name
    documented = {p for p in SPEC["paths"] if p.startswith("/v1/games/") and "{" not in p}
    assert documented == set(sections["paths"]), "every game's operation is generated, and only those"


def test_every_generated_component_is_the_documents_as_parsed() -> None:
    schemas = SPEC["components"]["schemas"]
    for name, schema in generated().items():
        assert schemas[name] == schema, name


def test_every_game_declares_its_moves_and_the_engine_types_them() -> None:
    """One declaration per game, in the engine's move order; its ``<Game>Move`` names every type."""
    for game, codec in SCHEMAS.items():
        moves = codec.moves
        top = generated()[moves.name]
        assert list(top["discriminator"]["mapping"]) == list(ENGINES[game].MOVE_TYPES), game


def test_a_changed_declaration_shows_as_a_difference() -> None:
    """The check can fail: a component's description changed in the declaration is a new text."""
    wanted = generated()
    name = SCHEMAS["schnapsen"].moves.name
    changed = {**wanted, name: {**wanted[name], "description": "changed\n"}}
    assert render(DOCUMENT, changed) != DOCUMENT
    assert render(render(DOCUMENT, changed), wanted) == DOCUMENT


def test_every_games_request_and_answer_schemas_are_generated() -> None:
    """Each game's new, moves, check, state and replay bodies, envelope, record and verdict come
    from its CONTRACT, with its own player counts."""
    wanted = generated()
    for game, codec in SCHEMAS.items():
        prefix = codec.moves.prefix
        for suffix in ("NewRequest", "MoveRequest", "StateRequest", "ReplayRequest", "MatchRecord", "Envelope", "ReplayResult"):
            assert prefix + suffix in wanted, (game, suffix)
        players = wanted[prefix + "NewRequest"]["properties"]["players"]
        assert players["enum"] == list(ENGINES[game].PLAYER_COUNTS), game
        assert wanted[prefix + "Envelope"]["properties"]["game"]["const"] == game


def test_every_games_options_come_from_its_option_table() -> None:
    """<Game>Options and <Game>OptionsInput list the engine's options with their defaults; the
    input form is closed."""
    wanted = generated()
    for game, codec in SCHEMAS.items():
        engine = ENGINES[game]
        prefix = codec.moves.prefix
        listed = wanted[prefix + "Options"]["properties"]
        assert set(engine.OPTION_INFO) <= set(listed), game
        assert all("default" in listed[name] for name in engine.OPTION_INFO), game
        assert wanted[prefix + "OptionsInput"]["additionalProperties"] is False


def _loads(codec: object, options: dict[str, object]) -> bool:
    from service.engines.base import BadSetup

    try:
        codec.load_options(options)  # type: ignore[attr-defined]
    except BadSetup as refused:
        assert refused.code == "invalid_option"
        return False
    return True


def test_the_option_schemas_say_what_the_option_loader_does() -> None:
    """The contract's option schemas and the edge's option loader (``OPTIONS``) are two readings of
    the option table: each bound, choice, default and extra keyword the contract states, the loader
    keeps (one option varied at a time, the others left to their defaults)."""
    from service.schemas.common import to_wire

    wanted = generated()
    checked = 0
    for game, codec in SCHEMAS.items():
        schemas = wanted[codec.moves.prefix + "OptionsInput"]["properties"]
        loaded = codec.load_options({})
        for name, schema in schemas.items():
            if "default" in schema:
                assert to_wire(getattr(loaded, name)) == schema["default"], (game, name)
            for choice in schema.get("enum", ()):
                assert _loads(codec, {name: choice}), (game, name, choice)
            if "enum" in schema:
                assert not _loads(codec, {name: "no such choice"}), (game, name)
            if "minimum" in schema and "integer" in schema["type"]:
                assert not _loads(codec, {name: schema["minimum"] - 1}), (game, name)
            if "maximum" in schema and "integer" in schema["type"]:
                assert _loads(codec, {name: schema["maximum"]}), (game, name)
                assert not _loads(codec, {name: schema["maximum"] + 1}), (game, name)
            if "multipleOf" in schema:
                assert not _loads(codec, {name: schema["minimum"] + 1}), (game, name)
            if "null" in schema["type"]:
                assert _loads(codec, {name: None}), (game, name)
            if schema["type"] == "array":
                assert not _loads(codec, {name: [-1]}), (game, name)  # items: minimum 0
                if "maxItems" in schema:
                    assert not _loads(codec, {name: [0] * (schema["maxItems"] + 1)}), (game, name)
            checked += 1
        assert not _loads(codec, {"no_such_option": 1}), game  # the input form is closed
    assert checked >= 40


def test_every_games_problem_codes_are_its_rules_pages_own() -> None:
    """``<Game>ProblemCode`` comes from the engine's ``GameInfo.codes``, which are the codes of the
    game's §8 table (docs/rules/<game>.md) beyond the common ones, in the table's order."""
    import re

    from service.resources import rules_dir

    def table(text: str, start: str, end: str) -> list[str]:
        section = text.split(start, 1)[1].split(end, 1)[0]
        return re.findall(r"^\|\s*`([a-z_]+)`\s*\|", section, flags=re.MULTILINE)

    common = set(table((rules_dir() / "conventions.md").read_text(encoding="utf-8"), "## Common error codes", "\n## "))
    wanted = generated()
    for game, codec in SCHEMAS.items():
        page = (rules_dir() / f"{game}.md").read_text(encoding="utf-8")
        own = [code for code in table(page, "## 8. Errors", "\n## 9.") if code not in common]
        assert list(ENGINES[game].GAME.codes) == own, game
        if own:
            assert wanted[codec.moves.prefix + "ProblemCode"]["enum"] == own, game
        else:  # no codes of its own: no ``enum: []`` (no client generator accepts one), no schema
            assert codec.moves.prefix + "ProblemCode" not in wanted, game


def test_no_component_is_left_unreferenced() -> None:
    """A component the declarations stopped using would linger in the file (the writer replaces
    components, it never deletes one): every component is referred to from another, but the
    problem-code families, which document ``ProblemCode``'s codes one family at a time."""
    import json
    import re

    schemas = SPEC["components"]["schemas"]
    referred = set(re.findall(r"#/components/schemas/([A-Za-z0-9_]+)", json.dumps(SPEC)))
    unreferenced = {name for name in schemas if name not in referred}
    families = {name for name in unreferenced if name.endswith("ProblemCode")}
    assert unreferenced == families
    assert families == {"HttpProblemCode", "RulesProblemCode", "RecordProblemCode"} | {
        codec.moves.prefix + "ProblemCode" for codec in SCHEMAS.values() if codec.engine.GAME.codes
    }


def test_the_examples_are_the_services_own_answers() -> None:
    """Every game's worked examples are what ``python3 -m service.examples`` writes: the recipe's
    requests, and the service's answers to them (open mode)."""
    from service.examples import written as with_examples

    assert with_examples(DOCUMENT) == DOCUMENT, "run python3 -m service.examples"
