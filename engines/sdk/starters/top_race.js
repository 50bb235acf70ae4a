/**
 * Starter bot for Top Race in JavaScript: plays legally, with a simple preference among action types.
 *
 * Upload this file as it is (or zip it as main.js with more files, or with a bot.json naming the command,
 * e.g. {"command": ["node", "main.js"]}), then improve `act`. Run it locally in the sandbox
 * (add --trusted where bubblewrap is missing):
 *   python -m engines play --game top_race --bots ./top_race.js random heuristic
 */
"use strict";

const arena = require("arena_bot");

// action types in the order this bot likes them; anything else is picked at random
const PREFERRED = ["take_car", "move", "play", "joker", "bid", "pass"];
let random = arena.seededRandom(0);

function pick(list) {
  return list[Math.floor(random() * list.length)];
}

/** Return the index of the chosen action in legalActions. */
function act(observation, legalActions) {
  for (const wanted of PREFERRED) {
    const choices = [];
    legalActions.forEach((action, i) => {
      if (action.type === wanted) choices.push(i);
    });
    if (choices.length) return pick(choices);
  }
  return Math.floor(random() * legalActions.length);
}

function start(match) {
  random = arena.seededRandom(match.seat);  // reproducible games: same seat, same choices
  console.log(`starter bot playing ${match.game} as seat ${match.seat} of ${match.numPlayers}`);  // goes to stderr
}

if (require.main === module) {
  arena.run(act, {start});
}

module.exports = {act, start};
