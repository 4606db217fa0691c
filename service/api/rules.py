"""The rules pages and the problem-code pages: the documents a refusal points at.

``GET /v1/games/<game_id>/rules`` serves ``docs/rules/<game_id>.md`` (found by
``service.resources.rules_dir``): Markdown by default, HTML when the client prefers ``text/html``.
Numbered headings get stable anchors (``## 8. Errors`` → ``#s8``, ``### 6.1 …`` → ``#s6-1``), and
``rule_url`` turns an engine's citation (``"schnapsen §6.1"``) into a link to that anchor.

``GET /errors/<code>`` is the page behind every problem ``type`` (``/errors/<code>``), HTML unless
the client asks for Markdown: the code's status and meaning from ``docs/rules/errors.md`` and, for
a rules code, each game's own wording and the sections it cites, read from §8 of that game's page.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Response, request
from markdown_it import MarkdownIt
from werkzeug.exceptions import NotFound

from ..engines import ENGINES, find
from ..problems import anchor, title
from ..resources import rules_dir

__all__ = ["bp", "heading_anchor", "rules_markdown"]  # anchor and rule_url: service/problems.py

bp = Blueprint("rules", __name__)

MARKDOWN = "text/markdown"
HTML = "text/html"

_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")
_GAME_LINK = re.compile(r"\]\(([a-z][a-z0-9_]*)\.md(#[A-Za-z0-9_-]+)?\)")
_CODE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_ROW = re.compile(r"^\|\s*`([a-z_]+)`\s*\|(.*)\|\s*$")

_STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; overflow-wrap: break-word; }
h1, h2, h3, h4 { line-height: 1.25; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2rem; }
code { background: #f3f3f3; padding: 0 .2rem; border-radius: 3px; font-size: .92em; }
pre { background: #f3f3f3; padding: .6rem; overflow-x: auto; }
pre code { padding: 0; }
table { border-collapse: collapse; margin: .8rem 0; display: block; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; vertical-align: top; text-align: left; }
blockquote { border-left: 4px solid #ddd; margin-left: 0; padding-left: 1rem; color: #444; }
:target { background: #fff6c8; }
""".strip()
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode("utf-8")).digest()).decode("ascii")
CSP = (
    f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; img-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)

_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


# --- anchors and citations ------------------------------------------------------------------


def heading_anchor(text: str) -> str:
    """The anchor id of a heading's text: ``s<number>`` when it is numbered, else a slug."""
    m = _NUMBERED.match(text.strip())
    if m:
        return anchor(m.group(1))
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "section"


# --- the documents --------------------------------------------------------------------------


def _read(name: str) -> str | None:
    path: Path = rules_dir() / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


@functools.cache
def rules_markdown(game_id: str) -> str | None:
    """The rules page of ``game_id`` as served: links to sibling pages point at their endpoints."""
    text = _read(f"{game_id}.md")
    if text is None:
        return None

    def link(m: re.Match[str]) -> str:
        target = m.group(1)
        if target not in ENGINES:
            return m.group(0)
        return f"](/v1/games/{target}/rules{m.group(2) or ''})"

    return _GAME_LINK.sub(link, text)


def _render(markdown: str) -> str:
    """Markdown → HTML body, each heading with its anchor id (unique within the page)."""
    tokens = _md.parse(markdown)
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            ident = heading_anchor(tokens[i + 1].content)
            seen[ident] = seen.get(ident, 0) + 1
            token.attrSet("id", ident if seen[ident] == 1 else f"{ident}-{seen[ident]}")
    return str(_md.renderer.render(tokens, _md.options, {}))


def _title(markdown: str) -> str:
    first = next((line for line in markdown.splitlines() if line.startswith("# ")), "# Card Referee")
    return first[2:].replace("`", "").strip()


def _page(markdown: str) -> str:
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(_title(markdown))}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n{_render(markdown)}</body>\n</html>\n"
    )


def _respond(markdown: str, default: str = MARKDOWN) -> Response:
    """``default`` (Markdown or HTML) unless the client prefers the other; ``Vary: Accept`` either way."""
    offered = [default, HTML if default == MARKDOWN else MARKDOWN]
    best = request.accept_mimetypes.best_match(offered, default=default)
    if best == HTML:
        resp = Response(_page(markdown), mimetype=HTML)  # Flask adds charset=utf-8
        resp.headers["Content-Security-Policy"] = CSP
        resp.headers["Referrer-Policy"] = "no-referrer"
    else:
        resp = Response(markdown, content_type=f"{MARKDOWN}; charset=utf-8")
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Vary"] = "Accept"
    resp.headers["Cache-Control"] = "public, max-age=3600"
    return resp


# --- problem codes --------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeInfo:
    """One row of ``docs/rules/errors.md``."""

    code: str
    status: int
    meaning: str


@dataclass(frozen=True)
class GameUse:
    """A game's §8 row for a code: its own wording and the sections it cites (Markdown links)."""

    game_id: str
    meaning: str
    rules: str


@functools.cache
def codes() -> dict[str, CodeInfo]:
    """Every documented problem code, from ``docs/rules/errors.md``."""
    out: dict[str, CodeInfo] = {}
    for line in (_read("errors.md") or "").splitlines():
        m = _ROW.match(line)
        if m is None:
            continue
        cells = [c.strip() for c in m.group(2).split(" | ")]
        if len(cells) == 2 and cells[0].isdigit():
            out[m.group(1)] = CodeInfo(m.group(1), int(cells[0]), cells[1])
    return out


def section_8(game_id: str) -> dict[str, GameUse]:
    """The codes of a game's §8 table with its wording and its Rule cell (links made absolute)."""
    text = rules_markdown(game_id) or ""
    parts = text.split("\n## 8.", 1)
    if len(parts) < 2:
        return {}
    table = parts[1].split("\n## ", 1)[0]
    out: dict[str, GameUse] = {}
    for line in table.splitlines():
        m = _ROW.match(line)
        if m is None:
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", m.group(2))]
        meaning = cells[0] if cells else ""
        rules = cells[1] if len(cells) > 1 else ""
        rules = rules.replace("](#", f"](/v1/games/{game_id}/rules#")
        out[m.group(1)] = GameUse(game_id, meaning, rules)
    return out


def error_markdown(code: str) -> str | None:
    """The Markdown page of a problem code, or None when the code is not documented."""

    info = codes().get(code)
    if info is None:
        return None
    lines = [
        f"# {title(code)} (`{code}`)",
        "",
        f"HTTP status **{info.status}**; problem `type` `/errors/{code}`.",
        "",
        info.meaning,
        "",
    ]
    uses = [use for game_id in ENGINES if (use := section_8(game_id).get(code)) is not None]
    if uses:
        lines += [
            "## Games that raise it",
            "",
            "Each game's wording (§8 of its rules page) and the sections its refusals cite in `rule` (linked in `rule_url`):",
            "",
            "| Game | Meaning in this game | Rule |",
            "|---|---|---|",
        ]
        for use in uses:
            name = ENGINES[use.game_id].NAME
            lines.append(f"| [{name}](/v1/games/{use.game_id}/rules#s8) | {use.meaning} | {use.rules or '—'} |")
        lines.append("")
    lines += ["The codes of a game, in the order its checks apply, are in §8 of its rules page.", ""]
    return "\n".join(lines)


# --- endpoints ------------------------------------------------------------------------------


@bp.get("/v1/games/<game_id>/rules")
def rules(game_id: str) -> Response:
    """The rules page of a game: Markdown, or HTML for a browser."""
    engine = find(game_id)  # UnknownGame → 404 unknown_game
    text = rules_markdown(engine.GAME_ID)
    if text is None:  # a game registered without its page: a packaging fault, not a client's
        raise NotFound(f"The rules page of {game_id!r} is not installed.")
    return _respond(text)


@bp.get("/errors/<code>")
def error(code: str) -> Response:
    """The page behind a problem ``type``: the code's status, meaning, and the games that raise it."""
    text = error_markdown(code) if _CODE.fullmatch(code) else None
    if text is None:
        raise NotFound(f"There is no problem code {code[:64]!r}; each game's rules page lists its codes in §8.")
    return _respond(text, default=HTML)
