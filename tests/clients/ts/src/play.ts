// Plays whole matches against a live Card Referee through openapi-fetch, typed by openapi-typescript.
//
//   node dist/play.js <base-url> <open|sealed> <schnapsen|bragging>
//
// Every request and answer goes through the generated `paths` types: bodies are the contract's
// request schemas, answers its envelopes and problems. Beyond what the types prove at compile time
// (`tsc --noEmit`), each answer is checked at run time:
//   - every number in the raw JSON text is read exactly by JavaScript (no integer beyond 2^53 − 1);
//   - what goes back (the state in open mode, the token in sealed mode) is exactly what came, in
//     canonical form (keys sorted), as the bytes on the wire show;
//   - one move the rules refuse answers 422 with the contract's `Problem`.
// On success it prints one JSON line {game, mode, moves, responses}; on failure it throws (exit 1).

import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api.js";

type Schemas = components["schemas"];
type Problem = Schemas["Problem"];

// --- the wire, recorded ------------------------------------------------------------------------

const sent: string[] = [];
const received: string[] = [];

async function recordingFetch(request: Request): Promise<Response> {
  sent.push(await request.clone().text());
  const response = await fetch(request);
  received.push(await response.clone().text());
  return response;
}

function fail(message: string): never {
  throw new Error(message);
}

/** The JSON text with keys sorted at every level: equal values, equal texts. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Every number token of a JSON text, outside strings, is one that JavaScript reads exactly. */
function numbersExact(text: string): void {
  const bare = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const token of bare.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []) {
    const value = Number(token);
    const exact = /^-?\d+$/.test(token) ? Number.isSafeInteger(value) : String(value) === token;
    if (!exact) fail(`JavaScript cannot read ${token} exactly`);
  }
}

/** The latest answer's text, checked for exact numbers and parsed. */
function lastAnswer(): unknown {
  const text = received[received.length - 1] ?? fail("no answer recorded");
  numbersExact(text);
  return JSON.parse(text);
}

/** The latest request carried `key` (state or token) exactly as the answer before it had it. */
function sentBack(key: "state" | "token", before: unknown): void {
  const body = JSON.parse(sent[sent.length - 1] ?? fail("no request recorded")) as Record<string, unknown>;
  const previous = (before as Record<string, unknown>)[key];
  if (canonical(body[key]) !== canonical(previous)) fail(`the ${key} sent back differs from the one received`);
}

type Answer<T> = { data?: T; error?: Problem | unknown; response: Response };

/** The answer's data when its status is `status`; anything else fails with the server's words. */
function expect<T>(answer: Answer<T>, status: number): T {
  if (answer.response.status !== status || answer.data === undefined) {
    fail(`expected ${status}, got ${answer.response.status}: ${JSON.stringify(answer.error ?? answer.data).slice(0, 500)}`);
  }
  return answer.data;
}

/** The answer's problem when it is a refusal with `status`. */
function refused(answer: Answer<unknown>, status: number): Problem {
  const problem = answer.error as Problem | undefined;
  if (answer.response.status !== status || problem === undefined) fail(`expected a ${status} problem, got ${answer.response.status}`);
  if (answer.response.headers.get("content-type")?.split(";")[0] !== "application/problem+json") fail("a problem without problem+json");
  if (problem.status !== status || typeof problem.code !== "string" || !problem.type) fail(`not a problem: ${JSON.stringify(problem)}`);
  return problem;
}

// --- a seeded chooser ---------------------------------------------------------------------------

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] ?? fail("nothing to pick from");
}

// --- one game, typed by the contract ------------------------------------------------------------

/** What the driver reads of an envelope (the generated envelope types all have it). */
interface EnvelopeLike<Move> {
  game: string;
  token?: string;
  status: string;
  to_move: number[];
  legal_moves: Move[];
  seat_keys?: string[];
}

type Source<State> = { state: State } | { token: string };

/** What the driver needs of a game: its typed calls, and how to complete a listed move. The
 * envelope type is the one openapi-fetch infers for the calls (``defineGame`` infers it). */
interface Game<Env extends EnvelopeLike<Move>, Move, State> {
  id: string;
  players: number;
  create(): Promise<Answer<Env>>;
  move(source: Source<State>, move: Move, as?: number, key?: string): Promise<Answer<Env>>;
  view(token: string, as: number, key: string): Promise<Answer<Env>>;
  /** Open mode without `as`: the envelope's state is the full state, sent back as it came. */
  fullState(env: Env): State;
  player(move: Move): number;
  fill(move: Move): Move;
  choose(legal: Move[], random: () => number): Move;
  withPlayer(move: Move, seat: number): Move;
}

function defineGame<Env extends EnvelopeLike<Move>, Move, State>(game: Game<Env, Move, State>): Game<Env, Move, State> {
  return game;
}

async function play<Env extends EnvelopeLike<Move>, Move, State>(
  game: Game<Env, Move, State>,
  mode: "open" | "sealed",
): Promise<{ moves: number; responses: number }> {
  const random = rng(20261201);
  let env = expect(await game.create(), 201);
  let raw = lastAnswer();
  const keys = env.seat_keys ?? [];
  if (mode === "sealed" && (keys.length !== game.players || env.legal_moves.length !== 0)) fail("sealed new: keys or moves wrong");
  let viewOf: number | undefined;

  const source = (): Source<State> =>
    mode === "sealed" ? { token: env.token ?? fail("sealed envelope without token") } : { state: game.fullState(env) };
  const asSeat = async (seat: number): Promise<void> => {
    if (mode === "open" || viewOf === seat) return;
    const before = raw;
    env = expect(await game.view(env.token ?? fail("no token"), seat, keys[seat] ?? fail("no key")), 200);
    raw = lastAnswer();
    sentBack("token", before);
    viewOf = seat;
  };
  const legalFor = (seat: number): Move[] => env.legal_moves.filter((m) => game.player(m) === seat);

  // one move the rules refuse: a listed move sent for a seat that is not to move
  const first = env.to_move[0] ?? fail("nobody to move");
  await asSeat(first);
  const other = [...Array(game.players).keys()].find((s) => !env.to_move.includes(s)) ?? fail("everyone to move");
  const bad = game.withPlayer(game.fill(legalFor(first)[0] ?? fail("nothing listed")), other);
  const problem = refused(await game.move(source(), bad, mode === "sealed" ? other : undefined, keys[other]), 422);
  if (!problem.rule) fail("a rules refusal without its rule");

  let moves = 0;
  while (env.status !== "finished") {
    if (moves >= 1500) fail("no end after 1500 moves");
    const seat = env.to_move[0] ?? fail("nobody to move, yet not finished");
    await asSeat(seat);
    const move = game.fill(game.choose(legalFor(seat), random));
    const before = raw;
    env = expect(await game.move(source(), move, mode === "sealed" ? seat : undefined, keys[seat]), 200);
    raw = lastAnswer();
    sentBack(mode === "sealed" ? "token" : "state", before);
    viewOf = mode === "sealed" ? seat : undefined;
    moves += 1;
  }
  return { moves, responses: received.length };
}

// --- the two games ---------------------------------------------------------------------------------

function games(baseUrl: string) {
  const client = createClient<paths>({ baseUrl, fetch: recordingFetch });
  const headers = (key?: string) => (key === undefined ? {} : { "X-Seat-Key": key });
  const query = (as?: number) => (as === undefined ? {} : { as });
  const notAView = (state: object): void => {
    if ("seat" in state) fail("open mode answered a view without `as`");
  };

  const schnapsen = defineGame({
    id: "schnapsen",
    players: 2,
    create: () => client.POST("/v1/games/schnapsen/new", { body: { seed: 8 } }),
    move: (source: Source<Schemas["SchnapsenState"]>, move: Schemas["SchnapsenMove"], as?: number, key?: string) =>
      client.POST("/v1/games/schnapsen/moves", { body: { ...source, move }, params: { query: query(as) }, headers: headers(key) }),
    view: (token: string, as: number, key: string) =>
      client.POST("/v1/games/schnapsen/state", { body: { token }, params: { query: { as } }, headers: headers(key) }),
    fullState: (env) => {
      notAView(env.state);
      return env.state as Schemas["SchnapsenState"];
    },
    player: (move) => move.player,
    fill: (move) => move,
    choose: (legal, random) => pick(legal, random),
    withPlayer: (move, seat) => ({ ...move, player: seat as Schemas["SchnapsenSeat"] }),
  });

  const bragging = defineGame({
    id: "bragging",
    players: 3,
    create: () => client.POST("/v1/games/bragging/new", { body: { players: 3, options: { hands: 2 }, seed: 7 } }),
    move: (source: Source<Schemas["BraggingState"]>, move: Schemas["BraggingMove"], as?: number, key?: string) =>
      client.POST("/v1/games/bragging/moves", { body: { ...source, move }, params: { query: query(as) }, headers: headers(key) }),
    view: (token: string, as: number, key: string) =>
      client.POST("/v1/games/bragging/state", { body: { token }, params: { query: { as } }, headers: headers(key) }),
    fullState: (env) => {
      notAView(env.state);
      return env.state as Schemas["BraggingState"];
    },
    player: (move) => move.player,
    // templates: a blind's min_amount and a raise's min_to become the amount staked
    fill: (move) => {
      if (move.type === "blind" && move.min_amount !== undefined) {
        const { min_amount, ...rest } = move;
        return { ...rest, amount: min_amount };
      }
      if (move.type === "raise" && move.min_to !== undefined) {
        const { min_to, ...rest } = move;
        return { ...rest, to: min_to };
      }
      return move;
    },
    choose: (legal, random) => {
      const calm = legal.filter((m) => ["call", "check", "expose", "no_blind", "next_deal"].includes(m.type));
      return calm.length > 0 && random() < 0.85 ? pick(calm, random) : pick(legal, random);
    },
    withPlayer: (move, seat) => ({ ...move, player: seat as Schemas["BraggingSeat"] }),
  });
  return { schnapsen, bragging };
}

async function main(): Promise<void> {
  const [baseUrl, mode, id] = process.argv.slice(2);
  if (baseUrl === undefined || (mode !== "open" && mode !== "sealed") || (id !== "schnapsen" && id !== "bragging")) {
    fail("usage: node dist/play.js <base-url> <open|sealed> <schnapsen|bragging>");
  }
  const table = games(baseUrl);
  const result = id === "schnapsen" ? await play(table.schnapsen, mode) : await play(table.bragging, mode);
  console.log(JSON.stringify({ game: id, mode, ...result }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
