// Uses of the API that the generated types must refuse. Compiled with play.ts by `tsc --noEmit`,
// never run: each `@ts-expect-error` line must be a type error, or tsc fails ("Unused
// '@ts-expect-error' directive"). So the check fails if the types ever degrade to `any` or lose
// the per-game typing that play.ts relies on.

import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api.js";

type Schemas = components["schemas"];

export async function wrongUses(client: ReturnType<typeof createClient<paths>>, state: Schemas["SchnapsenState"]): Promise<void> {
  // @ts-expect-error a path the contract does not have
  await client.POST("/v1/games/schnapsen/teleport", { body: {} });
  // @ts-expect-error a move needs a state or a token
  await client.POST("/v1/games/schnapsen/moves", { body: { move: { type: "close", player: 0 } } });
  // @ts-expect-error a card is a string
  await client.POST("/v1/games/schnapsen/moves", { body: { state, move: { type: "play", player: 0, card: 42 } } });
  // @ts-expect-error Schnapsen has no `raise` (a Bragging move)
  await client.POST("/v1/games/schnapsen/moves", { body: { state, move: { type: "raise", player: 0, to: 5 } } });
  // @ts-expect-error a token is a string
  await client.POST("/v1/games/bragging/state", { body: { token: 7 } });

  const answer = await client.POST("/v1/games/schnapsen/new", { body: {} });
  if (answer.data !== undefined) {
    // @ts-expect-error a Schnapsen envelope is not a Bragging one
    const game: "bragging" = answer.data.game;
    // @ts-expect-error to_move is a list of seats
    const seat: string = answer.data.to_move[0];
    void game;
    void seat;
  }
  if (answer.error !== undefined) {
    // @ts-expect-error a problem's code is a string
    const code: number = answer.error.code;
    void code;
  }
}
