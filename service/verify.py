"""Verify a signed match record (or a signed replay verdict) offline, without a server.

    card-referee verify record.json --keys keys.json      # = python3 -m card_referee.verify (service.verify in a checkout)

``keys.json`` is the JWK Set the service publishes at ``GET /v1/keys``. For a record it checks the
Ed25519 signature, the commitment against the revealed secret, rebuilds every deal from the secret,
replays every move with this package's engines (``records.adjudicate``, on the replay loop the
service's ``replay`` runs: ``service/replay.py``) and compares the result with the recorded one. For
a verdict (``format`` card-referee-verdict/1) it checks the signature. Exit status 0 when
everything holds, 1 with the reason on stderr otherwise, 2 for unusable arguments or files.

Both files are read as bytes, by the reader the service reads a request body with
(``service.jsonio``: UTF-8 without a byte-order mark, I-JSON), so a record gets the same answer
here as posted to ``replay``: a record or verdict that is not UTF-8 JSON text (UTF-16 or UTF-32, a
byte-order mark, bytes that are not UTF-8, a lone surrogate) is refused, ``FAILED (bad_encoding)``, as
the service answers 400 ``bad_encoding``; one that names a member twice (``"result"`` forged first, the
signed one last) is ``FAILED (duplicate_member)`` (400 ``duplicate_member``), since readers that
keep the first value and readers that keep the last would disagree about what was signed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import jsonio
from .records import RECORD_FORMAT, VERDICT_FORMAT, RecordError, adjudicate, check_signature, public_keys


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    prog = prog or f"python3 -m {__spec__.name if __spec__ is not None else __name__}"  # card_referee.verify, or service.verify
    parser = argparse.ArgumentParser(prog=prog, description="Verify a Card Referee match record offline.")
    parser.add_argument("record", help="the record (or verdict) JSON file; '-' reads standard input")
    parser.add_argument("--keys", required=True, help="the JWK Set file (GET /v1/keys)")
    args = parser.parse_args(argv)
    try:
        data = sys.stdin.buffer.read() if args.record == "-" else Path(args.record).read_bytes()
        doc = jsonio.loads(data)
    except (jsonio.DuplicateMember, jsonio.BadEncoding) as exc:
        print(f"FAILED ({exc.code}): {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        keys = public_keys(jsonio.loads(Path(args.keys).read_bytes()))
    except (OSError, ValueError) as exc:
        print(f"error: the key file {args.keys}: {exc}", file=sys.stderr)
        return 2
    if not keys:
        print("error: the key file holds no Ed25519 key (expected a JWK Set: {\"keys\": [...]})", file=sys.stderr)
        return 2
    if isinstance(doc, dict) and isinstance(doc.get("record"), dict) and "format" not in doc:
        doc = doc["record"]  # a whole finished envelope: its record
    kind = doc.get("format") if isinstance(doc, dict) else None
    try:
        if kind == VERDICT_FORMAT:
            check_signature(doc, keys)
            print(f"verdict OK: signed by {doc['key_id']}; result_matches={doc.get('result_matches')}")
            return 0
        verdict = adjudicate(doc, keys)
    except RecordError as exc:
        print(f"FAILED ({exc.code}): {exc.detail}", file=sys.stderr)
        return 1
    if verdict.first_illegal is not None:
        bad = verdict.first_illegal
        print(f"FAILED (illegal_move): move {bad['index']} {json.dumps(bad['move'])} is refused: {bad['error']['code']}", file=sys.stderr)
        return 1
    if not verdict.result_matches:
        print(f"FAILED (result_mismatch): replayed {json.dumps(verdict.result)}, recorded {json.dumps(doc['result'])}", file=sys.stderr)
        return 1
    print(
        f"record OK ({RECORD_FORMAT}): {doc['game']} match {doc['match_id']}, signature by {doc['key_id']}, "
        f"commitment holds, {verdict.moves_total} moves replayed from the revealed secret, result {json.dumps(verdict.result)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
