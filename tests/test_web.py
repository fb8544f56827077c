"""`sproutsdb web`: the JSON API against a real server process (values equal to `query`,
children complete, 400 on bad input, read-only) and the page in a real headless chromium:
walking 0*11 and back with the browser's Back button, a verified loss's children shown as
wins with their refuting replies, the start page, the legend, and a 420 px wide window."""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from cli_helpers import COMMAND, run_cli
from service_support import child_env
from webdriver import ELEMENT, Browser, browser_available


class WebProcess:
    """`sproutsdb web` on a free port; always stopped."""

    def __init__(self, store: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, "web", "--store", str(store), "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=child_env(),
            cwd=store.parent,
        )
        self.url = ""
        assert self.proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 90
        lines = []
        while not self.url:
            if time.monotonic() > deadline or not selector.select(deadline - time.monotonic()):
                self.stop()
                raise RuntimeError(f"web did not start: {lines}")
            line = self.proc.stdout.readline()
            if not line:
                self.stop()
                raise RuntimeError(f"web exited: {lines}")
            lines.append(line)
            found = re.search(r"serving on (http://\S+/)", line)
            if found:
                self.url = found.group(1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def fetch(url: str, method: str = "GET") -> tuple[int, dict]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("web") / "store"
    for args in (["solve", "0*6"], ["solve", "0*6", "--misere"]):  # the latter seeds RCTs
        done = run_cli(*args, "--quiet", "--store", str(path), timeout=300)
        assert done.returncode == 0, done.stderr
    # 0*8: a normal-play loss, solved and then verified (the checker marks its proof)
    done = run_cli("solve", "0*8", "--quiet", "--store", str(path), timeout=300)
    assert done.returncode == 0, done.stderr
    done = run_cli("check", "--root", "0*8", "--store", str(path), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return path


@pytest.fixture(scope="module")
def web(store: Path) -> Iterator[WebProcess]:
    server = WebProcess(store)
    try:
        yield server
    finally:
        server.stop()
    assert server.proc.returncode == 0  # SIGTERM stops it cleanly


def api(web: WebProcess, position: str) -> tuple[int, dict]:
    return fetch(f"{web.url}api/v1/position?pos={quote(position)}")


def test_values_equal_query_and_children_are_complete(web: WebProcess, store: Path) -> None:
    status, view = api(web, "0*6")
    assert status == 200
    done = run_cli("query", "0*6", "--json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    query = json.loads(done.stdout)
    assert view["position"] == query["position"] == "0*6"
    assert view["nimber"] == query["nimber"] == 0 and view["outcome"] == "L"
    assert view["misere"] == query["misere"]["outcome"] == "W"  # misère: 0*6 wins
    assert view["rct"] == query["misere"]["rct"]
    assert [(x["land"], x["nimber"], x["rct"]) for x in view["lands"]] == [
        (x["land"], x["nimber"], x["rct"]) for x in query["lands"]
    ]
    assert view["lands"][0]["r1"] == "null"  # normal loss, misère win
    # who said it: the stored nimber's provenance, as query --json gives it
    assert view["lands"][0]["provenance"] == query["lands"][0]["provenance_record"]
    assert view["lands"][0]["provenance"]["tool"]

    expected = json.loads(run_cli("children", "0*6", "--json").stdout)["children"]
    assert sorted(c["position"] for c in view["children"]) == sorted(expected)
    assert view["children_note"] is None
    for child in view["children"]:
        _, alone = api(web, child["position"])
        for name in ("nimber", "outcome", "misere", "rct", "rct_label"):
            assert child[name] == alone[name], (child["position"], name)
        assert child["winning_normal"] == (child["nimber"] == 0)
        assert child["winning_misere"] == (child["misere"] == "L")
    # 0*6 is a normal loss: no child is a winning move; a misère win: one child is
    assert not any(c["winning_normal"] for c in view["children"])
    assert any(c["winning_misere"] for c in view["children"])
    first = view["children"][0]["position"]
    child_query = json.loads(run_cli("query", first, "--json", "--store", str(store)).stdout)
    assert view["children"][0]["misere"] == child_query["misere"]["outcome"]


def test_bad_input_is_a_400_with_the_parsers_message(web: WebProcess) -> None:
    status, body = api(web, "AB|A")
    canon = run_cli("canon", "AB|A")
    assert status == 400 and body["error"] in canon.stderr and "at column 2" in body["error"]
    assert api(web, "0*5000")[0] == 400 and "the limit is 1,000" in api(web, "0*5000")[1]["error"]
    assert fetch(f"{web.url}api/v1/position")[0] == 400
    # 0*30 is listed now (the engine's 16 distinct children, as `sproutsdb children`); the
    # page's bound is the engine's time: a region of 14 different boundaries takes a minute
    status, body = api(web, "0*30")
    expected = json.loads(run_cli("children", "0*30", "--json").stdout)["children"]
    assert status == 200 and [c["position"] for c in body["children"]] == expected
    assert len(expected) == 16 and body["children_note"] is None
    slow = "0" + "".join("." + "1" * (i + 1) for i in range(14))
    started = time.monotonic()
    status, body = api(web, slow)
    assert status == 200 and body["children"] == [] and "limit" in body["children_note"]
    assert "within 3 s" in body["children_note"] and time.monotonic() - started < 20
    status, body = api(web, "0*65")  # the engine's own refusal, the position still shown
    assert status == 200 and body["children"] == [] and "too many" in body["children_note"]
    assert api(web, "0*6")[0] == 200  # the worker stopped for the slow one is replaced
    assert fetch(f"{web.url}api/v1/position?pos=0*6", method="POST")[0] == 405
    assert fetch(f"{web.url}nothing-here")[0] == 404


def need_browser() -> None:
    if not browser_available():
        if os.environ.get("CI"):
            pytest.fail("chromium and chromedriver must be installed on CI (.ci/run does it)")
        pytest.skip(
            "chromium/chromedriver not installed (apt-get install chromium chromium-driver)"
        )


def shown(position: str) -> str:
    """A JavaScript test: the page shows this position."""
    return f"document.getElementById('position').textContent === {position!r}"


def test_the_page_in_a_headless_browser(web: WebProcess) -> None:
    need_browser()
    with Browser() as browser:
        browser.get(web.url)
        field = browser.find("#pos")
        browser.type(field, "0*6")
        browser.click(browser.find("#go"))
        browser.wait_for("document.getElementById('position').textContent === '0*6'")
        assert browser.text(browser.find("#nimber")) == "0"
        assert browser.text(browser.find("#misere")).startswith("W")
        links = browser.find_all("#children a[data-pos]")
        assert len(links) == 4
        child = browser.script(
            "return arguments[0].dataset.pos;", {"element-6066-11e4-a52e-4f735466cecf": links[0]}
        )
        browser.click(links[0])
        browser.wait_for(f"document.getElementById('position').textContent === {child!r}")
        _, expected = fetch(f"{web.url}api/v1/position?pos={quote(child)}")
        assert browser.text(browser.find("#nimber")) == str(expected["nimber"])
        assert browser.text(browser.find("#outcome")) == expected["outcome"]
        assert browser.find_all("#children a[data-pos]")  # it can walk further down
        browser.click(browser.find("#back"))
        browser.wait_for("document.getElementById('position').textContent === '0*6'")
        assert browser.text(browser.find("#nimber")) == "0"
        assert browser.script("return document.getElementById('back').disabled;") is True


def test_walk_0x11_to_a_child_and_back_with_the_browsers_back_button(web: WebProcess) -> None:
    """Must show: 0*11 lists its 7 children (as `sproutsdb children`), a click walks to one,
    the browser's own Back returns to 0*11 and Forward to the child again."""
    need_browser()
    expected = json.loads(run_cli("children", "0*11", "--json").stdout)["children"]
    with Browser() as browser:
        browser.get(web.url + "?pos=" + quote("0*11"))
        browser.wait_for(shown("0*11"))
        assert browser.text(browser.find("#child-count")) == "(7)"
        links = browser.find_all("#children a[data-pos]")
        kids = [browser.script("return arguments[0].dataset.pos;", {ELEMENT: x}) for x in links]
        assert kids == expected
        browser.click(links[2])
        browser.wait_for(shown(expected[2]))
        assert browser.find_all("#children a[data-pos]")  # it can walk further down
        assert browser.script("return decodeURIComponent(location.search);") == (
            "?pos=" + expected[2]
        )
        browser.back()
        browser.wait_for(shown("0*11"))
        assert browser.text(browser.find("#child-count")) == "(7)"
        browser.forward()
        browser.wait_for(shown(expected[2]))
        browser.click(browser.find("#back"))  # the page's Back is the history's too
        browser.wait_for(shown("0*11"))


def test_a_verified_loss_shows_its_children_as_wins_with_refuting_replies(
    web: WebProcess,
) -> None:
    """Must show: 0*8, a verified normal-play loss: each child is a win (inferred, verified)
    with the stored reply that refutes it; clicking a reply follows the certificate to a
    verified loss, and the page there says so."""
    need_browser()
    _, view = api(web, "0*8")
    assert view["outcome"] == "L" and view["outcome_status"] == "verified"
    with Browser() as browser:
        browser.get(web.url + "?pos=" + quote("0*8"))
        browser.wait_for(shown("0*8"))
        assert browser.text(browser.find("#outcome")) == "L"
        assert browser.text(browser.find("#outcome-badge")) == "verified · stored"
        proof = browser.text(browser.find("#proof .normal"))
        assert "loss" in proof and "5 of 5 children" in proof
        rows = browser.find_all("#children tbody tr")
        assert len(rows) == 5
        for row, child in zip(rows, view["children"]):
            cells = browser.script(
                "return [...arguments[0].cells].map(c => c.textContent);", {ELEMENT: row}
            )
            assert cells[2].startswith("W") and "verified · inferred" in cells[2], cells
            assert cells[3].startswith(child["reply_normal"]["position"]), cells
        reply = view["children"][0]["reply_normal"]["position"]
        browser.click(browser.find("#children a[data-reply]"))
        browser.wait_for(shown(reply))
        assert browser.text(browser.find("#outcome")) == "L"
        assert "verified" in browser.text(browser.find("#outcome-badge"))
        assert len(browser.script("return history.state.trail;")) == 2  # 0*8 → child → reply
        browser.back()
        browser.wait_for(shown("0*8"))


def test_start_page_legend_and_phone_width(web: WebProcess) -> None:
    """`/` opens a start page with 0*1..0*12; the legend explains statuses, `W (rct)`, RCT
    labels and the R1 class null; at 420 px nothing is wider than the window."""
    need_browser()
    with Browser() as browser:
        browser.get(web.url)
        browser.wait_for("!document.getElementById('start').hidden")
        starts = browser.find_all("#start-links a[data-start]")
        names = [browser.text(x) for x in starts]
        assert names[:12] == [f"0*{n}" for n in range(1, 13)]
        legend = browser.script("return document.getElementById('legend').textContent;")
        for words in ("claimed", "verified", "W (rct)", "16-1-W", "null", "not missing data"):
            assert words in legend, words
        browser.click(starts[5])
        browser.wait_for(shown("0*6"))
        assert browser.text(browser.find("#misere")) == "W"
        _, view = api(web, "0*6")  # from an RCT: a claim unless its map was re-derived
        status = "claim" if view["misere_status"] == "claimed" else view["misere_status"]
        assert browser.text(browser.find("#misere-badge")) == f"{status} · rct"
        assert view["misere_source"] == "rct" and view["misere_status"] == view["rct_status"]
        if view["rct_source"] == "table":
            verified = view["rct_provenance"]["verified"]
            assert view["rct_status"] == ("verified" if verified else "claimed")
        browser.back()
        browser.wait_for("!document.getElementById('start').hidden")
        browser.resize(420, 900)
        for position in ("0*6", "0*8", "0*11"):
            browser.get(web.url + "?pos=" + quote(position))
            browser.wait_for(shown(position))
            width = browser.script("return window.innerWidth;")
            assert width <= 420
            widest = browser.script(
                "return Math.max(document.documentElement.scrollWidth, ...[...document"
                ".querySelectorAll('table, dl, svg')].map(t => t.getBoundingClientRect().right));"
            )
            assert widest <= width, (position, widest, width)
        shot = (
            Path(os.environ.get("SPROUTSDB_WEB_SHOTS", ""))
            if os.environ.get("SPROUTSDB_WEB_SHOTS")
            else None
        )
        if shot is not None:  # for a person to look at: SPROUTSDB_WEB_SHOTS=/tmp/dir
            (shot / "web-420.png").write_bytes(browser.screenshot_png())


WIDEST = (
    "return Math.max(document.documentElement.scrollWidth, ...[...document"
    ".querySelectorAll('table, dl, svg')].map(t => t.getBoundingClientRect().right));"
)


def save_shot(browser: Browser, name: str) -> None:
    """A screenshot for a person to look at, when SPROUTSDB_WEB_SHOTS names a folder."""
    folder = os.environ.get("SPROUTSDB_WEB_SHOTS")
    if folder:
        (Path(folder) / f"{name}.png").write_bytes(browser.screenshot_png())


def test_a_position_no_game_reads_says_why_and_keeps_the_start_links(web: WebProcess) -> None:
    need_browser()
    with Browser() as browser:
        browser.get(web.url + "?pos=" + quote("0*2.ZZ|"))
        browser.wait_for("!document.getElementById('error').hidden")
        assert browser.text(browser.find("#error"))
        assert len(browser.find_all("#start-links a[data-start]")) == 13  # never an empty list


def test_children_show_one_status_per_value(web: WebProcess) -> None:
    """A verified stored nimber of a child carries its badge like every other value."""
    need_browser()
    with Browser() as browser:
        browser.get(web.url + "?pos=" + quote("0*6"))
        browser.wait_for(shown("0*6"))
        cells = browser.script(
            "return [...document.querySelectorAll('#children td.nimber')].map(c => c.textContent);"
        )
        assert cells and all("·" in c for c in cells if c != "unknown"), cells


@pytest.fixture(scope="module")
def misere_21(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebProcess]:
    """A store holding the shipped misère 0*21 certificate (imported: claims) and 0*6."""
    path = tmp_path_factory.mktemp("web21") / "store"
    certificate = Path(__file__).resolve().parent.parent / "sproutsdb/data/results"
    done = run_cli("import", str(certificate / "misere-0x21.spdbx"), "--store", str(path))
    assert done.returncode == 0, done.stderr
    assert run_cli("solve", "0*6", "--quiet", "--store", str(path)).returncode == 0
    server = WebProcess(path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def cram_web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebProcess]:
    path = tmp_path_factory.mktemp("webcram") / "store"
    done = run_cli("solve", "3x4", "--game", "cram", "--quiet", "--store", str(path))
    assert done.returncode == 0, done.stderr
    server = WebProcess(path)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("width", [1280, 420])
def test_pages_fit_the_window_and_are_shot(
    misere_21: WebProcess, cram_web: WebProcess, width: int
) -> None:
    """0*21 (misère), 0*6, a Cram board and /results at a desktop and a phone width: nothing
    wider than the window, the board drawn square by square; SPROUTSDB_WEB_SHOTS=/dir keeps
    the screenshots."""
    need_browser()
    with Browser() as browser:
        browser.resize(width, 1000)
        inner = browser.script("return window.innerWidth;")
        pages = [
            (misere_21, "?pos=0*21", shown("0*21"), "misere-0x21"),
            (misere_21, "?pos=0*6", shown("0*6"), "0x6"),
            (cram_web, "?pos=3x4", shown("3x4"), "cram-3x4"),
            (misere_21, "results", "document.querySelectorAll('#normal tbody tr').length > 0",
             "results"),
        ]  # fmt: skip
        for web, page, ready, name in pages:
            browser.get(web.url + page)
            browser.wait_for(ready)
            assert browser.script(WIDEST) <= inner, (name, width)
            save_shot(browser, f"{name}-{width}")
        browser.get(cram_web.url + "?pos=3x4")
        browser.wait_for(shown("3x4"))
        squares = browser.script("return document.querySelectorAll('svg.board rect').length;")
        assert squares == 12
        assert browser.script("return document.getElementById('sprouts-drawing').hidden;")
        browser.get(misere_21.url + "results")
        browser.wait_for("document.querySelectorAll('#misere tbody tr').length > 0")
        boards = browser.script(
            "return [...document.querySelectorAll('#cram tbody tr td:first-child')]"
            ".map(c => c.textContent);"
        )
        assert {"4x7", "5x6", "4x9", "5x8", "5x9"} <= set(boards), boards  # Lemoine-Viennot's
        split = browser.script(
            "return [...document.querySelectorAll('td.num')].filter(c => c.getClientRects()"
            ".length && c.getBoundingClientRect().height > 2.2 * parseFloat("
            "getComputedStyle(c).lineHeight || 16)).map(c => c.textContent);"
        )
        assert split == [], split  # a count is never broken across lines


def test_every_move_of_the_misere_0x21_loss_shows_its_reply(misere_21: WebProcess) -> None:
    """The 0*21 certificate (a misère loss) keys most of its losses as search nodes, lands of
    the S6 table replaced by their trees: each of the 12 moves still shows the stored loss
    that answers it, those found as nodes saying so."""
    status, view = api(misere_21, "0*21")
    assert status == 200
    proof = view["proof"]["misere"]
    assert (proof["outcome"], proof["children"], proof["refuted"]) == ("L", 12, 12)
    sources = {c["reply_misere"]["source"] for c in view["children"]}
    assert sources == {"stored", "node"}
    for child in view["children"]:
        _, reply = api(misere_21, child["reply_misere"]["position"])
        assert reply["misere"] == "L" and reply["misere_source"] == child["reply_misere"]["source"]


def test_the_proof_tree_of_a_verified_loss_unfolds_level_by_level(web: WebProcess) -> None:
    """0*8's normal proof as a tree: its 5 moves, each with the reply that answers it; opening
    a reply lists that loss's own moves and replies, fetched only then."""
    need_browser()
    _, view = api(web, "0*8")
    with Browser() as browser:
        browser.get(web.url + "?pos=" + quote("0*8"))
        browser.wait_for(shown("0*8"))
        browser.script("document.getElementById('proof-tree-box').open = true;")
        browser.click(browser.find("#proof-normal"))
        browser.wait_for(
            "document.querySelectorAll('#proof-tree > li > details > ul > li').length === 5"
        )
        heads = browser.script(
            "return [...document.querySelectorAll('#proof-tree > li > details > ul > li > "
            "details > summary')].map(s => s.textContent);"
        )
        replies = [c["reply_normal"]["position"] for c in view["children"]]
        assert heads == [
            f"{c['position']} answered by → {r}" for c, r in zip(view["children"], replies)
        ]
        first = "#proof-tree > li > details > ul > li > details"
        browser.script(f"document.querySelector('{first}').open = true;")
        browser.wait_for(f"document.querySelectorAll('{first} > ul > li').length > 0")
        assert " L " in browser.text(browser.find(f"{first} > summary")) + " "


@pytest.mark.parametrize("width", [1280, 420])
def test_small_sprouts_positions_are_drawn(web: WebProcess, width: int) -> None:
    """0*6 and a land of two regions as pictures (server/sprouts_drawing.py): an svg with a
    title and an aria-label, a circle per spot (a spot of two regions once in each, the two
    copies joined by a dashed link), every letter written, no two letters on top of each
    other, a caption saying what it shows, nothing wider than the window; 0*9 is too large
    and says so. SPROUTSDB_WEB_SHOTS=/dir keeps the screenshots."""
    need_browser()
    with Browser() as browser:
        browser.resize(width, 1000)
        inner = browser.script("return window.innerWidth;")
        for position, name in (("0*6", "0x6"), ("0*3.AB|0*2.AB", "two-regions")):
            _, view = api(web, position)
            drawing = view["drawing"]
            browser.get(web.url + "?pos=" + quote(position))
            browser.wait_for(shown(position))
            browser.wait_for("document.querySelector('#sprouts-svg') !== null")
            svg = browser.script(
                "const s = document.getElementById('sprouts-svg'); return {"
                "title: s.querySelector(':scope > title').textContent,"
                "label: s.getAttribute('aria-label'), role: s.getAttribute('role'),"
                "spots: s.querySelectorAll('g.spot circle').length,"
                "regions: s.querySelectorAll('rect.region').length,"
                "links: s.querySelectorAll('path.link').length,"
                "letters: [...s.querySelectorAll('text.letter')].map(t => t.textContent).sort(),"
                "caption: document.querySelector('#sprouts-drawing figcaption').textContent};"
            )
            assert position in svg["title"] and svg["label"] == svg["title"]
            assert svg["role"] == "img" and f"{drawing['spots']} spots" in svg["label"]
            assert svg["spots"] == drawing["spots"] + len(drawing["links"])
            assert svg["regions"] == len(drawing["regions"])
            assert svg["links"] == len(drawing["links"])
            assert svg["letters"] == sorted(c for c in position if c.isalpha())
            assert "planar embedding" in svg["caption"] and "dashed" in svg["caption"]
            overlaps = browser.script(
                "const r = [...document.querySelectorAll('#sprouts-svg text.letter')]"
                ".map(t => t.getBoundingClientRect()); return r.flatMap((a, i) => r.slice(i + 1)"
                ".filter(b => a.left < b.right && b.left < a.right && a.top < b.bottom && "
                "b.top < a.bottom)).length;"
            )
            assert overlaps == 0, (position, width)
            assert browser.script(WIDEST) <= inner, (position, width)
            save_shot(browser, f"drawing-{name}-{width}")
        assert svg["links"] == 2  # A and B, each drawn in both regions
        browser.get(web.url + "?pos=" + quote("0*9"))
        browser.wait_for(shown("0*9"))
        note = browser.text(browser.find("#drawing-note"))
        assert "too large to draw" in note and not browser.find_all("#sprouts-svg")
