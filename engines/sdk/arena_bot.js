/**
 * Arena bot SDK for JavaScript (Node.js): write a bot as one function, the SDK speaks the protocol.
 *
 *     const arena = require("arena_bot");
 *
 *     function act(observation, legalActions) {
 *       return 0;  // the index of your choice in legalActions
 *     }
 *
 *     arena.run(act);
 *
 * `run` reads the host's messages (JSON lines on stdin) and answers them (JSON lines on stdout);
 * see docs/bot-protocol.md. Once the SDK is loaded, console.log (and info, debug) write to stderr,
 * your owner-only log, so debug output never corrupts the protocol. `arena.match` holds what `start`
 * said: game, seat, numPlayers, options, limits, tables (the game's static tables: cards, tiles,
 * board, e.g. `arena.match.tables.cards`; docs/games/<game>.md lists them), and `timeLeftMs` of the
 * current decision.
 *
 * Optional hooks: `run(act, {start: onStart, end: onEnd})`; `onStart(match)` is called once,
 * `onEnd(outcome)` with `{ranks: [...], scores: [...]}` (ranks are 0-based: 0 is first place).
 * `act` may return a number or a Promise of one.
 *
 * Observation deltas (opt-in): `run(act, {deltas: true})` asks the host to send, after the first
 * decision, only the top-level parts of the observation that changed (docs/bot-protocol.md); the SDK
 * merges them and still calls `act` with the whole observation. The contract: parts that did not
 * change are the very objects given at earlier decisions. Each call gets a new top-level object and
 * a new legalActions array (changing those is safe), but treat everything nested as read-only, or
 * copy it first (`structuredClone`). Without `deltas: true` every message is whole, as before.
 *
 * Node's standard library only: this file is all a bot needs (inside the sandbox NODE_PATH finds it;
 * locally, copy it beside your bot or set NODE_PATH to engines/sdk).
 */
"use strict";

const fs = require("fs");
const readline = require("readline");

const PROTOCOL = 1;

class Match {
  constructor(message = {}) {
    this.game = message.game || "";
    this.seat = message.seat || 0;
    this.numPlayers = message.num_players || 0;
    this.options = message.options || {};
    this.limits = message.limits || {};
    this.tables = message.tables || {};
    this.timeLeftMs = null;
    this.move = 0;
  }
}

// The protocol owns stdout: everything a bot logs goes to stderr.
for (const name of ["log", "info", "debug"]) {
  console[name] = console.error;
}

function send(message) {
  fs.writeSync(1, JSON.stringify(message) + "\n");
}

/** A seeded random number generator (mulberry32): returns floats in [0, 1), the same for the same seed. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sdk = {PROTOCOL, Match, match: new Match(), run, seededRandom};

/** Serve one match: answer every `act` message with `act(observation, legalActions)`. */
async function run(act, {start = null, end = null, input = process.stdin, deltas = false} = {}) {
  const lines = readline.createInterface({input, crlfDelay: Infinity});
  const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  let observation = {};  // with deltas: the whole observation so far (the SDK's own top-level object)
  let legal = [];
  for await (const line of lines) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "act") {
      sdk.match.timeLeftMs = message.time_left_ms;
      sdk.match.move = message.move || 0;
      let index;
      if (!deltas) {
        index = await act(message.observation, message.legal_actions);
      } else {
        if (!own(message, "delta")) {
          observation = message.observation;
        } else if (!own(message, "keys")) {
          Object.assign(observation, message.delta);  // the same keys as last time
        } else {  // other keys: rebuilt in the host's order
          const delta = message.delta, last = observation;
          observation = {};
          for (const key of message.keys) observation[key] = own(delta, key) ? delta[key] : last[key];
        }
        if (own(message, "legal_actions")) legal = message.legal_actions;
        index = await act({...observation}, legal.slice());
      }
      const action = Number(index);
      if (!Number.isInteger(action)) {
        throw new TypeError("act must return the index of its choice in legal_actions (an integer from 0), not "
                            + `${typeof index} ${String(JSON.stringify(index)).slice(0, 100)}`);
      }
      send({action});
    } else if (message.type === "start") {
      if (message.protocol !== PROTOCOL) {
        console.error(`arena_bot: the host speaks protocol ${message.protocol}, this SDK ${PROTOCOL}`);
      }
      sdk.match = new Match(message);
      if (start) await start(sdk.match);
      const ready = {ready: true, protocol: PROTOCOL};
      // deltas only when the host offers them; the first act after (re)start is always whole
      deltas = deltas && Array.isArray(message.features) && message.features.includes("delta");
      if (deltas) ready.features = ["delta"];
      send(ready);
    } else if (message.type === "end") {
      if (end) await end(message.outcome || {});
      break;
    } else {
      console.error(`arena_bot: ignoring a message of unknown type ${JSON.stringify(message.type)}`);
    }
  }
  lines.close();
  if (input === process.stdin) process.stdin.destroy();
}

module.exports = sdk;
