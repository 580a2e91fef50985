"""The paper's Figure 2: the top levels of a strategy tree drawn as a plain-text SVG picture.

Each node is a box holding its guess and the number of secrets still possible there (its class); above it, the
response that leads to it (a Wordle colour string as coloured squares, any other game's response as its text).
Children are ordered by class size, largest first, and at most `max_children` of a node's children are drawn:
the rest are summed up in one dashed "+N more" box.  The opener's children are subtrees packed into rows
(wrapped like lines of text, read left to right, top to bottom) so that the picture has a sensible aspect ratio
however many responses the opener has; a legend under the rows explains the colours and labels.  No plotting
library: the picture is SVG text."""

from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from pipeline.search.tree import Tree

DEFAULT_DEPTH = 2  # levels drawn beside every tree.json (root and its children)
DEFAULT_CHILDREN = (48, 6)  # children drawn under the root, under every deeper node; the rest in "+N more"
ASPECT = 1.5  # width / height the row packing aims at
ROW, MARGIN = 74, 16  # pixels between levels, around the picture
BUS, ROW_GAP = 26, 20  # a row's bus line above its boxes; room under a row before the next one's bus
MIN_WIDTH = 720  # room for the legend
BOX_H, SQUARE = 30, 9  # box height; one colour square of a Wordle response
COLOURS = {"0": "#787c7e", "1": "#c9b458", "2": "#6aaa64"}
FOUND_FILL, BOX_FILL, MORE_FILL = "#e3f1dd", "#ffffff", "#f4f4f4"


@dataclass
class Shown:
    """One drawn box: a tree node, or (node None) the "+N more" summary of `hidden` children holding `secrets`."""

    level: int
    response: str | None
    node: Tree | None = None
    hidden: int = 0
    secrets: int = 0
    children: list["Shown"] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0

    def columns(self) -> int:
        """Leaf columns this box's drawn subtree spans."""
        return sum(c.columns() for c in self.children) or 1

    def walk(self):
        """This box and every drawn box below it, depth first, children in drawn order."""
        yield self
        for child in self.children:
            yield from child.walk()


def ordered_children(node: Tree) -> list[tuple[str, Tree]]:
    """A node's (response, child) pairs, largest class first, ties by response text."""
    return sorted(node.children.items(), key=lambda kv: (-kv[1].candidates, kv[0]))


def shown_tree(node: Tree, depth: int, caps=DEFAULT_CHILDREN, level: int = 1, response: str | None = None) -> Shown:
    """The boxes of `node`'s levels level..depth: at most caps[0] boxes under the root and caps[1] under any
    deeper node; when a node has more children, the smallest classes are folded into one "+N more" box (the
    last of those places)."""
    box = Shown(level, response, node)
    if level >= depth:
        return box
    pairs = ordered_children(node)
    cap = caps[0] if level == 1 else caps[1]
    kept = pairs if len(pairs) <= cap else pairs[:cap - 1]  # the "+N more" box takes the last place
    box.children = [shown_tree(child, depth, caps, level + 1, key) for key, child in kept]
    rest = pairs[len(kept):]
    if rest:
        box.children.append(Shown(level + 1, None, hidden=len(rest), secrets=sum(c.candidates for _, c in rest)))
    return box


@dataclass(frozen=True)
class Metrics:
    """Sizes that depend on the game's words and responses (a Nerdle equation is longer than a Wordle word)."""

    box_w: float
    column: float

    @staticmethod
    def of(tree: Tree) -> "Metrics":
        longest = max([len(tree.guess)] + [len(c.guess) for c in tree.children.values()])
        response = max([len(k) for k in tree.children] or [5])
        box_w = max(58, 7.2 * longest + 12)
        return Metrics(box_w, max(box_w + 8, response * SQUARE + 10))


def place_subtree(box: Shown, left: float, top: float, m: Metrics) -> None:
    """Centre of every box of a subtree whose leftmost column starts at `left`, its box at `top`: leaves side
    by side, a parent over the middle of its children."""
    box.y = top + BOX_H / 2
    if not box.children:
        box.x = left + m.column / 2
        return
    offset = left
    for child in box.children:
        place_subtree(child, offset, top + ROW, m)
        offset += child.columns() * m.column
    box.x = (box.children[0].x + box.children[-1].x) / 2


def pack_rows(blocks: list[Shown], width: int) -> list[list[Shown]]:
    """Blocks in reading order, cut into rows of at most `width` columns (a wider block gets a row of its own)."""
    rows, used = [[]], 0
    for block in blocks:
        if rows[-1] and used + block.columns() > width:
            rows.append([])
            used = 0
        rows[-1].append(block)
        used += block.columns()
    return [row for row in rows if row]


def best_width(blocks: list[Shown], levels: int, m: Metrics) -> int:
    """The row width (in columns) whose packed picture comes closest to the ASPECT ratio."""
    total = sum(b.columns() for b in blocks)
    widest = max(b.columns() for b in blocks)
    band = band_height(levels)

    def miss(width: int) -> float:
        rows = pack_rows(blocks, width)
        w = max(sum(b.columns() for b in row) for row in rows) * m.column
        return abs(w / (len(rows) * band + ROW + 100) - ASPECT)  # + the root and the legend

    return min(range(widest, total + 1), key=lambda width: (miss(width), width))


def band_height(levels: int) -> float:
    """Height of one packed row of blocks `levels` deep, with its bus line and the gap under it."""
    return (levels - 1) * ROW + BOX_H + BUS + ROW_GAP


def layout(root: Shown, m: Metrics) -> tuple[float, float, list[float]]:
    """Place every box; return the picture's width, the y where the legend starts, and each row's bus line y."""
    levels = max(b.level for b in root.walk()) - 1
    root.y = MARGIN + 18 + BOX_H / 2
    if not root.children:
        root.x = MARGIN + m.column / 2
        return MIN_WIDTH, root.y + BOX_H / 2 + 20, []
    rows = pack_rows(root.children, best_width(root.children, levels, m))
    top, buses = root.y + BOX_H / 2 + 16 + BUS, []
    for row in rows:
        left = MARGIN + 12
        for block in row:
            place_subtree(block, left, top, m)
            left += block.columns() * m.column
        buses.append(top - BUS)
        top += band_height(levels)
    width = max(MIN_WIDTH, max(sum(b.columns() for b in row) for row in rows) * m.column + 2 * MARGIN + 12)
    root.x = width / 2
    return width, top - BUS, buses


def is_colours(response: str | None) -> bool:
    """Whether a response is a Wordle-style colour string (digits 0 grey, 1 yellow, 2 green)."""
    return bool(response) and set(response) <= set(COLOURS)


def response_label(response: str, x: float, y: float) -> str:
    """A Wordle colour string as a row of squares centred on (x, y); any other response as its text."""
    if is_colours(response):
        left = x - len(response) * SQUARE / 2
        return "".join(f'<rect x="{left + i * SQUARE:.1f}" y="{y - SQUARE / 2:.1f}" width="{SQUARE - 1}" '
                       f'height="{SQUARE - 1}" fill="{COLOURS[c]}"/>' for i, c in enumerate(response))
    return f'<text x="{x:.1f}" y="{y + 3:.1f}" class="response">{escape(response)}</text>'


def edge(x0: float, y0: float, x1: float, y1: float) -> str:
    """A parent-to-child connector: down, across, down (right angles, like an organisation chart)."""
    mid = y1 - 22
    return (f'<path d="M{x0:.1f},{y0:.1f} V{mid:.1f} H{x1:.1f} V{y1:.1f}" fill="none" stroke="#999" '
            'stroke-width="0.8"/>')


def box_svg(box: Shown, m: Metrics) -> str:
    """The `<g>` of one box: guess and class size, or the "+N more" summary."""
    x, y, w = box.x, box.y, m.box_w
    frame = f'x="{x - w / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{w:.0f}" height="{BOX_H}" rx="4"'
    if box.node is None:
        return (f'<g class="more" data-level="{box.level}" data-hidden="{box.hidden}" data-secrets="{box.secrets}">'
                f'<rect {frame} fill="{MORE_FILL}" stroke="#666" stroke-dasharray="3,2"/>'
                f'<text x="{x:.1f}" y="{y - 2:.1f}" class="more">+{box.hidden} more</text>'
                f'<text x="{x:.1f}" y="{y + 10:.1f}" class="count">{box.secrets} secrets</text></g>')
    fill = FOUND_FILL if box.node.found_here() else BOX_FILL
    return (f'<g class="node" data-level="{box.level}" data-guess={quoteattr(box.node.guess)} '
            f'data-candidates="{box.node.candidates}">'
            f'<rect {frame} fill="{fill}" stroke="#333"/>'
            f'<text x="{x:.1f}" y="{y - 1:.1f}" class="guess">{escape(box.node.guess.upper())}</text>'
            f'<text x="{x:.1f}" y="{y + 11:.1f}" class="count">{box.node.candidates}</text></g>')


def connectors(root: Shown, buses: list[float], width: float) -> list[str]:
    """The lines: the root down to a trunk on the left, the trunk to each row's bus, the bus to each block; and
    inside blocks, every parent to its children (with each child's response just above its box)."""
    parts = []
    if buses:
        trunk = MARGIN + 4
        parts.append(f'<path d="M{root.x:.1f},{root.y + BOX_H / 2:.1f} V{buses[0] - 10:.1f} H{trunk:.1f} '
                     f'V{buses[-1]:.1f}" fill="none" stroke="#999" stroke-width="0.8"/>')
        rows = {bus: [] for bus in buses}
        for block in root.children:
            rows[min(buses, key=lambda b: abs(b - (block.y - BOX_H / 2 - BUS)))].append(block)
        for bus, blocks in rows.items():
            parts.append(f'<line x1="{trunk:.1f}" y1="{bus:.1f}" x2="{blocks[-1].x:.1f}" y2="{bus:.1f}" '
                         'stroke="#999" stroke-width="0.8"/>')
            parts += [f'<line x1="{b.x:.1f}" y1="{bus:.1f}" x2="{b.x:.1f}" y2="{b.y - BOX_H / 2:.1f}" '
                      'stroke="#999" stroke-width="0.8"/>' for b in blocks]
    for box in root.walk():
        for child in box.children if box is not root else []:
            parts.append(edge(box.x, box.y + BOX_H / 2, child.x, child.y - BOX_H / 2))
    for box in root.walk():
        if box.response is not None:
            parts.append(response_label(box.response, box.x, box.y - BOX_H / 2 - 8))
    return parts


def legend(tree: Tree, top: float, caps, depth: int) -> tuple[list[str], float]:
    """The legend's SVG lines from `top`, and the y below it."""
    colours = any(is_colours(k) for k in tree.children)
    lines = []
    y = top + 14
    entries = [("box", "GUESS played there, over the number of secrets still possible (its class)"),
               ("found", "green box: the guess may itself be the secret (found with it when it is)"),
               ("more", f"+N more: N smaller classes not drawn (at most {caps[0]} boxes under the opener, "
                        f"{caps[1]} under any other guess)")]
    entries.insert(0, ("colours", "response above each box: grey = letter not in the secret, yellow = "
                                  "in it elsewhere, green = right place") if colours else
                   ("text", "text above each box: the response that leads there"))
    for kind, text in entries:
        lines.append(legend_key(kind, MARGIN, y))
        lines.append(f'<text x="{MARGIN + 52}" y="{y + 4:.1f}" class="legend">{escape(text)}</text>')
        y += 18
    order = "children ordered by class size, largest first; rows read left to right, top to bottom"
    lines.append(f'<text x="{MARGIN}" y="{y + 4:.1f}" class="legend">{escape(order)}; levels 1-{depth}</text>')
    return lines, y + 16


def legend_key(kind: str, x: float, y: float) -> str:
    """The small sample drawn in front of one legend entry."""
    if kind == "colours":
        return "".join(f'<rect x="{x + i * SQUARE:.1f}" y="{y - 4:.1f}" width="{SQUARE - 1}" height="{SQUARE - 1}" '
                       f'fill="{COLOURS[c]}"/>' for i, c in enumerate("0122"))
    if kind == "text":
        return f'<text x="{x}" y="{y + 4:.1f}" class="response" text-anchor="start">2B1W</text>'
    samples = {"box": (BOX_FILL, ""), "found": (FOUND_FILL, ""), "more": (MORE_FILL, ' stroke-dasharray="3,2"')}
    fill, dash = samples[kind]
    return f'<rect x="{x}" y="{y - 6:.1f}" width="40" height="13" rx="3" fill="{fill}" stroke="#333"{dash}/>'


def tree_svg(tree: Tree, depth: int = DEFAULT_DEPTH, title: str | None = None, caps=DEFAULT_CHILDREN) -> str:
    """The SVG text of `tree`'s levels 1..depth (depth >= 1): one `<g class="node">` per drawn node, one
    `<g class="more">` per "+N more" summary, and a legend."""
    if depth < 1:
        raise ValueError(f"a tree picture needs depth >= 1, got {depth}")
    if min(caps) < 2:
        raise ValueError(f"a tree picture shows at least two boxes under a node, got {caps}")
    m = Metrics.of(tree)
    root = shown_tree(tree, depth, caps)
    width, legend_top, buses = layout(root, m)
    key, height = legend(tree, legend_top, caps, depth)
    heading = title or f"strategy tree: {tree.guess}, levels 1-{depth}"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans Mono, monospace" font-size="11">',
             "<style>.response{font-size:9px;text-anchor:middle}.guess{text-anchor:middle;font-weight:bold}"
             ".count{text-anchor:middle;font-size:9px}.legend{font-size:10px;fill:#333}"
             ".heading{font-size:12px;font-weight:bold}.more{text-anchor:middle;font-size:10px}</style>",
             f"<title>{escape(heading)}</title>",
             f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
             f'<text x="{MARGIN}" y="{MARGIN + 4}" class="heading">{escape(heading)}</text>']
    parts += connectors(root, buses, width)
    parts += [box_svg(box, m) for box in root.walk()]
    parts += key
    parts.append("</svg>\n")
    return "\n".join(parts)
