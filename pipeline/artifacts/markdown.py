"""Text written into Markdown files (catalogue.md, report.md, a sweep's summary.md) as the text it is.

Names, openers, folders and times come from files and settings anyone can write: `<script>`, `|`, a backtick
or a line break in one of them must neither become markup nor end a table row.  `md_text` makes any text a
literal inline span:
- `< > &` become the HTML entities every Markdown renderer reads as those characters (a backslash before `<`
  is not an escape in every renderer);
- the other characters that start inline markup (`\\ ` * _ [ ] | ~ $`) get a backslash (CommonMark escapes
  any ASCII punctuation so; `|` so in a GFM table cell; `$` starts maths on GitHub), but for an underscore
  inside a word (`random_candidate`), which CommonMark never reads as emphasis;
- control and line- or paragraph-separator characters are written as their Python escape (`\\n`, `\\x1b`,
  `\\u202e`), so a row stays on one line and shows what it holds.
Link targets are not text: the callers quote them (urllib.parse.quote)."""

import unicodedata

BACKSLASHED = set("\\`*_[]|~$")
ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
INVISIBLE = ("Cc", "Cf", "Zl", "Zp")  # unicodedata categories written as escapes: controls, format, separators


def md_char(ch: str, before: str, after: str) -> str:
    """One character of md_text, between the characters `before` and `after` ("" at an end)."""
    if ch in ENTITIES:
        return ENTITIES[ch]
    if ch == "_" and before.isalnum() and after.isalnum():
        return ch  # inside a word (random_candidate) an underscore neither opens nor closes emphasis
    if ch in BACKSLASHED:
        return "\\" + ch
    if unicodedata.category(ch) in INVISIBLE:
        return md_text(ch.encode("unicode_escape").decode("ascii"))  # its backslash escaped in turn
    return ch


def md_text(text) -> str:
    """`text` (any value, as str()) as literal Markdown inline text, safe in a table cell."""
    text = str(text)
    return "".join(md_char(ch, text[i - 1:i], text[i + 1:i + 2]) for i, ch in enumerate(text))


def md_row(cells) -> str:
    """One Markdown table row of literal cells."""
    return "| " + " | ".join(md_text(cell) for cell in cells) + " |"
