"""Request bodies: read within a per-operation limit, parsed as strict I-JSON, shape-checked.

Every limit here keeps the cost of a refused body below the cost of a few accepted requests
(``bench/adversarial_bodies.py`` measures the worst shapes it knows):

- **Size, per operation** (``Config.body_limits``): ``new`` 16 KiB, ``state``/``moves``/``check``
  64 KiB, ``replay`` 1 MiB by default. A ``Content-Length`` over the limit is refused before
  anything is read; a chunked body is read only up to the limit plus one byte, so a longer one is
  refused (413 ``body_too_large``) rather than cut.
- **Framing**: a body is processed only when all of it arrived. Fewer bytes than its
  ``Content-Length``, or a chunked body without its last chunk, when the client ends its side of
  the connection: 400 ``body_incomplete``. A body not all there within the server's body deadline
  (``REFEREE_TIMEOUT`` after the head, ``service.server.body_deadline``): 400 ``body_timeout``.
  Malformed chunked framing (a chunk size that is not hex, no CRLF after a chunk, a bad chunk
  extension, too many or malformed trailer fields): 400 ``bad_framing``. gunicorn closes the
  connection after each of them.
- **Numbers**: every integer lies in ±(2^53 − 1) (RFC 7493, I-JSON), so JavaScript clients read
  and send back every value unchanged; ``NaN`` and ``Infinity`` are not JSON. Every number of every
  request is an integer (the contract has no other kind), written without a fraction or an
  exponent: any other number, anywhere in any body (``248.0``, ``2.48e2``, ``0.5``), is 400
  ``invalid_request`` with its JSON Pointer, before any schema or engine looks at it, whichever
  operation and mode (``jsonio.loads(..., integers_only=True)``).
- **Shape**: at most ``MAX_DEPTH`` levels of nesting, one array or object per 32 bytes of the limit and
  one value per 16 bytes, counted on the raw bytes before the decoder builds anything, and at most
  ``MAX_MEMBERS`` members in any object, checked before any schema work.
"""

from __future__ import annotations

import re
from typing import Any, Final

from flask import current_app, request
from gunicorn.http.errors import ChunkMissingTerminator, NoMoreData, ParseException
from marshmallow import Schema

from .. import jsonio
from ..config import Config
from ..problems import ApiError
from ..sealing import MAX_TOKEN_CHARS

__all__ = ["INT_MAX", "INT_MIN", "MAX_DEPTH", "MAX_MEMBERS", "_body", "_bounded_int", "_no_constant", "_too_deep", "body_limit"]

MAX_DEPTH: Final = 64
#: Per byte of an operation's size limit: at most one array or object per 32 bytes and one value
#: (a member, an element or a scalar) per 16 bytes, counted on the raw bytes before parsing (the
#: JSON decoder spends about a microsecond on every array or object it builds).
BYTES_PER_CONTAINER: Final = 32
#: Members of any one object (the widest object a game sends has about 30).
MAX_MEMBERS: Final = 128
BYTES_PER_VALUE: Final = 16
INT_MIN, INT_MAX = -(2**53 - 1), 2**53 - 1
_LONG_DIGITS = re.compile(rb"[0-9]{16}")  # 2^53 - 1 has 16 digits: shorter integers are always in range
_READ_CHUNK: Final = 64 * 1024


class _OutOfRange(ValueError):
    pass


def _bounded_int(text: str) -> int:
    """json.loads' integer hook: every integer of a body lies in [-(2^53 - 1), 2^53 - 1] (I-JSON)."""
    value = int(text) if len(text) <= 18 else INT_MAX + 1  # 2^53 has 16 digits: 17 and a sign still parse
    if not INT_MIN <= value <= INT_MAX:
        raise _OutOfRange(f"the integer {text[:24]}{'…' if len(text) > 24 else ''} is outside [-(2^53 - 1), 2^53 - 1]")
    return value


def _no_constant(name: str) -> Any:
    """json.loads' hook for NaN, Infinity and -Infinity, which JSON does not have."""
    raise _OutOfRange(f"{name} is not JSON")


def _too_deep(value: Any, limit: int, max_members: int | None = None) -> bool | str:
    """Whether a parsed JSON value nests deeper than ``limit`` ("deep") or has an object of more
    than ``max_members`` members ("wide"); False when neither. Iterative: no recursion limit."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return "deep"
        if isinstance(item, dict):
            if max_members is not None and len(item) > max_members:
                return "wide"
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        else:
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


_NOT_MARKS: Final = bytes(b for b in range(256) if b not in b"[{,:")


def _marks(raw: bytes) -> bytes:
    """The bytes of ``raw`` that open an array or object or separate values and members, in one
    pass (a sealed token, most of a long match's body, holds none of them)."""
    return raw.translate(None, _NOT_MARKS)


def _shape_budget(marks: bytes, limit: int) -> int:
    """Arrays and objects in a body whose ``_marks`` are ``marks`` (an upper bound: brackets inside
    strings count too); 400 when the body holds more arrays, objects or values than its
    operation's limit allows."""
    containers = marks.count(b"[") + marks.count(b"{")
    most = max(64, limit // BYTES_PER_CONTAINER)
    if containers > most:
        raise ApiError(400, "invalid_request", f"The JSON body holds more than {most} arrays and objects.", {"body": ["too many values"]})
    values = containers + marks.count(b",")
    most = max(256, limit // BYTES_PER_VALUE)
    if values > most:
        raise ApiError(400, "invalid_request", f"The JSON body holds more than {most} values.", {"body": ["too many values"]})
    return containers


_TOKEN_OPERATIONS: Final = frozenset({"state", "moves", "check"})


def body_limit(operation: str | None = None) -> int:
    """The body limit, in bytes, of ``operation`` (default: the current request's view)."""
    return _limits(operation)[0]


def read_limit(operation: str | None = None) -> int:
    """The bytes a body of ``operation`` may hold on the wire: its limit, plus, in sealed mode, room
    for the token that ``state``, ``moves`` and ``check`` carry (a match record grows with the match,
    up to ``MAX_TOKEN_CHARS``). The shape budget stays that of the operation's own limit."""
    return _limits(operation)[1]


def _limits(operation: str | None, endpoint: str | None = None) -> tuple[int, int]:
    """(``body_limit``, ``read_limit``) of ``operation`` (default: the view of ``endpoint``, else
    the current request's)."""
    cfg: Config = current_app.extensions["referee.config"]
    name = operation or ((request.endpoint if endpoint is None else endpoint) or "").rpartition(".")[2]
    limit = cfg.body_limits.get(name, cfg.max_body)
    return limit, limit + (MAX_TOKEN_CHARS if cfg.sealed and name in _TOKEN_OPERATIONS else 0)


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"The request body is larger than this operation accepts ({limit} bytes).")


def _read(limit: int, environ: dict[str, Any]) -> bytes:
    """The raw body of the request of ``environ``, at most ``limit`` bytes (413 past it), chunked
    or with a Content-Length."""
    stream = environ.get("wsgi.input")
    length_text = environ.get("CONTENT_LENGTH") or ""
    if length_text:
        if not length_text.isdigit():
            raise ApiError(400, "invalid_request", "Content-Length is not a number.", {"body": ["bad length"]})
        length = int(length_text)
        if length > limit:
            raise _too_large(limit)
        wanted = length
    elif environ.get("wsgi.input_terminated"):  # chunked: read to the end, but never past the limit
        wanted = limit + 1
    else:
        return b""
    if stream is None or wanted == 0:
        return b""
    parts: list[bytes] = []
    got = 0
    try:
        while got < wanted:
            part = stream.read(min(_READ_CHUNK, wanted - got))
            if not part:
                break
            parts.append(part)
            got += len(part)
    except Exception as exc:
        refusal = _unreadable(exc)
        if refusal is None:
            raise
        raise refusal from None
    if got > limit:
        raise _too_large(limit)
    if length_text and got < wanted:
        raise _incomplete(f"{got} of the {wanted} bytes of its Content-Length arrived")
    return b"".join(parts)


def _incomplete(what: str) -> ApiError:
    detail = f"The request body ended before all of it was sent ({what}); it was not processed."
    return ApiError(400, "body_incomplete", detail)


def _unreadable(exc: Exception) -> ApiError | None:
    """The refusal for an error the server raised while reading the body; None when a client
    cannot cause it (then it stays what it is: the service's fault, a 500)."""
    if isinstance(exc, TimeoutError):  # the body deadline (or one read's timeout) passed
        return ApiError(400, "body_timeout", f"The request body did not arrive in time: {exc}; it was not processed.")
    if isinstance(exc, NoMoreData) or (isinstance(exc, ChunkMissingTerminator) and len(exc.term or b"") < 2):
        return _incomplete("the connection ended inside its chunked framing")
    if isinstance(exc, ConnectionError):  # reset by the client
        return _incomplete("the connection was reset")
    if isinstance(exc, ParseException):  # InvalidChunkSize, ChunkMissingTerminator, InvalidChunkExtension, trailers…
        detail = f"The chunked framing of the request body is malformed: {str(exc)[:200]}."
        return ApiError(400, "bad_framing", detail)
    return None


def _body(schema: Schema, allow_empty: bool = False) -> dict[str, Any]:
    """The request's JSON object, shape-checked by ``schema`` (400 / 413 / 415 otherwise)."""
    current = request._get_current_object()  # type: ignore[attr-defined]  # one proxy look-up, not one per use
    environ = current.environ
    limit, most = _limits(None, current.endpoint)
    raw = _read(most, environ)
    if not raw or raw.isspace():  # as ``not raw.strip()``, without copying the body
        if allow_empty:
            return {}
        raise ApiError(400, "invalid_request", "The request needs a JSON object body.", {"body": ["missing"]})
    content_type = environ.get("CONTENT_TYPE")
    mimetype = content_type if content_type == "application/json" else (current.mimetype or "")  # the usual one, unparsed
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ApiError(415, "unsupported_media_type", "Send the body as application/json.")
    marks = _marks(raw)
    containers = _shape_budget(marks, limit)
    try:
        data = jsonio.loads(raw, max_depth=MAX_DEPTH, integers_only=True)
    except jsonio.OutOfRange as exc:
        raise ApiError(400, "invalid_request", f"The body is refused: {exc}.", {"body": [exc.reason]}) from None
    except jsonio.NotInteger as exc:
        detail = (f"The number at {exc.pointer} is written with a fraction or an exponent; every number of a request is an "
                  "integer, written without either (248, not 248.0 or 2.48e2).")
        raise ApiError(400, "invalid_request", detail, {exc.pointer: [exc.reason]}) from None
    except jsonio.BadEncoding as exc:
        raise ApiError(400, "bad_encoding", f"The body is not UTF-8 JSON text: {exc}.", {"body": [exc.reason]}) from None
    except jsonio.DuplicateMember as exc:
        detail = f"The body is not I-JSON: {exc}."
        raise ApiError(400, "duplicate_member", detail, {exc.pointer or "body": ["duplicate member"]}) from None
    except jsonio.TooDeep:
        raise ApiError(400, "invalid_request", f"The JSON body nests deeper than {MAX_DEPTH} levels.", {"body": ["too deep"]}) from None
    except jsonio.JSONError as exc:
        raise ApiError(400, "invalid_request", f"The body is not valid JSON: {exc}", {"body": ["malformed JSON"]}) from None
    if not isinstance(data, dict):
        raise ApiError(400, "invalid_request", "The body must be a JSON object.", {"body": ["not an object"]})
    if containers > MAX_DEPTH or marks.count(b":") > MAX_MEMBERS:
        shape = _too_deep(data, MAX_DEPTH, MAX_MEMBERS)
        if shape == "deep":
            raise ApiError(400, "invalid_request", f"The JSON body nests deeper than {MAX_DEPTH} levels.", {"body": ["too deep"]})
        if shape == "wide":
            detail = f"An object in the body has more than {MAX_MEMBERS} members; no request needs that many."
            raise ApiError(400, "invalid_request", detail, {"body": ["too many members"]})
    return schema.load(data)  # type: ignore[no-any-return]  # ValidationError → 400
