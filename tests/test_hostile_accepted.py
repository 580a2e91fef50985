"""Hostile input that used to be accepted (issue 47, section 6), by kind:

1. markup: text from files and settings written into Markdown (catalogue.md, report.md, a sweep's summary.md)
   stays text: `<script>`, `|`, backticks, `*`, line breaks and control characters neither become markup nor
   break a table row;
2. names: a game name or guess limit the independent checker would refuse in a certificate is refused when the
   config is composed (one `error:` line, exit 2, nothing written), by the checker's own rule;
3. escapes: nothing is read through a symbolic link out of the outputs folder (the catalogue says which links it
   did not follow), and a bundle's member names are built from safe parts only (a manifest key `../../../X`
   is refused);
4. unreachable: verify-tree checks every node of a tree, reached or not (a branch no secret reaches is refused);
5. the coach: `top` ranks exact values and upper bounds together by value and says which is which; a
   half-written guesses=[...] list and a budget of nan, inf or out of range are refused in one line.

The proofs are of a ten-word game (every word a secret), made once per module by the real stages."""

import html
import json
import re
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pytest

from pipeline import PipelineError
from test_bad_input import assert_one_error, fresh_console, nothing_written, run_main  # noqa: F401

TEN = ["awake", "blush", "cigar", "evade", "focal", "humph", "naval", "rebut", "serve", "sissy"]
HOSTILE = ["<script>alert(1)</script>", "a|b", "`code`", "line\nbreak", "*4*7=28*", "_x_ [l](u) ~~s~~ $m$",
           "\x1b[31mred", "back\\slash", "&amp;", "\u202eevil"]


# ---- 1. markup: Markdown cells are literal text ------------------------------------------------------------------


def unescaped(cell: str) -> str:
    """A Markdown cell read back as text: backslash escapes and the three entities md_text writes undone."""
    text = re.sub(r"\\(.)", lambda m: m.group(1), cell)
    return html.unescape(text) if "&" in cell else text


def visible(text: str) -> str:
    """What md_text shows of `text`: control, format and separator characters as their escapes."""
    import unicodedata

    return "".join(ch.encode("unicode_escape").decode() if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
                   else ch for ch in text)


def table_cells(line: str) -> list[str]:
    """The cells of one Markdown table row, split at the pipes that are not escaped."""
    assert line.startswith("| ") and line.endswith(" |"), line
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line[2:-2])]


def assert_inert(text: str) -> None:
    """No raw HTML, no line break inside a row, no markup character left unescaped in `text` (but an underscore
    inside a word, which is no emphasis)."""
    assert "<" not in text and ">" not in text and "\n" not in text
    for ch in "*[]~$`":
        assert not re.search(rf"(?<!\\){re.escape(ch)}", text), (ch, text)
    for at in (m.start() for m in re.finditer(r"(?<!\\)_", text)):
        assert text[at - 1:at].isalnum() and text[at + 1:at + 2].isalnum(), text


@pytest.mark.parametrize("text", HOSTILE)
def test_md_text_reads_back_as_the_text_it_was(text):
    from pipeline.artifacts.markdown import md_row, md_text

    written = md_text(text)
    assert "\n" not in written and "\x1b" not in written and "\u202e" not in written
    assert_inert(written)
    assert unescaped(written) == visible(text)
    assert table_cells(md_row([text, "x"])) == [written, "x"]


def test_md_text_examples():
    from pipeline.artifacts.markdown import md_text

    assert md_text("<script>") == "&lt;script&gt;"
    assert md_text("a|b") == "a\\|b" and md_text("4*7=28") == "4\\*7=28"
    assert md_text("x\ny") == "x\\\\ny"  # shown as x\ny, on one line
    assert md_text("2.640777 (544/206)") == "2.640777 (544/206)"  # plain text is left as it is
    assert md_text("random_candidate") == "random_candidate" and md_text("_x_ a_") == "\\_x\\_ a\\_"


@pytest.fixture(scope="module")
def ten_proof(tmp_path_factory, ray_session):
    """A prove artifact of the ten-word game named `ten`, made by the real stages (and its store)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    folder = tmp_path_factory.mktemp("ten")
    (folder / "secrets.txt").write_text("\n".join(TEN) + "\n")
    outputs = folder / "outputs"
    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "stage=prove", "game=words",
                          f"game.secrets.path={folder / 'secrets.txt'}", "game.name=ten"])
    game = load_game(cfg.game)
    return run_stage(cfg.stage, cfg, game, ArtifactStore(outputs)), game


def copy_proof(proof, outputs: Path, name: str, **changes) -> Path:
    """The proof folder copied to outputs/prove/<name>, its certificate's fields changed."""
    folder = outputs / "prove" / name
    shutil.copytree(proof.path, folder)
    cert = json.loads((folder / "certificate.json").read_text()) | changes
    (folder / "certificate.json").write_text(json.dumps(cert))
    return folder


def run_catalogue(outputs: Path, capsys) -> Path:
    code, out, err = run_main(["stage=catalogue", "stage.committed=null", f"paths.outputs={outputs}", "progress=false"],
                              capsys)
    assert code == 0, err
    return Path(out.strip().splitlines()[-1])


def test_catalogue_md_writes_names_openers_and_folders_as_text(ten_proof, outputs, capsys):
    from pipeline.artifacts.catalogue_page import COLUMNS, LINKS, SHA, cells

    proof, _ = ten_proof
    name, openers = "<script>alert(1)</script>|x\n# h", ["*a*", "`x`", "<b>"]
    copy_proof(proof, outputs, "a|<b>`c", game=name, optimal_openers=openers)
    copy_proof(proof, outputs, "other_*", game=name, optimal_openers=openers)  # the same row: one is "other"
    (copy_proof(proof, outputs, "[x](javascript:y)<i>") / "certificate.json").write_text("{")  # unreadable
    folder = run_catalogue(outputs, capsys)
    body, text = json.loads((folder / "catalogue.json").read_text()), (folder / "catalogue.md").read_text()
    [row] = body["rows"]
    assert row["game"] == name and sorted([row["shown"]["folder"], row["others"][0]["folder"]]) == \
        ["prove/a|<b>`c", "prove/other_*"]
    lines = text.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("| game |")))
    [row_line] = [line for line in lines[header + 2:] if line.startswith("| ")]
    shown = table_cells(row_line)
    expected = cells(row, 5)
    assert len(shown) == len(expected) == len(COLUMNS)
    for i, cell in enumerate(shown):
        if i not in (SHA, LINKS):  # the sha256 (a code span of hex) and the links (quoted URLs) are markup
            assert_inert(cell)
            assert unescaped(cell) == visible(expected[i])
    assert "&lt;script&gt;" in text and "<script" not in text and "<b>" not in text and "<i>" not in text
    [other] = [line for line in lines if line.startswith("- ") and "([certificate.json](" in line]
    assert other.startswith("- &lt;script&gt;alert(1)&lt;/script&gt;\\|x\\\\n# h normal, limit 6: proof prove/")
    assert_inert(other.split(" ([certificate.json](")[0])
    damaged = next(line for line in lines if line.startswith("- ") and "javascript" in line)
    assert damaged.startswith("- prove/\\[x\\](javascript:y)&lt;i&gt;: certificate.json is damaged")
    assert "<script" not in (folder / "index.html").read_text()


def test_catalogue_md_writes_checked_at_as_text(ten_proof, outputs, capsys):
    """A record's time (a string from a file) is text too, in the table and among the other certificates."""
    from pipeline.artifacts.catalogue import gather
    from pipeline.artifacts.catalogue_page import markdown
    from pipeline.runtime.store import ArtifactStore

    proof, _ = ten_proof
    copy_proof(proof, outputs, "one")
    copy_proof(proof, outputs, "two")
    catalogue = gather(ArtifactStore(outputs))
    checked_at = "<i>now</i> | `1`\n- x"
    for entry in (catalogue["rows"][0]["shown"], catalogue["rows"][0]["others"][0]):
        entry["verification"] = {"state": "partially checked", "checked_at": checked_at}
    text = markdown(catalogue, str(outputs), 5)
    shown = "not verified here: only a sample was checked (at &lt;i&gt;now&lt;/i&gt; \\| \\`1\\`\\\\n- x)"
    assert f"| {shown} |" in text and text.count(shown) == 2
    assert "<i>" not in text


def test_report_and_sweep_tables_are_literal():
    from pipeline.stages.report import _table
    from pipeline.app.sweep_summary import markdown

    [line] = [ln for ln in _table(["opener", "total"], [["4*7=28 <b>|", 544]]).splitlines() if "544" in ln]
    assert table_cells(line) == ["4\\*7=28 &lt;b&gt;\\|", "544"]
    rows = [{"point": 0, "overrides": ["game.name=<script>", "stage.x=`a|b`"], "status": "failed", "artifact": "",
             "wall_s": 0.5, "result": "", "error": "bad\nvalue <img>"}]
    [line] = markdown(rows).splitlines()[2:]
    cells = table_cells(line)
    assert len(cells) == 6 and all(unescaped(c) == visible(v) for c, v in
                                   zip(cells, ["0", "game.name=<script> stage.x=`a|b`", "failed", "-", "0.5s",
                                               "bad\nvalue <img>"]))
    assert_inert(line.replace("|", ""))


# ---- 2. names: what the checker would refuse is refused at composition -------------------------------------------


BAD_GAME_SETTINGS = [
    ("game.name=../../x", "game.name='../../x': a game's name is 1 to 64 letters, digits, _ or -"),
    ("game.name='<script>alert(1)</script>'", "game.name='<script>alert(1)</script>': a game's name is"),
    ("game.name='a b'", "game.name='a b': a game's name is"),
    ("game.name=''", "game.name='': a game's name is"),
    ("game.name='ten\n'", "game.name='ten\\n': a game's name is"),
    (f"game.name={'x' * 65}", f"game.name='{'x' * 40}'…: a game's name is"),
    ("game.max_guesses=1001", "game.max_guesses must be between 1 and 1000 (or null = unlimited), got 1001"),
    ("game.max_guesses=0", "game.max_guesses must be between 1 and 1000 (or null = unlimited), got 0"),
    ("sweep.max_parallel=0", "sweep.max_parallel must be at least 1 (or null: the cluster's CPUs), got 0"),
]


@pytest.mark.slow
@pytest.mark.parametrize("setting, message", BAD_GAME_SETTINGS, ids=[s[:30] for s, _ in BAD_GAME_SETTINGS])
def test_a_setting_the_checker_would_refuse_is_refused_when_composed(setting, message, outputs, capsys):
    code, _, err = run_main(["stage=prove", "game=mini_nerdle", setting, f"paths.outputs={outputs}"], capsys)
    assert_one_error(code, err, message)
    assert nothing_written(outputs)


def test_the_composer_and_the_checker_apply_one_name_rule():
    """Names the composer accepts are the ones a certificate may carry: the checker's own field type decides."""
    from pipeline.config.compose import compose_config
    from pipeline.proofs.certificates.schema import GAME, CertificateError

    for name in ["ten", "my-game_2", "x" * 64, "../x", "a b", "ten\n", "x" * 65, "", "é"]:
        try:
            GAME["game"](name, "game")
            checker = True
        except CertificateError:
            checker = False
        try:
            compose_config(["game=words", f"game.name={json.dumps(name)}"])
            composer = True
        except PipelineError:
            composer = False
        assert composer == checker, name
        assert checker == (name in ("ten", "my-game_2", "x" * 64)), name


def test_a_named_custom_game_writes_a_certificate_its_checker_verifies(ten_proof):
    from pipeline.proofs.certificates.optimal import verify_certificate

    proof, game = ten_proof
    assert json.loads(proof.file("certificate.json").read_text())["game"] == game.name == "ten"
    result = verify_certificate(proof.path, game)
    assert result["complete"] and result["ub"] == 20  # each of 10 words: 1 + 9 x 2 (brute force: no better)


# ---- 3. escapes: no link followed out of the outputs, no member name out of its folder ---------------------------


def test_the_catalogue_follows_no_link_and_says_so(ten_proof, outputs, tmp_path, capsys):
    proof, _ = ten_proof
    outside = tmp_path / "outside"
    shutil.copytree(proof.path, outside / "proof")
    copy_proof(proof, outputs, "real")
    (outputs / "prove" / "link").symlink_to(outside / "proof")  # an artifact folder leaving the outputs
    (outputs / "exact").symlink_to(outside)  # a stage folder leaving the outputs
    (outputs / "prove" / "real.tar.gz").symlink_to("/etc/passwd")  # a "bundle"
    linked = copy_proof(proof, outputs, "linked_tree")
    (linked / "tree.json").unlink()
    (linked / "tree.json").symlink_to(outside / "proof" / "tree.json")  # a file of a certificate's folder
    folder = run_catalogue(outputs, capsys)
    body = json.loads((folder / "catalogue.json").read_text())
    assert [e["folder"] for r in body["rows"] for e in [r["shown"], *r["others"]]] == ["prove/real"]
    assert body["rows"][0]["shown"]["bundle_path"] is None
    problems = {u["folder"]: u["problem"] for u in body["unreadable"]}
    assert problems == {
        "exact": f"a symbolic link to {outside} (outside the outputs folder): not followed (the catalogue reads no "
                 "certificate through a link)",
        "prove/link": f"a symbolic link to {outside / 'proof'} (outside the outputs folder): not followed (the "
                      "catalogue reads no certificate through a link)",
        "prove/linked_tree/tree.json": f"a symbolic link to {outside / 'proof' / 'tree.json'} (outside the outputs "
                                       "folder): not followed (the catalogue reads no certificate through a link)",
        "prove/real.tar.gz": "a symbolic link to /etc/passwd (outside the outputs folder): not followed (the "
                             "catalogue reads no certificate through a link)"}
    assert body["counts"] == {"results": 1, "verified": 0, "certificates": 1, "committed": 0, "unreadable": 4}


def test_the_store_reads_no_artifact_through_a_link(ten_proof, tmp_path):
    from pipeline.runtime.store import ArtifactStore

    proof, _ = ten_proof
    outputs = tmp_path / "outputs"
    shutil.copytree(proof.path, outputs / "prove" / proof.key)
    (outputs / "prove" / "elsewhere").symlink_to(proof.path)
    shutil.copytree(proof.path, tmp_path / "upper")
    (outputs / "upper_bound").symlink_to(tmp_path / "upper")
    manifest_link = outputs / "prove" / "manifest_link"
    shutil.copytree(proof.path, manifest_link)
    (manifest_link / "manifest.json").unlink()
    (manifest_link / "manifest.json").symlink_to(proof.file("manifest.json"))
    store = ArtifactStore(outputs)
    assert [a.key for a in store.finished("prove")] == [proof.key]
    assert store.finished("upper_bound") == []


@pytest.mark.parametrize("key", ["../../../X", "prove-../x", "abc", "0123456789abcdef\n", None, 7])
def test_a_bundle_is_refused_a_key_that_is_no_key(ten_proof, tmp_path, capsys, key):
    proof, _ = ten_proof
    folder = tmp_path / "p"
    shutil.copytree(proof.path, folder)
    manifest = json.loads((folder / "manifest.json").read_text()) | {"key": key}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = run_main(["bundle", str(folder)], capsys)
    assert_one_error(code, err, "is not an artifact key (16 hex digits); not bundled")
    assert not (tmp_path / "p.tar.gz").exists() and not list(tmp_path.glob(".p.tar.gz*"))


def test_a_bundle_is_refused_a_file_name_it_would_not_write(ten_proof, tmp_path, capsys):
    proof, _ = ten_proof
    folder = tmp_path / "p"
    shutil.copytree(proof.path, folder)
    (folder / "notes\n\x1b[2J.txt").write_text("x")
    code, _, err = run_main(["bundle", str(folder)], capsys)
    assert_one_error(code, err, "cannot bundle the file 'notes\\n\\x1b[2J.txt' of")
    assert "\x1b" not in err and not (tmp_path / "p.tar.gz").exists()


def test_a_bundle_names_its_members_under_one_safe_folder(ten_proof, tmp_path, capsys):
    proof, _ = ten_proof
    out = tmp_path / "b.tar.gz"
    code, _, err = run_main(["bundle", str(proof.path), "--out", str(out)], capsys)
    assert code == 0, err
    with tarfile.open(out) as archive:
        names = archive.getnames()
    assert names[0] == f"prove-{proof.key}" and re.fullmatch(r"[0-9a-f]{16}", proof.key)
    assert all(re.fullmatch(rf"prove-{proof.key}/[A-Za-z0-9][A-Za-z0-9._~%-]*", n) for n in names[1:]), names


# ---- 4. unreachable: every node of a tree is checked ---------------------------------------------------------------


def serve_classes() -> dict[str, list[str]]:
    """The classes SERVE cuts TEN into, by response (the checker's own answering function)."""
    from pipeline.proofs.game.answer import response

    classes = {}
    for word in TEN:
        if word != "serve":
            classes.setdefault(response("wordle", "serve", word), []).append(word)
    return classes


def ten_tree(dead: dict | None = None) -> dict:
    """SERVE first, then each class's words in turn; `dead` hangs under a response no secret of TEN gives."""
    from pipeline.proofs.game.answer import response

    def chain(words):
        node = {"guess": words[0], "candidates": len(words), "children": {}}
        if len(words) > 1:
            node["children"][response("wordle", words[0], words[1])] = chain(words[1:])
        return node

    children = {said: chain(words) for said, words in serve_classes().items()}
    if dead is not None:
        children[next(said for said in ("00000", "11111", "00001") if said not in children)] = dead
    return {"tree": {"guess": "serve", "candidates": len(TEN), "children": children}}


def chain_total() -> int:
    """The total of ten_tree(), counted from its definition: SERVE, then a class of n words takes 2, 3, ... n + 1."""
    return 1 + sum(sum(range(2, 2 + len(words))) for words in serve_classes().values())


@pytest.mark.parametrize("dead", [
    {"guess": "zzzzz", "candidates": 0, "children": {}},  # a guess in no list
    {"guess": "cigar", "candidates": 0},  # an allowed guess, claiming no candidate
    {"guess": "cigar", "candidates": 0, "children": {"00000": {"guess": "qqqqq", "candidates": 0}}},
])
@pytest.mark.slow
def test_verify_tree_refuses_a_branch_no_secret_reaches(word_list_game, tmp_path, capsys, dead):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.proofs.certificates.tree import TreeRejected, check_tree

    args = word_list_game(TEN)
    game = load_game(compose_config(args).game)
    assert check_tree(ten_tree(), game, False, 6)["total"] == chain_total()  # sound without the dead branch
    with pytest.raises(TreeRejected, match="is reached by no secret"):
        check_tree(ten_tree(dead), game, False, 6)
    path = tmp_path / "dead.json"
    path.write_text(json.dumps(ten_tree(dead) | {"guesses_sha256": game.guesses_digest,
                                                 "secrets_sha256": game.secrets_digest}))
    code, _, err = run_main(["verify-tree", str(path), *args], capsys)
    assert_one_error(code, err, "is reached by no secret (a dead branch: its guesses were never replayed)")


def test_the_provers_tree_check_refuses_a_dead_branch_too():
    from pipeline.search.tree import from_json, verify

    assert verify(from_json(ten_tree()["tree"]), TEN, TEN) == chain_total()
    with pytest.raises(ValueError, match="reached by no secret"):
        verify(from_json(ten_tree({"guess": "zzzzz", "candidates": 0, "children": {}})["tree"]), TEN, TEN)


# ---- 5. the coach: ranked by value, lists closed, budgets finite ---------------------------------------------------


ANALYSE = ["abbey", "abbot", "about", "above", "abyss", "allot", "alloy", "atoll", "babel", "bloat", "tabby", "table"]


@pytest.fixture(scope="module")
def coach_store(tmp_path_factory, ray_session):
    """The analyse tests' game with a stored upper bound of its best opener and the exact value of its worst
    (by brute force): the bound is below the exact value, so a sound ranking lists the bounded opener first."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage
    from test_analyse import GUESSES, LIMIT, guess_total

    folder = tmp_path_factory.mktemp("coach")
    (folder / "secrets.txt").write_text("\n".join(ANALYSE) + "\n")
    (folder / "guesses.txt").write_text("\n".join(GUESSES) + "\n")
    args = ["game=words", f"game.secrets.path={folder / 'secrets.txt'}",
            f"game.guesses.path={folder / 'guesses.txt'}", f"paths.outputs={folder / 'outputs'}"]
    values = {g: guess_total(g, frozenset(ANALYSE), LIMIT) for g in GUESSES}
    best = min(values, key=values.get)
    worst = max((g for g in values if values[g] < 10**9), key=values.get)
    for stage in (["stage=upper_bound", f"stage.openers=[{best}]"], ["stage=exact", f"stage.openers=[{worst}]"]):
        cfg = compose_config([*args, "progress=false", "ray.executor=local", *stage])
        run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))
    return args, best, worst, values


def test_top_ranks_exact_values_and_bounds_together_by_value(coach_store, monkeypatch):
    from pipeline.assistant import values as valuing
    from pipeline.assistant.ranking import top_guesses
    from pipeline.config.compose import compose_config
    from pipeline.feedback.matrix import game_matrix
    from pipeline.games.catalog import load_game

    args, best, worst, exact = coach_store
    config = compose_config(args)
    game = load_game(config.game)
    monkeypatch.setattr(valuing, "IN_PROCESS_CELLS", 0)  # nothing solved here: only what is stored
    valuer = valuing.Valuer(game, game_matrix(game), budget=0, outputs=Path(config.paths.outputs))
    found, _ = top_guesses(valuer, np.arange(len(ANALYSE), dtype=np.int32), None, 6, 5, True, seconds=0)
    listed = [(game.guesses[g], v.kind, v.total) for g, v in found]
    assert [(word, kind) for word, kind, _ in listed] == [(best, "upper bound"), (worst, "exact")]
    assert exact[best] <= listed[0][2] < listed[1][2] == exact[worst]  # a true bound, below the exact value


@pytest.mark.slow
def test_top_in_play_says_which_values_are_bounds(coach_store):
    from test_analyse import pipeline

    args, best, worst, exact = coach_store
    out = pipeline("play", *args, stdin="top 20\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    ranked = [line.split() for line in lines if re.match(r"\s*\d+\. ", line)]
    values = [float(row[2].lstrip("≤")) for row in ranked]
    assert values == sorted(values) and len(ranked) == len([v for v in exact.values() if v < 10**9])
    bounded = [row[1] for row in ranked if row[2].startswith("≤")]
    assert bounded == [best]
    legend = next(line for line in lines if line.startswith("≤: an upper bound"))
    assert "(upper_bound/" in legend and "ranked by value with the exact values" in legend


@pytest.mark.parametrize("guesses, item", [
    ("[about,", None), ("about,bloat]", None), ("[", None), ("[about,,bloat]", "''"), ("[about,bloat,]", "''"),
    ("['about,bloat]", "\"'about\""), ("[about,[bloat]]", "'[bloat]'"), ("about, bloat tabby", "'bloat tabby'"),
])
def test_analyse_refuses_a_half_written_guess_list(coach_store, capsys, guesses, item):
    args, *_ = coach_store
    code, out, err = run_main(["analyse", *args, "secret=tabby", f"guesses={guesses}"], capsys)
    if item is None:
        assert_one_error(code, err, "a list is [word,word,...], opened and closed")
    else:
        assert_one_error(code, err, f"{item} is not a word")
    assert out == ""


def test_analyse_still_reads_every_documented_list_form():
    from pipeline.assistant.app import parse_guesses

    for text in ["[about,bloat,tabby]", "about,bloat,tabby", "about bloat tabby", "[ About , 'bloat', \"tabby\" ]",
                 "['about','bloat','tabby']"]:
        assert parse_guesses(text) == ["about", "bloat", "tabby"], text
    assert parse_guesses("[]") == parse_guesses("") == []


@pytest.mark.parametrize("budget", ["nan", "inf", "-inf", "-1", "1e300", "NaN", "x"])
@pytest.mark.parametrize("command", ["analyse", "play"])
def test_a_budget_that_is_no_finite_number_of_seconds_is_refused(coach_store, capsys, command, budget):
    args, *_ = coach_store
    extra = ["secret=tabby", "guesses=[about,tabby]"] if command == "analyse" else []
    code, out, err = run_main([command, *args, *extra, f"--budget={budget}"], capsys)
    assert_one_error(code, err, "budget must be a number of seconds")
    assert "from 0 to 86400" in err or budget == "x"


def test_the_checker_refuses_a_stored_game_with_a_limit_no_run_may_have(word_list_game, tmp_path):
    """game.json.gz states the rules a proof was made under: a limit above MAX_GUESSES, or a name with a final
    line break ($ would match before it), is refused there too."""
    import gzip

    from pipeline.artifacts.stored_game import stored_game
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.proofs.certificates.schema import CertificateError
    from pipeline.proofs.game.stored_game import GAME_FILE, read_stored_game

    game = load_game(compose_config(word_list_game(TEN)).game)
    body = stored_game(game, "prove", 1)
    cases = [({}, None), ({"max_guesses": 1001}, "game.max_guesses is not null or a count from 1 to 1000"),
             ({"name": "words\n"}, "game.name is not a name")]
    for rules, problem in cases:
        path = tmp_path / GAME_FILE
        path.write_bytes(gzip.compress(json.dumps(body | {"game": body["game"] | rules}).encode()))
        if problem is None:
            assert read_stored_game(path).secrets == tuple(TEN)
        else:
            with pytest.raises(CertificateError, match=problem):
                read_stored_game(path)
