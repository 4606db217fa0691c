"""The Python client generated from openapi.yaml by openapi-python-client, and a thin driver over it.

``generate(out)`` runs the generator on the repository's contract into ``out`` (nothing generated is
committed) and imports the package. ``Table`` plays one game through that package only: it finds each
operation's generated module from the contract's ``operationId``, builds every request body as the
generated model, and checks every answer:

* the parsed model's ``to_dict()`` is the server's JSON exactly (``canonical``: key order aside,
  every value and type as sent, so ``1`` ≠ ``1.0`` ≠ ``true``);
* a state-bearing answer parses into typed models all the way down: no member ends up in an
  ``additional_properties`` bag (a union that picked the wrong branch would put it there) and the
  state's model is the game's own;
* what goes back on the wire (recorded by an httpx event hook) is the state or token the server
  sent, byte for byte in canonical form.

The driver never builds a body by hand: a listed move is sent as the model it was parsed into; a
filled template is parsed by the request body's own model (``parse_typed``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.contract import YAML_LOADER
from tests.tools import tool_env

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi.yaml"
PACKAGE = "card_referee_client"

Json = dict[str, Any]

REPO_CONFIG = ROOT / "openapi-python-client.yaml"
"""The repository's generator settings (what an integrator passes with ``--config``)."""


def generator_config() -> Json:
    """The repository's settings, plus a fixed package name and no formatter run (the code is
    imported, not read)."""
    settings: Json = {}
    if REPO_CONFIG.exists():
        with REPO_CONFIG.open(encoding="utf-8") as f:
            settings = yaml.safe_load(f) or {}
    return {**settings, "package_name_override": PACKAGE, "project_name_override": "card-referee-client", "post_hooks": []}


def canonical(value: Any) -> str:
    """One text per JSON value: keys sorted, no spaces; ``1``, ``1.0`` and ``true`` stay distinct."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# --- generation -------------------------------------------------------------------------------


@dataclass
class Generated:
    root: Path  # the directory holding the package (put on sys.path)
    package: types.ModuleType
    returncode: int
    output: str  # the generator's stdout and stderr
    spec: Json = field(repr=False)
    modules: dict[str, str] = field(default_factory=dict, repr=False)  # operation module name → dotted path

    def operation(self, operation_id: str) -> types.ModuleType:
        """The generated module of an operation (``api/<tag>/<snake_case(operationId)>.py``)."""
        if not self.modules:
            api = importlib.import_module(f"{PACKAGE}.api")
            for info in pkgutil.walk_packages(api.__path__, prefix=f"{PACKAGE}.api."):
                self.modules.setdefault(info.name.rsplit(".", 1)[-1], info.name)
        name = snake_case(operation_id)
        if name not in self.modules:
            raise AssertionError(f"no generated module for operation {operation_id!r} ({name}.py)")
        return importlib.import_module(self.modules[name])


def snake_case(name: str) -> str:
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).replace("-", "_").lower()


def generate(out: Path) -> Generated:
    """Run openapi-python-client over openapi.yaml into ``out`` and import the package from there."""
    config = out / "generator.yaml"
    config.write_text(yaml.safe_dump(generator_config()))
    target = out / PACKAGE
    proc = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(SPEC_PATH),
         "--config", str(config), "--meta", "none", "--output-path", str(target), "--overwrite"],
        check=False, capture_output=True, text=True, timeout=300, cwd=out, env=tool_env(),  # it runs ruff from PATH
    )
    if str(out) not in sys.path:
        sys.path.insert(0, str(out))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    package = importlib.import_module(PACKAGE) if (target / "__init__.py").exists() else types.ModuleType(PACKAGE)
    with SPEC_PATH.open(encoding="utf-8") as f:
        spec = yaml.load(f, Loader=YAML_LOADER)
    return Generated(out, package, proc.returncode, proc.stdout + proc.stderr, spec)


# --- typed models -------------------------------------------------------------------------------


def model_classes(annotation: Any) -> list[type]:
    """The generated model classes an annotation allows (a class, or the members of a union)."""
    if isinstance(annotation, type) and hasattr(annotation, "from_dict"):
        return [annotation]
    found: list[type] = []
    for arg in annotation if isinstance(annotation, list | tuple) else typing.get_args(annotation):
        found += model_classes(arg)
    return found


def parse_typed(annotation: Any, data: Json, what: str) -> Any:
    """``data`` parsed by the first model ``annotation`` allows that gives it back exactly."""
    classes = model_classes(annotation)
    if not classes:
        raise AssertionError(f"{what}: the generated client types it as {annotation!r}, not as a model")
    tried = []
    for cls in classes:
        try:
            model = cls.from_dict(data)
        except (KeyError, TypeError, ValueError) as e:
            tried.append(f"{cls.__name__}: {type(e).__name__} {e}")
            continue
        if canonical(model.to_dict()) == canonical(data):
            return model
        tried.append(f"{cls.__name__}: does not give it back")
    raise AssertionError(f"{what}: no generated model parses {canonical(data)[:300]} exactly ({'; '.join(tried)[:1500]})")


@functools.cache
def hints(obj: Any) -> dict[str, Any]:
    """Type hints of a generated class or function; its models import each other only for type
    checkers, so names resolve in the package's ``models`` namespace."""
    module = sys.modules[obj.__module__]
    models = importlib.import_module(f"{PACKAGE}.models")
    return typing.get_type_hints(obj, globalns={**vars(models), **vars(module)})


def field_type(cls: type, name: str) -> Any:
    return hints(cls)[name]


def untyped(model: Any, path: str = "$") -> Iterator[str]:
    """Paths where a parsed model kept members it has no typed field for."""
    extra = getattr(model, "additional_properties", None)
    declared = [a.name for a in getattr(model, "__attrs_attrs__", ()) if a.name != "additional_properties"]
    if isinstance(extra, dict) and extra and declared:  # a model with no declared member is a typed map
        yield f"{path} ({type(model).__name__}): {sorted(extra)}"
    if hasattr(model, "__attrs_attrs__"):
        for name in declared:
            yield from untyped(getattr(model, name), f"{path}.{name}")
        if isinstance(extra, dict) and not declared:
            for key, item in extra.items():
                yield from untyped(item, f"{path}.{key}")
    elif isinstance(model, list | tuple):
        for i, item in enumerate(model):
            yield from untyped(item, f"{path}[{i}]")
    elif isinstance(model, dict):
        for k, item in model.items():
            yield from untyped(item, f"{path}.{k}")


def camel(game: str) -> str:
    return "".join(part.title() for part in game.split("_"))


# --- one table, through the generated client only --------------------------------------------------


@dataclass
class Answer:
    status: int
    json: Any
    parsed: Any


class Table:
    """Requests of one game, each through the generated operation module, every answer checked."""

    def __init__(self, gen: Generated, base_url: str, game: str) -> None:
        self.gen, self.base_url, self.game = gen, base_url, game
        self.sent: list[Json] = []  # request bodies as they went on the wire
        self.responses = 0
        self._clients: dict[str | None, Any] = {}

    # clients: one without a key, one per seat key (sent as the X-Seat-Key security scheme)
    def client(self, key: str | None = None) -> Any:
        if key not in self._clients:
            hooks = {"request": [self._record]}
            common: dict[str, Any] = {"base_url": self.base_url, "raise_on_unexpected_status": True,
                                      "httpx_args": {"event_hooks": hooks}, "verify_ssl": False, "timeout": httpx.Timeout(30.0)}
            if key is None:
                self._clients[key] = self.gen.package.Client(**common)
            else:
                self._clients[key] = self.gen.package.AuthenticatedClient(
                    token=key, prefix="", auth_header_name="X-Seat-Key", **common)
        return self._clients[key]

    def _record(self, request: Any) -> None:
        request.read()
        self.sent.append(json.loads(request.content) if request.content else {})

    def operation(self, kind: str) -> tuple[types.ModuleType, bool]:
        """(module, takes game_id) of ``POST /v1/games/<game>/<kind>``, per-game path first."""
        paths = self.gen.spec["paths"]
        for path, per_game in ((f"/v1/games/{self.game}/{kind}", True), (f"/v1/games/{{game_id}}/{kind}", False)):
            if path in paths:
                return self.gen.operation(paths[path]["post"]["operationId"]), not per_game
        raise AssertionError(f"openapi.yaml has no operation for {kind} of {self.game}")

    def body_models(self, kind: str) -> list[type]:
        """The models the generated operation takes as its request body (one, or a union's members)."""
        module, _ = self.operation(kind)
        classes = model_classes(hints(module.sync_detailed).get("body"))
        if not classes:
            raise AssertionError(f"{kind} of {self.game}: the request body is not typed as a model")
        return classes

    def body_model(self, kind: str, *needs: str) -> type:
        """The one body model of ``kind`` that has every field in ``needs`` (e.g. ``state`` or ``token``)."""
        fitting = [c for c in self.body_models(kind) if set(needs) <= {a.name for a in c.__attrs_attrs__}]  # type: ignore[attr-defined]
        if len(fitting) != 1:
            raise AssertionError(f"{kind} of {self.game}: {len(fitting)} body models with {needs} in {self.body_models(kind)}")
        return fitting[0]

    def call(self, kind: str, body: Any, *, as_: int | None = None, key: str | None = None) -> Answer:
        module, takes_game = self.operation(kind)
        params = inspect.signature(module.sync_detailed).parameters
        kwargs: dict[str, Any] = {"client": self.client(key), "body": body}
        if takes_game:
            kwargs["game_id"] = _game_id(params["game_id"].annotation, self.game, module)
        if as_ is not None:
            kwargs["as_"] = as_
        response = module.sync_detailed(**kwargs)
        self.responses += 1
        data = json.loads(response.content)
        parsed = response.parsed
        assert parsed is not None, f"{kind}: {response.status_code} not parsed: {response.content[:300]!r}"
        assert canonical(parsed.to_dict()) == canonical(data), (
            f"{kind} {response.status_code}: to_dict() of {type(parsed).__name__} differs from the server's JSON\n"
            f"server: {canonical(data)[:2000]}\nmodel:  {canonical(parsed.to_dict())[:2000]}"
        )
        return Answer(int(response.status_code), data, parsed)


def _game_id(annotation: Any, game: str, module: types.ModuleType) -> Any:
    """The game id as the generated signature wants it (a str, or a member of a generated enum)."""
    if isinstance(annotation, str):
        annotation = hints(module.sync_detailed)["game_id"]
    for cls in [annotation, *typing.get_args(annotation)]:
        if isinstance(cls, type) and issubclass(cls, str) and cls is not str:
            return cls(game)
    return game
