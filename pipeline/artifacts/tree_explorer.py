"""A strategy tree as one self-contained HTML page to explore in a browser (stage=catalogue writes one per row).

The page starts at the opener with its classes listed (the secrets that answer it alike), each class drawn as the
game draws that response on the guess before it (Wordle's grey, yellow and green tiles; Nerdle's black, purple and
green; Mastermind's black and white key pegs; Bulls and Cows' counts), with its size and its subtree's total (the
guesses its secrets need from there on, that guess included).  A click opens a class to the classes of the guess
played next, to any depth; typing a secret shows its path, guess by guess with their responses, and opens the tree
along it.

Everything is in the file: the tree as JSON in a `<script type="application/json">` element and a small vanilla
script, nothing fetched (its Content-Security-Policy allows no source at all, and only this script, by its
sha256).  The data is computed here (each node's total, children largest class first, the winning response) and
written as literal text: `< > &` in any word are JSON escapes, never markup, and the script writes every word
with textContent; the heading and facts are HTML-escaped.

Node form in the JSON: [guess, class size, subtree total, [[response, child node], ...]]."""

import base64
import hashlib
import json
from html import escape

from pipeline.artifacts.tree_svg import COLOURS, ordered_children
from pipeline.games.answer import Answering
from pipeline.search.tree import Tree

STYLES = ("wordle", "nerdle", "mastermind", "bulls_and_cows")  # how a game draws a response
NERDLE_COLOURS = {"0": "#161803", "1": "#820458", "2": "#398874"}  # Nerdle's black, purple, green tiles
PEG_COLOURS = ("#d62828", "#2a9d3f", "#1d5fd1", "#f4c20d", "#f07f13", "#8e44ad", "#17a2b8", "#ec6fa6",
               "#8d5524", "#7f8c8d")  # Mastermind's code pegs, for the digits 1, 2, ..., 9, 0
GUESS, SIZE, TOTAL, CHILDREN = range(4)  # the fields of a node in the embedded JSON


def drawing_style(answer: str, source: str) -> str:
    """How the page draws responses: by the answering function, and for colour answers by the game's source."""
    if answer in ("mastermind", "bulls_and_cows"):
        return answer
    return "nerdle" if source == "nerdle" else "wordle"


def node_data(node: Tree) -> list:
    """[guess, class size, subtree total, [[response, child], ...]]: the total is the sum of the class sizes of
    every node below and at it, children largest class first (the order of tree.svg)."""
    children = [[response, node_data(child)] for response, child in ordered_children(node)]
    return [node.guess, node.candidates, node.candidates + sum(child[TOTAL] for _, child in children), children]


def explorer_data(tree: Tree, style: str) -> dict:
    """What the page embeds: the drawing style, the winning response's text and the tree's nodes."""
    answer = style if style in ("mastermind", "bulls_and_cows") else "wordle"
    answering = Answering(answer, len(tree.guess))
    return {"style": style, "win": answering.text(answering.win), "root": node_data(tree)}


def embedded_json(data) -> str:
    """`data` as JSON text safe inside a <script> element: `<`, `>` and `&` (and every non-ASCII character) as
    JSON's \\u escapes, so no word can close the element or open a comment; JSON.parse reads the same text."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


STYLE_SHEET = """
body { font-family: "Liberation Sans", Arial, sans-serif; margin: 1.5em; color: #1a1a1a; }
h1 { font-size: 1.3em; }
ul.classes { list-style: none; padding-left: 1.4em; margin: 0.15em 0; }
li.class > button.head, #opener { border: none; background: none; padding: 2px 4px; font: inherit; text-align: left;
  display: flex; align-items: center; gap: 0.6em; cursor: pointer; }
li.class.leaf > button.head { cursor: default; }
li.class.on-path > button.head, li.found.on-path { background: #fff4c2; }
li.found { padding: 2px 4px; color: #2f6b2f; }
.arrow { width: 1em; display: inline-block; color: #555; }
.word { display: inline-flex; gap: 2px; align-items: center; }
.tile { display: inline-block; min-width: 1.3em; padding: 1px 3px; text-align: center; font-weight: bold;
  font-family: "Liberation Mono", monospace; border: 1px solid #999; background: #fff; color: #1a1a1a; }
.peg { display: inline-block; width: 1.3em; height: 1.3em; border-radius: 50%; text-align: center; color: #fff;
  font-size: 0.8em; line-height: 1.3em; border: 1px solid #444; background: #999; }
.keys { display: inline-grid; grid-template-columns: repeat(2, 0.6em); gap: 1px; margin-left: 4px; }
.key { width: 0.55em; height: 0.55em; border-radius: 50%; border: 1px solid #333; }
.key.black { background: #111; }
.key.white { background: #fff; }
.response-text { color: #555; font-size: 0.85em; margin-left: 4px; }
.size, .total, .next { color: #333; font-size: 0.9em; }
#path ol { padding-left: 1.6em; }
#path li { margin: 3px 0; }
#path .missing { color: #a33; }
.legend { color: #555; font-size: 0.9em; }
"""


def tile_rules() -> str:
    """The tile colours of the colour games and the code pegs' colours, as CSS rules."""
    rules = [f".{style} .tile.c{digit} {{ background: {colour}; color: #fff; border-color: {colour}; }}"
             for style, colours in (("wordle", COLOURS), ("nerdle", NERDLE_COLOURS))
             for digit, colour in colours.items()]
    rules += [f".peg.p{(i + 1) % 10} {{ background: {colour}; }}" for i, colour in enumerate(PEG_COLOURS)]
    return "\n".join(rules)


SCRIPT = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("tree-data").textContent);
const STYLE = DATA.style, WIN = DATA.win;
const GUESS = 0, SIZE = 1, TOTAL = 2, CHILDREN = 3;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

function isColours(word, response) {
  return /^[012]+$/.test(response) && response.length === Array.from(word).length;
}

// The guess as the game draws it, coloured by `response` (null: a guess not answered yet).
function drawGuess(word, response) {
  const box = el("span", "word");
  box.dataset.guess = word;
  const tinted = response !== null && (STYLE === "wordle" || STYLE === "nerdle") && isColours(word, response);
  Array.from(word).forEach((symbol, i) => {
    if (STYLE === "mastermind") box.append(el("span", "peg p" + symbol, symbol));
    else box.append(el("span", "tile" + (tinted ? " c" + response[i] : ""),
                       STYLE === "wordle" ? symbol.toUpperCase() : symbol));
  });
  if (response !== null) {
    box.dataset.response = response;
    if (!tinted) box.append(drawResponse(response));
  }
  return box;
}

// A response that is not tiles: Mastermind's key pegs, Bulls and Cows' counts, or any other text as it is.
function drawResponse(response) {
  const span = el("span", "response");
  const pegs = /^(\d+)B(\d+)([WC])$/.exec(response);
  if (pegs && STYLE === "mastermind") {
    const keys = el("span", "keys");
    for (let i = 0; i < Number(pegs[1]); i++) keys.append(el("span", "key black"));
    for (let i = 0; i < Number(pegs[2]); i++) keys.append(el("span", "key white"));
    span.append(keys);
  }
  let words = response;
  if (pegs && STYLE === "bulls_and_cows") {
    words = plural(Number(pegs[1]), "bull") + ", " + plural(Number(pegs[2]), "cow");
  }
  span.append(el("span", "response-text", words));
  return span;
}

function isFoundHere(node) {
  return node[SIZE] - node[CHILDREN].reduce((sum, child) => sum + child[1][SIZE], 0) === 1;
}

// One class: the guess before it answered `response`; its size and subtree total; opens to the next guess's classes.
function classItem(before, response, node, depth) {
  const li = el("li", "class");
  Object.assign(li.dataset, {response: response, size: node[SIZE], total: node[TOTAL], depth: depth});
  const head = el("button", "head");
  head.type = "button";
  const single = node[CHILDREN].length === 0;
  li.classList.toggle("leaf", single);
  head.append(el("span", "arrow", single ? "\u2022" : "\u25b8"), drawGuess(before, response),
              el("span", "size", plural(node[SIZE], "secret")),
              el("span", "total", "total " + node[TOTAL] + " (" + (node[TOTAL] / node[SIZE]).toFixed(3) + " each)"));
  const next = el("span", "next", single ? "found with guess " + depth + ": " : "next, guess " + depth + ": ");
  next.append(drawGuess(node[GUESS], null));
  head.append(next);
  li.append(head);
  if (!single) {
    head.setAttribute("aria-expanded", "false");
    head.addEventListener("click", () => (li.classList.contains("open") ? close(li) : open(li)));
  }
  li.node = node;
  li.depth = depth;
  node.item = li;
  return li;
}

function classList(node, depth) {
  const ul = el("ul", "classes");
  if (isFoundHere(node) && node[CHILDREN].length) {
    node.found = el("li", "found", "\u2713 " + node[GUESS] + " itself: found with guess " + (depth - 1));
    ul.append(node.found);
  }
  node[CHILDREN].forEach(([response, child]) => ul.append(classItem(node[GUESS], response, child, depth)));
  return ul;
}

function open(li) {
  if (!li.list) {
    li.list = classList(li.node, li.depth + 1);
    li.append(li.list);
  }
  li.list.hidden = false;
  li.classList.add("open");
  li.firstChild.firstChild.textContent = "\u25be";
  li.firstChild.setAttribute("aria-expanded", "true");
}

function close(li) {
  li.list.hidden = true;
  li.classList.remove("open");
  li.firstChild.firstChild.textContent = "\u25b8";
  li.firstChild.setAttribute("aria-expanded", "false");
}

// secret -> its route: [[response leading there or null, node], ...] from the opener to the node that finds it
const ROUTES = new Map();
(function index() {
  const stack = [[DATA.root, [[null, DATA.root]]]];
  while (stack.length) {
    const [node, route] = stack.pop();
    if (isFoundHere(node)) ROUTES.set(node[GUESS], route);
    node[CHILDREN].forEach(([response, child]) => stack.push([child, route.concat([[response, child]])]));
  }
})();

function showPath(typed) {
  const out = document.getElementById("path");
  out.replaceChildren();
  document.querySelectorAll(".on-path").forEach((e) => e.classList.remove("on-path"));
  const secret = typed.trim();
  const route = ROUTES.get(secret) || ROUTES.get(secret.toLowerCase());
  out.dataset.secret = secret;
  if (!route) {
    out.dataset.guesses = "";
    out.append(el("p", "missing", "\u201c" + secret + "\u201d is not a secret of this tree."));
    return;
  }
  out.dataset.guesses = route.length;
  out.append(el("p", "", route[route.length - 1][1][GUESS] + ": found with guess " + route.length + "."));
  const steps = el("ol");
  route.forEach(([, node], i) => {
    const response = i + 1 < route.length ? route[i + 1][0] : WIN;
    const step = el("li", "step");
    Object.assign(step.dataset, {guess: node[GUESS], response: response});
    step.append(drawGuess(node[GUESS], response),
                el("span", "size", " " + plural(node[SIZE], "secret") + " possible before it"));
    steps.append(step);
  });
  out.append(steps);
  route.slice(1).forEach(([, node]) => {  // each class's item exists once the one before it is open
    node.item.classList.add("on-path");
    if (node[CHILDREN].length) open(node.item);
  });
  const last = route[route.length - 1][1];
  const where = last.found || last.item;  // the line that finds it: a class of one, or a guess's own line
  where.classList.add("on-path");
  where.scrollIntoView({block: "center"});
}

document.getElementById("opener").append(drawGuess(DATA.root[GUESS], null),
  el("span", "size", plural(DATA.root[SIZE], "secret")), el("span", "total", "total " + DATA.root[TOTAL]));
document.getElementById("tree").append(classList(DATA.root, 2));
document.getElementById("search").addEventListener("submit", (event) => {
  event.preventDefault();
  showPath(document.getElementById("secret").value);
});
"""


def script_hash() -> str:
    """The CSP source allowing exactly the page's script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode() + "'"


LEGENDS = {"wordle": "tiles: grey = not in the secret, yellow = in it elsewhere, green = right place",
           "nerdle": "tiles: black = not in the equation, purple = in it elsewhere, green = right place",
           "mastermind": "key pegs: black = right colour in the right place, white = right colour elsewhere",
           "bulls_and_cows": "bulls = right digit in the right place, cows = right digit elsewhere"}


def explorer_page(tree: Tree, style: str, heading: str, facts: list[str]) -> str:
    """The HTML page exploring `tree` drawn in `style` (STYLES), under `heading` and lines of `facts` (text)."""
    if style not in STYLES:
        raise ValueError(f"unknown drawing style {style!r}: one of {', '.join(STYLES)}")
    policy = f"default-src 'none'; style-src 'unsafe-inline'; script-src {script_hash()}"
    items = "".join(f"<li>{escape(fact)}</li>" for fact in facts)
    body = (f'<h1>{escape(heading)}</h1>\n<ul id="facts">{items}</ul>\n'
            '<form id="search"><label>Secret <input id="secret" autocomplete="off" spellcheck="false"></label> '
            '<button type="submit">Show its path</button></form>\n<div id="path" aria-live="polite"></div>\n'
            f'<p class="legend">Click a class (the secrets still possible after a response) to open it. Each class: '
            f'the response drawn on the guess before it ({escape(LEGENDS[style])}), its size, and its total: the '
            'guesses its secrets need from there on (the next guess included).</p>\n'
            '<div id="opener"><span>Opener (guess 1):</span></div>\n<div id="tree"></div>\n'
            '<noscript>Exploring the tree needs JavaScript; the tree file beside the certificate holds it as '
            'data.</noscript>\n')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            f"<title>{escape(heading)}</title><style>{STYLE_SHEET}{tile_rules()}</style></head>\n"
            f'<body class="{style}">\n{body}'
            f'<script type="application/json" id="tree-data">{embedded_json(explorer_data(tree, style))}</script>\n'
            f"<script>{SCRIPT}</script>\n</body></html>\n")
