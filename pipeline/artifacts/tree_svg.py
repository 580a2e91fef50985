"""The paper's Figure 2: the top levels of a strategy tree drawn as a plain-text SVG picture.

Each node is a box holding its guess and the number of candidates still possible there; each edge is labelled
with the response that leads to it (a Wordle colour string is drawn as coloured squares, any other game's
response as its text).  Leaves of the drawn part sit side by side in response order; a parent is centred
over its children.  No plotting library: the picture is a few hundred lines of SVG text."""

from xml.sax.saxutils import escape, quoteattr

from pipeline.search.tree import Tree

DEFAULT_DEPTH = 2  # levels drawn beside every tree.json (root and its children)
COLUMN, ROW = 64, 110  # pixels between leaf columns and between levels
BOX_W, BOX_H = 58, 30
SQUARE = 8  # one colour square of a Wordle response
COLOURS = {"0": "#787c7e", "1": "#c9b458", "2": "#6aaa64"}


def drawn_nodes(tree: Tree, depth: int) -> list[tuple[int, Tree, str | None, Tree | None]]:
    """(level, node, response from the parent, parent) for every node at levels 1..depth, depth first in
    response order: what the picture shows."""
    out, stack = [], [(1, tree, None, None)]
    while stack:
        level, node, response, parent = stack.pop()
        out.append((level, node, response, parent))
        if level < depth:
            stack += [(level + 1, node.children[k], k, node) for k in sorted(node.children, reverse=True)]
    return out


def _layout(nodes) -> dict[int, tuple[float, float]]:
    """Centre (x, y) of every drawn node, by id: leaves in order, parents over the middle of their children."""
    kids: dict[int, list[int]] = {}
    for _, node, _, parent in nodes:
        if parent is not None:
            kids.setdefault(id(parent), []).append(id(node))
    place, next_leaf = {}, [0]

    def visit(node_id, level):
        children = kids.get(node_id, [])
        for child in children:
            visit(child, level + 1)
        if children:
            x = (place[children[0]][0] + place[children[-1]][0]) / 2
        else:
            x = COLUMN / 2 + next_leaf[0] * COLUMN
            next_leaf[0] += 1
        place[node_id] = (x, 30 + BOX_H / 2 + (level - 1) * ROW)

    visit(id(nodes[0][1]), 1)
    return place


def _response_label(response: str, x: float, y: float) -> str:
    """A Wordle colour string as a row of squares; any other response as text."""
    if response and set(response) <= set(COLOURS):
        left = x - len(response) * SQUARE / 2
        return "".join(f'<rect x="{left + i * SQUARE:.1f}" y="{y - SQUARE / 2:.1f}" width="{SQUARE - 1}" '
                       f'height="{SQUARE - 1}" fill="{COLOURS[c]}"/>' for i, c in enumerate(response))
    return f'<text x="{x:.1f}" y="{y + 3:.1f}" class="response">{escape(response)}</text>'


def tree_svg(tree: Tree, depth: int = DEFAULT_DEPTH, title: str | None = None) -> str:
    """The SVG text of `tree`'s levels 1..depth (depth >= 1): one `<g class="node">` per drawn node."""
    if depth < 1:
        raise ValueError(f"a tree picture needs depth >= 1, got {depth}")
    nodes = drawn_nodes(tree, depth)
    place = _layout(nodes)
    levels = max(level for level, *_ in nodes)
    width = max(x for x, _ in place.values()) + COLUMN / 2
    height = 30 + BOX_H + (levels - 1) * ROW + 20
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="monospace" font-size="11">',
             "<style>.response{font-size:9px;text-anchor:middle}.guess{text-anchor:middle;font-weight:bold}"
             ".count{text-anchor:middle;font-size:9px}</style>",
             f"<title>{escape(title or f'strategy tree: {tree.guess}, {levels} level(s)')}</title>"]
    for _, node, response, parent in nodes[1:]:  # edges under the boxes
        (x0, y0), (x1, y1) = place[id(parent)], place[id(node)]
        parts.append(f'<line x1="{x0:.1f}" y1="{y0 + BOX_H / 2:.1f}" x2="{x1:.1f}" y2="{y1 - BOX_H / 2:.1f}" '
                     'stroke="#999" stroke-width="0.8"/>')
        parts.append(_response_label(response, x1, y1 - BOX_H / 2 - 8))
    for level, node, response, _ in nodes:
        x, y = place[id(node)]
        found = "#e8f4e4" if node.found_here() else "#ffffff"
        parts.append(f'<g class="node" data-level="{level}" data-guess={quoteattr(node.guess)}>'
                     f'<rect x="{x - BOX_W / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{BOX_W}" height="{BOX_H}" '
                     f'rx="4" fill="{found}" stroke="#333"/>'
                     f'<text x="{x:.1f}" y="{y - 1:.1f}" class="guess">{escape(node.guess.upper())}</text>'
                     f'<text x="{x:.1f}" y="{y + 11:.1f}" class="count">{node.candidates}</text></g>')
    parts.append("</svg>\n")
    return "\n".join(parts)
