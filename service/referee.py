"""The referee core, without Flask: ``Referee`` runs ``new``, ``state``, ``move``, ``check``,
``replay`` and ``adjudicate`` for a caller given as a value (``Caller``: the seat key presented, the
seat to answer as, the clock), and returns plain data (the envelope, the check, the verdict) or
raises the problems of ``service.problems`` (``ApiError``) and of the engines (``RulesError``).

Sealed-mode access has one home, the ``Table`` of one call: it opens the token (or checks the plain
state), authorizes the actor, checks the ledger, fills in what the service decides (decks from the
match secret, the server clock of timed claims), records the accepted move, and seals the answer
with its fairness commitment, padded, and, once the match is finished, with its signed record.
With a ledger, a match begun here keeps its record's moves in the ledger (appended by the
compare-and-set) and its token only their hash chain; the moves are read back, and checked against
the chain, where the record is needed.
Open mode goes through the same calls and skips what it has not.

The HTTP views (``service.api.routes``) are adapters: they parse the body at the edge
(``service.api.body``), build the ``Caller`` from the headers, the query and the clock, call the
core and serialize its answer. No rules here: engines judge moves.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

import orjson

from .cards.shuffle import MAX_SEED, deal_deck
from .config import Config
from .engines import find
from .engines.base import BadSetup, RulesError, Seat
from .engines.claims import MAX_AT, BatchClaim, Flip, SingleClaim
from .engines.moves import NextDeal
from .envelope import envelope
from .fairness import fairness, new_secret
from .ledger import CURRENT, LOST, SUPERSEDED, History, Ledger, LedgerUnavailable, open_ledger
from .problems import MAX_ERRORS, ApiError, rules_problem
from .records import (
    RECORD_FORMAT,
    VERDICT_FORMAT,
    RecordError,
    Signer,
    adjudicate,
    canonical,
    parse_public_key,
    parse_signing_key,
    public_keys,
    result_of,
    signing_key_from_seal_key,
)
from .replay import begin_sealed, replay_log, sealed_deal
from .schemas import SCHEMAS, GameCodec
from .schemas.common import parse_deck, to_wire
from .sealing import MAX_TOKEN_CHARS, TABLE, BadToken, Match, Sealer, TokenTooLarge, chain_start, token_chars

if TYPE_CHECKING:
    from .typed import CheckResult, Envelope

__all__ = ["TO_MOVE", "Caller", "Referee", "Table", "now_ms", "pad_target"]

_SYSTEM_RANDOM = secrets.SystemRandom()

TO_MOVE: Final = "to_move"
"""``Caller.view_as``: answer as the seat to move once the call is done (a relaying host's one round trip)."""


def now_ms() -> int:
    """The server clock (ms since the Unix epoch): read here, at the edge, never in an engine."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Caller:
    """Who calls, as a value: the seat key presented (HTTP: ``X-Seat-Key``; None or ``""`` for none),
    the seat to answer as (HTTP: ``?as=``: a seat number, its text as sent, or ``"to_move"``; None for
    the default view), and the time of the call in ms since the Unix epoch (None: the referee's clock)."""

    seat_key: str | None = None
    view_as: int | str | None = None
    now_ms: int | None = None


# --- padding: token length from public facts only -----------------------------------------------

PAD_STEP: Final = 1024
"""Plaintext sizes are multiples of this (bytes)."""
PAD_BASE: Final = 2048
PAD_PER_SEAT: Final = 64
"""Bytes for the token's fixed part and the state at ``seq`` 0 (the largest seen over random matches
of every game and player count is under 1.4 KiB, a fixed first deal adds 0.3 KiB)."""
PAD_PER_MOVE: Final = {
    "schnapsen": 48, "seven_up": 88, "california_jack": 48, "yukon": 48, "stukolka": 64,
    "bragging": 56, "slapjack": 104, "snap": 104, "russian_bank": 88,
}
"""Bytes per ``seq``: the longest recorded move of the game seen over random matches plus the growth
of its state per move (finished deals' results), rounded up (bench/record_cost.py measures them)."""
PAD_LEDGER_BASE: Final = 3072
PAD_LEDGER_PER_MOVE: Final = 1
"""With the record in the ledger the token holds the state, the match data and the record's hash
chain, not the moves: the largest state seen over random matches of every game and player count is
1.7 KiB (California Jack), the match data with a fixed first deal 0.6 KiB; the state does not grow
with the match (bench/record_cost.py), one byte per ``seq`` covers the digits of the counters."""


def pad_target(game: str, players: int, seq: int, record_in_token: bool = True) -> int:
    """The plaintext length of a sealed token of ``game`` with ``players`` seats at ``seq``, whose
    record is in the token (else in the ledger, the token carrying its chain): a function of these
    public facts only. Content that outgrows it (never seen over the suite's random matches;
    possible with long batches of judges' claims) grows by whole ``PAD_STEP``s."""
    if record_in_token:
        raw = PAD_BASE + PAD_PER_SEAT * players + PAD_PER_MOVE.get(game, 128) * seq
    else:
        raw = PAD_LEDGER_BASE + PAD_PER_SEAT * players + PAD_LEDGER_PER_MOVE * seq
    return -(-raw // PAD_STEP) * PAD_STEP


def _plausible_seq(engine: Any, state: Any, record_in_token: bool = True) -> bool:
    """Whether a sealed state's ``seq`` is one a token of this service can have: an integer whose
    padded token fits in ``MAX_TOKEN_CHARS`` (a token is never shorter than its ``pad_target``)."""
    seq = state.seq
    if type(seq) is not int or seq < 0:
        return False
    return token_chars(pad_target(engine.GAME_ID, engine.players(state), seq, record_in_token)) <= MAX_TOKEN_CHARS


# --- the ledger's verdicts ------------------------------------------------------------------------


def _unavailable() -> ApiError:
    return ApiError(503, "ledger_unavailable", "The ledger cannot be reached; sealed moves are refused until it can.")


class _Reaching:
    """``with _reaching_the_ledger(referee, operation):`` around every call to the store: one that
    cannot reach it is 503 ``ledger_unavailable``, never accepted; the referee's ``on_ledger`` sees
    each call's operation, its duration and whether it failed (the metrics: observability.LedgerMetrics)."""

    __slots__ = ("observe", "operation", "started")

    def __init__(self, operation: str, observe: Callable[[str, float, bool], None] | None) -> None:
        self.operation = operation
        self.observe = observe
        self.started = 0.0

    def __enter__(self) -> None:
        if self.observe is not None:
            self.started = time.perf_counter()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        failed = kind is not None and issubclass(kind, LedgerUnavailable)
        if self.observe is not None:
            self.observe(self.operation, time.perf_counter() - self.started, failed)
        if failed:
            raise _unavailable() from None


def _reaching_the_ledger(referee: Referee, operation: str) -> _Reaching:
    """One call to the store, ``operation`` naming it (``observability.LEDGER_OPERATIONS``)."""
    return _Reaching(operation, referee.on_ledger)


def _ledger_says(verdict: str) -> None:
    """Refuse (409) unless the ledger found the token current."""
    if verdict == CURRENT:
        return
    if verdict == SUPERSEDED:
        raise ApiError(409, "token_superseded", "A later move of this match was already accepted: this token is no longer current.")
    raise ApiError(
        409, "ledger_lost",
        "The ledger does not hold this match as it should (it lost its data, was replaced, or forgot the match "
        "REFEREE_LEDGER_TTL seconds after its last move): its tokens are refused. Start a new match, or adjudicate its moves.",
    )


def _record_mismatch() -> ApiError:
    """The store's moves of a match are not the ones its token's hash chain covers: refused as
    ``ledger_lost`` (the ledger does not hold the match as it should), never answered from."""
    return ApiError(
        409, "ledger_lost",
        "The ledger does not hold this match as it should: the moves it keeps for the match do not match the hash chain "
        "sealed in the token (altered, reordered, truncated or lost). Its tokens are refused; adjudicate the moves you hold.",
    )


# --- the referee ----------------------------------------------------------------------------------


class Referee:
    """The referee of one service: its configuration, sealer (None: open mode), signer of records and
    verdicts (None: none), ledger (None: none; or a callable that opens it on first use) and clock
    (ms since the Unix epoch, for a ``Caller`` that brings no time of its own).

    ``on_refusal(exc)`` sees every rules refusal the referee answers with rather than raises (a
    ``check``'s ``error``, a replay's ``first_illegal``): the HTTP app counts them in its metrics.
    ``on_ledger(operation, seconds, failed)`` sees every call to the ledger's store (opening it
    included): the HTTP app measures them.
    """

    def __init__(
        self,
        config: Config,
        sealer: Sealer | None = None,
        signer: Signer | None = None,
        ledger: Ledger | Callable[[], Ledger] | None = None,
        clock: Callable[[], int] = now_ms,
        on_refusal: Callable[[RulesError], None] | None = None,
        on_ledger: Callable[[str, float, bool], None] | None = None,
    ) -> None:
        self.config = config
        self.sealer = sealer
        self.signer = signer
        self.clock = clock
        self.on_refusal = on_refusal
        self.on_ledger = on_ledger
        self._open_ledger: Callable[[], Ledger] | None = ledger if callable(ledger) else None
        self._ledger: Ledger | None = None if callable(ledger) else ledger
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Config, **kwargs: Any) -> Referee:
        """The referee ``config`` describes: sealed when it has seal keys, the signer from
        ``signing_keys`` (else derived from the seal keys), and in sealed mode the ledger at
        ``ledger_url``, opened on first use. ``kwargs``: ``clock``, ``on_refusal``, ``on_ledger``."""
        sealer = Sealer(config.seal_keys) if config.sealed else None
        if config.signing_keys:
            keys = [parse_signing_key(k) for k in config.signing_keys]
        elif sealer is not None:
            keys = [signing_key_from_seal_key(k) for k in sealer.raw_keys]
        else:
            keys = []
        retired = [parse_public_key(k) for k in config.retired_signing_keys]
        signer = Signer(keys, retired) if keys else None
        url, ttl, finished_ttl = config.ledger_url, config.ledger_ttl, config.ledger_finished_ttl
        ledger = (lambda: open_ledger(url, ttl, finished_ttl)) if url is not None and sealer is not None else None
        return cls(config, sealer, signer, ledger, **kwargs)

    # --- the services -----------------------------------------------------------------------

    @property
    def has_ledger(self) -> bool:
        """Whether a ledger is configured (opened or not): new matches keep their record in it."""
        return self._ledger is not None or self._open_ledger is not None

    @property
    def ledger(self) -> Ledger | None:
        """The ledger (None without one), opened on first use; 503 ``ledger_unavailable`` if it cannot be."""
        if self._ledger is None and self._open_ledger is not None:
            with self._lock:
                if self._ledger is None:
                    with _reaching_the_ledger(self, "open"):
                        self._ledger = self._open_ledger()
        return self._ledger

    def jwks(self) -> dict[str, Any]:
        """The public keys that sign records and verdicts, as a JWK Set (``GET /v1/keys``)."""
        return self.signer.jwks() if self.signer is not None else {"keys": []}

    def game(self, game_id: str) -> tuple[Any, GameCodec]:
        """(engine, codec) of ``game_id``; ``UnknownGame`` (404) for none."""
        engine = find(game_id)
        return engine, SCHEMAS[game_id]

    def fixed_decks_allowed(self, what: str) -> None:
        """Sealed mode refuses client decks and seeds unless the operator allows them (403)."""
        if self.sealer is not None and not self.config.allow_fixed_decks:
            raise ApiError(403, "fixed_deck_forbidden", f"{what} is refused in sealed mode unless the operator allows fixed decks.")

    def _refused(self, exc: RulesError) -> None:
        if self.on_refusal is not None:
            self.on_refusal(exc)

    # --- the operations ---------------------------------------------------------------------

    def new(self, game_id: str, body: Mapping[str, object], caller: Caller) -> Envelope:
        """Start a game from a ``new`` body (``{players?, options?, deck?, seed?}``): the envelope
        (HTTP 201), sealed with the seat and table keys."""
        engine, codec = self.game(game_id)
        table, events = Table.create(self, engine, codec, body, caller)
        table.view_as()
        return cast("Envelope", table.answer(events, keys=True))

    def state(self, game_id: str, body: Mapping[str, object], caller: Caller) -> Envelope:
        """The envelope for a ``{state or token}``; nothing applied. Sealed with a ledger, an older
        token of the match *resumes* it: the answer is the current position (as the caller may see
        it) and a current token, rebuilt from the moves the ledger keeps (``Table.catch_up``)."""
        engine, codec = self.game(game_id)
        table = Table.begin(self, engine, codec, body, caller, superseded=True)
        if table.superseded:
            table.catch_up()
        return cast("Envelope", table.answer([]))

    def move(self, game_id: str, body: Mapping[str, object], caller: Caller) -> Envelope:
        """Apply ``body["move"]`` to ``{state or token}``: the new envelope, or a refusal raised.

        Sealed with a ledger, a move is applied exactly once: the same move sent again with the
        same token (a retry after a lost reply, on any instance, or the loser of a race with its
        own first sending) is answered as the first time (``Table.retry``); a different move from
        that token is 409 ``token_superseded``."""
        engine, codec = self.game(game_id)
        table = Table.begin(self, engine, codec, body, caller, superseded=True)
        raw: Any = body["move"]
        if not table.superseded:
            move = table.move(raw)
            new_state, events = engine.step(table.state, move)
            if table.accept(move, new_state):
                return cast("Envelope", table.answer(events))
            # another request from this token was recorded first: judged as a retry of it
            table = Table.begin(self, engine, codec, body, caller, superseded=True)
        return cast("Envelope", table.retry(raw))

    def check(self, game_id: str, body: Mapping[str, object], caller: Caller) -> CheckResult:
        """Whether ``body["move"]`` is legal: ``{"legal": true}`` or ``{"legal": false, "error"}``;
        nothing applied (a move that cannot be parsed, or sent with the wrong key, is raised)."""
        engine, codec = self.game(game_id)
        table = Table.begin(self, engine, codec, body, caller)
        raw: Any = body["move"]
        move = table.move(raw)
        try:
            engine.step(table.state, move)
        except RulesError as exc:
            self._refused(exc)
            return cast("CheckResult", {"legal": False, "error": rules_problem(exc, raw)})
        return {"legal": True}

    def replay(self, game_id: str, body: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Judge a move log from a fixed deal (``{players, options?, deck or seed, moves}``, each
        move already checked as a move of this game by the edge): how far it is legal and the final
        envelope; or ``{"record": ...}``, adjudicated (``adjudicate``)."""
        engine, codec = self.game(game_id)
        if "record" in body:
            return self.adjudicate(body["record"], game_id)
        _every_move_of_the_game(codec, body["moves"])
        self.fixed_decks_allowed("Replay")
        table, events = Table.create(self, engine, codec, body, caller, replay=True)
        done = replay_log(engine, codec, table.state, events, body["moves"], table.next_deck, rules_problem, table.replay_move)
        if done.refusal is not None:
            self._refused(done.refusal)
        table.view_as()
        return {
            "game": engine.GAME_ID,
            "moves_total": len(body["moves"]),
            "moves_legal": done.legal,
            "first_illegal": done.first_illegal,
            "final": table.answer(done.events, keys=True),
        }

    def adjudicate(self, record: Mapping[str, Any], game_id: str | None = None) -> dict[str, Any]:
        """The verdict on a signed record (``records.adjudicate`` against this referee's keys), signed
        when the referee signs; 422 with the record's problem, or when it is not of ``game_id``."""
        try:
            verdict = adjudicate(record, public_keys(self.jwks()), rules_problem)
        except RecordError as exc:
            raise ApiError(422, exc.code, exc.detail) from None
        if game_id is not None and verdict.game != game_id:
            raise ApiError(422, "invalid_record", f"This record is of {verdict.game}, not {game_id}: send it to its game.")
        engine, codec = self.game(verdict.game)
        final = envelope(engine, codec, verdict.state, verdict.events, None, full=False)  # the public view
        doc: dict[str, Any] = {
            "format": VERDICT_FORMAT,
            "game": verdict.game,
            "match_id": record["match_id"],
            "record_signature": record["signature"],
            "moves_total": verdict.moves_total,
            "moves_legal": verdict.moves_legal,
            "first_illegal": verdict.first_illegal,
            "result": verdict.result,
            "result_matches": verdict.result_matches,
            "final": final,
        }
        return self.signer.sign(doc) if self.signer is not None else doc


# --- the table ------------------------------------------------------------------------------


class Table:
    """One call's game: its state, and in sealed mode its match, who is acting and viewing."""

    def __init__(self, referee: Referee, engine: Any, codec: GameCodec, state: Any, match: Match | None,
                 caller: Caller, who: Seat | str | None = None) -> None:
        self.referee = referee
        self.engine = engine
        self.codec = codec
        self.state = state
        self.match = match
        self.caller = caller
        self.presented = caller.seat_key or ""
        self.who = who  # sealed mode: the seat (or TABLE) whose key the caller presented
        self.viewer: Seat | None = None
        self.follow_turn = False  # view_as "to_move": the viewer is the seat to move once the call is done
        self.replayed = False
        self.created = False  # begun by this call (new, replay): registered in the ledger when answered
        self.superseded = False  # a token the ledger holds as superseded, let through to be retried or resumed
        self._filled_deck = False
        self._token: str | None = None  # sealed by ``accept`` before the ledger moved
        self._unstored: list[str] = []  # record in the ledger: moves of this call not yet in the store
        self._record_moves: list[str] | None = None  # record in the ledger: the record's moves, read and checked

    @property
    def sealed(self) -> bool:
        return self.match is not None

    def _now(self) -> int:
        return _time_of(self.caller, self.referee)

    # --- entering ---------------------------------------------------------------------------

    @classmethod
    def create(cls, referee: Referee, engine: Any, codec: GameCodec, body: Mapping[str, Any], caller: Caller, *,
               replay: bool = False) -> tuple[Table, list[Any]]:
        """A new game from a ``new`` body: players, options, then the first deal (§4.1).

        Open mode: the client's ``deck``, else the ``seed``'s shuffle, else the CSPRNG; a game whose
        rules need a seed (Slapjack's shuffles) gets one. Sealed mode: a new match with a fresh
        secret that deals every deck and keys every shuffle, unless the operator allows fixed decks
        and the client fixed the first deal (then ``setup`` records it).

        ``replay`` (a move log judged from a fixed deal): open mode draws nothing that the log does
        not fix, so the same log always gets the same verdict. Sealed mode begins the match exactly
        as ``new`` with that deck or seed does (what the log does not fix comes from the match
        secret), because the verdict's token is a live match: its record must adjudicate from its
        ``setup`` and moves like any other. The replay's own answer carries no record.
        """
        if "deck" in body or "seed" in body:
            referee.fixed_decks_allowed("A fixed deck or seed")
        players = body.get("players", engine.DEFAULT_PLAYERS)
        if players not in engine.PLAYER_COUNTS:
            allowed = ", ".join(map(str, engine.PLAYER_COUNTS))
            raise BadSetup("invalid_players", f"{engine.NAME} is for {allowed} players, not {players}.")
        options = codec.load_options(body.get("options"))
        pack = engine.pack(options, players)
        seed = body.get("seed")
        if referee.sealer is None:
            if "deck" in body:
                deck = parse_deck(body["deck"], pack)
            elif seed is not None:
                deck = deal_deck(pack, seed)
            else:
                deck = tuple(_SYSTEM_RANDOM.sample(pack, len(pack)))
            if seed is None and not replay and engine.GAME.draws_seed:
                seed = _SYSTEM_RANDOM.randrange(MAX_SEED + 1)
            state = engine.new_game(options, players, deck, seed)
            return cls(referee, engine, codec, state, None, caller), engine.initial_events(state)
        match_id = secrets.token_urlsafe(16)
        secret = new_secret()
        setup: dict[str, Any] | None = None
        fixed = None
        if "deck" in body:
            fixed = parse_deck(body["deck"], pack)
            setup = {"deck": [str(c) for c in fixed]}
            if seed is not None:
                setup["seed"] = seed
        elif seed is not None:
            setup = {"seed": seed}
        state = begin_sealed(engine, options, players, fixed, seed, secret)
        chain = chain_start(match_id, setup) if referee.has_ledger else None  # the record beside the token
        match = Match(match_id, secret, _time_of(caller, referee), setup, chain=chain)
        table = cls(referee, engine, codec, state, match, caller, TABLE)
        table.replayed = replay
        table.created = True
        return table, engine.initial_events(state)

    @classmethod
    def begin(cls, referee: Referee, engine: Any, codec: GameCodec, body: Mapping[str, Any], caller: Caller, *,
              superseded: bool = False) -> Table:
        """The call's game: a token in sealed mode (opened, then checked against the ledger), a
        checked plain state in open mode; then ``expected_seq`` and the view. A token the ledger
        holds as superseded is refused (409) unless ``superseded`` (the caller then retries or
        resumes: ``Table.superseded`` says so)."""
        sealer = referee.sealer
        if sealer is not None:
            if "token" not in body:
                raise ApiError(403, "token_required", "This service runs sealed: send the token, not a plain state.")
            try:
                match, packed = sealer.open(engine.GAME_ID, body["token"])
                state = codec.unpack(packed)  # sealed by us: trusted, no re-validation
                if not _plausible_seq(engine, state, not match.record_in_ledger):
                    raise BadToken()
            except (BadToken, ValueError):
                raise ApiError(403, "bad_state_token", "The token was not sealed by this service for this game.") from None
            if match.record_in_ledger and not referee.has_ledger:
                raise ApiError(409, "ledger_lost", "This match keeps its record in a ledger, and this service has none configured: "
                                                   "its tokens are refused. Adjudicate the moves you hold.")
            presented = caller.seat_key
            who = sealer.identify(match.match_id, engine.players(state), presented, legacy=match.legacy_seat_keys) if presented else None
            table = cls(referee, engine, codec, state, match, caller, who)
        else:
            if "token" in body:
                raise ApiError(400, "invalid_request", "This service runs open: send the plain state.", {"token": ["open mode takes state"]})
            table = cls(referee, engine, codec, codec.load_state(body["state"]), None, caller)
        expected = body.get("expected_seq")
        if expected is not None and expected != table.state.seq:
            raise RulesError("stale_state", f"expected_seq {expected} does not match the state's seq {table.state.seq}.")
        table.view_as()
        table._check_ledger(superseded)
        return table

    def view_as(self) -> None:
        """Answer as the caller's ``view_as`` seat: 422 invalid_player when it names no seat; sealed: its key.

        ``"to_move"`` (a relaying host's one round trip): the answer is the view of the seat to
        move *after* the call, resolved in ``answer``; the public view when no single seat is to
        move (finished, or several seats may act). Sealed mode: the table key only, since the seat
        it names is not known before the move.
        """
        raw = self.caller.view_as
        if raw is None:
            return
        if raw == TO_MOVE:
            if self.sealed:
                self._authorize_table("as=to_move needs the table key in X-Seat-Key.",
                                      "as=to_move needs the table key: a seat's key views only that seat.")
            self.follow_turn = True
            return
        n = self.engine.players(self.state)
        if isinstance(raw, bool) or not (
            isinstance(raw, int) or (raw.isascii() and raw.isdigit() and len(raw) <= 3)
        ) or not 0 <= int(raw) < n:
            raise RulesError("invalid_player", f"as={raw!r} names no seat 0..{n - 1} of this game.")
        seat = int(raw)
        if self.sealed and self.who != TABLE:  # a match just created answers as any seat (its creator holds every key)
            self._authorize(seat)
        self.viewer = seat

    def _authorize(self, needed: Seat) -> None:
        """Sealed mode: the caller's key must be ``needed``'s key or the table key (403 otherwise)."""
        if not self.presented:
            raise ApiError(403, "seat_key_required", f"Acting or viewing as seat {needed} needs that seat's X-Seat-Key.")
        if self.who != TABLE and self.who != needed:
            raise ApiError(403, "bad_seat_key", f"X-Seat-Key is not the key of seat {needed} of this match.")

    def _authorize_table(self, missing: str, wrong: str) -> None:
        """Sealed mode: only the table key will do (403 ``seat_key_required`` with ``missing`` when no
        key came, ``bad_seat_key`` with ``wrong`` for any other key). A match this call created is
        the table's (its creator holds every key)."""
        if self.who == TABLE:
            return
        if not self.presented:
            raise ApiError(403, "seat_key_required", missing)
        if self.who != TABLE:
            raise ApiError(403, "bad_seat_key", wrong)

    def _check_ledger(self, superseded_ok: bool = False) -> None:
        """With a ledger, every use of a token that is not its match's latest in the ledger's epoch
        is refused (409 ``token_superseded``, or ``ledger_lost`` when the ledger has lost the match),
        unless ``superseded_ok`` lets a superseded token through (``self.superseded``) to be retried
        or resumed. A token of a match registered before tokens carried the epoch takes the
        ledger's epoch on."""
        if self.match is None:
            return
        ledger = self.referee.ledger
        if ledger is None:
            return
        with _reaching_the_ledger(self.referee, "check"):
            verdict = ledger.check(self.match.epoch, self.match.match_id, self.state.seq)
        if verdict == SUPERSEDED and superseded_ok and self.match.resumable:
            self.superseded = True
            return
        _ledger_says(verdict)
        if self.match.epoch is None:
            with _reaching_the_ledger(self.referee, "epoch"):
                epoch = ledger.epoch()
            self.match = self.match.in_epoch(epoch)

    # --- retries and resumes -------------------------------------------------------------

    def _history(self) -> History:
        """What the ledger holds of this (superseded) token's match, read in one atomic step, with
        the moves this token's chain covers checked: refused 409 ``token_superseded`` when the
        ledger no longer keeps the moves after this token (a finished match past its retention),
        ``ledger_lost`` when it lost the match or its moves are not the ones the chain covers."""
        match, ledger = self.match, self.referee.ledger
        assert match is not None and ledger is not None
        with _reaching_the_ledger(self.referee, "history"):
            history = ledger.history(match.epoch, match.match_id, self.state.seq)
        if history.verdict == LOST:
            _ledger_says(LOST)
        if history.verdict == CURRENT:  # the match moved back under this token: only a lying store does that
            raise _record_mismatch()
        moves = history.moves
        if history.archived and not moves:
            raise ApiError(
                409, "token_superseded",
                "A later move of this match was already accepted: this token is no longer current, and the match is finished "
                "and past the time its moves are kept (REFEREE_LEDGER_FINISHED_TTL): its signed record was issued with its "
                "last move.",
            )
        if len(moves) == match.count or not match.covers(moves):  # a superseded token: the store holds a move after it
            raise _record_mismatch()
        return history

    def catch_up(self, history: History | None = None) -> list[Any]:
        """Resume: this table moves forward from its (superseded) token's position to the match's
        current one by the moves the ledger keeps after it, each applied as it was recorded (a deck
        the service dealt, from the match secret). Forward only: never an older position. The
        events of those moves, in order (the answer shows each as its viewer may see it)."""
        history = self._history() if history is None else history
        engine, codec = self.engine, self.codec
        players = engine.players(self.state)
        events: list[Any] = []
        assert self.match is not None
        for text in history.moves[self.match.count :]:
            move = codec.load_move(orjson.loads(text), players)
            if isinstance(move, NextDeal) and move.deck is None:
                move = NextDeal(move.player, self.next_deck(self.state))
            try:
                self.state, step_events = engine.step(self.state, move)
            except RulesError:  # the store holds a move the rules refuse: not the match it should hold
                raise _record_mismatch() from None
            events.extend(step_events)
            self.match = self.match.with_move(text)
        if self.state.seq != history.seq:
            raise _record_mismatch()
        self.superseded = False
        self._token = None
        self._record_moves = list(history.moves)
        return events

    def retry(self, raw_move: dict[str, Any]) -> dict[str, Any]:
        """A move sent with a superseded token: when it is the move the ledger recorded from this
        token (its ``at`` the referee's first stamp, for a seat's timed move), the answer of the
        first time: its events (then those of any move accepted since) and the current position with
        a current token. Any other move is 409 ``token_superseded``."""
        history = self._history()
        assert self.match is not None
        recorded = history.moves[self.match.count]
        move = self.move(raw_move, at=_stamp_of(recorded))  # the same authorization as the first time
        wire = to_wire(move)
        if self._filled_deck:
            wire.pop("deck", None)
        if canonical(wire) != recorded:
            _ledger_says(SUPERSEDED)
        return self.answer(self.catch_up(history))

    # --- acting -----------------------------------------------------------------------------

    def move(self, raw_move: dict[str, Any], at: int | None = None) -> Any:
        """The parsed move as the engine gets it: sealed mode checks the actor's key against the
        move's seat, stamps a seat's own flips and claims with the server clock (``at``: with this
        time instead, a retry's first stamp), and every ``next_deal`` without a deck gets the next
        deal (from the seed, or the match secret)."""
        players = self.engine.players(self.state)
        if self.sealed and isinstance(self.who, int):
            raw_move = self._stamped(raw_move, at)
        move = self.codec.load_move(raw_move, players)
        if self.sealed:
            self._authorize_move(move)
        self._filled_deck = False
        if not isinstance(move, NextDeal):
            return move
        if move.deck is not None:
            self.referee.fixed_decks_allowed("A deck in next_deal")
            return move
        self._filled_deck = True
        return NextDeal(move.player, self.next_deck(self.state))

    def _stamped(self, raw: dict[str, Any], at: int | None = None) -> dict[str, Any]:
        """A timed move sent with a seat's own key, with ``at`` = ms since the match began (never
        before the last flip: instances' clocks may differ slightly), or the ``at`` given. The
        client's ``at`` is ignored."""
        classes = self.engine.GAME.move_classes
        cls = classes.get(raw.get("type")) if isinstance(raw.get("type"), str) else None
        if cls is None or not issubclass(cls, (Flip, SingleClaim, BatchClaim)):
            return raw
        assert self.match is not None
        if at is None:
            last = getattr(self.state, "last_flip_at", None) or 0
            at = min(MAX_AT, max(self._now() - self.match.t0, last))
        if issubclass(cls, BatchClaim):
            claims = raw.get("claims")
            if not isinstance(claims, list):
                return raw
            return {**raw, "claims": [{**c, "at": at} if isinstance(c, dict) else c for c in claims]}
        return {**raw, "at": at}

    def _authorize_move(self, move: Any) -> None:
        presented = self.presented
        claims = getattr(move, "claims", None)  # a batch of claims (slaps, snaps) names no single player
        claimants = {c.player for c in claims} if claims else set()
        if len(claimants) == 1:
            self._authorize(claimants.pop())
        elif claimants:  # claims of several seats: only the table (the judges) may send them together
            why = "Claims of several seats in one move need the table key in X-Seat-Key."
            self._authorize_table(why, why)
        elif move.player is not None:
            self._authorize(move.player)
        else:  # an unreadable seat: the engine refuses the move, but only for a player of this match
            if not presented:
                raise ApiError(403, "seat_key_required", "Acting needs an X-Seat-Key of this match.")
            if self.who is None:
                raise ApiError(403, "bad_seat_key", "X-Seat-Key is not a key of this match.")

    def next_deck(self, state: Any) -> tuple[Any, ...]:
        """The deck of the deal after ``state``'s, for a ``next_deal`` sent without one: sealed, from
        the match secret (or the setup's seed); open, from the state's seed, else the CSPRNG."""
        if self.match is not None:
            return sealed_deal(self.engine, state, self.match.secret, (self.match.setup or {}).get("seed"))
        pack = self.engine.pack(state.options, self.engine.players(state))
        seed = getattr(state, "seed", None)
        return deal_deck(pack, seed + state.deal_number) if seed is not None else tuple(_SYSTEM_RANDOM.sample(pack, len(pack)))

    def accept(self, move: Any, new_state: Any) -> bool:
        """Make ``new_state`` (after ``move``) this table's, the move joining the record. Sealed
        mode seals the answer's token first: one that would be longer than the service accepts is
        422 ``token_too_large``, and the ledger has not moved, so the token sent stays current. With
        a ledger, then the compare-and-set that lets exactly one move from a token win: False when
        another request from this token was recorded first (the caller judges this one as a retry
        of it), True when this move was recorded (or there is no ledger)."""
        before, seq = self.match, self.state.seq
        self.replay_move(move, new_state, self._filled_deck)
        if before is None:
            return True
        self._token = self._seal()
        ledger = self.referee.ledger
        if ledger is None:
            return True
        finished = self.engine.status(new_state) == "finished"
        text = None
        if before.record_in_ledger:  # appended in the same atomic step as the compare-and-set
            text = self._unstored.pop()
            if finished and self.referee.signer is not None:  # the record's moves, checked before the ledger moves
                with _reaching_the_ledger(self.referee, "history"):
                    history = ledger.history(before.epoch, before.match_id, seq)
                if history.verdict == SUPERSEDED:
                    return False
                _ledger_says(history.verdict)
                if len(history.moves) != before.count or not before.covers(history.moves):
                    raise _record_mismatch()
                self._record_moves = [*history.moves, text]
        with _reaching_the_ledger(self.referee, "advance"):
            verdict = ledger.advance(before.epoch, before.match_id, seq, text, finished)
        if verdict == SUPERSEDED and before.resumable:
            return False
        _ledger_says(verdict)
        return True

    def replay_move(self, move: Any, new_state: Any, dealt: bool) -> None:
        """``new_state`` (after ``move``) is this table's; sealed, the move joins the record as applied
        (a deck the service ``dealt`` is recomputed from the secret, not recorded)."""
        if self.match is not None:
            wire = to_wire(move)
            if dealt and isinstance(move, NextDeal):
                wire.pop("deck", None)
            text = canonical(wire)
            self.match = self.match.with_move(text)
            if self.match.record_in_ledger:
                self._unstored.append(text)
        self.state = new_state
        self._token = None

    # --- answering --------------------------------------------------------------------------

    def answer(self, events: Sequence[Any], *, keys: bool = False) -> dict[str, Any]:
        """The envelope for this table's state as ``self.viewer`` may see it; sealed mode adds the
        padded token, ``fairness`` and, once finished, the signed ``record`` (and on ``new`` the keys)."""
        sealer = self.referee.sealer
        if self.follow_turn:
            movers = self.engine.to_move(self.state)
            self.viewer = next(iter(movers)) if len(movers) == 1 else None
        full = sealer is None and self.viewer is None and not self.follow_turn  # as=to_move never answers the full state
        env = envelope(self.engine, self.codec, self.state, events, self.viewer, full=full)
        if sealer is None or self.match is None:
            return env
        if self.created:
            self._register()
        engine, state = self.engine, self.state
        match = self.match
        assert match is not None
        players = engine.players(state)
        env["token"] = self._token if self._token is not None else self._seal()
        finished = engine.status(state) == "finished"
        env["fairness"] = fairness(match.secret, match.match_id, finished)
        if finished and not self.replayed:
            signer = self.referee.signer
            record = self.record() if signer is not None else None
            if signer is not None and record is not None:
                env["record"] = signer.sign(record)
        if keys:
            legacy = match.legacy_seat_keys
            env["seat_keys"] = [sealer.seat_key(match.match_id, s, legacy=legacy) for s in range(players)]
            env["table_key"] = sealer.seat_key(match.match_id, TABLE, legacy=legacy)
        return env

    def _register(self) -> None:
        """A match begun by this call (``new``, sealed ``replay``) enters the ledger at its
        ``seq``; its token carries the ledger's epoch from now on."""
        ledger = self.referee.ledger
        if ledger is None or self.match is None:
            return
        with _reaching_the_ledger(self.referee, "register"):
            epoch = ledger.register(self.match.match_id, self.state.seq, self._unstored)  # a sealed replay's moves
        self._unstored = []
        self.match = self.match.in_epoch(epoch)
        self.created = False

    def _stored_moves(self, ledger: Ledger, match: Match) -> list[str] | None:
        """The record's moves as the ledger keeps them, checked against ``match``'s hash chain
        (409 ``ledger_lost`` when they differ in any way); None when the match is finished and
        past the time its moves are kept (its record was issued while they were)."""
        with _reaching_the_ledger(self.referee, "history"):
            history = ledger.history(match.epoch, match.match_id, self.state.seq)
        _ledger_says(history.verdict)
        if history.archived and not history.moves:
            return None
        moves = list(history.moves)
        if len(moves) != match.count or not match.covers(moves):
            raise _record_mismatch()
        return moves

    def _seal(self) -> str:
        """This table's token, padded (422 ``token_too_large`` when it would exceed ``MAX_TOKEN_CHARS``)."""
        sealer = self.referee.sealer
        assert sealer is not None and self.match is not None
        engine, state = self.engine, self.state
        pad = pad_target(engine.GAME_ID, engine.players(state), state.seq, not self.match.record_in_ledger)
        try:
            return sealer.seal(engine.GAME_ID, self.match.match_id, self.codec.pack(state), self.match, pad_to=pad)
        except TokenTooLarge:
            raise ApiError(
                422, "token_too_large",
                f"After this move the match's token would be longer than {MAX_TOKEN_CHARS} characters, the most the service "
                "accepts, so the move is refused and the token sent stays current. Set a stall_limit (Snap, Slapjack) or "
                "adjudicate the match from its moves.",
            ) from None

    def record(self) -> dict[str, Any] | None:
        """The finished match as data (records.py), unsigned; None once the ledger no longer keeps
        its moves (a finished match past ``REFEREE_LEDGER_FINISHED_TTL``)."""
        import json

        assert self.match is not None
        engine, state, match = self.engine, self.state, self.match
        moves = match.moves
        if match.record_in_ledger:  # read from the store and checked against the token's chain
            if self._record_moves is None:
                ledger = self.referee.ledger
                assert ledger is not None  # begin refused the token otherwise
                self._record_moves = self._stored_moves(ledger, match)
                if self._record_moves is None:
                    return None
            moves = ",".join(self._record_moves)
        doc: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "game": engine.GAME_ID,
            "rules_version": engine.RULES_VERSION,
            "players": engine.players(state),
            "options": to_wire(state.options) if hasattr(state, "options") else {},
            "match_id": match.match_id,
            "fairness": fairness(match.secret, match.match_id, True),
            "moves": json.loads("[" + moves + "]"),
            "result": result_of(engine, state),
        }
        if match.setup:
            doc["setup"] = match.setup
        return doc


def _stamp_of(recorded: str) -> int | None:
    """The ``at`` the referee stamped on a recorded timed move (a claim's or a batch's first
    claim's), else None."""
    raw = orjson.loads(recorded)
    if not isinstance(raw, dict):
        return None
    at = raw.get("at")
    claims = raw.get("claims")
    if at is None and isinstance(claims, list) and claims and isinstance(claims[0], dict):
        at = claims[0].get("at")
    return at if type(at) is int else None


def _every_move_of_the_game(codec: GameCodec, moves: Sequence[Any]) -> None:
    """A replay's log is parsed whole before any engine runs: an entry that is not a move of this
    game as the contract writes it (``<Game>Move``) is a malformed request, 400 with the JSON
    Pointer of each such entry (at most MAX_ERRORS); a well-formed move the rules refuse is judged
    (``first_illegal``)."""
    errors: dict[str, list[str]] = {}
    for index, raw in enumerate(moves):
        found = codec.move_problem(raw)
        if found is not None:
            errors[f"/moves/{index}{found[0]}"] = [found[1]]
            if len(errors) == MAX_ERRORS:
                break
    if errors:
        where, (message,) = next(iter(errors.items()))
        detail = f"{where}: {message} (a replay's moves must each be a move of this game)"
        raise ApiError(400, "invalid_request", detail, errors)


def _time_of(caller: Caller, referee: Referee) -> int:
    """The time of ``caller``'s call: its own, else the referee's clock."""
    return referee.clock() if caller.now_ms is None else caller.now_ms
