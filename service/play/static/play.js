/* Card Referee: the card table and the dispute desk.
 *
 * A client of the public API like any other (GET /v1/games, /readyz, /v1/keys; POST
 * /v1/games/{id}/new | state | moves | replay). It knows no game's rules: the new-game form comes
 * from the catalogue, the table is laid out from the envelope and the state (or view) by shape and
 * by well-known field names, and every legal move comes from legal_moves.
 *
 * Numbers: API JSON is read and written by the small parser below, which keeps every integer
 * beyond Number.MAX_SAFE_INTEGER as a BigInt and writes it back digit for digit, so a seed or a
 * state never changes on its way through the page.
 */
"use strict";

(() => {
  // ================================================================== exact JSON

  const J = (() => {
    const NUM = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    const STR = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

    class JsonError extends Error {
      constructor(expected, text, at) {
        const before = text.slice(0, at);
        const line = before.split("\n").length;
        const column = at - before.lastIndexOf("\n");
        const found = at >= text.length ? "the end of the text" : `“${text.slice(at, at + 12).replace(/\s+/g, " ")}”`;
        super(`at line ${line}, column ${column} the page expected ${expected} but found ${found}.`);
        this.line = line; this.column = column;
      }
    }

    function parse(text) {
      let i = 0;
      const ws = () => { while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++; };
      const fail = (expected) => { throw new JsonError(expected, text, i); };
      function str() {
        STR.lastIndex = i;
        const m = STR.exec(text);
        if (!m) fail("a complete string in double quotes");
        i = STR.lastIndex;
        return JSON.parse(m[0]);
      }
      function value(depth) {
        if (depth > 200) fail("less deeply nested data");
        ws();
        const c = text[i];
        if (c === "{") {
          i++;
          const o = {};
          ws();
          if (text[i] === "}") { i++; return o; }
          for (;;) {
            ws();
            if (text[i] !== '"') fail("a member name in double quotes");
            const k = str();
            ws();
            if (text[i] !== ":") fail("a colon after a member name");
            i++;
            Object.defineProperty(o, k, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
            ws();
            if (text[i] === ",") { i++; continue; }
            if (text[i] === "}") { i++; return o; }
            fail("a comma or a closing brace }");
          }
        }
        if (c === "[") {
          i++;
          const a = [];
          ws();
          if (text[i] === "]") { i++; return a; }
          for (;;) {
            a.push(value(depth + 1));
            ws();
            if (text[i] === ",") { i++; continue; }
            if (text[i] === "]") { i++; return a; }
            fail("a comma or a closing bracket ]");
          }
        }
        if (c === '"') return str();
        if (text.startsWith("true", i)) { i += 4; return true; }
        if (text.startsWith("false", i)) { i += 5; return false; }
        if (text.startsWith("null", i)) { i += 4; return null; }
        NUM.lastIndex = i;
        const m = NUM.exec(text);
        if (m) {
          i = NUM.lastIndex;
          if (!m[1] && !m[2]) {
            const n = Number(m[0]);
            return Number.isSafeInteger(n) ? n : BigInt(m[0]);
          }
          return Number(m[0]);
        }
        fail("a value (an object, a list, a string, a number, true, false or null)");
      }
      const v = value(0);
      ws();
      if (i < text.length) fail("nothing more after the value");
      return v;
    }

    function stringify(v, indent, depth) {
      depth = depth || 0;
      if (typeof v === "bigint") return v.toString();
      if (v === null || typeof v !== "object") return v === undefined ? "null" : JSON.stringify(v);
      const pad = indent ? "\n" + " ".repeat(indent * (depth + 1)) : "";
      const end = indent ? "\n" + " ".repeat(indent * depth) : "";
      const sep = indent ? ": " : ":";
      if (Array.isArray(v)) {
        if (!v.length) return "[]";
        return "[" + v.map((x) => pad + stringify(x, indent, depth + 1)).join(",") + end + "]";
      }
      const parts = Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => pad + JSON.stringify(k) + sep + stringify(x, indent, depth + 1));
      return parts.length ? "{" + parts.join(",") + end + "}" : "{}";
    }

    return { parse, stringify, JsonError };
  })();

  // ================================================================== small helpers

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k.startsWith("data")) node.setAttribute(k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()), String(v));
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const LABELS = {
    hands: "hand", hidden: "face-down cards", up: "face-up cards", balances: "balance", contrib: "bet this hand",
    blinds: "blind", game_points: "game points", tricks_won: "tricks won", card_points: "card points",
    marriage_points: "marriage points", stocks: "stock", stock_counts: "stock", faceups: "face-up pile",
    faceup_tops: "face-up pile", faceup_counts: "face-up pile", cards_held: "cards held", won_counts: "cards won",
    hand_counts: "cards in hand", hidden_counts: "face-down cards", discard_counts: "discarded", talon: "talon",
    talon_count: "talon", talon_size: "talon", stock_count: "stock", deck_count: "deck", dead_count: "dead cards",
    center_top: "centre pile", center_count: "centre pile", center: "centre pile", pool_top: "pool", pool_count: "pool",
    trick: "trick on the table", last_trick: "last trick", draws: "cards drawn", known_opponent_cards: "opponent's known cards",
    known_cards: "known cards", opponent_hand_count: "hand", hand_count: "hand", known_opponent_cards: "cards it has shown", exposed_count: "exposed", current_bet: "current bet",
    hand_card: "hand card", stock_top: "stock", tableau: "tableau", foundations: "foundation", waste: "waste",
    declarations: "declaration", exchanged: "exchanged", folded: "folded", status: "status", set_aside: "set aside",
    turnup: "turn-up", trump_card: "trump card", completed_tricks: "tricks played", tricks: "tricks taken",
    totals: "total", parties: "party", side_totals: "side total", game_totals: "game (card values)",
  };
  const label = (key) => LABELS[key] || String(key).replace(/_/g, " ");
  const plain = (key) => String(key).replace(/_/g, " ");
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const isInt = (v) => Number.isInteger(v) || typeof v === "bigint";
  const CARD_RE = /^(10|[2-9JQKA])([SHDC])(?:\/([a-z]))?$/;
  const isCard = (v) => typeof v === "string" && CARD_RE.test(v);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", 10: "ten", 9: "nine", 8: "eight", 7: "seven", 6: "six", 5: "five", 4: "four", 3: "three", 2: "two" };
  const isCardList = (v) => Array.isArray(v) && v.length > 0 && v.every(isCard);
  const isCardOrNullList = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => x === null || isCard(x)) && v.some(isCard);
  const isPlayed = (v) => isObj(v) && isCard(v.card) && (v.player === undefined || Number.isInteger(v.player) || v.player === null);
  const isTrick = (v) => Array.isArray(v) && v.length > 0 && v.every(isPlayed);
  const seatName = (s) => (Number.isInteger(s) ? `seat ${s}` : String(s));
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

  function cardWords(card) {
    const m = CARD_RE.exec(card);
    if (!m) return String(card);
    return `${RANK_NAMES[m[1]]} of ${SUIT_NAMES[m[2]]}${m[3] ? ` (pack ${m[3]})` : ""}`;
  }
  const cardNote = (card) => { const m = CARD_RE.exec(card); return m ? `${m[1]}${SUITS[m[2]]}${m[3] ? "/" + m[3] : ""}` : String(card); };
  /* A card button's accessible name: its visible notation first, then the words. */
  const cardName = (card) => `${cardNote(card)}, ${cardWords(card)}`;
  const cardsN = (n) => `${n} card${Number(n) === 1 ? "" : "s"}`;
  const suitOf = (card) => { const m = CARD_RE.exec(card || ""); return m ? m[2] : null; };

  async function api(method, path, body, key) {
    const headers = { Accept: "application/json, application/problem+json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["X-Seat-Key"] = key;
    let response, text;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : J.stringify(body) });
      text = await response.text();
    } catch (err) {
      return { ok: false, network: true, status: 0, data: { title: "No answer from the service", detail: `The request did not reach the service, or its answer was lost (${err.message}). Nothing was judged: check the connection and try again.` } };
    }
    let data = null;
    try { data = J.parse(text); } catch (err) { data = null; }
    if (response.status >= 500 || data === null) {
      return { ok: false, network: true, status: response.status, data: { title: `The service could not answer (HTTP ${response.status})`, detail: "This is a failure of the service or the network, not a ruling on your move. Try again in a moment." } };
    }
    return { ok: response.ok, network: false, status: response.status, data };
  }

  // ================================================================== cards

  /* A card face. opts: {button: true, state: "legal"|"illegal"|"pick"|"target", owner, inHand, from, mini} */
  function cardEl(card, opts) {
    opts = opts || {};
    const m = CARD_RE.exec(card);
    const rank = m[1], suit = m[2], deckTag = m[3];
    const red = suit === "H" || suit === "D";
    const words = cardWords(card);
    const cls = ["card", "face", red ? "red" : "black"];
    if (opts.mini) cls.push("mini");
    const inner = [
      el("span", { class: "corner", "aria-hidden": "true" }, el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUITS[suit] })),
      el("span", { class: "pip", "aria-hidden": "true", text: SUITS[suit] }),
      deckTag ? el("span", { class: "deck-tag", "aria-hidden": "true", text: deckTag }) : null,
    ];
    const attrs = { class: cls.join(" "), dataCard: card, title: words };
    if (opts.owner !== undefined && opts.owner !== null) attrs.dataOwner = opts.owner;
    if (opts.inHand) attrs.dataInHand = "1";
    if (opts.from) attrs.dataFrom = opts.from;
    // a button's name begins with what it shows ("Q♠, queen of spades"): WCAG 2.5.3, label in name
    if (opts.button) return el("button", { ...attrs, type: "button", "aria-label": cardName(card) }, inner);
    return el("span", { ...attrs, role: "img", "aria-label": words }, inner);
  }

  const backEl = () => el("span", { class: "card back", title: "a hidden card", role: "img", "aria-label": "hidden card" });

  function backs(count, fanned) {
    if (!isInt(count) || count < 0) return el("span", { class: "muted", text: String(count) });
    if (Number(count) === 0) return el("span", { class: "muted", text: "none" });
    if (fanned) {
      const shown = Math.min(Number(count), 13);
      const row = el("span", { class: "cards fan", dataCount: count, role: "img", "aria-label": `${count} hidden card${count === 1 ? "" : "s"}` });
      for (let i = 0; i < shown; i++) row.append(el("span", { class: "card back", "aria-hidden": "true" }));
      if (shown < count) row.append(el("span", { class: "more", "aria-hidden": "true", text: `+${Number(count) - shown}` }));
      return row;
    }
    return el("span", { class: "pile", dataCount: count, role: "img", "aria-label": `a pile of ${count} hidden card${count === 1 ? "" : "s"}` },
      el("span", { class: "card back", "aria-hidden": "true" }), el("span", { class: "pile-count", "aria-hidden": "true", text: `×${count}` }));
  }

  /* Inline card notation for the log and the sentences: "Q♠", read as "queen of spades". */
  const noteEl = (card) => el("span", { class: `note ${suitOf(card) === "H" || suitOf(card) === "D" ? "red" : "black"}`, dataCard: card, title: cardWords(card) },
    el("span", { "aria-hidden": "true", text: cardNote(card) }), el("span", { class: "sr-only", text: cardWords(card) }));

  // ================================================================== words: moves, events, values

  function wordsValue(v) {
    if (v === null || v === undefined) return "none";
    if (isCard(v)) return noteEl(v);
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v !== "object") return String(v);
    if (Array.isArray(v)) {
      if (!v.length) return "none";
      if (v.every((x) => x === null || isCard(x))) return joinParts(v.map((c) => (c === null ? "a hidden card" : noteEl(c))), " ");
      if (isTrick(v)) return joinParts(v.map((p) => [noteEl(p.card), p.player === undefined || p.player === null ? "" : ` (${seatName(p.player)})`]), ", ");
      return joinParts(v.map(wordsValue), ", ");
    }
    const entries = Object.entries(v);
    if (entries.length && entries.every(([k]) => /^\d+$/.test(k))) return joinParts(entries.map(([k, x]) => [`${seatName(Number(k))}: `, wordsValue(x)]), "; ");
    return joinParts(entries.map(([k, x]) => [`${plain(k)} `, wordsValue(x)]), "; ");
  }

  function joinParts(parts, sep) {
    const out = [];
    parts.forEach((p, i) => { if (i) out.push(sep); out.push(p); });
    return out;
  }

  const seats = (w) => (Array.isArray(w) ? (w.length ? w.map(seatName).join(" and ") : "nobody") : Number.isInteger(w) ? seatName(w) : w === null || w === undefined ? "nobody" : String(w));

  const REASONS = {
    claim: "a correct claim of 66", false_claim: "a wrong claim of 66", last_trick: "the last trick", closer_failed: "the closer did not reach 66",
    all_cards: "one seat holds every card", stall: "too many flips without a snap",
    agreed: "a draw agreed by both seats", stalled: "too many moves in a row without progress (the stall limit)",
  };
  const reason = (r) => REASONS[r] || plain(r);

  /* A list of numbers, one per seat (or side, or party): "seat 0 59, seat 1 61". */
  function perSeat(v, word) {
    if (Array.isArray(v)) return v.map((x, s) => `${word || "seat"} ${s} ${x === null ? "—" : x}`).join(", ");
    if (isObj(v)) return Object.entries(v).map(([k, x]) => `${word || "seat"} ${k} ${Array.isArray(x) ? x.join(" · ") : x}`).join(", ");
    return String(v);
  }

  /* End-of-hand points (Seven Up, California Jack): "high A♣ to seat 1". */
  function awardsWords(awards) {
    return joinParts((awards || []).filter(isObj).map((a) => [a.point === "game" ? "game" : `${a.point} `, isCard(a.card) ? noteEl(a.card) : "",
      a.credited === false ? " (not scored)" : Number.isInteger(a.seat) ? [" to ", seatName(a.seat), Number.isInteger(a.party) ? ` (party ${a.party})` : ""]
        : Number.isInteger(a.party) ? ` to party ${a.party}` : " (tied: nobody)"]), ", ");
  }

  /* Stukolka's settlement of a deal (§7). */
  function stukolkaResult(r) {
    if (!isObj(r)) return ["Deal over."];
    const carry = isInt(r.carry) && Number(r.carry) > 0 ? ` ${r.carry} carried to the next deal.` : "";
    if (r.kind === "all_passed") return [`Deal over: everybody passed, nobody plays and the pot of ${r.pot} goes to the next deal.`];
    if (r.kind === "dealer_takes") return [`Deal over: only the dealer, ${seatName(r.winner)}, tapped and takes the pot of ${r.pot}.`, carry];
    if (r.kind === "lone_tapper_takes") return [`Deal over: ${seatName(r.winner)} tapped alone and takes the pot of ${r.pot}.`, carry];
    const won = Object.entries(isObj(r.winnings) ? r.winnings : {}).map(([s, x]) => `${seatName(Number(s))} wins ${x}`);
    const tricks = Array.isArray(r.tricks) ? r.tricks.map((t, s) => `${seatName(s)} ${t}`).join(", ") : "";
    return [`Deal over: tricks taken ${tricks}; each trick pays ${r.third} (a third of the pot of ${r.pot})`, won.length ? `; ${won.join(", ")}` : "", ".",
      Array.isArray(r.remized) && r.remized.length ? ` Remized (no trick): ${seats(r.remized)}, paying ${r.remiz} each.` : "",
      Array.isArray(r.penalized) && r.penalized.length ? ` Penalized: ${seats(r.penalized)}, paying ${r.remiz} each.` : "", carry];
  }

  /* Bragging's end of a hand (§7). */
  function braggingResult(ev) {
    const winners = Array.isArray(ev.winners) ? ev.winners : [];
    const hands = isObj(ev.hands) ? Object.entries(ev.hands) : [];
    const shown = hands.length ? [" Hands: ", joinParts(hands.map(([s, cards]) => [`${seatName(Number(s))} `, wordsValue(cards),
      isObj(ev.values) && Array.isArray(ev.values[s]) ? ` (value ${ev.values[s].join(" · ")})` : ""]), "; "), "."] : "";
    const shares = isObj(ev.shares) && winners.length > 1 ? ` Shares: ${Object.entries(ev.shares).map(([s, x]) => `${seatName(Number(s))} ${x}`).join(", ")}.` : "";
    if (ev.kind === "uncontested") return [`Hand over: every other seat folded, ${seats(winners)} takes the pot of ${ev.pot}.`, shown];
    if (ev.kind === "tie_carried") return [`Hand over: a tie between ${seats(winners)}, so the pot of ${ev.pot} is carried to the next hand.`, shown];
    return [`Showdown: ${seats(winners)} ${winners.length > 1 ? "share" : "wins"} the pot of ${ev.pot}.`, shares, shown];
  }

  /* Who was slower, stale or out after a claim, as a clause. */
  function claimRest(ev) {
    const out = [];
    if (Array.isArray(ev.slower) && ev.slower.length) out.push(`${seats(ev.slower)} ${ev.slower.length > 1 ? "were" : "was"} slower`);
    if (Array.isArray(ev.stale) && ev.stale.length) out.push(`${seats(ev.stale)} claimed an earlier card`);
    if (Array.isArray(ev.out) && ev.out.length) out.push(`${seats(ev.out)} ${ev.out.length > 1 ? "are" : "is"} out`);
    return out.length ? `; ${out.join("; ")}` : "";
  }

  /* A false slap's cost: the slapper gives a card to the seat whose card lies on top, unless that is itself. */
  function penaltyWords(x) {
    if (x.paid !== false) return `${seatName(x.from)} gives a card to ${seatName(x.to)}`;
    if (x.from === x.to) return `${seatName(x.from)} put the top card there itself, so gives nothing`;
    return `${seatName(x.from)} gives nothing (no card left to give, or false slaps cost nothing at this table)`;
  }

  /* A refusal in a player's words; the code, the service's detail and the field paths stay in the
   * details under it (problemEl). */
  const REFUSALS = {
    not_your_turn: (m) => `It is not ${m && Number.isInteger(m.player) ? seatName(m.player) + "'s" : "this seat's"} turn.`,
    game_over: () => "The game is over: no more moves.",
    wrong_phase: () => "That move does not fit this moment of the game.",
    card_not_in_hand: () => "That card is not in the hand.",
    invalid_card: () => "That is not a card of this game's pack.",
    duplicate_card: () => "The same card is named twice.",
    invalid_move: () => "That is not a move this page (or the referee) can read: something it needs is missing or wrong.",
    unknown_move_type: () => "This game has no such move.",
    invalid_player: () => "There is no such seat at this table.",
    must_follow_suit: () => "You must follow the suit that was led.",
    must_head_trick: () => "You must beat the trick if you can.",
    must_trump: () => "You cannot follow suit, so you must play a trump.",
    must_beat: () => "You must beat the winning card if you can.",
    must_lead_trump_ace: () => "You hold the trump ace, so you must lead it.",
    must_lead_trump_king: () => "You must lead the trump king.",
    must_play_yukon: () => "You cannot follow suit but hold a jack, so you must play it.",
    must_play_marriage_card: () => "After declaring a marriage you must lead its king or queen.",
    not_leader: () => "Only the seat that leads may do that.",
    claim_not_allowed: () => "Claims are automatic at this table.",
    marriage_pending: () => "Lead the king or queen of your marriage first.",
    talon_closed: () => "The talon is closed.",
    talon_exhausted: () => "The talon is used up.",
    no_trump_jack: () => "You do not hold the trump jack.",
    talon_too_small: () => "Too few cards are left in the talon for that.",
    no_marriage: () => "You do not hold both the king and the queen of that suit.",
    marriage_requires_trick: () => "You must win a trick before you declare a marriage.",
    wrong_discard_count: () => "Discard exactly enough cards to keep six.",
    gift_not_allowed: () => "The dealer may not give the winning point: run the cards instead.",
    too_many_cards: () => "That is more cards than you may exchange.",
    not_enough_stock: () => "The stock does not hold that many cards.",
    invalid_amount: () => "That amount is not allowed here.",
    blind_too_small: () => "A blind must be higher than every blind already staked.",
    wrong_number_of_cards: () => "That is the wrong number of cards.",
    cannot_check: () => "You cannot check while facing a bet.",
    nothing_to_call: () => "There is no bet to call.",
    raise_too_small: () => "That raise is too small.",
    player_out: () => "That seat is out of the game.",
    bad_timestamp: () => "The press carried no usable time, so it was not judged.",
    timestamp_out_of_order: () => "That flip came before the last one.",
    no_claims: () => "Nobody claimed.",
    duplicate_claim: () => "The same seat claimed twice.",
    center_empty: () => "There is nothing in the centre to slap.",
    stale_claim: () => "Too late: that press came before the last card was turned.",
    invalid_source: () => "You cannot move a card from there.",
    invalid_target: () => "A card cannot go there.",
    source_empty: () => "That pile has no card to move.",
    card_mismatch: () => "That card is not the free card of that pile.",
    same_pile: () => "The card is already on that pile.",
    foundation_mismatch: () => "That card fits no foundation.",
    tableau_mismatch: () => "On the tableau a card goes on one rank higher of the other colour.",
    waste_loading_not_allowed: () => "Only the second player may load the opponent's waste at this table.",
    target_empty: () => "That pile is empty, so you cannot load it.",
    load_mismatch: () => "A card loaded on the opponent's pile must be of the same suit and one rank apart.",
    hand_card_up: () => "A hand card is already face up: play it or discard it first.",
    nothing_to_flip: () => "Your hand and waste are empty, so there is nothing to turn: pass instead.",
    no_hand_card: () => "No hand card is face up to discard.",
    cannot_pass: () => "You may pass only when you have no card left to turn.",
    priority_violation: () => "A compulsory move comes first: a card to a foundation, or filling an empty tableau pile.",
    draw_offer_pending: () => "A draw has been offered: accept it or decline it first.",
    no_draw_offer: () => "No draw has been offered to answer.",
    draw_already_offered: () => "You have already offered a draw this turn.",
    seat_key_required: () => "This seat's key is needed for that.",
    bad_seat_key: () => "That key is not this seat's.",
    token_superseded: () => "Another move was made meanwhile: this position is no longer the current one.",
    fixed_deck_forbidden: () => "This service does not allow a chosen deck or seed.",
    invalid_option: () => "One of the options is not allowed.",
    invalid_players: () => "This game is not played with that many players.",
    invalid_deck: () => "That deck is not exactly this game's pack.",
    invalid_request: () => "The page sent something the referee cannot read.",
  };
  /* "russian_bank §8" as a player reads it: "Russian Bank §8". */
  const ruleWords = (rule) => String(rule).replace(/^([a-z0-9_]+)(?= §)/, (id) => (app.byId[id] ? app.byId[id].name : plain(id)));

  function refusalWords(p, move) {
    const f = p && REFUSALS[p.code];
    if (f) return f(move);
    if (p && p.title && !/_/.test(p.title)) return /[.!?]$/.test(p.title) ? p.title : `${p.title}.`;
    return "The referee refused it.";
  }

  /* One event as a sentence of text and inline cards. */
  function eventWords(ev) {
    const p = ev.player;
    const who = Number.isInteger(p) ? cap(seatName(p)) : "A player";
    const c = (x) => (isCard(x) ? noteEl(x) : "a hidden card");
    const n = (x) => (Array.isArray(x) ? x.length : x);
    switch (ev.type) {
      case "deal_started": return [`${ev.deal_number ?? ev.hand_number ? `Deal ${ev.deal_number ?? ev.hand_number}` : "A deal"} begins, dealt by ${seatName(ev.dealer)}`,
        ev.trump_card ? [", trump card ", c(ev.trump_card)] : "", ev.turnup ? [", turn-up ", c(ev.turnup)] : "",
        ev.trump ? `, trump ${SUIT_NAMES[ev.trump] || ev.trump}` : "", ev.stock_top ? [", top of the stock ", c(ev.stock_top)] : "", ev.pot !== undefined ? `, pot ${ev.pot}` : "", "."];
      case "hand_started": return [`Hand ${ev.hand_number} begins, dealt by ${seatName(ev.dealer)}`, ev.ante !== undefined ? `, ante ${ev.ante}` : "", ev.pot !== undefined ? `, pot ${ev.pot}` : "", "."];
      case "card_played": return [`${who} played `, c(ev.card), ev.violation ? ` (breaking ${plain(ev.violation)})` : "", "."];
      case "trick_won": return [`${who} won the trick`, Number.isInteger(ev.trick) ? ` ${ev.trick}` : "", ev.cards ? [" (", wordsValue(ev.cards), ")"] : "", ev.points !== undefined ? ` worth ${ev.points} point${ev.points === 1 ? "" : "s"}` : "", "."];
      case "card_drawn": return [`${who} drew `, c(ev.card), ev.trump_card ? " (the trump card)" : "", ev.public && isCard(ev.card) ? " face up from the stock" : "", "."];
      case "claim": return [`${who} claimed 66 with ${ev.points} points: ${ev.correct ? "correct" : "wrong"}${ev.auto ? " (automatic)" : ""}.`];
      case "exchange": return [`${who} exchanged the trump jack`, ev.jack ? [" ", c(ev.jack)] : "", " for ", c(ev.card), "."];
      case "close": return [`${who} closed the talon.`];
      case "marriage": return [`${who} declared a marriage in ${SUIT_NAMES[ev.suit] || ev.suit} (${ev.points} points).`];
      case "deal_over":
        if ("result" in ev) return stukolkaResult(ev.result);
        if (ev.hand_points) return [`Deal over: this hand's points ${perSeat(ev.hand_points, "side")}`, ev.scores ? `; scores now ${perSeat(ev.scores, "side")}` : "", "."];
        return ["Deal over", ev.winner !== undefined ? `: ${seats(ev.winner)} wins` : "", ev.game_points !== undefined ? ` ${ev.game_points} game point${ev.game_points === 1 ? "" : "s"}` : "",
          ev.reason ? ` (${reason(ev.reason)})` : "", Array.isArray(ev.points) ? `; card points ${perSeat(ev.points)}` : "", "."];
      case "hand_over":
        if ("kind" in ev) return braggingResult(ev);
        return [Number.isInteger(ev.deal_number) ? `Hand ${ev.deal_number} over` : "Hand over", ev.trump ? ` (trump ${SUIT_NAMES[ev.trump] || ev.trump})` : "", ": ", awardsWords(ev.awards),
          Array.isArray(ev.game_totals) ? `; cards for game ${perSeat(ev.game_totals)}` : "", Array.isArray(ev.scores) ? `; scores now ${perSeat(ev.scores)}` : "", "."];
      case "hand_scored": return ["Hand scored: ", awardsWords(ev.awards), Array.isArray(ev.game_totals) ? `; cards for game ${perSeat(ev.game_totals, "party")}` : "",
        Array.isArray(ev.scores) ? `; scores now ${perSeat(ev.scores, "party")}` : "", "."];
      case "game_over": return [`Game over: ${seats(ev.winner)} ${Array.isArray(ev.winner) && ev.winner.length > 1 ? "win" : "wins"}`,
        Number.isInteger(ev.party) ? ` (party ${ev.party})` : "", ev.reason ? ` (${reason(ev.reason)})` : "", isInt(ev.points) ? `, ${ev.points} point${ev.points === 1 ? "" : "s"}` : "", "."];
      case "flip": return [`${who} flipped `, c(ev.card), ev.recycled ? " (stock recycled)" : "", "."];
      case "capture": return [`${cap(seats(ev.winner))} slapped first and takes ${cardsN(n(ev.cards))}`, claimRest(ev), "."];
      case "false_slap": return [`False slap by ${seats(ev.order)}`, ev.penalties && ev.penalties.length ? [": ", joinParts(ev.penalties.map(penaltyWords), "; ")] : "", "."];
      case "snap": return [`${cap(seats(ev.winner))} called snap first and takes ${cardsN(n(ev.cards ?? 0))}`,
        Array.isArray(ev.taken_from) && ev.taken_from.length ? ` from ${ev.taken_from.map((s) => `${seatName(s)}'s`).join(" and ")} pile${ev.taken_from.length > 1 ? "s" : ""}` : "",
        ev.pool ? (Array.isArray(ev.taken_from) && ev.taken_from.length ? " and the pool" : " from the pool") : "", claimRest(ev), "."];
      case "false_call": return [`False snap by ${seats(ev.order)}`, ev.penalties && ev.penalties.length ? [": ", joinParts(ev.penalties.map((x) => `${seatName(x.from)} pays a card to ${x.to === "pool" ? "the pool" : seatName(x.to)}`), ", ")] : "", "."];
      case "tie_to_pool": return [`A tie between ${seats(ev.tied)}: the piles go to the pool.`];
      case "deal": return ["The cards are dealt", Array.isArray(ev.stock_counts) ? `: ${ev.stock_counts.map((x, s) => `${cardsN(x)} to ${seatName(s)}`).join(", ")}` : "", Number.isInteger(ev.to_move) ? `; ${seatName(ev.to_move)} flips first` : "", "."];
      case "blind": return [`${who} plays blind for ${ev.amount}.`];
      case "no_blind": return [`${who} does not play blind.`];
      case "cards_dealt": return [`${who} is dealt `, ev.face_down ? ["face down ", wordsValue(ev.face_down)] : "cards face down", ev.face_up && ev.face_up.length ? [" and face up ", wordsValue(ev.face_up)] : "", "."];
      case "expose": return [`${who} exposes `, wordsValue(ev.cards), "."];
      case "fold": return [`${who} folds.`];
      case "check": return [`${who} checks.`];
      case "call": return [`${who} calls`, ev.amount !== undefined ? `, paying ${ev.amount}` : "", "."];
      case "raise": return [`${who} raises to ${ev.to}`, ev.amount !== undefined ? `, paying ${ev.amount}` : "", "."];
      case "stand": return [`${who} stands.`];
      case "beg": return [`${who} begs.`];
      case "give": return [`${who} gives a point.`];
      case "run": return [`${who} runs the cards.`];
      case "turned_jack": return [`${who} turned up the jack `, c(ev.card), `: ${ev.points} point${ev.points === 1 ? "" : "s"} to party ${ev.party}.`];
      case "gift": return [`${cap(seatName(p))} takes one: ${ev.points} point${ev.points === 1 ? "" : "s"} to party ${ev.party}.`];
      case "cards_run": return ["The cards are run: ", c(ev.set_aside), " is set aside, the new turn-up is ", c(ev.turnup), "."];
      case "deal_void": return ["The deal is void (", c(ev.set_aside), ` set aside); ${seatName(ev.dealer)} deals again.`];
      case "discarded": return [`${who} discarded ${cardsN(ev.count)}.`];
      case "trump_fixed": return [`Trump is ${SUIT_NAMES[ev.suit] || ev.suit}`, ev.turnup ? [" (turn-up ", c(ev.turnup), ")"] : "", "."];
      case "trump_set": return [`Trump is now ${SUIT_NAMES[ev.trump] || ev.trump}`, ev.card ? [", from ", c(ev.card)] : "", "."];
      case "declared": return [`${who} ${ev.declaration === "pass" ? "passes" : ev.declaration === "tap" ? "taps" : `declares ${plain(ev.declaration)}`}.`];
      case "in_play": return [`In play: ${seats(ev.in_play)}`, Number.isInteger(ev.defender) ? `; ${seatName(ev.defender)} defends` : "", "."];
      case "exchanged": return [`${who} exchanged ${cardsN(ev.count)}`, ev.discard ? [" (out ", wordsValue(ev.discard), ev.drawn ? ["; in ", wordsValue(ev.drawn)] : "", ")"] : "", "."];
      case "card_moved": return [`${who} moved `, c(ev.card), ` from ${place(ev.from)} to ${place(ev.to)}${Number.isInteger(ev.foundation) ? " " + ev.foundation : ""}.`];
      case "layout": return ["The cards are laid out", Array.isArray(ev.stock_tops) ? [": the stocks show ", joinParts(ev.stock_tops.map((x, s) => [c(x), ` (${seatName(s)})`]), " and ")] : "",
        Number.isInteger(ev.first_player) ? `; ${seatName(ev.first_player)} plays first` : "", "."];
      case "stock_top_turned": return [`${who} turned up the top of the stock: `, c(ev.card), "."];
      case "waste_turned": return [`${who} turned the waste over as the new hand pile (${cardsN(ev.cards)}).`];
      case "card_flipped": return [`${who} turned up the hand card `, c(ev.card), "."];
      case "card_discarded": return [`${who} put the hand card `, c(ev.card), " on the waste."];
      case "passed": return [`${who} passed${ev.idle ? " (nothing moved this turn)" : ""}.`];
      case "draw_offered": return [`${who} offers a draw.`];
      case "draw_accepted": return [`${who} accepts the draw: the game ends in a draw by agreement.`];
      case "draw_declined": return [`${who} declines the draw; play goes on.`];
      case "turn_ended": return [`${who}'s turn ends; ${seatName(ev.next)} to play.`];
      default: {
        const rest = Object.entries(ev).filter(([k]) => k !== "type" && k !== "player");
        return [Number.isInteger(p) ? `${who}: ` : "", cap(plain(ev.type)), rest.length ? [" (", joinParts(rest.map(([k, v]) => [`${plain(k)} `, wordsValue(v)]), "; "), ")"] : "", "."];
      }
    }
  }

  function place(where) {
    if (typeof where !== "string") return String(where);
    const m = /^tableau:(\d+)$/.exec(where);
    if (m) return `tableau pile ${m[1]}`;
    return { stock: "the stock", hand: "the hand card", waste: "the waste", foundation: "a foundation", opponent_stock: "the opponent's stock", opponent_waste: "the opponent's waste" }[where] || plain(where);
  }

  const DEAL_END = new Set(["deal_over", "hand_over", "hand_scored", "game_over", "deal_void", "capture", "snap"]);
  const ENDS_DEAL = new Set(["deal_over", "hand_over", "hand_scored", "game_over", "deal_void"]);

  function eventEl(ev) {
    return el("span", { class: "event", dataEvent: ev.type }, eventWords(ev));
  }

  /* A move in words; cards as notation. */
  function moveWords(m) {
    if (!isObj(m)) return [String(m)];
    const t = m.type;
    if (t === "play" && isCard(m.card)) return ["play ", noteEl(m.card)];
    if (t === "move" && isCard(m.card)) return ["move ", noteEl(m.card), ` from ${place(m.from)} to ${place(m.to)}`];
    if (t === "next_deal") return ["deal the next hand"];
    if (t === "close") return ["close the talon"];
    if (t === "exchange" && !m.discard) return ["exchange the trump jack"];
    if (t === "claim") return ["claim 66"];
    // a draw by agreement (Russian Bank), when the game lists it
    if (t === "offer_draw") return ["Offer a draw"];
    if (t === "accept_draw") return ["Accept the draw"];
    if (t === "decline_draw") return ["Decline the draw"];
    if (Array.isArray(m.claims)) {
      // who pressed first and how much later the others were (never the clock's raw milliseconds)
      const cs = m.claims.filter(isObj);
      if (!cs.length || !cs.every((x) => isInt(x.at))) return [`${plain(t)} together: ${seats(cs.map((x) => x.player))}`];
      const sorted = cs.slice().sort((a, b) => Number(a.at) - Number(b.at));
      const t0 = Number(sorted[0].at);
      return [`${plain(t)}: `, sorted.map((x, i) => (i === 0 ? `${seatName(x.player)} first` : Number(x.at) === t0 ? `${seatName(x.player)} at the same moment`
        : `${seatName(x.player)} ${Number(x.at) - t0} ms later`)).join(", ")];
    }
    const parts = [plain(t || "?")];
    for (const [k, v] of Object.entries(m)) {
      if (k === "type" || k === "player" || k === "at" || (k === "violation" && v === null)) continue;
      if (isCard(v)) parts.push(" ", noteEl(v));
      else if (Array.isArray(v) && v.every(isCard)) parts.push(" ", v.length ? wordsValue(v) : "no cards");
      else parts.push(` ${plain(k)} `, wordsValue(v));
    }
    return parts;
  }
  /* Nodes as text: for the eye (card notation, "K♥") or, spoken, for the live region ("king of hearts"). */
  function textOf(parts, spoken) {
    const span = el("span", {}, parts);
    span.querySelectorAll(spoken ? "[aria-hidden='true']" : ".sr-only").forEach((n) => n.remove());
    return span.textContent;
  }
  const moveText = (m, spoken) => textOf(moveWords(m), spoken);

  /* A problem: a refusal (it has a code) in a player's words, the code, the service's detail and the
   * field paths in the details under it; a page-made problem (no code) as its title and detail. */
  function problemEl(p, heading, move, open) {
    if (!p.code) {
      return el("div", { class: "problem-body" }, heading ? el("div", { class: "problem-head", text: heading }) : null,
        el("div", { class: "code-less", text: p.title || "" }), p.detail ? el("div", { class: "detail", text: p.detail }) : null);
    }
    return el("div", { class: "problem-body", dataCode: p.code },
      heading ? el("div", { class: "problem-head", text: heading }) : null,
      el("p", { class: "player-words", title: p.code }, refusalWords(p, move)),
      p.rule ? el("div", { class: "rule", title: p.rule }, "Rule: ", el("b", { text: ruleWords(p.rule) })) : null,
      el("details", { class: "for-referee", open: !!open }, el("summary", { text: "The referee's words" }),
        el("div", {}, el("b", { class: "code", text: p.code }), p.title ? ` — ${p.title}` : ""),
        p.detail ? el("div", { class: "detail", text: p.detail }) : null,
        p.errors ? el("ul", { class: "errors" }, Object.entries(p.errors).map(([k, v]) => el("li", {}, el("code", { text: k }), ": ", Array.isArray(v) ? v.join("; ") : wordsValue(v)))) : null));
  }

  function showProblem(box, p, heading, action, move) {
    if (!p) { box.hidden = true; box.replaceChildren(); return; }
    box.replaceChildren(problemEl(p, heading, move));
    if (action) box.append(el("button", { type: "button", class: "retry", onclick: action.run }, action.label));
    box.hidden = false;
  }

  const announce = (text) => { const a = $("announce"); a.textContent = ""; setTimeout(() => { a.textContent = text; }, 30); };

  // ================================================================== laying out a position

  function seatCount(env) {
    const totals = env.scores && env.scores.totals;
    if (Array.isArray(totals) && totals.length) return totals.length;
    const s = env.state || {};
    if (Number.isInteger(s.players)) return s.players;
    if (Array.isArray(s.players)) return s.players.length;
    return 2;
  }

  const META = new Set(["game", "rules_version", "options", "seq", "seat", "legal_moves", "seed", "shuffle_seed", "phase", "deal_number",
    "hand_number", "dealer", "to_move", "winner", "winners", "players", "trump_suit", "trump", "pot", "carry", "current_bet", "leader",
    "trick_leader", "eldest", "first_suit", "sides", "scores", "last_flip_at", "faceup_seq", "pool_seq", "shuffle_count", "flip_count",
    "last_flipper", "stall", "redeal", "runs", "begged", "acted_this_turn", "idle_turns", "turn_number", "first_player", "pending", "order",
    "hand_events", "results", "closing", "marriage_pending", "in_play", "defender", "violations", "result", "last_result", "last_hand",
    "hand_points", "game_totals", "talon_size", "last_trick", "draws", "closed_by"]);
  const SEAT_LISTS = new Set(["to_move", "pending", "in_play", "order", "winner", "winners", "seats", "active", "out"]);
  const HIDDEN_PILE = /hand|stock|talon|deck|pack|pile|waste|discard|won|cent(er|re)|pool|dead|kitty|widow|hidden|cards/;
  const FACE_UP = /face_?up|^up$|exposed|shown|revealed/;
  const isCountKey = (key) => /_counts?$/.test(key);
  const countBase = (key) => key.replace(/_counts?$/, "");

  /* Sorts the state's fields: one bucket per seat, the centre of the table. */
  function classify(state, n, viewer) {
    const perSeat = Array.from({ length: n }, () => []);
    const centre = [];
    const other = n === 2 && viewer !== null ? 1 - viewer : null;
    for (const [key, v] of Object.entries(state)) {
      if (key === "players" && Array.isArray(v) && v.length === n && v.every(isObj)) {
        v.forEach((o, s) => { for (const [k2, v2] of Object.entries(o)) perSeat[s].push([k2, v2]); });
        continue;
      }
      if (META.has(key)) continue;
      if (other !== null && key.includes("opponent")) { perSeat[other].push([key.replace(/^opponent_/, ""), v]); continue; }
      if (viewer !== null && (key === "hand" || key === "own_hand")) { perSeat[viewer].push(["hand", v]); continue; }
      const seatList = n > 1 && Array.isArray(v) && v.length === n && !SEAT_LISTS.has(key) && !isTrick(v) && !key.startsWith("last_")
        && !(isCardOrNullList(v) && !/top/.test(key) && !v.includes(null)) && !v.every((x) => isObj(x) && ("card" in x || "cards" in x)) && key !== "tableau" && key !== "foundations";
      if (seatList) { v.forEach((x, s) => perSeat[s].push([key, x])); continue; }
      centre.push([key, v]);
    }
    // the viewer's own hand is shown face up: drop the counts that would draw it again as backs
    if (viewer !== null && perSeat[viewer]) {
      const mine = perSeat[viewer];
      if (mine.some(([k, v]) => k === "hand" && Array.isArray(v))) perSeat[viewer] = mine.filter(([k]) => !/^(hand_counts?|hidden_counts?|count)$/.test(k));
    }
    // a hidden hand (null) with a sibling count: draw the count as backs in its place, once
    perSeat.forEach((fields, s) => {
      for (let i = 0; i < fields.length; i++) {
        const [key, v] = fields[i];
        if (v !== null) continue;
        const base = key.replace(/s$/, "");
        const ck = [`${base}_counts`, `${key}_counts`, `${base}_count`].find((k) => Array.isArray(state[k]) && isInt(state[k][s]));
        if (ck) {
          fields[i] = [key, { __backs: state[ck][s] }];
          perSeat[s] = fields.filter(([k]) => k !== ck);
          return;
        }
      }
    });
    return { perSeat, centre };
  }

  function teamsOf(env, n) {
    const sc = env.scores || {};
    const st = env.state || {};
    const sides = Array.isArray(sc.sides) ? sc.sides : Array.isArray(st.sides) ? st.sides : null;
    if (sides && sides.length === n && new Set(sides).size < n) return { of: sides, totals: sc.side_totals || null, word: "side" };
    if (Array.isArray(sc.parties) && sc.parties.length < n && sc.parties.length > 1) return { of: Array.from({ length: n }, (_, s) => s % sc.parties.length), totals: sc.parties, word: "team" };
    return null;
  }

  function fieldEl(key, v, ctx, state, seat) {
    const handish = (/hand|hidden/.test(key) && !/count|card/.test(key)) || key === "up";
    let body;
    if (isObj(v) && "__backs" in v) {
      body = backs(v.__backs, true);
      body.classList.add("hand");
    } else if (isCountKey(key) && isInt(v)) {
      const base = countBase(key);
      const visible = seat !== null && [base, base + "s"].some((k) => Array.isArray(state[k]) && Array.isArray(state[k][seat]));
      if (visible || !HIDDEN_PILE.test(base) || FACE_UP.test(base)) body = el("span", { class: "val", text: String(v) });
      else {
        body = backs(v, /hand/.test(key));
        if (/hand/.test(key)) body.classList.add("hand");
      }
    } else if ((key === "stocks" || key === "faceups") && isCardList(v)) {
      body = key === "stocks" ? backs(v.length, false)
        : el("span", { class: "stack", dataCount: v.length }, cardRow([v[v.length - 1]], {}), el("span", { class: "pile-count", text: `×${v.length}` }));
    } else {
      body = valueEl(v, { ...ctx, hand: handish && Array.isArray(v), key });
    }
    const stat = body.classList.contains("val") || body.classList.contains("muted");
    return el("div", { class: "field" + (handish ? " hand-field" : "") + (stat ? " stat" : ""), dataField: key }, el("span", { class: "field-name", text: label(key) }), body);
  }

  /* ctx: {owner, hand, from, key} — cards in a hand under an owner are that seat's (buttons). */
  function valueEl(v, ctx) {
    ctx = ctx || {};
    if (v === null || v === undefined) return el("span", { class: "muted", text: "—" });
    if (isCard(v)) return cardRow([v], ctx);
    if (typeof v === "boolean") return el("span", { class: "val", text: v ? "yes" : "no" });
    if (typeof v !== "object") return el("span", { class: "val", text: plain(String(v)) });
    if (Array.isArray(v)) {
      if (v.length === 0) return el("span", { class: "muted", text: "none" });
      if (isCardOrNullList(v)) return cardRow(v, ctx);
      if (isTrick(v)) return trickEl(v);
      const pile = (x) => Array.isArray(x) && (x.length === 0 || isCardOrNullList(x) || isTrick(x) || x.every((y) => Array.isArray(y) && y.every(isCard)));
      if (v.every((x) => pile(x) || x === null)) {
        // piles, tricks, tableau columns, foundations: one labelled box each (an empty one is an empty slot)
        const name = ctx.key === "tableau" ? "tableau" : ctx.key === "foundations" ? "foundation" : ctx.key === "tricks" || ctx.key === "completed_tricks" ? "trick" : "pile";
        return el("span", { class: "groups" }, v.map((g, i) => el("span", { class: "group", dataTarget: ctx.key === "tableau" ? `tableau:${i}` : ctx.key === "foundations" ? "foundation" : null, dataPile: `${ctx.key}:${i}` },
          el("span", { class: "group-name", text: `${name} ${i}` }),
          Array.isArray(g) && g.length === 0 ? el("span", { class: "card slot", role: "img", "aria-label": "empty pile" })
            : Array.isArray(g) && g.every((y) => Array.isArray(y)) ? el("span", { class: "cards" }, g.map((t) => valueEl(t, { key: "trick" })))
              : valueEl(g, { ...ctx, hand: false, from: ctx.key === "tableau" ? `tableau:${i}` : null, topOnly: ctx.key === "tableau" }))));
      }
      if (v.every((x) => isObj(x) && (isTrick(x.cards) || isCardList(x.cards)))) {
        // tricks taken (California Jack): one small box per trick, who won it
        return el("span", { class: "groups tricks-taken" }, v.map((t, i) => el("span", { class: "group", dataTrick: i + 1 },
          el("span", { class: "group-name", text: `trick ${i + 1}${Number.isInteger(t.winner) ? `: ${seatName(t.winner)}` : ""}` }),
          el("span", { class: "cards" }, (isTrick(t.cards) ? t.cards.map((x) => x.card) : t.cards).map((c) => cardEl(c, { mini: true }))))));
      }
      if (v.every((x) => isObj(x) && "card" in x && Number.isInteger(x.player))) {
        // cards drawn: who drew what (a hidden one as such)
        return el("span", { class: "val words" }, joinParts(v.map((x) => [`${seatName(x.player)} `, isCard(x.card) ? noteEl(x.card) : "a hidden card",
          Number.isInteger(x.trick) ? ` (trick ${x.trick})` : ""]), ", "));
      }
      if (v.every((x) => typeof x !== "object" || x === null)) return el("span", { class: "val", text: v.map((x) => (x === null ? "—" : plain(String(x)))).join(", ") });
      return el("span", { class: "val words" }, wordsValue(v));
    }
    if (v.cards && (isCardList(v.cards) || isTrick(v.cards))) {
      // a trick record {cards, winner, leader, points}
      return el("span", { class: "trick-record" }, valueEl(v.cards, { key: "trick" }), el("small", { class: "muted" },
        v.winner !== undefined ? ` won by ${seatName(v.winner)}` : "", v.points !== undefined ? `, ${v.points} points` : ""));
    }
    return el("span", { class: "val words" }, wordsValue(v));
  }

  function cardRow(cards, ctx) {
    const row = el("span", { class: "cards" + (ctx.hand ? " hand" : "") });
    cards.forEach((c, i) => {
      if (c === null) { row.append(backEl()); return; }
      const top = i === cards.length - 1;
      const asButton = (ctx.hand && ctx.owner !== undefined && ctx.owner !== null) || (ctx.from && (!ctx.topOnly || top));
      row.append(cardEl(c, { button: asButton, owner: ctx.owner, inHand: ctx.hand, from: ctx.from && (!ctx.topOnly || top) ? ctx.from : null }));
    });
    return row;
  }

  function trickEl(plays) {
    return el("span", { class: "cards trick" }, plays.map((p) => el("span", { class: "played" }, cardEl(p.card),
      p.player === undefined ? null : el("span", { class: "who", text: p.player === null ? "?" : seatName(p.player) }))));
  }

  /* The table: the bottom seat's panel (hand first), the other seats around, the centre. */
  function renderPosition(env, viewer, into) {
    const state = env.state || {};
    const n = seatCount(env);
    const { perSeat, centre } = classify(state, n, viewer);
    const toMove = Array.isArray(env.to_move) ? env.to_move : [];
    const winners = Array.isArray(env.winner) ? env.winner : [];
    const teams = teamsOf(env, n);
    // real time (Slapjack, Snap): every seat keeps its place; otherwise the seat to move comes to the bottom
    const bottom = viewer !== null ? viewer : into.fixedBottom ? 0 : toMove.length ? toMove[0] : 0;
    const rb = perSeat.some((f) => f.some(([k]) => k === "hand_card")) || "tableau" in state;
    const panel = (s) => {
      const tags = [];
      if (toMove.includes(s)) tags.push(el("span", { class: "tag turn", text: "to move" }));
      if (state.dealer === s) tags.push(el("span", { class: "tag", text: "dealer" }));
      if (viewer === s) tags.push(el("span", { class: "tag you", text: "you (this view)" }));
      if (winners.includes(s)) tags.push(el("span", { class: "tag win", text: "winner" }));
      if (teams) tags.push(el("span", { class: `tag team team-${teams.of[s] % 4}`, text: `${teams.word} ${teams.of[s]}` }));
      const box = el("section", { class: "panel seat" + (toMove.includes(s) ? " on-turn" : "") + (s === bottom ? " bottom" : ""), dataSeat: s, "aria-label": `Seat ${s}` },
        el("h2", { class: "seat-name" }, `Seat ${s}`, ...tags));
      const money = [];
      const fields = perSeat[s].slice().sort((a, b) => rank(a[0]) - rank(b[0]));
      const inScores = new Set(Object.keys(env.scores || {}));
      const lists = new Set(fields.filter(([, v]) => Array.isArray(v)).map(([k]) => k));
      for (const [key, v] of fields) {
        if (isCountKey(key) && (lists.has(countBase(key)) || lists.has(countBase(key) + "s"))) continue; // the cards are shown
        if (isCountKey(key) && fields.some(([k]) => k === `${countBase(key)}_tops`)) continue; // drawn with its top card
        if (/_tops$/.test(key) && (isCard(v) || v === null) && Array.isArray(state[key.replace(/_tops$/, "_counts")])) {
          // a seat's face-up pile seen from outside (Snap, sealed): its top card and its size, once
          const count = state[key.replace(/_tops$/, "_counts")][s];
          const base = key.replace(/_tops$/, "");
          box.append(el("div", { class: "field pile-field", dataField: key }, el("span", { class: "field-name", text: label(base + "s") }),
            isCard(v) ? el("span", { class: "stack", dataCount: count }, cardRow([v], {}), el("span", { class: "pile-count", text: `×${count}` }))
              : el("span", { class: "card slot", role: "img", "aria-label": "empty pile" })));
          continue;
        }
        if (inScores.has(key) && (typeof v !== "object" || v === null) && !["balances", "contrib"].includes(key)) continue;
        if (["balances", "contrib", "blinds", "stakes"].includes(key) && isInt(v)) { money.push(el("span", { class: `money ${key}` }, `${label(key)} `, el("b", { text: String(v) }))); continue; }
        const ctx = { owner: s };
        let f;
        if (rb && key === "hand" && Array.isArray(v)) {
          // Russian Bank's hand is a face-down pile: its size, not its cards
          f = el("div", { class: "field pile-field", dataField: key }, el("span", { class: "field-name", text: "hand pile" }), backs(v.length, false));
        } else if (rb && ["stock_top", "hand_card", "waste", "stock"].includes(key) && (isCard(v) || Array.isArray(v))) {
          const from = key === "stock_top" || key === "stock" ? "stock" : key === "hand_card" ? "hand" : "waste";
          const target = s === bottom ? null : key.startsWith("stock") ? "opponent_stock" : key === "waste" ? "opponent_waste" : null;
          const cards = isCard(v) ? [v] : v;
          f = el("div", { class: "field pile-field", dataField: key, dataTarget: target },
            el("span", { class: "field-name", text: label(key) }),
            cards.length ? cardRow(cards.slice(-1), { owner: s, from }) : el("span", { class: "card slot", role: "img", "aria-label": "empty pile" }),
            cards.length > 1 ? el("small", { class: "muted", text: ` ${cards.length} cards` }) : null);
        } else f = fieldEl(key, v, ctx, state, s);
        if (f) box.append(f);
      }
      if (money.length) box.insertBefore(el("div", { class: "money-row" }, money), box.children[1] || null);
      if (!fields.length) box.append(el("p", { class: "muted", text: "nothing to show" }));
      return box;
    };
    into.me.replaceChildren(panel(bottom));
    const others = [];
    for (let k = 1; k < n; k++) others.push(panel((bottom + k) % n));
    into.opponents.replaceChildren(...others);
    into.opponents.dataset.count = String(others.length);
    // the centre: trick, piles, turn-up; the facts a player looks for
    into.table.replaceChildren();
    for (const [key, v] of centre) {
      if (v === null && !/top|trump/.test(key)) continue;
      if (Array.isArray(v) && !v.length && key !== "trick") continue; // an empty pile says nothing
      if (isCountKey(key) && Array.isArray(state[countBase(key)])) continue; // the pile itself is shown
      const base = key.replace(/_top$/, "");
      if (base !== key && Array.isArray(state[base]) && state[base].length) continue; // the pile is shown, its top with it
      const topOf = state[`${countBase(key)}_top`];
      if (isCountKey(key) && (isCard(topOf) || isPlayed(topOf) || (topOf === null && isInt(v)))) continue; // drawn with its top card, below
      let f;
      const topCard = isCard(v) ? v : isPlayed(v) ? v.card : null; // a top card, or one played by a seat ({card, player})
      if (base !== key && (topCard || v === null) && isInt(state[`${base}_count`])) {
        // one pile: its face-up top card and how many cards it holds (not two boxes both called "stock")
        const box = el("div", { class: "panel pilebox" + (base === "center" ? " main-pile" : ""), dataField: key },
          el("h2", { class: "pile-name", text: label(base === "center" ? "center_top" : `${base}_count`) }),
          el("span", { class: "stack", dataCount: state[`${base}_count`] }, topCard ? cardRow([topCard], {}) : el("span", { class: "card slot", role: "img", "aria-label": "empty pile" }),
            el("span", { class: "pile-count", text: `×${state[`${base}_count`]}` }),
            isPlayed(v) && Number.isInteger(v.player) ? el("span", { class: "who", text: `put by ${seatName(v.player)}` }) : null));
        into.table.append(box);
        continue;
      }
      if (STACKS.test(key) && (isCardList(v) || isTrick(v))) {
        // a stack lying on the table: its top card and how many cards it holds
        let top = /^(center|centre|pool|waste|discard)/.test(key) ? v[v.length - 1] : v[0];
        if (isObj(top)) top = top.card;
        f = el("div", {}, el("span", { class: "stack", dataCount: v.length }, cardRow([top], {}), el("span", { class: "pile-count", text: `×${v.length}` })));
      } else f = fieldEl(key, v, { owner: null, key }, state, null);
      into.table.append(el("div", { class: "panel pilebox" + (key === "trick" || key === "center_top" || key === "center" ? " main-pile" : ""), dataField: key },
        el("h2", { class: "pile-name", text: label(key) }), f.lastChild));
    }
    if (state.last_trick && isObj(state.last_trick)) into.table.append(el("div", { class: "panel pilebox small", dataField: "last_trick" }, el("h2", { class: "pile-name", text: "last trick" }), valueEl(state.last_trick)));
    into.facts.replaceChildren(...factsStrip(env, n));
    if (into.scores) renderScores(env, n, into.scores, teams);
  }

  const STACKS = /^(talon|stock|deck|pack|dead|pool|center|centre|waste|discard|set_aside)$/;
  const RANK_ORDER = ["hand", "hands", "hidden", "up", "hand_card", "stock_top", "stock", "waste"];
  const rank = (k) => { const i = RANK_ORDER.indexOf(k); return i < 0 ? 50 : i; };

  /* Trump, led suit, pot and bets, the deal, the phase: always in view. */
  function factsStrip(env, n) {
    const s = env.state || {};
    const out = [];
    const fact = (name, ...value) => out.push(el("span", { class: "fact", dataFact: name }, el("span", { class: "fact-name", text: name }), " ", el("b", {}, value)));
    let trump = s.trump_suit || (typeof s.trump === "string" && SUITS[s.trump] ? s.trump : null) || suitOf(s.trump_card);
    if (isObj(s.trump) && s.trump.suit) trump = s.trump.suit;
    if (trump) fact("Trump", el("span", { class: `suit-big ${trump === "H" || trump === "D" ? "red" : "black"}`, "aria-hidden": "true", text: SUITS[trump] }), ` ${SUIT_NAMES[trump]}`,
      isCard(s.trump_card) ? [" (turn-up ", noteEl(s.trump_card), ")"] : "");
    else if (s.trump === null && "trump" in s) fact("Trump", "not yet fixed");
    const trick = Array.isArray(s.trick) ? s.trick : [];
    const led = trick.length ? suitOf(isObj(trick[0]) ? trick[0].card : trick[0]) : null;
    if (led) fact("Led", el("span", { class: `suit-big ${led === "H" || led === "D" ? "red" : "black"}`, "aria-hidden": "true", text: SUITS[led] }), ` ${SUIT_NAMES[led]}`);
    else if ("trick" in s) fact("Led", "nothing yet");
    for (const k of ["pot", "current_bet", "carry"]) if (isInt(s[k])) fact(cap(label(k)), String(s[k]));
    if (s.deal_number !== undefined) fact("Deal", String(s.deal_number));
    if (s.hand_number !== undefined) fact("Hand", String(s.hand_number));
    if (s.phase && s.phase !== env.status) fact("Phase", plain(s.phase));
    if (s.closed_by !== null && s.closed_by !== undefined) fact("Talon", `closed by ${seatName(s.closed_by)}`);
    if (isInt(s.turn_number)) fact("Turn", String(s.turn_number));
    return out;
  }

  function renderScores(env, n, into, teams) {
    const scores = env.scores || {};
    const st = env.state || {};
    const head = el("tr", {}, el("td", {}), Array.from({ length: n }, (_, s) => el("th", { scope: "col", text: `seat ${s}` })));
    const rows = [];
    const rest = [];
    for (const [k, v] of Object.entries(scores)) {
      if (k === "sides") continue;
      if (Array.isArray(v) && v.length === n && v.every((x) => typeof x !== "object" || x === null)) {
        rows.push(el("tr", { class: k === "totals" ? "totals" : "", dataScore: k }, el("th", { scope: "row", text: label(k) }), v.map((x) => el("td", { text: x === null ? "—" : String(x) }))));
      } else if (k !== "parties" && k !== "side_totals") rest.push([k, v]);
    }
    const parts = [el("h2", { text: "Scores" })];
    if (teams) {
      const ids = [...new Set(teams.of)].sort();
      parts.push(el("ul", { class: "teams" }, ids.map((t) => el("li", { class: `team team-${t % 4}`, dataTeam: t },
        el("b", { text: `${cap(teams.word)} ${t}` }), ` (${teams.of.map((x, s) => (x === t ? s : null)).filter((x) => x !== null).map(seatName).join(" & ")})`,
        teams.totals && teams.totals[t] !== undefined ? [": ", el("b", { text: String(teams.totals[t]) })] : ""))));
    }
    parts.push(el("table", { class: "score-table" }, el("thead", {}, head), el("tbody", {}, rows)));
    for (const [k, v] of rest) if (v !== null) parts.push(el("p", { class: "score-extra", dataScore: k }, `${cap(label(k))}: `, el("b", {}, wordsValue(v))));
    const target = st.options && isInt(st.options.target) ? Number(st.options.target) : null;
    if (target && Array.isArray(scores.totals)) {
      const holders = teams && teams.totals ? teams.totals.map((x, t) => [`${teams.word} ${t}`, x]) : scores.totals.map((x, s) => [seatName(s), x]);
      parts.push(el("div", { class: "progress-box" }, el("h3", { text: `Match: first to ${target}` }),
        holders.map(([name, x]) => el("div", { class: "progress-row" }, el("span", { text: `${name} ${x}/${target}` }),
          el("progress", { max: target, value: Math.max(0, Math.min(Number(x), target)), "aria-label": `${name}: ${x} of ${target}` })))));
    }
    if (Array.isArray(env.winner)) parts.push(el("p", { class: "winner", text: env.winner.length ? `Winner: ${seats(env.winner)}` : "No winner (a draw)" }));
    into.replaceChildren(...parts);
  }

  function statusText(env, extra) {
    const state = env.state || {};
    const parts = [el("b", { text: plain(env.status || "?") })];
    if (Array.isArray(env.to_move) && env.to_move.length) parts.push(` · to move: ${seats(env.to_move)}`);
    if (Array.isArray(env.winner)) parts.push(` · winner: ${env.winner.length ? seats(env.winner) : "none (a draw)"}`);
    if (state.seq !== undefined) parts.push(el("span", { class: "seq", dataSeq: state.seq }, ` · move ${state.seq}`));
    if (extra) parts.push(extra);
    return parts;
  }

  // ================================================================== catalogue, mode, tabs

  const app = { catalogue: [], byId: {}, sealed: false, records: null, keys: [], keysRead: null };

  /* A real-time game (Slapjack, Snap): its claim move type ("slap"), the one with a batch form ("slaps"). */
  function realtimeOf(game) {
    const types = game ? game.move_types : [];
    return types.find((t) => types.includes(t + "s") && t !== "flip") || null;
  }

  async function boot() {
    $("fatal").hidden = true;
    const [cat, ready] = await Promise.all([api("GET", "/v1/games"), api("GET", "/readyz")]);
    if (!cat.ok || !isObj(cat.data) || !Array.isArray(cat.data.games)) {
      $("fatal-text").textContent = cat.network
        ? "The page could not reach the service to read its list of games. " + (cat.data.detail || "")
        : `The service refused the list of games (HTTP ${cat.status}).`;
      $("fatal").hidden = false;
      $("fatal-retry").focus();
      return;
    }
    app.catalogue = cat.data.games;
    app.byId = Object.fromEntries(app.catalogue.map((g) => [g.id, g]));
    app.sealed = !!ready.data && ready.data.mode === "sealed";
    $("mode").textContent = app.sealed ? "sealed mode" : "open mode";
    $("mode").classList.add(app.sealed ? "sealed" : "open");
    for (const sel of [$("game"), $("desk-game")]) sel.replaceChildren(...app.catalogue.map((g) => el("option", { value: g.id, text: g.name })));
    if (!boot.done) {
      boot.done = true;
      $("game").addEventListener("change", buildForm);
      table.init();
      desk.init();
      tabs.init();
    }
    buildForm();
    document.body.dataset.ready = "1";
    // records are judged only with published keys: an open service answers an empty key set
    app.keysRead = api("GET", "/v1/keys").then((r) => {
      app.keys = r.ok && isObj(r.data) && Array.isArray(r.data.keys) ? r.data.keys.filter((k) => isObj(k) && typeof k.kid === "string") : [];
      app.records = app.keys.length > 0;
      desk.offer();
    });
    if (location.hash.startsWith("#desk=")) desk.fromLink(location.hash.slice(6));
    else await table.restore();
    window.addEventListener("hashchange", () => { if (location.hash.startsWith("#desk=")) desk.fromLink(location.hash.slice(6)); });
    // every tab of this page shows the one game this device keeps: a move, a hot-seat switch or a
    // new game in one tab is taken up by the others (and never overwritten by an older copy)
    window.addEventListener("storage", (e) => { if (e.key === STORE) table.sync(); });
  }

  const tabs = {
    init() {
      for (const t of ["table", "desk"]) $(`tab-${t}`).addEventListener("click", () => showTab(t));
      $("tab-table").parentElement.addEventListener("keydown", (e) => {
        const order = ["table", "desk"];
        const cur = order.findIndex((t) => $(`tab-${t}`).getAttribute("aria-selected") === "true");
        let next = null;
        if (e.key === "ArrowRight") next = (cur + 1) % 2;
        else if (e.key === "ArrowLeft") next = (cur + 1) % 2;
        else if (e.key === "Home") next = 0;
        else if (e.key === "End") next = 1;
        if (next === null) return;
        e.preventDefault();
        showTab(order[next]);
        $(`tab-${order[next]}`).focus();
      });
    },
  };

  function showTab(which) {
    for (const t of ["table", "desk"]) {
      $(`${t}-tab`).hidden = which !== t;
      $(`tab-${t}`).classList.toggle("active", which === t);
      $(`tab-${t}`).setAttribute("aria-selected", String(which === t));
      $(`tab-${t}`).tabIndex = which === t ? 0 : -1;
    }
  }

  /* The new-game form, generated from the selected game's catalogue entry. */
  function buildForm() {
    const g = app.byId[$("game").value];
    $("players").replaceChildren(...g.players.map((n) => el("option", { value: n, text: String(n), selected: n === g.default_players })));
    $("game-info").textContent = `${g.name} · ${g.players.join(", ")} players · rules ${g.rules_version} · moves: ${g.move_types.map(plain).join(", ")}`;
    const box = $("options");
    box.replaceChildren(el("legend", { text: "Options" }));
    const entries = Object.entries(g.options || {});
    if (!entries.length) box.append(el("p", { class: "muted", text: "This game has no options." }));
    for (const [name, o] of entries) {
      let input;
      if (o.type === "boolean") input = el("input", { type: "checkbox", name, checked: o.default === true });
      else if (Array.isArray(o.enum)) input = el("select", { name }, o.enum.map((v) => el("option", { value: J.stringify(v), text: String(v), selected: v === o.default })));
      else if (o.type === "integer" || o.type === "number") input = el("input", { type: "text", inputmode: "numeric", name, value: o.default === null || o.default === undefined ? "" : String(o.default) });
      else if (o.type === "string") input = el("input", { type: "text", name, value: o.default === null ? "" : o.default });
      else input = el("input", { type: "text", name, class: "json", value: J.stringify(o.default), spellcheck: "false" });
      input.dataset.option = name;
      input.dataset.kind = Array.isArray(o.enum) ? "enum" : ["boolean", "integer", "number", "string"].includes(o.type) ? o.type : "json";
      box.append(el("label", { class: o.type === "boolean" ? "check opt" : "opt" },
        o.type === "boolean" ? [input, " ", plain(name)] : [plain(name), " ", input],
        el("small", { class: "muted", text: o.description || "" })));
    }
  }

  /* Options as JSON values; integers kept exact (a big one stays a BigInt). */
  function readOptions() {
    const options = {};
    for (const input of $("options").querySelectorAll("[data-option]")) {
      const kind = input.dataset.kind, name = input.dataset.option;
      if (kind === "boolean") options[name] = input.checked;
      else if (kind === "enum") options[name] = J.parse(input.value);
      else if (kind === "integer" || kind === "number") {
        const t = input.value.trim();
        if (t === "") options[name] = null;
        else { try { options[name] = J.parse(t); } catch (err) { throw new Error(`the option “${plain(name)}” is not a number`); } }
      } else if (kind === "json") { try { options[name] = J.parse(input.value); } catch (err) { throw new Error(`the option “${plain(name)}” is not valid JSON: ${err.message}`); } }
      else options[name] = input.value;
    }
    return options;
  }

  function parseDeck(text) {
    text = text.trim();
    if (!text) return null;
    if (text.startsWith("[")) return J.parse(text);
    return text.split(/[\s,]+/).filter(Boolean).map((c) => c.replace(/^["']|["']$/g, ""));
  }

  // ================================================================== the table

  const CLAIM_KEYS = ["A", "L", "Z", "M", "Q", "P", "X", "N"];
  const STORE = "card-referee.table.v1";
  const clockBase = performance.timeOrigin || Date.now();
  const clock = () => Math.floor(clockBase + performance.now());
  const b64 = {
    enc(text) { const bytes = new TextEncoder().encode(text); let s = ""; bytes.forEach((b) => { s += String.fromCharCode(b); }); return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""); },
    dec(text) { const s = atob(text.replace(/-/g, "+").replace(/_/g, "/")); return new TextDecoder().decode(Uint8Array.from(s, (c) => c.charCodeAt(0))); },
  };

  /* The game this device keeps (local storage, shared by every tab of the page), or null. */
  function readStored() {
    try { const t = localStorage.getItem(STORE); const data = t ? J.parse(t) : null; return isObj(data) && data.v === 1 ? data : null; } catch (err) { return null; }
  }

  /* Two holders (the table, a saved game, a link's game) of one match: one game and one deal (open
   * mode: the same request; sealed mode: the same table key, which new gave once). */
  function sameMatch(a, b) {
    const gid = (x) => (typeof x.game === "string" ? x.game : x.game && x.game.id);
    if (!a || !b || gid(a) !== gid(b)) return false;
    if (app.sealed) return !!a.tableKey && a.tableKey === b.tableKey;
    return !!a.request && J.stringify(a.request) === J.stringify(b.request);
  }

  /* The game hot-seat holds on this device, from any tab: follow the turn on, the game not over. */
  function heldGame() {
    const data = readStored();
    if (!data || !data.follow || !isObj(data.env) || data.env.status === "finished" || !!data.sealed !== app.sealed) return null;
    return realtimeOf(app.byId[data.game]) ? null : data;
  }

  /* Whether a log replays the deal of the game hot-seat holds (its seed, or its deck). */
  function dealOfHeldGame(gameId, body) {
    const held = heldGame();
    if (!held || held.game !== gameId || !isObj(body) || !isObj(held.request)) return false;
    const same = (k) => body[k] !== undefined && held.request[k] !== undefined && J.stringify(body[k]) === J.stringify(held.request[k]);
    return same("seed") || same("deck");
  }

  const table = {
    game: null, request: null, env: null, full: null, token: null, seatKeys: [], tableKey: null,
    viewer: null, shown: null, moves: [], log: [], history: [], picking: null, selected: null,
    revealed: null, busy: false, current: Promise.resolve(), claims: [], claimTimer: null, retry: null, rev: 0,

    init() {
      $("new-form").addEventListener("submit", (e) => { e.preventDefault(); this.start(); });
      $("viewer").addEventListener("change", () => this.chooseViewer($("viewer").value === "" ? null : Number($("viewer").value)));
      $("follow").addEventListener("change", () => this.followChanged());
      $("move-json").addEventListener("input", () => { $("move-json").dataset.touched = "1"; });
      $("send-move").addEventListener("click", () => {
        let move;
        try { move = J.parse($("move-json").value); } catch (err) { showProblem($("problem"), { title: "Your move is not JSON", detail: "The move box must hold one JSON object: " + err.message }); return; }
        this.send(move, { raw: true });
      });
      $("to-desk").addEventListener("click", () => {
        if (!this.request || this.locked()) return;
        desk.load(this.game.id, { ...this.request, moves: this.moves });
        desk.fromTable = true;
        showTab("desk");
        desk.run();
      });
      $("record-save").addEventListener("click", () => {
        const record = this.recordOf();
        if (!record) return;
        const url = URL.createObjectURL(new Blob([J.stringify(record, 1)], { type: "application/json" }));
        const a = el("a", { href: url, download: `referee-${record.game}-${record.match_id}-record.json`, hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
        announce("The signed record was saved as a file.");
      });
      $("record-judge").addEventListener("click", () => {
        const record = this.recordOf();
        if (!record) return;
        desk.load(record.game, { record }); // judged as any pasted record (signature, commitment, replay)
        showTab("desk");
        desk.run();
      });
      $("undo").addEventListener("click", () => this.undo());
      $("link").addEventListener("click", () => this.link());
      $("pass-go").addEventListener("click", () => this.reveal());
      document.addEventListener("keydown", (e) => this.key(e));
      this.arrowKeys($("felt"));
    },

    seatKey(seat) {
      if (!app.sealed) return undefined;
      return seat === null || seat === undefined ? this.tableKey : (this.seatKeys[seat] || this.tableKey);
    },

    realtime() { return realtimeOf(this.game); },

    hotseat() { return $("follow").checked && !this.realtime(); },

    /* Hot-seat while the game goes on: each seat sees only its own view, after the pass screen; the
     * full view, the desk, the game link and taking back another seat's move wait for the end. */
    locked() { return this.hotseat() && !!this.env && this.env.status !== "finished"; },

    /* Take back: in hot-seat only the seat that made the last move, while it holds the device. */
    canUndo() {
      if (app.sealed || !this.history.length) return false;
      if (!this.locked()) return true;
      const last = this.moves[this.moves.length - 1];
      return !!last && Number.isInteger(last.player) && last.player === this.revealed && this.viewer === this.revealed && $("pass-screen").hidden;
    },

    chooseViewer(v) {
      if (this.locked() && v === null && !app.sealed) { this.syncControls(); return; } // the full view waits for the end of the game
      this.viewer = v;
      if (!this.locked()) this.revealed = v; // hot-seat: another seat is shown only after its pass screen
      this.save();
      this.refresh();
    },

    followChanged() {
      const on = $("follow").checked;
      if (this.game && this.env && this.env.status !== "finished" && !this.realtime() && (!on || this.moves.length)) {
        // told to every seat in the log: turning hot-seat off is how a seat could look at another's cards
        this.log.push({ kind: "note", seq: (this.env.state || {}).seq, text: on
          ? "Hot-seat turned on: from here each seat is shown only its own cards, after the pass screen."
          : "Hot-seat turned off: from here this device may show every seat's cards." });
      }
      if (on) this.revealed = null; // the next seat takes the device through the pass screen
      this.save();
      if (!this.game || !this.env) return;
      if (on) this.afterMove(); else { this.syncControls(); if ($("pass-screen").hidden) this.drawLog(); }
    },

    /* A finished sealed match's signed record (docs/fair-play.md), kept by the referee's last answer;
     * null while the match goes on, in open mode, and once the referee no longer keeps the record. */
    recordOf() {
      const env = this.env;
      return app.sealed && env && env.status === "finished" && isObj(env.record) ? env.record : null;
    },

    /* The controls as the mode allows them: the viewer box always names the view being shown. */
    syncControls() {
      const locked = this.locked();
      const sel = $("viewer");
      const all = sel.querySelector("option[value='']");
      if (all) {
        all.disabled = locked && !app.sealed;
        all.textContent = app.sealed ? "the table (public view)" : locked ? "the table (everything): once the game is over" : "the table (everything)";
      }
      sel.value = this.viewer === null ? "" : String(this.viewer);
      $("to-desk").disabled = locked;
      const record = this.recordOf();
      $("record-save").hidden = !record;
      $("record-judge").hidden = !record;
      $("link").disabled = locked;
      $("undo").disabled = !this.canUndo();
      $("follow").disabled = !!this.realtime();
      if (locked) {
        $("link-box").hidden = true;
        if (location.hash.startsWith("#game=") || location.hash.startsWith("#desk=")) history.replaceState(null, "", location.pathname); // the address held every seat's cards
        // the seed or deck typed in the form deals every hand of this game: the next seat must not read it there
        $("seed").value = ""; $("deck").value = "";
        desk.forget(this.game.id, this.request);
      }
      const note = $("hotseat-note");
      const g = this.game ? this.game.name : "This game";
      note.textContent = !$("follow").checked ? ""
        : this.realtime() ? `${g} is played in real time: every seat plays at once on this screen, so there is no hot-seat.`
          : locked ? `Hot-seat: each seat is shown only its own cards, after the pass screen. ${app.sealed ? "" : "The full view of the table, "}${app.sealed ? "The" : "the"} dispute desk, the game link and taking back another seat's move open once the game is over, or when “follow the turn” is off.`
            : "The game is over: the full view, the dispute desk and the game link are open.";
      note.hidden = !note.textContent;
      note.dataset.locked = locked ? "1" : "0";
    },

    clearErrors() { showProblem($("problem"), null); showProblem($("netproblem"), null); },

    netFailure(res, heading, again) {
      this.retry = again;
      showProblem($("netproblem"), res.data, heading, { label: "Try again", run: () => { showProblem($("netproblem"), null); again(); } });
    },

    async start() {
      this.clearErrors();
      const g = app.byId[$("game").value];
      let options, deck;
      try { options = readOptions(); } catch (err) { $("play-area").hidden = false; showProblem($("problem"), { title: "The game could not start", detail: `In the options, ${err.message}.` }); return; }
      try { deck = parseDeck($("deck").value); } catch (err) { $("play-area").hidden = false; showProblem($("problem"), { title: "The game could not start", detail: "The deck is neither a JSON list nor cards separated by spaces: " + err.message }); return; }
      const body = { players: Number($("players").value), options };
      if (deck) body.deck = deck;
      const seedText = $("seed").value.trim();
      if (seedText !== "") {
        if (!/^-?\d+$/.test(seedText)) { $("play-area").hidden = false; showProblem($("problem"), { title: "The game could not start", detail: `The seed must be a whole number written with digits only; “${seedText}” is not.` }); return; }
        body.seed = J.parse(seedText.replace(/^(-?)0+(?=\d)/, "$1"));
      }
      if (!app.sealed && !deck && body.seed === undefined) {
        const r = new Uint32Array(2); crypto.getRandomValues(r);
        body.seed = (r[0] % 2097152) * 4294967296 + r[1]; // below 2^53
      }
      const res = await api("POST", `/v1/games/${g.id}/new`, body);
      $("play-area").hidden = false;
      if (!res.ok) {
        if (res.network) this.netFailure(res, "The game could not start", () => this.start());
        else showProblem($("problem"), res.data, "The service refused to start this game");
        return;
      }
      this.game = g;
      this.request = body;
      delete $("move-json").dataset.touched;
      this.moves = []; this.log = []; this.history = []; this.picking = null; this.selected = null; this.rev = 0;
      this.env = res.data;
      this.full = app.sealed ? null : res.data.state;
      this.token = res.data.token || null;
      this.seatKeys = res.data.seat_keys || [];
      this.tableKey = res.data.table_key || null;
      const n = seatCount(res.data);
      this.shownViewer = undefined;
      // the seed deals every hand: the log names it only while no hot-seat holds the game (drawLog)
      const entry = { kind: "new", seq: 0, title: `New game of ${g.name}`, seed: body.seed !== undefined ? String(body.seed) : null, fixedDeck: !!deck, ev: {} };
      entry.ev[app.sealed ? "p" : "t"] = res.data.events;
      if (!app.sealed) {
        const views = await Promise.all(Array.from({ length: n }, (_, s) => api("POST", `/v1/games/${g.id}/new?as=${s}`, body)));
        views.forEach((v, s) => { if (v.ok) entry.ev[s] = v.data.events; });
      }
      this.log.push(entry);
      // the viewer first, then the box that names it (the box said "the table" over seat 1's hand)
      this.viewer = app.sealed ? (res.data.to_move[0] ?? 0) : null;
      this.revealed = null;
      this.fillViewers(n);
      $("setup").open = false;
      this.save(); // kept at once: a reload or a second tab finds the new game, not the last one
      await this.afterMove(true);
      // counted once the new game is drawn (or its pass screen is up): a signal that the page shows it
      document.body.dataset.games = String(Number(document.body.dataset.games || 0) + 1);
      announce(`${entry.title} started. ${this.turnWords()}`);
    },

    fillViewers(n) {
      $("viewer").replaceChildren(el("option", { value: "", text: app.sealed ? "the table (public view)" : "the table (everything)" }),
        ...Array.from({ length: n }, (_, s) => el("option", { value: String(s), text: `seat ${s}` })));
      $("to-desk").hidden = !(this.request && (this.request.seed !== undefined || this.request.deck));
      $("undo").hidden = app.sealed;
      this.syncControls();
    },

    turnWords() {
      const env = this.env;
      if (!env) return "";
      if (env.status === "finished") return `Game over: ${seats(env.winner)} ${Array.isArray(env.winner) && env.winner.length > 1 ? "win" : "wins"}.`;
      return Array.isArray(env.to_move) && env.to_move.length ? `${cap(seats(env.to_move))} to move.` : "";
    },

    /* After a move or a start: follow the turn (with the pass screen between seats), then draw. */
    async afterMove(fresh) {
      const next = Array.isArray(this.env.to_move) && this.env.to_move.length ? this.env.to_move[0] : null;
      if ($("follow").checked && next !== null && next !== this.viewer && !this.realtime()) {
        this.viewer = next;
        $("viewer").value = String(next);
      }
      if (this.hotseat() && this.viewer !== null && this.viewer !== this.revealed) { this.save(); this.passScreen(); return; }
      await this.refresh(fresh);
    },

    passScreen() {
      // hide everything of the previous seat: nothing of it stays in the page
      for (const id of ["opponents", "table", "me", "moves", "log", "raw", "facts", "facts-strip"]) $(id).replaceChildren();
      $("summary").hidden = true; $("summary").replaceChildren();
      $("move-json").value = ""; delete $("move-json").dataset.touched;
      $("board-wrap").hidden = true;
      $("pass-title").textContent = `Pass the device to seat ${this.viewer}`;
      $("pass-go").textContent = `I am seat ${this.viewer}: show my cards`;
      $("pass-screen").hidden = false;
      $("status-line").replaceChildren(el("b", { text: this.game.name }), " · ", ...statusText(this.env));
      this.syncControls();
      $("pass-go").focus();
      announce(`Pass the device to seat ${this.viewer}.`);
    },

    async reveal() {
      this.revealed = this.viewer;
      $("pass-screen").hidden = true;
      $("board-wrap").hidden = false;
      this.save();
      await this.refresh(true);
    },

    /* Fetch the envelope as the current viewer sees it, then draw it. */
    async refresh(focus) {
      if (!this.env) return;
      const gen = this.refreshGen = (this.refreshGen || 0) + 1;
      if (this.hotseat() && this.viewer !== null && this.viewer !== this.revealed) { this.passScreen(); return; }
      $("pass-screen").hidden = true; $("board-wrap").hidden = false;
      let env = this.env;
      if (app.sealed || this.viewer !== null) {
        const q = this.viewer === null ? "" : `?as=${this.viewer}`;
        const body = app.sealed ? { token: this.token } : { state: this.full };
        const res = await api("POST", `/v1/games/${this.game.id}/state${q}`, body, app.sealed && this.viewer !== null ? this.seatKey(this.viewer) : undefined);
        if (gen !== this.refreshGen) return; // a later view was asked for: only the last is drawn
        if (!res.ok) {
          if (this.shownViewer !== undefined) { this.viewer = this.shownViewer; this.syncControls(); } // the box names what is shown
          if (res.network) this.netFailure(res, "Could not show this view", () => this.refresh(focus));
          else showProblem($("problem"), res.data, "Could not show this view");
          return;
        }
        env = res.data;
      }
      this.shown = env;
      this.shownViewer = this.viewer;
      this.draw(focus);
    },

    vk() { return this.viewer === null ? (app.sealed ? "p" : "t") : String(this.viewer); },

    draw(focus) {
      const env = this.shown;
      const hadFocus = document.activeElement && (document.activeElement === document.body || $("play-area").contains(document.activeElement));
      $("status-line").replaceChildren(el("b", { text: this.game.name }), " · ", ...statusText(env));
      renderPosition(env, this.viewer, { opponents: $("opponents"), me: $("me"), table: $("table"), facts: $("facts-strip"), scores: $("scores"), fixedBottom: !!this.realtime() });
      $("felt").classList.toggle("realtime", !!this.realtime());
      $("facts").replaceChildren(el("p", {}, "Options: ", wordsValue((env.state || {}).options || {})), el("p", {}, `Rules: ${(env.state || {}).rules_version || ""}`));
      $("raw").textContent = J.stringify(env, 1);
      this.wireMoves(env);
      this.drawLog();
      this.drawSummary();
      this.syncControls();
      const first = (env.legal_moves || [])[0];
      if (first && !$("move-json").dataset.touched) $("move-json").value = J.stringify(first);
      if (focus || hadFocus) this.focusPlay();
    },

    /* Keep the focus where play continues: the first legal card or move, else the status. */
    focusPlay() {
      const target = $("me").querySelector(".card.playable") || $("moves").querySelector("button.move-btn") || $("felt").querySelector(".card.playable") || $("status-line");
      if (target === $("status-line")) target.tabIndex = -1;
      target.focus({ preventScroll: false });
    },

    /* Legal moves: a card that a move names is a raised button; the other moves are buttons. */
    wireMoves(env) {
      const legal = env.legal_moves || [];
      const byCard = new Map();
      for (const m of legal) if (isCard(m.card)) { if (!byCard.has(m.card)) byCard.set(m.card, []); byCard.get(m.card).push(m); }
      const onCards = new Set();
      const claim = this.realtime();
      for (const node of $("felt").querySelectorAll("button.card.face")) {
        const card = node.dataset.card;
        const owner = node.dataset.owner === undefined ? null : Number(node.dataset.owner);
        let moves = byCard.get(card) || [];
        if (owner !== null) moves = moves.filter((m) => m.player === owner || m.player === undefined);
        if (node.dataset.from) moves = moves.filter((m) => m.from === undefined || m.from === node.dataset.from);
        const words = cardName(card);
        if (moves.length) {
          moves.forEach((m) => onCards.add(m));
          node.classList.add("playable");
          node.setAttribute("aria-label", `${words}, legal${moves.length > 1 ? `: ${moves.length} moves` : ""}`);
          node.addEventListener("click", () => (node.dataset.from ? this.select(node, moves) : moves.length === 1 ? this.send(moves[0]) : this.choose(card, moves)));
        } else {
          node.setAttribute("aria-label", `${words}, not playable now`);
          node.classList.add("refusable");
          const type = this.cardMoveType(legal);
          node.addEventListener("click", () => {
            if (this.picking && this.picking.move.player === owner) { this.pick(card); return; }
            if (node.dataset.from) { this.select(node, []); return; }
            if (type && owner !== null) this.send({ type, player: owner, card }, { asked: true });
          });
        }
      }
      const box = $("moves");
      box.replaceChildren(el("h2", { text: legal.length ? "Your moves" : "No moves in this view" }));
      if (!legal.length && app.sealed && this.viewer === null) box.append(el("p", { class: "muted", text: "The public view lists no moves: view as a seat to play." }));
      else if (!legal.length && env.status !== "finished") box.append(el("p", { class: "muted", text: "Switch the view to the seat to move (or tick “follow the turn”)." }));
      if (onCards.size) box.append(el("p", { class: "muted", text: "Raised cards are legal: click one, or press Enter on it, to play it." }));
      const multiSeat = new Set(legal.map((m) => m.player)).size > 1;
      const buttons = el("div", { class: "buttons" });
      for (const m of legal) {
        if (onCards.has(m)) continue;
        if (claim && m.type === claim && !("at" in m)) continue; // claims get their own keys below
        buttons.append(this.moveControl(m, multiSeat));
      }
      box.append(buttons);
      // the claim keys first: what the other moves of this view are (a flip comes and goes) never moves them
      if (claim) box.prepend(this.claimPad(env, claim));
      if (this.picking) this.drawPicking();
      if (this.selected) this.drawTargets();
    },

    arrowKeys(container) {
      container.addEventListener("keydown", (e) => {
        if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
        const hand = e.target.closest && e.target.closest(".cards, .groups");
        const cards = [...(hand || container).querySelectorAll("button.card")];
        const i = cards.indexOf(document.activeElement);
        if (i < 0) return;
        e.preventDefault();
        cards[(i + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length].focus();
      });
    },

    /* Slapjack, Snap: one key per seat (shown here); presses close together become one batch. */
    claimPad(env, claim) {
      const n = seatCount(env);
      // one device holds every seat: a seat's view lists only its own claim, the table's none
      const listed = (env.legal_moves || []).filter((m) => m.type === claim).map((m) => m.player);
      const open = new Set(listed.length && !app.sealed && this.viewer === null ? listed : Array.from({ length: n }, (_, s) => s));
      const flip = this.flipMove();
      return el("div", { class: "claim-pad", dataClaim: claim },
        el("h3", { text: `${cap(claim)}! One key per seat on this device` }),
        el("p", { class: "muted claim-help" }, el("span", { class: "long", text: `Press your seat's key to ${claim}; presses within a moment of each other are sent together and the referee judges who was first.` }),
          el("span", { class: "short", text: `Press your seat's key (or tap it) to ${claim}.` }), flip ? " F flips for the seat to move." : ""),
        el("div", { class: "buttons" }, Array.from({ length: Math.min(n, CLAIM_KEYS.length) }, (_, s) => el("button", {
          type: "button", class: "move-btn claim-btn", dataSeat: s, disabled: !open.has(s), "aria-keyshortcuts": CLAIM_KEYS[s],
          onclick: () => this.press(s),
        }, `Seat ${s}: ${claim} `, el("kbd", { text: CLAIM_KEYS[s] })))));
    },

    key(e) {
      if (!this.game || $("table-tab").hidden || e.repeat || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
      const claim = this.realtime();
      const k = e.key.toUpperCase();
      if (!claim) {
        // F: the flip this view lists (Russian Bank's hand card), as its button shows
        const flip = k === "F" && $("pass-screen").hidden ? ((this.shown || {}).legal_moves || []).find((m) => m.type === "flip") : null;
        if (flip) { e.preventDefault(); this.send(flip); }
        return;
      }
      if (k === "F") {
        const flip = this.flipMove();
        if (flip) { e.preventDefault(); this.send(flip, { queue: true }); }
        return;
      }
      const s = CLAIM_KEYS.indexOf(k);
      if (s >= 0 && s < seatCount(this.shown)) { e.preventDefault(); this.press(s); }
    },

    /* The flip of the seat to move: listed in this view, or (another seat's view) built from to_move. */
    flipMove() {
      const env = this.shown || {};
      const listed = (env.legal_moves || []).find((m) => m.type === "flip");
      if (listed) return listed;
      const next = Array.isArray(env.to_move) && env.to_move.length ? env.to_move[0] : null;
      return next !== null && env.status !== "finished" && this.game.move_types.includes("flip") ? { type: "flip", player: next } : null;
    },

    press(seat) {
      if (this.claims.some((c) => c.player === seat)) return;
      this.claims.push({ player: seat, at: this.stamp() });
      if (!this.claimTimer) this.claimTimer = setTimeout(() => this.flushClaims(), 150);
    },

    async flushClaims() {
      this.claimTimer = null;
      const claims = this.claims;
      this.claims = [];
      if (!claims.length) return;
      const claim = this.realtime();
      await this.current;
      if (claims.length === 1) await this.send({ type: claim, player: claims[0].player, at: claims[0].at }, { queue: true });
      else await this.send({ type: claim + "s", claims }, { queue: true });
    },

    /* Client time in ms, never before the last flip this state knows. */
    stamp() {
      const last = this.shown && this.shown.state && this.shown.state.last_flip_at;
      const t = clock();
      return isInt(last) && Number(last) > t ? Number(last) : t;
    },

    cardMoveType(legal) {
      const mine = legal.find((m) => isCard(m.card));
      if (mine) return mine.type;
      return this.game.move_types.includes("play") ? "play" : null;
    },

    moveControl(m, multiSeat) {
      const prefix = multiSeat && m.player !== undefined ? `Seat ${m.player}: ` : "";
      const ranges = Object.keys(m).filter((k) => /^min_/.test(k)).map((k) => k.slice(4));
      if (ranges.length) {
        const inputs = ranges.map((f) => el("input", { type: "text", inputmode: "numeric", class: "amount", dataField: f, value: String(m["min_" + f]), "aria-label": `${plain(m.type)}: ${plain(f)} (at least ${m["min_" + f]})` }));
        const send = () => {
          const move = Object.fromEntries(Object.entries(m).filter(([k]) => !/^(min|max)_/.test(k)));
          for (const i of inputs) {
            try { move[i.dataset.field] = J.parse(i.value.trim()); } catch (err) { showProblem($("problem"), { title: "Not a number", detail: `The ${plain(i.dataset.field)} must be a whole number.` }); return; }
          }
          this.send(move);
        };
        return el("span", { class: "template" }, el("button", { type: "button", class: "move-btn", dataMove: J.stringify(m), onclick: send }, prefix + plain(m.type)),
          ...ranges.map((f, i) => el("label", {}, ` ${plain(f)} `, inputs[i])), el("small", { class: "muted", text: ranges.map((f) => ` from ${m["min_" + f]}`).join(" ") }));
      }
      if (Number.isInteger(m.count) && !("cards" in m)) {
        return el("button", { type: "button", class: "move-btn template-pick", dataMove: J.stringify(m),
          onclick: () => { this.picking = { move: m, picked: [] }; this.drawPicking(); } }, `${prefix}${plain(m.type)}: choose ${m.count} card${m.count === 1 ? "" : "s"}`);
      }
      if (m.type === "flip") return el("button", { type: "button", class: "move-btn", dataMove: J.stringify(m), "aria-keyshortcuts": "F", onclick: () => this.send(m) }, `${prefix}flip `, el("kbd", { text: "F" }));
      return el("button", { type: "button", class: "move-btn", dataMove: J.stringify(m), onclick: () => this.send(m) }, prefix, moveWords(m));
    },

    drawPicking() {
      const p = this.picking;
      const old = $("picking");
      if (old) old.remove();
      for (const node of $("felt").querySelectorAll("button.card.face[data-in-hand]")) {
        const mine = Number(node.dataset.owner) === p.move.player;
        node.classList.toggle("pickable", mine);
        const picked = mine && p.picked.includes(node.dataset.card);
        node.classList.toggle("picked", picked);
        if (mine) node.setAttribute("aria-pressed", String(picked));
      }
      const move = { ...p.move }; delete move.count; move.cards = p.picked;
      $("moves").append(el("div", { id: "picking", class: "picking" },
        `${plain(p.move.type)} for seat ${p.move.player}: choose cards in the hand (${p.picked.length} of ${p.move.count} chosen) `,
        el("button", { type: "button", class: "primary", onclick: () => { this.picking = null; this.send(move); } }, "Send: ", moveWords(move)),
        el("button", { type: "button", onclick: () => { this.picking = null; this.draw(); } }, "Cancel")));
    },

    pick(card) {
      const p = this.picking;
      const i = p.picked.indexOf(card);
      if (i >= 0) p.picked.splice(i, 1); else p.picked.push(card);
      this.drawPicking();
    },

    choose(card, moves) {
      const old = $("chooser");
      if (old) old.remove();
      const box = el("div", { id: "chooser", class: "chooser", role: "group", "aria-label": `Moves for ${cardWords(card)}` }, noteEl(card), ": ",
        moves.map((m) => el("button", { type: "button", class: "move-btn", dataMove: J.stringify(m), onclick: () => this.send(m) }, moveWords(m))),
        el("button", { type: "button", class: "small", onclick: () => { $("chooser").remove(); this.focusPlay(); } }, "cancel"));
      $("moves").prepend(box);
      box.querySelector("button").focus();
    },

    /* Russian Bank style: choose a card, then a destination pile (legal ones marked). */
    select(node, moves) {
      const owner = node.dataset.owner === undefined ? this.viewer : Number(node.dataset.owner);
      this.selected = { card: node.dataset.card, from: node.dataset.from, player: Number.isInteger(owner) ? owner : (this.shown.to_move || [0])[0], moves };
      this.drawTargets();
    },

    drawTargets() {
      const sel = this.selected;
      const old = $("chooser");
      if (old) old.remove();
      for (const n of $("felt").querySelectorAll(".is-target, .selected")) n.classList.remove("is-target", "selected");
      const src = $("felt").querySelector(`button.card[data-card="${sel.card}"][data-from="${sel.from}"]`);
      if (src) src.classList.add("selected");
      const st = this.shown.state || {};
      const targets = ["foundation", ...(Array.isArray(st.tableau) ? st.tableau.map((_, i) => `tableau:${i}`) : []), "opponent_stock", "opponent_waste"];
      const legalTo = new Set(sel.moves.map((m) => m.to));
      const send = (to) => {
        const m = sel.moves.find((x) => x.to === to) || { type: "move", player: sel.player, card: sel.card, from: sel.from, to };
        this.selected = null;
        this.send(m, { asked: !legalTo.has(to) });
      };
      for (const box of $("felt").querySelectorAll("[data-target]")) {
        const to = box.dataset.target;
        box.classList.add("is-target");
        box.classList.toggle("legal-target", legalTo.has(to));
        box.onclick = (e) => { if (this.selected && !e.target.closest("button.card[data-from]")) send(to); };
      }
      const box = el("div", { id: "chooser", class: "chooser", role: "group", "aria-label": `Where to move ${cardWords(sel.card)}` },
        "Move ", noteEl(sel.card), ` from ${place(sel.from)} to: `,
        targets.map((to) => el("button", { type: "button", class: "move-btn" + (legalTo.has(to) ? " legal" : ""), dataTo: to, onclick: () => send(to) },
          place(to), legalTo.has(to) ? " (legal)" : "")),
        el("button", { type: "button", class: "small", onclick: () => { this.selected = null; this.draw(); } }, "cancel"));
      $("moves").prepend(box);
      (box.querySelector("button.legal") || box.querySelector("button")).focus();
    },

    /* Send one move; a refusal shows its code, detail and rule; a network failure says so. */
    async send(move, how) {
      how = how || {};
      if (this.busy) {
        if (!how.queue) return; // a second click while the first is judged is dropped
        await this.current;
        return this.send(move, how);
      }
      if (this.locked() && Number.isInteger(move.player) && move.player !== this.revealed) {
        showProblem($("problem"), { title: "Not sent: hot-seat", detail: `Seat ${this.revealed} holds the device. A move of seat ${move.player} is made by seat ${move.player}, after the device is passed to it.` });
        return;
      }
      this.busy = true;
      let done;
      this.current = new Promise((r) => { done = r; });
      try {
        const claim = this.realtime();
        if (claim && !Array.isArray(move.claims) && (move.type === claim || move.type === "flip") && move.at === undefined && !how.raw) move = { ...move, at: this.stamp() };
        const actor = Number.isInteger(move.player) ? move.player : null;
        const gid = this.game.id;
        const before = app.sealed ? this.token : this.full;
        const body = app.sealed ? { token: before, move } : { state: before, move };
        let res;
        if (app.sealed) {
          const batch = Array.isArray(move.claims) && new Set(move.claims.map((c) => c.player)).size > 1;
          const key = batch || actor === null ? this.tableKey : this.seatKey(actor);
          res = await api("POST", `/v1/games/${gid}/moves`, body, key);
        } else res = await api("POST", `/v1/games/${gid}/moves`, body);
        if (!res.ok) {
          if (res.network) { this.netFailure(res, `Your move was not judged: ${moveText(move)}`, () => this.send(move, how)); return; }
          showProblem($("netproblem"), null);
          showProblem($("problem"), res.data, `Refused: ${moveText(move)}${actor !== null ? " by seat " + actor : ""}`, null, move);
          this.log.push({ kind: "refused", move, actor, problem: res.data, viewers: actor === null ? null : [actor] });
          this.drawLog(); this.save();
          announce(`Refused: ${refusalWords(res.data, move)}`);
          return;
        }
        this.clearErrors();
        this.picking = null; this.selected = null;
        if (!app.sealed) this.history.push({ full: this.full, env: this.env, moves: this.moves.length, log: this.log.length });
        if (this.history.length > 40) this.history.shift();
        this.moves.push(move);
        this.env = res.data;
        if (app.sealed) this.token = res.data.token; else this.full = res.data.state;
        const entry = { kind: "move", move, actor, seq: (res.data.state || {}).seq, ev: {} };
        entry.ev[app.sealed ? "p" : "t"] = res.data.events;
        await this.seenBy(entry, body, move);
        this.log.push(entry);
        await this.afterMove();
        this.save();
        const words = textOf((entry.ev[this.vk()] || entry.ev.p || []).map((e) => [eventWords(e), " "]), true);
        if (!$("pass-screen").hidden) return; // between seats nothing is told but whose turn it is
        announce(`${actor !== null ? cap(seatName(actor)) + ": " : ""}${moveText(move, true)}. ${words} ${this.turnWords()}`);
      } finally {
        this.busy = false;
        done();
      }
    },

    /* The events of this move as each seat (and, sealed, the public) was told them: the same move
     * on the same state once more per viewer (the engine is pure). A next_deal the service shuffles
     * unseeded cannot be asked twice: its other views are shown with every card hidden. */
    async seenBy(entry, body, move) {
      const n = seatCount(this.env);
      const gid = this.game.id;
      if (move.type === "next_deal" && !Array.isArray(move.deck) && (this.request.seed === undefined || app.sealed)) return;
      const asks = [];
      for (let s = 0; s < n; s++) asks.push(api("POST", `/v1/games/${gid}/moves?as=${s}`, body, app.sealed ? this.tableKey : undefined).then((r) => { if (r.ok) entry.ev[s] = r.data.events; }));
      await Promise.all(asks);
    },

    /* The log for the current view, newest first: what this view may see, in words. */
    drawLog() {
      const vk = this.vk();
      const items = [];
      for (let i = this.log.length - 1; i >= 0; i--) {
        const e = this.log[i];
        if (e.kind === "note") { items.push(el("li", { class: "note-entry", dataNote: "1" }, el("span", { class: "seq", text: "!" }), " ", el("b", { text: e.text }))); continue; }
        if (e.viewers && this.viewer !== null && !e.viewers.includes(this.viewer)) continue;
        let events = e.ev ? e.ev[vk] : null;
        let hidden = false;
        if (e.ev && !events) { events = e.ev.p || (e.ev.t || []).map(redact); hidden = !e.ev.p; }
        const seen = new Set();
        (events || []).forEach((ev) => JSON.stringify(ev, (k, v) => { if (isCard(v)) seen.add(v); return typeof v === "bigint" ? String(v) : v; }));
        const showMove = (m) => (this.viewer === null && !app.sealed) || e.actor === this.viewer ? m : redactMove(m, seen);
        const head = e.kind === "new" ? el("b", { text: this.newGameTitle(e) })
          : el("b", {}, e.actor !== null && e.actor !== undefined ? `${cap(seatName(e.actor))}: ` : "", moveWords(showMove(e.move)));
        items.push(el("li", { class: e.kind === "refused" ? "refused" : "", dataSeq: e.kind === "refused" ? null : e.seq, dataViewer: vk },
          el("span", { class: "seq", text: e.kind === "refused" ? "✗" : `#${e.seq}` }), " ", head,
          e.kind === "refused" ? el("div", { class: "log-problem", title: [e.problem.code, e.problem.detail].filter(Boolean).join(": "), dataCode: e.problem.code || "" },
            `Refused: ${refusalWords(e.problem, e.move)}`, e.problem.rule ? ` (${ruleWords(e.problem.rule)})` : "") : null,
          events && events.length ? el("div", { class: "events" }, events.map(eventEl)) : null,
          hidden ? el("small", { class: "muted", text: "(cards of this deal's shuffle are hidden in this view)" }) : null));
      }
      $("log").replaceChildren(...items);
    },

    /* "New game of Schnapsen (seed 7)": the seed (or the deck) deals every hand, so while hot-seat
     * holds the game it is held back, and said to be; an older saved log wrote it into the title. */
    newGameTitle(e) {
      const seed = e.seed ?? (/ \(seed (-?\d+)\)$/.exec(e.title || "") || [])[1] ?? null;
      const title = String(e.title || "").replace(/ \((seed -?\d+|fixed deck)\)$/, "");
      if (seed === null && !e.fixedDeck) return title;
      if (this.locked()) return `${title} (${seed !== null ? "its seed" : "its deck"} is shown once the game is over)`;
      return `${title} (${seed !== null ? `seed ${seed}` : "fixed deck"})`;
    },

    drawSummary() {
      const box = $("summary");
      const vk = this.vk();
      const last = this.log.filter((e) => e.kind !== "note").pop();
      const events = last && last.ev ? last.ev[vk] || last.ev.p || [] : [];
      const ends = events.filter((e) => ENDS_DEAL.has(e.type));
      if (!ends.length) { box.hidden = true; box.replaceChildren(); return; }
      const env = this.shown;
      box.replaceChildren(el("h2", { text: ends.some((e) => e.type === "game_over") ? "Game over" : "End of the deal" }),
        el("ul", {}, ends.map((e) => el("li", {}, eventWords(e)))),
        el("p", {}, "Scores now: ", wordsValue(Object.fromEntries(Object.entries(env.scores || {}).filter(([k]) => k === "totals" || k === "parties" || k === "side_totals")))));
      box.hidden = false;
    },

    undo() {
      if (!this.canUndo()) return;
      const h = this.history.pop();
      const undone = this.moves[h.moves];
      this.full = h.full; this.env = h.env;
      this.moves = this.moves.slice(0, h.moves);
      this.log = this.log.slice(0, h.log);
      this.clearErrors();
      this.picking = null; this.selected = null;
      this.save();
      announce(`Took back: ${undone ? moveText(undone, true) : "the last move"}.`);
      this.afterMove(true);
    },

    snapshot() {
      return { v: 1, rev: this.rev, sealed: app.sealed, game: this.game.id, request: this.request, full: this.full, token: this.token, seatKeys: this.seatKeys,
        tableKey: this.tableKey, moves: this.moves, log: this.log.slice(-200), history: this.history.slice(-20), viewer: this.viewer,
        revealed: this.revealed, follow: $("follow").checked, env: this.env };
    },

    /* One table per device: the game is kept in local storage, which every tab of this page shares.
     * A tab that is behind (another tab moved, or turned hot-seat off) does not overwrite the newer
     * record: it takes it up instead (see sync), so a note in the log is never lost. */
    save() {
      if (!this.game) return;
      const stored = readStored();
      if (stored && sameMatch(stored, this) && isInt(stored.rev) && Number(stored.rev) > this.rev) { this.sync(); return; }
      this.rev += 1;
      try { localStorage.setItem(STORE, J.stringify(this.snapshot())); } catch (err) { /* storage full or off: the game goes on */ }
    },

    /* Another tab of this page saved the game: show what it saved (its moves, its log, its hot-seat). */
    async sync() {
      const stored = readStored();
      if (!stored || (this.game && sameMatch(stored, this) && Number(stored.rev || 0) <= this.rev)) return;
      await this.restore({ stored: true });
    },

    link() {
      if (!this.game || this.locked()) return;
      const s = this.snapshot();
      const data = { v: 1, sealed: s.sealed, game: s.game, request: s.request, full: s.full, token: s.token, seatKeys: s.seatKeys, tableKey: s.tableKey, moves: s.moves };
      const url = `${location.origin}${location.pathname}#game=${b64.enc(J.stringify(data))}`;
      history.replaceState(null, "", url);
      $("link-box").replaceChildren("This page's address now holds the game: bookmark it or send it. ",
        app.sealed ? el("b", { text: "It carries every seat's key: whoever opens it can play any seat. " }) : "",
        el("a", { href: url, id: "game-link" }, "Link to this game"));
      $("link-box").hidden = false;
    },

    async restore(how) {
      how = how || {};
      let data = null, from = "storage", held = null;
      if (!how.stored && location.hash.startsWith("#game=")) {
        try { data = J.parse(b64.dec(location.hash.slice(6))); from = "link"; } catch (err) { showProblem($("problem"), { title: "This link holds no game", detail: "The address does not carry a game this page can read." }); $("play-area").hidden = false; }
        const lock = heldGame();
        if (data && lock) {
          history.replaceState(null, "", location.pathname); // the address must not hold the hands hot-seat hides
          // hot-seat holds a game on this device: a link (made before, or of this very game) cannot show its hands
          held = sameMatch(lock, data) ? "This link is of the game this device is playing in hot-seat: it opens as hot-seat shows it, one seat at a time."
            : "This device is playing another game in hot-seat: a link opens once that game is over, or once “follow the turn” is off there.";
          data = null;
        }
      }
      if (!data) data = readStored();
      if (!isObj(data) || data.v !== 1 || !app.byId[data.game] || !!data.sealed !== app.sealed) return;
      this.rev = isInt(data.rev) ? Number(data.rev) : 0;
      this.game = app.byId[data.game];
      this.request = data.request; this.full = data.full; this.token = data.token; this.seatKeys = data.seatKeys || []; this.tableKey = data.tableKey;
      this.moves = data.moves || []; this.log = data.log || []; this.history = data.history || [];
      this.viewer = data.viewer ?? null; this.revealed = data.revealed ?? null;
      $("follow").checked = !!data.follow;
      const res = await api("POST", `/v1/games/${this.game.id}/state`, app.sealed ? { token: this.token } : { state: this.full });
      $("play-area").hidden = false;
      if (!res.ok) {
        if (res.network) this.netFailure(res, "Could not resume the saved game", () => this.restore());
        else { showProblem($("problem"), res.data, "The saved game could not be resumed"); this.game = null; }
        return;
      }
      this.env = res.data;
      if (held) showProblem($("problem"), { title: "Hot-seat holds the game on this device", detail: held });
      if (from === "link" && !this.log.length) this.log.push({ kind: "new", seq: (res.data.state || {}).seq, title: `Game of ${this.game.name} opened from a link`, ev: { p: [] } });
      $("game").value = this.game.id;
      buildForm();
      this.fillViewers(seatCount(res.data));
      $("setup").open = false;
      if (from === "link") {
        // the link's game becomes the one this device keeps (a newer record of the same match stays newer)
        const stored = readStored();
        this.rev = stored && sameMatch(stored, data) && isInt(stored.rev) ? Number(stored.rev) : 0;
        this.save();
      }
      if (!how.stored) announce(`Resumed the game of ${this.game.name}. ${this.turnWords()}`);
      await this.afterMove(!how.stored);
    },
  };

  function redact(ev) {
    const out = {};
    for (const [k, v] of Object.entries(ev)) out[k] = isCard(v) ? null : Array.isArray(v) && v.some(isCard) ? v.map((x) => (isCard(x) ? null : x)) : v;
    return out;
  }
  function redactMove(m, seen) {
    if (!isObj(m)) return m;
    const out = {};
    for (const [k, v] of Object.entries(m)) {
      if (isCard(v)) out[k] = seen.has(v) ? v : "a hidden card";
      else if (Array.isArray(v) && v.some(isCard)) out[k] = `${v.length} hidden card${v.length === 1 ? "" : "s"}`;
      else out[k] = v;
    }
    return out;
  }

  // ================================================================== the dispute desk

  const desk = {
    game: null, request: null, verdict: null, steps: new Map(), step: 0, viewer: null, moves: [], record: null,
    gen: 0, fromTable: false,

    init() {
      $("desk-run").addEventListener("click", () => this.run());
      $("desk-file").addEventListener("change", async () => {
        const f = $("desk-file").files[0];
        if (!f) return;
        const text = await f.text();
        try {
          const parsed = J.parse(text);
          if (isObj(parsed) && isObj(parsed.request) && typeof parsed.game === "string") this.load(parsed.game, parsed.request);
          else $("desk-body").value = J.stringify(parsed, 1);
        } catch (err) { $("desk-body").value = text; }
      });
      $("step-first").addEventListener("click", () => this.go(0));
      $("step-prev").addEventListener("click", () => this.go(this.step - 1));
      $("step-next").addEventListener("click", () => this.go(this.step + 1));
      $("step-last").addEventListener("click", () => this.go(this.lastStep()));
      $("desk-viewer").addEventListener("change", () => { this.viewer = $("desk-viewer").value === "" ? null : Number($("desk-viewer").value); this.steps.clear(); this.go(this.step); });
    },

    offer() {
      const box = $("records-offer");
      box.textContent = app.records
        ? `This service judges signed match records: it checks their signature against its published keys (GET /v1/keys: ${app.keys.map((k) => k.kid).join(", ")}) and their deal commitment.`
        : "This service has no signing keys (GET /v1/keys lists none), so it cannot judge match records: a record is judged by a service that publishes the key it was signed with. Move logs (with their deck or seed) are judged here.";
      box.dataset.records = app.records ? "1" : "0";
    },

    load(gameId, request) {
      if (app.byId[gameId]) $("desk-game").value = gameId;
      $("desk-body").value = J.stringify(request, 1);
      this.fromTable = false;
    },

    fromLink(encoded) {
      showTab("desk");
      try {
        const data = J.parse(b64.dec(encoded));
        this.load(data.game, data.request);
      } catch (err) {
        this.reset();
        showProblem($("desk-problem"), { title: "Could not open the link", detail: "This link does not hold a move log this page can read." });
        return;
      }
      this.run();
    },

    lastStep() { return this.verdict ? this.verdict.moves_legal : 0; },

    /* Hot-seat took the table's game: whatever the desk holds of its deal (the log sent from the
     * table, a judgement of it) goes, since it shows every hand. */
    forget(gameId, request) {
      let body = null;
      try { body = J.parse($("desk-body").value); } catch (err) { body = null; }
      const same = (k) => isObj(body) && isObj(request) && body[k] !== undefined && J.stringify(body[k]) === J.stringify(request[k]);
      const holds = this.fromTable || (this.game === gameId && this.request && ["seed", "deck"].some((k) => this.request[k] !== undefined && J.stringify(this.request[k]) === J.stringify(request[k])));
      if (holds || (($("desk-game").value === gameId || (isObj(body) && body.game === gameId)) && (same("seed") || same("deck")))) {
        this.reset();
        $("desk-body").value = "";
      }
    },

    /* Nothing of the last judgement stays: verdict, notice, board, moves, events, share links. */
    reset() {
      this.gen += 1;
      this.verdict = null; this.record = null; this.request = null; this.moves = []; this.step = 0; this.fromTable = false;
      this.steps.clear();
      showProblem($("desk-problem"), null);
      delete $("desk-problem").dataset.held;
      const box = $("verdict");
      box.replaceChildren();
      box.classList.remove("bad");
      for (const k of ["firstIllegal", "signature", "commitment"]) delete box.dataset[k];
      $("other-game").hidden = true; $("other-game").replaceChildren(); delete $("other-game").dataset.otherGame;
      for (const id of ["steps", "desk-step-events", "desk-opponents", "desk-me", "desk-table", "desk-facts-strip", "desk-scores", "step-label", "desk-viewer"]) $(id).replaceChildren();
      $("share-link").removeAttribute("href");
      const a = $("download");
      if (a.dataset.url) URL.revokeObjectURL(a.dataset.url);
      delete a.dataset.url;
      a.removeAttribute("href");
      $("desk-board").hidden = true;
      $("desk-result").hidden = true;
    },

    fail(title, detail) {
      showProblem($("desk-problem"), { title, detail });
      $("desk-result").hidden = true;
    },

    /* Judge the whole log (or record), then show the final position. Each judgement starts from
     * nothing: the previous one is wiped before the new is asked for. */
    async run() {
      this.reset();
      const gen = this.gen;
      const text = $("desk-body").value.trim();
      if (!text) { this.fail("Nothing to judge yet", "Paste a move log or a match record into the box (or upload a file), then press Judge."); return; }
      let body;
      try { body = J.parse(text); } catch (err) { this.fail("This is not a move log", `The text is not valid JSON: ${err.message} A move log is one JSON object such as {"players": 2, "seed": 7, "moves": [...]}.`); return; }
      if (!isObj(body)) { this.fail("This is not a move log", `The text is JSON, but a ${Array.isArray(body) ? "list" : typeof body}; a move log is one object with "moves" (and "deck" or "seed"), and a match record an object with "record" or "signature".`); return; }
      if (isObj(body.request) && typeof body.game === "string") { this.load(body.game, body.request); body = body.request; }
      const record = isObj(body.record) ? body.record : (body.signature !== undefined && (body.fairness !== undefined || body.match_id !== undefined) ? body : null);
      if (record) { await this.runRecord(record, gen); return; }
      const gameOf = typeof body.game === "string" ? body.game : $("desk-game").value;
      if (dealOfHeldGame(gameOf, body)) {
        this.fail("Held back: this game is being played in hot-seat",
          "This log replays the deal of the game this device is playing in hot-seat, so judging it would show every seat's hand. The desk judges it once the game is over, or once “follow the turn” is off at the table (the log then says so).");
        $("desk-problem").dataset.held = "1";
        return;
      }
      if (!Array.isArray(body.moves)) { this.fail("This log has no moves", 'A move log needs "moves": a list of moves, e.g. [{"type": "play", "player": 1, "card": "QS"}].'); return; }
      let note = null;
      if (typeof body.game === "string") {
        if (!app.byId[body.game]) { this.fail("Unknown game", `The log names the game “${body.game}”, which this service does not referee.`); return; }
        if (body.game !== $("desk-game").value) note = `The log names ${app.byId[body.game].name}: it was judged as ${app.byId[body.game].name}, not ${app.byId[$("desk-game").value].name}.`;
        $("desk-game").value = body.game;
        body = Object.fromEntries(Object.entries(body).filter(([k]) => k !== "game"));
      }
      this.game = $("desk-game").value;
      this.request = Object.fromEntries(Object.entries(body).filter(([k]) => k !== "moves"));
      this.moves = body.moves;
      const res = await api("POST", `/v1/games/${this.game}/replay`, body);
      if (gen !== this.gen) return; // judged again meanwhile: this answer is stale
      if (!res.ok) {
        if (res.network) { showProblem($("desk-problem"), res.data, "The log was not judged", { label: "Try again", run: () => this.run() }); return; }
        const other = await this.otherGame(body, null);
        if (gen !== this.gen) return;
        showProblem($("desk-problem"), res.data, other ? `As ${app.byId[this.game].name} the referee cannot even start this log` : "The referee could not judge this log");
        if (other) {
          this.showOther(other, body, `As ${app.byId[this.game].name} the referee refuses the log itself (${res.data.code}).`);
          $("verdict").dataset.firstIllegal = "error";
        }
        return;
      }
      this.verdict = res.data;
      this.drawResult();
      if (note) { $("other-game").replaceChildren(el("p", { text: note })); $("other-game").hidden = false; }
      // the final position first (from the verdict, unless a seat view is chosen); the other-game hint asks the
      // referee again, game by game, and follows when it is known
      await this.go(this.lastStep());
      if (gen !== this.gen) return;
      if (res.data.first_illegal) {
        const other = await this.otherGame(body, res.data);
        if (gen !== this.gen) return;
        if (other) this.showOther(other, body, `As ${app.byId[this.game].name} the move at index ${res.data.first_illegal.index} is illegal (${res.data.first_illegal.error.code}).`);
      }
    },

    drawResult() {
      const res = { data: this.verdict };
      const n = seatCount(res.data.final);
      $("desk-viewer").replaceChildren(el("option", { value: "", text: app.sealed ? "the table (public view)" : "the table (everything)" }),
        ...Array.from({ length: n }, (_, s) => el("option", { value: String(s), text: `seat ${s}` })));
      if (this.viewer !== null && this.viewer >= n) this.viewer = null;
      $("desk-viewer").value = this.viewer === null ? "" : String(this.viewer);
      this.drawVerdict();
      this.share();
      $("desk-board").hidden = false;
      $("desk-result").hidden = false;
      if (this.viewer === null) this.steps.set(this.lastStep(), res.data.final);
    },

    /* A log of another game: the catalogue games whose moves it uses, judged in turn; the first that
     * accepts more of it than the chosen game is named. */
    async otherGame(body, verdict) {
      const types = new Set(body.moves.filter(isObj).map((m) => m.type));
      const best = verdict ? verdict.moves_legal : -1;
      for (const g of app.catalogue) {
        if (g.id === this.game || ![...types].every((t) => g.move_types.includes(t))) continue;
        if (isInt(body.players) && !g.players.includes(Number(body.players))) continue;
        const res = await api("POST", `/v1/games/${g.id}/replay`, body);
        if (res.ok && (res.data.first_illegal === null || res.data.moves_legal > best + 1)) return { game: g, verdict: res.data };
      }
      return null;
    },

    showOther(other, body, why) {
      const g = other.game, v = other.verdict;
      const box = $("other-game");
      box.replaceChildren(el("h2", { text: `This log belongs to another game: ${g.name}` }),
        el("p", {}, why, ` As ${g.name}, ${v.first_illegal ? `${v.moves_legal} of ${v.moves_total} moves are legal` : `every move is legal (${v.moves_total} of ${v.moves_total})`}.`),
        el("button", { type: "button", class: "primary", id: "judge-other", onclick: () => { $("desk-game").value = g.id; this.run(); } }, `Judge it as ${g.name}`));
      box.dataset.otherGame = g.id;
      box.hidden = false;
      $("desk-result").hidden = false;
    },

    /* Which key a record needs, and whether this service publishes it. */
    keyEl(record) {
      const kid = typeof record.key_id === "string" ? record.key_id : null;
      const published = app.keys.map((k) => k.kid);
      const known = kid !== null && published.includes(kid);
      return el("p", { class: "record-key", dataKey: kid || "", dataKnown: known ? "1" : "0" },
        el("b", { text: "Key: " }), kid ? ["this record is signed with key ", el("code", { text: kid })] : "this record names no signing key (key_id)",
        published.length ? (kid ? (known ? ", which this service publishes." : `, which this service does not publish (it publishes ${published.join(", ")}).`) : ".")
          : ". This service publishes no keys at all.");
    },

    /* A signed match record: the service checks the signature and the commitment, then replays it. */
    async runRecord(record, gen) {
      const gid = typeof record.game === "string" ? record.game : $("desk-game").value;
      if (!app.byId[gid]) { this.fail("Unknown game", `The record names the game “${record.game}”, which this service does not referee.`); return; }
      $("desk-game").value = gid;
      if (app.records === null) { await app.keysRead; if (gen !== this.gen) return; }
      if (!app.records) {
        const kid = typeof record.key_id === "string" ? record.key_id : null;
        this.fail("This service cannot judge match records",
          `This service has no signing keys (GET /v1/keys lists none), so it cannot check a record's signature or deal commitment, and it judges no records. ${kid ? `This record needs the key ${kid}: ` : "A record needs "}the key of the service that signed it, published at that service's GET /v1/keys. Judge it there, or judge its moves here as a log with the deal's deck or seed.`);
        $("desk-problem").dataset.needsKey = kid || "";
        return;
      }
      this.game = gid; this.record = record; this.request = null;
      this.moves = Array.isArray(record.moves) ? record.moves : [];
      const res = await api("POST", `/v1/games/${gid}/replay`, { record });
      if (gen !== this.gen) return;
      const checks = $("verdict");
      if (!res.ok) {
        if (res.network) { showProblem($("desk-problem"), res.data, "The record was not judged", { label: "Try again", run: () => this.run() }); return; }
        const code = res.data.code;
        const sig = code === "bad_signature" ? false : null, com = code === "bad_commitment" ? false : null;
        // only the refusal: no board, no moves, no links (they would be another judgement's)
        $("desk-result").hidden = false;
        checks.replaceChildren(el("h2", { text: "This record does not verify" }), this.checksEl(sig, com, null), this.keyEl(record), problemEl(res.data, null, null, true));
        checks.classList.add("bad");
        checks.dataset.firstIllegal = "record";
        checks.dataset.signature = sig === false ? "bad" : "unknown";
        checks.dataset.commitment = com === false ? "bad" : "unknown";
        return;
      }
      const d = res.data;
      // the usual verdict, at the top level or under "verdict"
      this.verdict = isObj(d.final) ? d : isObj(d.verdict) && isObj(d.verdict.final) ? d.verdict : d;
      this.drawResult();
      const pick = (name) => {
        for (const k of [`${name}_valid`, `${name}_verified`, `${name}_ok`]) if (typeof d[k] === "boolean") return d[k];
        for (const holder of [d.verified, d.verification, d.checks, d.record_check]) if (isObj(holder) && typeof holder[name] === "boolean") return holder[name];
        if (typeof d[name] === "boolean") return d[name];
        if (isObj(d[name])) for (const k of ["valid", "verified", "ok"]) if (typeof d[name][k] === "boolean") return d[name][k];
        return true; // the service answers 200 only for a record whose signature and commitment verify
      };
      const matches = ["result_matches", "matches_record", "result_matches_record", "same_result"].map((k) => d[k]).find((x) => typeof x === "boolean");
      const sig = pick("signature"), com = pick("commitment");
      checks.prepend(this.checksEl(sig, com, matches ?? null), this.keyEl(record));
      checks.dataset.signature = sig ? "ok" : "bad";
      checks.dataset.commitment = com ? "ok" : "bad";
      await this.go(this.lastStep());
    },

    checksEl(sig, com, matches) {
      const row = (name, v) => el("li", { dataCheck: name, class: v === false ? "bad" : v ? "ok" : "" },
        el("b", { text: name }), ": ", v === false ? "does NOT verify" : v ? "verifies" : "not checked (the record was refused before)");
      return el("ul", { class: "checks" }, row("Signature", sig), row("Commitment", com),
        matches === null ? null : el("li", { dataCheck: "result", class: matches ? "ok" : "bad" }, el("b", { text: "Result" }), matches ? ": the replay ends as the record says" : ": the replay does NOT end as the record says"));
    },

    async replay(moves) {
      const q = this.viewer === null ? "" : `?as=${this.viewer}`;
      return api("POST", `/v1/games/${this.game}/replay${q}`, { ...this.request, moves });
    },

    drawVerdict() {
      const v = this.verdict;
      const fi = v.first_illegal;
      const box = $("verdict");
      const after = fi ? v.moves_total - fi.index - 1 : 0;
      box.replaceChildren(el("h2", { text: fi ? `Illegal move at index ${fi.index}` : "Every move is legal" }),
        el("p", {}, `${v.moves_legal} of ${v.moves_total} moves legal`, after > 0 ? `; the ${after} move${after === 1 ? "" : "s"} after the illegal one ${after === 1 ? "is" : "are"} not judged` : "", ". Final position: ", ...statusText(v.final)));
      box.classList.toggle("bad", !!fi);
      if (fi) box.append(problemEl(fi.error, `Move ${fi.index}: `, fi.move, true), el("p", {}, "The move: ", moveWords(fi.move), Number.isInteger(fi.move.player) ? ` by seat ${fi.move.player}` : ""));
      box.dataset.firstIllegal = fi ? String(fi.index) : "";
      const list = $("steps");
      const stepBtn = (step, ...content) => el("button", { type: "button", class: "step-btn", onclick: () => this.go(step) }, ...content);
      list.replaceChildren(el("li", { class: "step ok start", dataStep: 0 }, stepBtn(0, "the deal")));
      this.moves.forEach((m, i) => {
        const cls = fi && i === fi.index ? "illegal" : i < v.moves_legal ? "ok" : "unjudged";
        const label = [el("span", { class: "idx", text: `${i}` }), " ",
          el("span", { class: "label" }, isObj(m) && Number.isInteger(m.player) ? `seat ${m.player}: ` : "", moveWords(m))];
        let li;
        if (cls === "unjudged") {
          // past the first illegal move the referee stops: these moves are neither legal nor illegal
          li = el("li", { class: "step unjudged", dataIndex: i, title: "not judged: the replay stops at the first illegal move" },
            el("span", { class: "step-btn" }, ...label, " ", el("span", { class: "step-tag unjudged-tag", text: "not judged" })));
        } else {
          li = el("li", { class: `step ${cls}`, dataIndex: i, dataStep: i + 1 },
            stepBtn(i < v.moves_legal ? i + 1 : v.moves_legal, ...label, cls === "illegal" ? [" ", el("span", { class: "step-tag illegal-tag", text: "illegal" })] : ""));
          if (cls === "illegal") li.append(el("div", { class: "why" }, el("b", { text: fi.error.code }), fi.error.rule ? ` · ${fi.error.rule}` : "", el("div", { text: fi.error.detail || "" })));
        }
        list.append(li);
      });
    },

    async go(step) {
      const gen = this.gen;
      step = Math.max(0, Math.min(step, this.lastStep()));
      this.step = step;
      let env = this.steps.get(step);
      if (!env) {
        if (this.record) env = this.verdict.final;
        else {
          const res = await this.replay(this.moves.slice(0, step));
          if (gen !== this.gen) return;
          if (!res.ok) { showProblem($("desk-problem"), res.data, "Could not step to this move"); return; }
          env = res.data.final;
        }
        this.steps.set(step, env);
      }
      if (this.step !== step || gen !== this.gen) return;
      const total = this.lastStep();
      $("step-label").replaceChildren(step === 0 ? "the deal, before any move" : `after move ${step - 1} (${step} of ${total} legal moves)`, " · ", ...statusText(env));
      renderPosition(env, this.viewer, { opponents: $("desk-opponents"), me: $("desk-me"), table: $("desk-table"), facts: $("desk-facts-strip"), scores: $("desk-scores"), fixedBottom: !!realtimeOf(app.byId[this.game]) });
      for (const b of $("desk-felt").querySelectorAll("button.card")) b.setAttribute("aria-disabled", "true");
      const ev = env.events || [];
      $("desk-step-events").replaceChildren(el("h3", {}, step === 0 ? "The deal" : ["Move ", String(step - 1), ": ", moveWords(this.moves[step - 1])]),
        ev.length ? el("div", { class: "events" }, ev.map(eventEl)) : el("span", { class: "muted", text: "no events" }));
      for (const li of $("steps").children) li.classList.toggle("current", li.dataset.step !== undefined && Number(li.dataset.step) === step);
      for (const li of $("steps").children) { const b = li.querySelector("button"); if (b) b.setAttribute("aria-current", Number(li.dataset.step) === step ? "step" : "false"); }
      const stepping = !this.record;
      $("step-prev").disabled = !stepping || step === 0;
      $("step-first").disabled = !stepping || step === 0;
      $("step-next").disabled = !stepping || step >= total;
      $("step-last").disabled = !stepping || step >= total;
    },

    share() {
      const request = this.record ? { record: this.record } : { ...this.request, moves: this.moves };
      const link = `${location.origin}${location.pathname}#desk=${b64.enc(J.stringify({ game: this.game, request }))}`;
      $("share-link").href = link;
      const file = J.stringify({ game: this.game, request, verdict: this.verdict }, 1);
      const a = $("download");
      if (a.dataset.url) URL.revokeObjectURL(a.dataset.url);
      a.dataset.url = URL.createObjectURL(new Blob([file], { type: "application/json" }));
      a.href = a.dataset.url;
      a.download = `referee-${this.game}-verdict.json`;
    },
  };

  // exposed for the browser tests' round-trip checks (read-only helpers; no state)
  window.cardReferee = Object.freeze({ parse: J.parse, stringify: J.stringify,
    eventText: (ev) => textOf(eventWords(ev)), moveText: (m) => moveText(m) });

  document.addEventListener("DOMContentLoaded", () => {
    $("fatal-retry").addEventListener("click", () => { boot().catch((err) => { $("fatal-text").textContent = "The page failed: " + err; }); });
    boot().catch((err) => { $("fatal-text").textContent = "The page failed: " + err; $("fatal").hidden = false; });
  });
})();
