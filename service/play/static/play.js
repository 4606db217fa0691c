/* Card Referee playground: the table and the dispute desk.
 *
 * A client of the public API like any other (GET /v1/games, POST /v1/games/{id}/new | state |
 * moves | replay, GET /readyz); it knows no game's rules. Everything it shows comes from the
 * catalogue (the new-game form), the envelope (status, to_move, legal_moves, events, scores,
 * winner) and the state or view, laid out by shape: card lists become rows of cards, lists with
 * one entry per seat go to that seat's panel, counts of hidden cards become card backs.
 */
"use strict";

(() => {
  // ------------------------------------------------------------------ small helpers

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
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const label = (key) => String(key).replace(/_/g, " ");
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const CARD_RE = /^(10|[2-9JQKA])([SHDC])(?:\/([a-z]))?$/;
  const isCard = (v) => typeof v === "string" && CARD_RE.test(v);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const isCardList = (v) => Array.isArray(v) && v.length > 0 && v.every(isCard);
  const isCardOrNullList = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => x === null || isCard(x)) && v.some(isCard);
  const isPlayed = (v) => isObj(v) && isCard(v.card) && (v.player === undefined || Number.isInteger(v.player) || v.player === null);
  const isTrick = (v) => Array.isArray(v) && v.length > 0 && v.every(isPlayed);
  // state fields shown elsewhere (header, details) rather than laid out on the table
  const META = new Set(["game", "rules_version", "options", "seq", "seat", "legal_moves"]);
  // lists of seat numbers: never "one entry per seat"
  const SEAT_LISTS = new Set(["to_move", "pending", "in_play", "order", "winner", "winners", "seats", "active", "out"]);

  async function api(method, path, body, key) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["X-Seat-Key"] = key;
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      return { ok: false, status: 0, data: { code: "network", title: "No answer", detail: String(err) } };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      data = { code: "not_json", detail: "The service answered something that is not JSON." };
    }
    return { ok: response.ok, status: response.status, data };
  }

  // ------------------------------------------------------------------ cards

  function cardEl(card, extraClass) {
    const m = CARD_RE.exec(card);
    const rank = m[1], suit = m[2], deckTag = m[3];
    const red = suit === "H" || suit === "D";
    const node = el("span", {
      class: `card face ${red ? "red" : "black"} ${extraClass || ""}`.trim(),
      dataCard: card,
      title: `${card} (${rank} of ${SUIT_NAMES[suit]}${deckTag ? ", deck " + deckTag : ""})`,
      role: "img",
      "aria-label": card,
    },
      el("span", { class: "corner" }, el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUITS[suit] })),
      el("span", { class: "pip", text: SUITS[suit] }),
      deckTag ? el("span", { class: "deck-tag", text: deckTag }) : null);
    return node;
  }

  const backEl = () => el("span", { class: "card back", title: "a hidden card", role: "img", "aria-label": "hidden card" });

  function backs(count, fanned) {
    if (!Number.isInteger(count) || count < 0) return el("span", { class: "muted", text: String(count) });
    if (count === 0) return el("span", { class: "muted", text: "none" });
    if (fanned) {
      const shown = Math.min(count, 13);
      const row = el("span", { class: "cards fan", dataCount: count });
      for (let i = 0; i < shown; i++) row.append(backEl());
      if (shown < count) row.append(el("span", { class: "more", text: `+${count - shown}` }));
      return row;
    }
    return el("span", { class: "pile", dataCount: count }, backEl(), el("span", { class: "pile-count", text: `×${count}` }));
  }

  // ------------------------------------------------------------------ generic value layout

  /* ctx: {owner: seat or null, hand: bool} — cards under an owner are that seat's (click targets). */
  function valueEl(v, ctx) {
    ctx = ctx || {};
    if (v === null || v === undefined) return el("span", { class: "muted", text: "—" });
    if (isCard(v)) return cardRow([v], ctx);
    if (typeof v === "boolean") return el("span", { class: "val", text: v ? "yes" : "no" });
    if (typeof v !== "object") return el("span", { class: "val", text: String(v) });
    if (Array.isArray(v)) {
      if (v.length === 0) return el("span", { class: "muted", text: "none" });
      if (isCardOrNullList(v)) return cardRow(v, ctx);
      if (isTrick(v)) return trickEl(v, ctx);
      const pile = (x) => Array.isArray(x) && (x.length === 0 || isCardOrNullList(x) || isTrick(x) || (x.length === 2 && x.every(isCard)));
      if (v.every((x) => pile(x) || x === null) && (v.some((x) => Array.isArray(x) && x.length) || v.length > 2)) {
        // piles, tricks, tableau columns, foundations: one box each (an empty one is an empty slot)
        return el("span", { class: "groups" }, v.map((g) => el("span", { class: "group" },
          Array.isArray(g) && g.length === 0 ? el("span", { class: "card slot", title: "empty" }) : valueEl(g, { ...ctx, hand: false }))));
      }
      if (v.every((x) => typeof x !== "object" || x === null)) return el("span", { class: "val", text: v.map((x) => (x === null ? "—" : String(x))).join(", ") });
      return el("ol", { class: "items", start: 0 }, v.map((x) => el("li", {}, valueEl(x, ctx))));
    }
    return objectEl(v, ctx);
  }

  function objectEl(obj, ctx) {
    const dl = el("dl", { class: "obj" });
    for (const [k, val] of Object.entries(obj)) {
      dl.append(el("dt", { text: label(k) }), el("dd", {}, valueEl(val, { ...ctx, hand: false })));
    }
    return dl;
  }

  function cardRow(cards, ctx) {
    const row = el("span", { class: "cards" + (ctx.hand ? " hand" : "") });
    for (const c of cards) {
      const node = c === null ? backEl() : cardEl(c);
      if (c !== null && ctx.owner !== null && ctx.owner !== undefined) node.dataset.owner = String(ctx.owner);
      if (c !== null && ctx.hand) node.dataset.inHand = "1";
      row.append(node);
    }
    return row;
  }

  function trickEl(plays, ctx) {
    const row = el("span", { class: "cards trick" });
    for (const p of plays) {
      row.append(el("span", { class: "played" }, cardRow([p.card], { ...ctx, hand: false }),
        p.player === undefined ? null : el("span", { class: "who", text: p.player === null ? "?" : `seat ${p.player}` })));
    }
    return row;
  }

  // ------------------------------------------------------------------ a position (envelope) on the page

  function seatCount(env) {
    const totals = env.scores && env.scores.totals;
    if (Array.isArray(totals) && totals.length) return totals.length;
    const s = env.state || {};
    if (Number.isInteger(s.players)) return s.players;
    if (Array.isArray(s.players)) return s.players.length;
    return 2;
  }

  const countBase = (key) => key.replace(/_counts?$/, "");
  // a count of cards lying face down (drawn as backs); any other count is a plain number
  const HIDDEN_PILE = /hand|stock|talon|deck|pack|pile|waste|discard|won|cent(er|re)|pool|dead|kitty|widow|hidden|cards/;
  const FACE_UP = /face_?up|^up$|exposed|shown|revealed/;
  const isCountKey = (key) => /_counts?$/.test(key);

  /* Sorts the state's fields into one bucket per seat, the table, and plain facts. */
  function classify(state, n, viewer) {
    const seats = Array.from({ length: n }, () => []);
    const table = [], facts = [];
    const hiddenCounts = new Set(); // "<count key>:<seat>" drawn as a hidden hand instead of a number
    const other = n === 2 && viewer !== null ? 1 - viewer : null;
    for (const [key, v] of Object.entries(state)) {
      if (META.has(key)) continue;
      if (other !== null && key.includes("opponent")) { seats[other].push([key, v]); continue; }
      if (viewer !== null && (key === "hand" || key === "own_hand")) { seats[viewer].push([key, v]); continue; }
      if (key === "players" && Array.isArray(v) && v.length === n && v.every(isObj)) {
        v.forEach((o, s) => { for (const [k2, v2] of Object.entries(o)) seats[s].push([k2, v2]); });
        continue;
      }
      const perSeat = n > 1 && Array.isArray(v) && v.length === n && !SEAT_LISTS.has(key) && !isTrick(v) && !key.startsWith("last_")
        && !(isCardOrNullList(v) && !key.includes("top") && !v.includes(null)) && !v.every((x) => isObj(x) && "card" in x);
      if (perSeat) { v.forEach((x, s) => seats[s].push([key, x])); continue; }
      if (v !== null && typeof v === "object" || isCard(v) || isCountKey(key)) table.push([key, v]);
      else facts.push([key, v]);
    }
    // a hidden hand (null) with a sibling count: draw the count as backs in its place
    seats.forEach((fields, s) => {
      for (const [key, v] of fields) {
        if (v !== null) continue;
        const base = key.replace(/s$/, "");
        for (const ck of [`${base}_counts`, `${key}_counts`, `${base}_count`]) {
          const c = state[ck];
          if (Array.isArray(c) && Number.isInteger(c[s])) { hiddenCounts.add(`${ck}:${s}`); fields.splice(fields.indexOf(fields.find((f) => f[0] === key)), 1, [key, { __backs: c[s] }]); break; }
        }
      }
    });
    return { seats, table, facts, hiddenCounts };
  }

  function fieldEl(key, v, ctx, state, seat, hiddenCounts) {
    const handish = /hand|hidden/.test(key) && !/count/.test(key) || key === "up";
    let body;
    if (isObj(v) && "__backs" in v) {
      body = backs(v.__backs, true);
      body.classList.add("hand");
    } else if (isCountKey(key) && Number.isInteger(v)) {
      if (seat !== null && hiddenCounts.has(`${key}:${seat}`)) return null;
      const base = countBase(key).replace(/^opponent_/, "");
      const visible = seat !== null && ([base, base + "s"].some((k) => Array.isArray(state[k]) && Array.isArray(state[k][seat]))
        || (seat === state.seat && !key.startsWith("opponent_") && Array.isArray(state[base]))); // the viewer's own `hand`
      if (visible || !HIDDEN_PILE.test(base) || FACE_UP.test(base)) body = el("span", { class: "val", text: String(v) });
      else {
        body = backs(v, /hand/.test(key));
        if (/hand/.test(key)) body.classList.add("hand");
      }
    } else {
      body = valueEl(v, { ...ctx, hand: handish && (isCardOrNullList(v) || Array.isArray(v)) });
    }
    return el("div", { class: "field" + (handish ? " hand-field" : ""), dataField: key }, el("span", { class: "field-name", text: label(key) }), body);
  }

  function renderPosition(env, viewer, into) {
    const state = env.state || {};
    const n = seatCount(env);
    const { seats, table, facts, hiddenCounts } = classify(state, n, viewer);
    const toMove = Array.isArray(env.to_move) ? env.to_move : [];
    const winners = Array.isArray(env.winner) ? env.winner : [];
    into.seats.replaceChildren();
    seats.forEach((fields, s) => {
      const tags = [];
      if (toMove.includes(s)) tags.push(el("span", { class: "tag turn", text: "to move" }));
      if (state.dealer === s) tags.push(el("span", { class: "tag", text: "dealer" }));
      if (viewer === s) tags.push(el("span", { class: "tag you", text: "this view" }));
      if (winners.includes(s)) tags.push(el("span", { class: "tag win", text: "winner" }));
      const panel = el("div", { class: "panel seat" + (toMove.includes(s) ? " on-turn" : ""), dataSeat: s },
        el("h3", {}, `Seat ${s}`, ...tags));
      for (const [key, v] of fields) {
        const f = fieldEl(key, v, { owner: s }, state, s, hiddenCounts);
        if (f) panel.append(f);
      }
      if (fields.length === 0) panel.append(el("p", { class: "muted", text: "nothing to show" }));
      into.seats.append(panel);
    });
    into.table.replaceChildren();
    for (const [key, v] of table) {
      into.table.append(el("div", { class: "panel pilebox", dataField: key }, el("h3", { text: label(key) }), fieldEl(key, v, { owner: null }, state, null, hiddenCounts).lastChild));
    }
    if (into.facts) {
      into.facts.replaceChildren(objectEl(Object.fromEntries([...facts, ["options", state.options], ["rules_version", state.rules_version]].filter(([, v]) => v !== undefined)), {}));
    }
    if (into.scores) renderScores(env, n, into.scores);
  }

  function statusText(env, extra) {
    const state = env.state || {};
    const parts = [];
    parts.push(el("b", { text: label(env.status || "?") }));
    if (state.phase && state.phase !== env.status) parts.push(` · phase ${label(state.phase)}`);
    if (Array.isArray(env.to_move) && env.to_move.length) parts.push(` · to move: seat ${env.to_move.join(", ")}`);
    if (Array.isArray(env.winner)) parts.push(` · winner: ${env.winner.length ? "seat " + env.winner.join(", ") : "none (a draw)"}`);
    if (state.seq !== undefined) parts.push(el("span", { class: "seq", dataSeq: state.seq }, ` · seq ${state.seq}`));
    if (extra) parts.push(extra);
    return parts;
  }

  function renderScores(env, n, into) {
    const scores = env.scores || {};
    const head = el("tr", {}, el("th", { text: "seat" }), Array.from({ length: n }, (_, s) => el("th", { text: n > 4 ? String(s) : `seat ${s}` })));
    const rows = [];
    const rest = [];
    for (const [k, v] of Object.entries(scores)) {
      if (Array.isArray(v) && v.length === n && v.every((x) => typeof x !== "object" || x === null)) {
        rows.push(el("tr", { class: k === "totals" ? "totals" : "", dataScore: k }, el("th", { text: label(k) }), v.map((x) => el("td", { text: x === null ? "—" : String(x) }))));
      } else rest.push([k, v]);
    }
    into.replaceChildren(el("h2", { text: "Scores" }), el("table", { class: "score-table" }, el("thead", {}, head), el("tbody", {}, rows)));
    if (rest.length) into.append(objectEl(Object.fromEntries(rest), {}));
    if (Array.isArray(env.winner)) into.append(el("p", { class: "winner", text: env.winner.length ? `Winner: seat ${env.winner.join(", ")}` : "No winner (a draw)" }));
  }

  // ------------------------------------------------------------------ moves and events as text

  function moveLabel(m) {
    const parts = [label(m.type || "?")];
    for (const [k, v] of Object.entries(m)) {
      if (k === "type" || k === "player") continue;
      if (isCard(v)) parts.push(v);
      else if (isCardList(v)) parts.push(v.join(" "));
      else if (Array.isArray(v) && v.length === 0 && k === "cards") parts.push("no cards");
      else parts.push(`${label(k)} ${typeof v === "object" ? JSON.stringify(v) : v}`);
    }
    return parts.join(" ");
  }

  function inlineValue(v) {
    if (isCard(v)) return cardEl(v, "mini");
    if (isCardList(v)) return el("span", { class: "cards inline" }, v.map((c) => cardEl(c, "mini")));
    if (isTrick(v)) return el("span", { class: "cards inline" }, v.map((p) => el("span", {}, cardEl(p.card, "mini"), p.player === undefined ? "" : ` (seat ${p.player}) `)));
    if (v === null) return "—";
    if (typeof v === "object") return JSON.stringify(v);
    return String(v);
  }

  function eventEl(ev) {
    const node = el("span", { class: "event", dataEvent: ev.type }, el("b", { text: label(ev.type) }));
    for (const [k, v] of Object.entries(ev)) {
      if (k === "type") continue;
      node.append(" ", el("span", { class: "k", text: label(k) + ":" }), " ", inlineValue(v));
    }
    return node;
  }

  function problemEl(p, heading) {
    return el("div", { class: "problem-body" },
      heading ? el("div", { class: "problem-head", text: heading }) : null,
      el("div", {}, el("b", { class: "code", text: p.code || p.title || "error" }), p.status ? ` (HTTP ${p.status})` : ""),
      p.detail ? el("div", { class: "detail", text: p.detail }) : null,
      p.rule ? el("div", { class: "rule" }, "Rule: ", el("b", { text: p.rule })) : null,
      p.errors ? el("pre", { class: "errors", text: JSON.stringify(p.errors, null, 1) }) : null);
  }

  function showProblem(box, p, heading) {
    if (!p) { box.hidden = true; box.replaceChildren(); return; }
    box.replaceChildren(problemEl(p, heading));
    box.hidden = false;
  }

  // ------------------------------------------------------------------ catalogue and mode

  const app = { catalogue: [], byId: {}, sealed: false };

  async function boot() {
    const [cat, ready] = await Promise.all([api("GET", "/v1/games"), api("GET", "/readyz")]);
    if (!cat.ok) { $("fatal").textContent = "Could not read the catalogue (GET /v1/games)."; $("fatal").hidden = false; return; }
    app.catalogue = cat.data.games;
    app.byId = Object.fromEntries(app.catalogue.map((g) => [g.id, g]));
    app.sealed = !!ready.data && ready.data.mode === "sealed";
    $("mode").textContent = app.sealed ? "sealed mode" : "open mode";
    $("mode").classList.add(app.sealed ? "sealed" : "open");
    for (const sel of [$("game"), $("desk-game")]) {
      sel.replaceChildren(...app.catalogue.map((g) => el("option", { value: g.id, text: g.name })));
    }
    $("game").addEventListener("change", buildForm);
    buildForm();
    table.init();
    desk.init();
    $("tab-table").addEventListener("click", () => showTab("table"));
    $("tab-desk").addEventListener("click", () => showTab("desk"));
    document.body.dataset.ready = "1";
    if (location.hash.startsWith("#desk=")) desk.fromLink(location.hash.slice(6));
    window.addEventListener("hashchange", () => { if (location.hash.startsWith("#desk=")) desk.fromLink(location.hash.slice(6)); });
  }

  function showTab(which) {
    $("table-tab").hidden = which !== "table";
    $("desk-tab").hidden = which !== "desk";
    $("tab-table").classList.toggle("active", which === "table");
    $("tab-desk").classList.toggle("active", which === "desk");
    $("tab-table").setAttribute("aria-selected", String(which === "table"));
    $("tab-desk").setAttribute("aria-selected", String(which === "desk"));
  }

  /* The new-game form, generated from the selected game's catalogue entry. */
  function buildForm() {
    const g = app.byId[$("game").value];
    $("players").replaceChildren(...g.players.map((n) => el("option", { value: n, text: String(n), selected: n === g.default_players })));
    $("game-info").textContent = `${g.name} · ${g.players.join(", ")} players · rules ${g.rules_version} · moves: ${g.move_types.map(label).join(", ")}`;
    const box = $("options");
    box.replaceChildren(el("legend", { text: "Options" }));
    const entries = Object.entries(g.options || {});
    if (!entries.length) box.append(el("p", { class: "muted", text: "This game has no options." }));
    for (const [name, o] of entries) {
      let input;
      if (o.type === "boolean") {
        input = el("input", { type: "checkbox", name, checked: o.default === true });
      } else if (Array.isArray(o.enum)) {
        input = el("select", { name }, o.enum.map((v) => el("option", { value: JSON.stringify(v), text: String(v), selected: v === o.default })));
      } else if (o.type === "integer" || o.type === "number") {
        input = el("input", { type: "number", name, value: o.default, min: o.minimum, max: o.maximum, step: o.type === "integer" ? 1 : "any" });
      } else if (o.type === "string") {
        input = el("input", { type: "text", name, value: o.default === null ? "" : o.default });
      } else {
        // lists, objects, anything else: edited as JSON (e.g. a list of starting scores)
        input = el("input", { type: "text", name, class: "json", value: JSON.stringify(o.default), spellcheck: "false", title: "JSON" });
      }
      input.dataset.option = name;
      input.dataset.kind = Array.isArray(o.enum) ? "enum" : ["boolean", "integer", "number", "string"].includes(o.type) ? o.type : "json";
      box.append(el("label", { class: o.type === "boolean" ? "check opt" : "opt", title: o.description || "" },
        o.type === "boolean" ? [input, " ", label(name)] : [label(name), " ", input],
        el("small", { class: "muted", text: o.description || "" })));
    }
  }

  function readOptions() {
    const options = {};
    for (const input of $("options").querySelectorAll("[data-option]")) {
      const kind = input.dataset.kind;
      if (kind === "boolean") options[input.dataset.option] = input.checked;
      else if (kind === "enum") options[input.dataset.option] = JSON.parse(input.value);
      else if (kind === "integer" || kind === "number") options[input.dataset.option] = input.value === "" ? null : Number(input.value);
      else if (kind === "json") options[input.dataset.option] = JSON.parse(input.value); // a SyntaxError names the option below
      else options[input.dataset.option] = input.value;
    }
    return options;
  }

  function parseDeck(text) {
    text = text.trim();
    if (!text) return null;
    if (text.startsWith("[")) return JSON.parse(text);
    return text.split(/[\s,]+/).filter(Boolean).map((c) => c.replace(/^["']|["']$/g, ""));
  }

  // ------------------------------------------------------------------ the table

  const table = {
    game: null,        // catalogue entry
    request: null,     // the new request body (for the dispute desk)
    env: null,         // open mode: the full envelope; sealed: the latest envelope (a view)
    full: null,        // open mode: the full state
    token: null, seatKeys: [], tableKey: null,
    viewer: null,      // null = the table (everything in open mode, the public view when sealed)
    shown: null,       // the envelope on screen (viewer's)
    moves: [],         // moves applied, in order (the move log)
    picking: null,     // a card-picking template in progress: {move, picked: []}

    init() {
      $("new-form").addEventListener("submit", (e) => { e.preventDefault(); this.start(); });
      $("viewer").addEventListener("change", () => { this.viewer = $("viewer").value === "" ? null : Number($("viewer").value); this.refresh(); });
      $("follow").addEventListener("change", () => { if ($("follow").checked) this.follow(); });
      $("move-json").addEventListener("input", () => { $("move-json").dataset.touched = "1"; });
      $("send-move").addEventListener("click", () => {
        let move;
        try { move = JSON.parse($("move-json").value); } catch (err) { showProblem($("problem"), { code: "not_json", detail: String(err) }, "Your move is not JSON"); return; }
        this.send(move);
      });
      $("to-desk").addEventListener("click", () => {
        if (!this.request) return;
        desk.load(this.game.id, { ...this.request, moves: this.moves });
        showTab("desk");
        desk.run();
      });
    },

    key(seat) {
      if (!app.sealed) return undefined;
      return seat === null || seat === undefined ? this.tableKey : (this.seatKeys[seat] || this.tableKey);
    },

    async start() {
      showProblem($("problem"), null);
      const g = app.byId[$("game").value];
      let options;
      try { options = readOptions(); } catch (err) { showProblem($("problem"), { code: "invalid_option", detail: "An option written as JSON is not valid JSON: " + err.message }, "Could not start"); $("play-area").hidden = false; return; }
      const body = { players: Number($("players").value), options };
      let deck;
      try { deck = parseDeck($("deck").value); } catch (err) { showProblem($("problem"), { code: "invalid_deck", detail: "The deck is neither a JSON list nor cards separated by spaces." }, "Could not start"); $("play-area").hidden = false; return; }
      if (deck) body.deck = deck;
      if ($("seed").value !== "") body.seed = Number($("seed").value);
      if (!app.sealed && !deck && body.seed === undefined) {
        const r = new Uint32Array(2); crypto.getRandomValues(r);
        body.seed = (r[0] % 2097152) * 4294967296 + r[1]; // < 2^53: exact in JSON numbers
      }
      const res = await api("POST", `/v1/games/${g.id}/new`, body);
      $("play-area").hidden = false;
      if (!res.ok) { showProblem($("problem"), res.data, "The game could not start"); return; }
      this.game = g;
      this.request = body;
      delete $("move-json").dataset.touched;
      this.moves = [];
      this.picking = null;
      this.env = res.data;
      this.full = app.sealed ? null : res.data.state;
      this.token = res.data.token || null;
      this.seatKeys = res.data.seat_keys || [];
      this.tableKey = res.data.table_key || null;
      const n = seatCount(res.data);
      $("viewer").replaceChildren(el("option", { value: "", text: app.sealed ? "the table (public view)" : "the table (everything)" }),
        ...Array.from({ length: n }, (_, s) => el("option", { value: String(s), text: `seat ${s}` })));
      this.viewer = app.sealed ? (res.data.to_move[0] ?? 0) : null;
      $("viewer").value = this.viewer === null ? "" : String(this.viewer);
      $("log").replaceChildren();
      this.logEntry(null, res.data.events, `new ${g.name}` + (body.seed !== undefined ? ` (seed ${body.seed})` : deck ? " (fixed deck)" : ""));
      $("to-desk").hidden = !(body.seed !== undefined || deck);
      if ($("follow").checked) await this.follow(true);
      else await this.refresh();
    },

    /* Fetch the envelope as the current viewer sees it, then draw it. */
    async refresh() {
      if (!this.env) return;
      let env = this.env;
      if (app.sealed) {
        const q = this.viewer === null ? "" : `?as=${this.viewer}`;
        const res = await api("POST", `/v1/games/${this.game.id}/state${q}`, { token: this.token }, this.viewer === null ? undefined : this.key(this.viewer));
        if (!res.ok) { showProblem($("problem"), res.data, "Could not show this view"); return; }
        env = res.data;
      } else if (this.viewer !== null) {
        const res = await api("POST", `/v1/games/${this.game.id}/state?as=${this.viewer}`, { state: this.full });
        if (!res.ok) { showProblem($("problem"), res.data, "Could not show this view"); return; }
        env = res.data;
      }
      this.shown = env;
      this.draw();
    },

    async follow(fresh) {
      const next = Array.isArray(this.env.to_move) && this.env.to_move.length ? this.env.to_move[0] : null;
      if (next !== null && next !== this.viewer) {
        this.viewer = next;
        $("viewer").value = String(next);
      }
      await this.refresh();
    },

    draw() {
      const env = this.shown;
      $("status-line").replaceChildren(el("b", { text: this.game.name }), " · ", ...statusText(env));
      renderPosition(env, this.viewer, { seats: $("seats"), table: $("table"), facts: $("facts"), scores: $("scores") });
      $("raw").textContent = JSON.stringify(env, null, 1);
      this.wireMoves(env);
      const first = (env.legal_moves || [])[0];
      if (first && !$("move-json").dataset.touched) $("move-json").value = JSON.stringify(first);
    },

    /* Legal moves: a card that a move names is clickable; the other moves are buttons. */
    wireMoves(env) {
      const legal = env.legal_moves || [];
      const byCard = new Map();
      for (const m of legal) {
        if (isCard(m.card)) {
          if (!byCard.has(m.card)) byCard.set(m.card, []);
          byCard.get(m.card).push(m);
        }
      }
      const onCards = new Set();
      const cardNodes = [...$("seats").querySelectorAll(".card.face"), ...$("table").querySelectorAll(".card.face")];
      const bound = new Set();
      for (const node of cardNodes) {
        const card = node.dataset.card;
        const owner = node.dataset.owner === undefined ? null : Number(node.dataset.owner);
        let moves = byCard.get(card) || [];
        if (owner !== null) moves = moves.filter((m) => m.player === owner || m.player === undefined);
        if (moves.length && !bound.has(card + "|" + moves.map(moveLabel).join())) {
          bound.add(card + "|" + moves.map(moveLabel).join());
          moves.forEach((m) => onCards.add(m));
          node.classList.add("playable");
          node.tabIndex = 0;
          node.dataset.moves = moves.map(moveLabel).join(" | ");
          const act = () => (moves.length === 1 ? this.send(moves[0]) : this.choose(card, moves));
          node.addEventListener("click", act);
          node.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); act(); } });
        } else if (node.dataset.inHand && owner !== null) {
          // not a legal card: clicking asks the referee anyway, so a person can see why not
          const type = this.cardMoveType(legal, owner);
          if (type) {
            node.classList.add("refusable");
            node.title += ` (not a legal move now; click to ask the referee why: ${type})`;
          }
          node.addEventListener("click", () => {
            if (this.picking && this.picking.move.player === owner) { this.pick(node, card); return; }
            if (type) this.send({ type, player: owner, card });
          });
        }
      }
      const box = $("moves");
      box.replaceChildren(el("h2", { text: legal.length ? "Legal moves" : "No legal moves in this view" }));
      if (!legal.length && app.sealed && this.viewer === null) box.append(el("p", { class: "muted", text: "The public view lists no moves: view as a seat to play." }));
      else if (!legal.length && env.status !== "finished") box.append(el("p", { class: "muted", text: "Switch the view to the seat to move (or tick “follow the turn”)." }));
      if (onCards.size) box.append(el("p", { class: "muted", text: "Highlighted cards are legal: click one to play it." }));
      const multiSeat = new Set(legal.map((m) => m.player)).size > 1;
      const buttons = el("div", { class: "buttons" });
      for (const m of legal) {
        if (onCards.has(m)) continue;
        buttons.append(this.moveControl(m, multiSeat));
      }
      box.append(buttons);
      if (this.picking) this.drawPicking();
    },

    cardMoveType(legal, owner) {
      const mine = legal.find((m) => isCard(m.card) && m.player === owner) || legal.find((m) => isCard(m.card));
      if (mine) return mine.type;
      return this.game.move_types.includes("play") ? "play" : null;
    },

    moveControl(m, multiSeat) {
      const prefix = multiSeat && m.player !== undefined ? `seat ${m.player}: ` : "";
      const ranges = Object.keys(m).filter((k) => /^min_/.test(k)).map((k) => k.slice(4));
      if (ranges.length) {
        // a template with a range: one number input per field (min_x / max_x → x)
        const inputs = ranges.map((f) => el("input", { type: "number", class: "amount", dataField: f, value: m["min_" + f], min: m["min_" + f], max: m["max_" + f], title: f }));
        const send = () => {
          const move = Object.fromEntries(Object.entries(m).filter(([k]) => !/^(min|max)_/.test(k)));
          inputs.forEach((i) => { move[i.dataset.field] = Number(i.value); });
          this.send(move);
        };
        return el("span", { class: "template" }, el("button", { type: "button", class: "move-btn", dataMove: JSON.stringify(m), onclick: send },
          prefix + label(m.type)), ...ranges.map((f, i) => el("label", {}, ` ${label(f)} `, inputs[i])),
          el("small", { class: "muted", text: ranges.map((f) => ` ${m["min_" + f] ?? ""}…${m["max_" + f] ?? ""}`).join(" ") }));
      }
      if (Number.isInteger(m.count) && !("cards" in m)) {
        // a template naming how many cards: pick them, then send {…, cards: [...]}
        return el("button", { type: "button", class: "move-btn template-pick", dataMove: JSON.stringify(m),
          onclick: () => { this.picking = { move: m, picked: [] }; this.drawPicking(); } },
          `${prefix}${label(m.type)}: choose ${m.count} card${m.count === 1 ? "" : "s"}`);
      }
      return el("button", { type: "button", class: "move-btn", dataMove: JSON.stringify(m), onclick: () => this.send(m) }, prefix + moveLabel(m));
    },

    drawPicking() {
      const p = this.picking;
      const old = $("picking");
      if (old) old.remove();
      for (const node of $("seats").querySelectorAll(".card.face[data-in-hand]")) {
        const mine = Number(node.dataset.owner) === p.move.player;
        node.classList.toggle("pickable", mine);
        node.classList.toggle("picked", mine && p.picked.includes(node.dataset.card));
      }
      const move = { ...p.move }; delete move.count; move.cards = p.picked;
      $("moves").append(el("div", { id: "picking", class: "picking" },
        `${label(p.move.type)} for seat ${p.move.player}: click cards in the hand (${p.picked.length} of ${p.move.count} chosen) `,
        el("button", { type: "button", class: "primary", onclick: () => { this.picking = null; this.send(move); } }, `Send ${moveLabel(move)}`),
        el("button", { type: "button", onclick: () => { this.picking = null; this.draw(); } }, "Cancel")));
    },

    pick(node, card) {
      const p = this.picking;
      const i = p.picked.indexOf(card);
      if (i >= 0) p.picked.splice(i, 1); else p.picked.push(card);
      this.drawPicking();
    },

    choose(card, moves) {
      const old = $("chooser");
      if (old) old.remove();
      $("moves").prepend(el("div", { id: "chooser", class: "chooser" }, `${card}: `,
        moves.map((m) => el("button", { type: "button", class: "move-btn", dataMove: JSON.stringify(m), onclick: () => this.send(m) }, moveLabel(m))),
        el("button", { type: "button", class: "small", onclick: () => $("chooser").remove() }, "cancel")));
    },

    /* Send one move; a refusal shows its code, detail and rule. */
    async send(move) {
      if (this.busy) return;
      this.busy = true;
      try {
        showProblem($("problem"), null);
        const actor = Number.isInteger(move.player) ? move.player : this.viewer;
        let res;
        if (app.sealed) {
          const q = this.viewer === null ? "" : `?as=${this.viewer}`;
          const key = this.viewer === null || actor !== this.viewer ? this.tableKey : this.key(this.viewer);
          res = await api("POST", `/v1/games/${this.game.id}/moves${q}`, { token: this.token, move }, key);
        } else {
          res = await api("POST", `/v1/games/${this.game.id}/moves`, { state: this.full, move });
        }
        if (!res.ok) {
          showProblem($("problem"), res.data, `Refused: ${moveLabel(move)}${Number.isInteger(move.player) ? " by seat " + move.player : ""}`);
          this.logEntry(move, null, null, res.data);
          return;
        }
        this.picking = null;
        this.moves.push(move);
        const before = this.full;
        this.env = res.data;
        if (app.sealed) this.token = res.data.token; else this.full = res.data.state;
        let events = res.data.events, seen = null;
        if (!app.sealed && this.viewer !== null && this.replayable(move)) {
          // the same move on the same state, answered in the viewing seat's view: the events
          // that seat was told (a card drawn by another seat stays hidden in the log)
          const mine = await api("POST", `/v1/games/${this.game.id}/moves?as=${this.viewer}`, { state: before, move });
          if (mine.ok) { events = mine.data.events; seen = mine.data; }
        }
        this.logEntry(move, events, null, null, app.sealed || seen ? this.viewer : null);
        if ((app.sealed || seen) && !$("follow").checked) { this.shown = seen || res.data; this.draw(); }
        else if ($("follow").checked) await this.follow();
        else await this.refresh();
      } finally {
        this.busy = false;
      }
    },

    /* Whether sending ``move`` again gives the same result: only a next_deal that the service
     * shuffles without a seed does not. */
    replayable(move) {
      return !(move.type === "next_deal" && !Array.isArray(move.deck) && this.request.seed === undefined);
    },

    logEntry(move, events, title, problem, viewer) {
      const seq = this.env && this.env.state ? this.env.state.seq : undefined;
      const li = el("li", { class: problem ? "refused" : "", dataSeq: problem ? null : seq, dataViewer: viewer ?? null },
        problem ? el("span", { class: "seq", text: "✗" }) : el("span", { class: "seq", text: seq === undefined ? "" : `#${seq}` }),
        " ",
        title ? el("b", { text: title }) : el("b", { text: `${Number.isInteger(move.player) ? "seat " + move.player + ": " : ""}${moveLabel(move)}` }),
        viewer !== null && viewer !== undefined ? el("small", { class: "muted", text: ` (as seat ${viewer} saw it)` }) : null,
        problem ? el("div", { class: "log-problem" }, `refused: ${problem.code}`, problem.rule ? ` (${problem.rule})` : "", problem.detail ? ` — ${problem.detail}` : "") : null,
        events && events.length ? el("div", { class: "events" }, events.map(eventEl)) : null);
      $("log").prepend(li);
    },
  };

  // ------------------------------------------------------------------ the dispute desk

  const b64 = {
    enc(text) { const bytes = new TextEncoder().encode(text); let s = ""; bytes.forEach((b) => { s += String.fromCharCode(b); }); return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""); },
    dec(text) { const s = atob(text.replace(/-/g, "+").replace(/_/g, "/")); return new TextDecoder().decode(Uint8Array.from(s, (c) => c.charCodeAt(0))); },
  };

  const desk = {
    game: null, request: null, verdict: null, steps: new Map(), step: 0, viewer: null,

    init() {
      $("desk-run").addEventListener("click", () => this.run());
      $("desk-file").addEventListener("change", async () => {
        const f = $("desk-file").files[0];
        if (!f) return;
        const text = await f.text();
        try {
          const parsed = JSON.parse(text);
          if (isObj(parsed) && isObj(parsed.request) && typeof parsed.game === "string") this.load(parsed.game, parsed.request);
          else $("desk-body").value = JSON.stringify(parsed, null, 1);
        } catch (err) { $("desk-body").value = text; }
      });
      $("step-first").addEventListener("click", () => this.go(0));
      $("step-prev").addEventListener("click", () => this.go(this.step - 1));
      $("step-next").addEventListener("click", () => this.go(this.step + 1));
      $("step-last").addEventListener("click", () => this.go(this.lastStep()));
      $("desk-viewer").addEventListener("change", () => { this.viewer = $("desk-viewer").value === "" ? null : Number($("desk-viewer").value); this.steps.clear(); this.go(this.step); });
    },

    load(gameId, request) {
      $("desk-game").value = gameId;
      $("desk-body").value = JSON.stringify(request, null, 1);
    },

    fromLink(encoded) {
      try {
        const data = JSON.parse(b64.dec(encoded));
        this.load(data.game, data.request);
      } catch (err) {
        showProblem($("desk-problem"), { code: "bad_link", detail: "This link does not hold a move log this page can read." }, "Could not open the link");
      }
      showTab("desk");
      this.run();
    },

    lastStep() { return this.verdict ? this.verdict.moves_legal : 0; },

    async replay(moves) {
      const q = this.viewer === null ? "" : `?as=${this.viewer}`;
      return api("POST", `/v1/games/${this.game}/replay${q}`, { ...this.request, moves });
    },

    /* Judge the whole log, then show the final position. */
    async run() {
      showProblem($("desk-problem"), null);
      let body;
      try { body = JSON.parse($("desk-body").value); } catch (err) { showProblem($("desk-problem"), { code: "not_json", detail: String(err) }, "The move log is not JSON"); $("desk-result").hidden = true; return; }
      if (isObj(body) && isObj(body.request) && typeof body.game === "string") { this.load(body.game, body.request); body = body.request; }
      this.game = $("desk-game").value;
      this.request = Object.fromEntries(Object.entries(body).filter(([k]) => k !== "moves"));
      this.moves = isObj(body) && Array.isArray(body.moves) ? body.moves : [];
      this.steps.clear();
      const res = await api("POST", `/v1/games/${this.game}/replay`, body);
      if (!res.ok) { showProblem($("desk-problem"), res.data, "The referee could not judge this log"); $("desk-result").hidden = true; return; }
      this.verdict = res.data;
      const n = seatCount(res.data.final);
      $("desk-viewer").replaceChildren(el("option", { value: "", text: app.sealed ? "the table (public view)" : "the table (everything)" }),
        ...Array.from({ length: n }, (_, s) => el("option", { value: String(s), text: `seat ${s}` })));
      $("desk-viewer").value = this.viewer === null || this.viewer >= n ? "" : String(this.viewer);
      if (this.viewer !== null && this.viewer >= n) this.viewer = null;
      this.drawVerdict();
      this.share();
      $("desk-result").hidden = false;
      if (this.viewer === null) this.steps.set(this.lastStep(), res.data.final);
      await this.go(this.lastStep());
    },

    drawVerdict() {
      const v = this.verdict;
      const fi = v.first_illegal;
      const box = $("verdict");
      box.replaceChildren(el("h2", { text: fi ? `Illegal move at index ${fi.index}` : "Every move is legal" }),
        el("p", {}, `${v.moves_legal} of ${v.moves_total} moves legal. Final position: `, ...statusText(v.final)));
      box.classList.toggle("bad", !!fi);
      if (fi) box.append(problemEl(fi.error, `Move ${fi.index}: ${moveLabel(fi.move)}${Number.isInteger(fi.move.player) ? " by seat " + fi.move.player : ""}`));
      box.dataset.firstIllegal = fi ? String(fi.index) : "";
      const list = $("steps");
      list.replaceChildren(el("li", { class: "step ok start", dataStep: 0, onclick: () => this.go(0) }, el("span", { class: "label", text: "the deal" })));
      this.moves.forEach((m, i) => {
        const cls = fi && i === fi.index ? "illegal" : i < v.moves_legal ? "ok" : "unjudged";
        const li = el("li", { class: `step ${cls}`, dataIndex: i, dataStep: i + 1, onclick: () => { if (i < v.moves_legal) this.go(i + 1); else this.go(v.moves_legal); } },
          el("span", { class: "idx", text: `${i}` }), " ",
          el("span", { class: "label", text: `${isObj(m) && Number.isInteger(m.player) ? "seat " + m.player + ": " : ""}${isObj(m) ? moveLabel(m) : JSON.stringify(m)}` }));
        if (cls === "illegal") li.append(el("div", { class: "why" }, el("b", { text: fi.error.code }), fi.error.rule ? ` · ${fi.error.rule}` : "", el("div", { text: fi.error.detail || "" })));
        if (cls === "unjudged") li.title = "not judged: the replay stops at the first illegal move";
        list.append(li);
      });
    },

    async go(step) {
      step = Math.max(0, Math.min(step, this.lastStep()));
      this.step = step;
      let env = this.steps.get(step);
      if (!env) {
        const res = await this.replay(this.moves.slice(0, step));
        if (!res.ok) { showProblem($("desk-problem"), res.data, "Could not step to this move"); return; }
        env = res.data.final;
        this.steps.set(step, env);
      }
      if (this.step !== step) return;
      const total = this.lastStep();
      $("step-label").replaceChildren(step === 0 ? "the deal, before any move" : `after move ${step - 1} (${step} of ${total} legal moves)`, " · ", ...statusText(env));
      renderPosition(env, this.viewer, { seats: $("desk-seats"), table: $("desk-table"), scores: $("desk-scores") });
      const ev = env.events || [];
      $("desk-step-events").replaceChildren(el("h3", { text: step === 0 ? "The deal" : `Move ${step - 1}: ${moveLabel(this.moves[step - 1])}` }),
        ev.length ? el("div", { class: "events" }, ev.map(eventEl)) : el("span", { class: "muted", text: "no events" }));
      for (const li of $("steps").children) li.classList.toggle("current", Number(li.dataset.step) === step);
      $("step-prev").disabled = step === 0;
      $("step-first").disabled = step === 0;
      $("step-next").disabled = step >= total;
      $("step-last").disabled = step >= total;
    },

    share() {
      const request = { ...this.request, moves: this.moves };
      const link = `${location.origin}${location.pathname}#desk=${b64.enc(JSON.stringify({ game: this.game, request }))}`;
      $("share-link").href = link;
      const file = JSON.stringify({ game: this.game, request, verdict: this.verdict }, null, 1);
      const a = $("download");
      if (a.dataset.url) URL.revokeObjectURL(a.dataset.url);
      a.dataset.url = URL.createObjectURL(new Blob([file], { type: "application/json" }));
      a.href = a.dataset.url;
      a.download = `referee-${this.game}-verdict.json`;
    },
  };

  document.addEventListener("DOMContentLoaded", () => { boot().catch((err) => { $("fatal").textContent = "The page failed: " + err; $("fatal").hidden = false; }); });
})();
