"""`sproutsdb web`: the JSON API against a real server process (values equal to `query`,
children complete, 400 on bad input, read-only) and the page in a real headless chromium."""

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
from webdriver import Browser, browser_available


class WebProcess:
    """`sproutsdb web` on a free port; always stopped."""

    def __init__(self, store: Path) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, "web", "--store", str(store), "--listen", "127.0.0.1:0"],
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
    status, body = api(web, "0*30")  # readable, but too many moves to list on a page
    assert status == 200 and body["children"] == [] and "limit" in body["children_note"]
    assert fetch(f"{web.url}api/v1/position?pos=0*6", method="POST")[0] == 405
    assert fetch(f"{web.url}nothing-here")[0] == 404


def test_the_page_in_a_headless_browser(web: WebProcess) -> None:
    if not browser_available():
        if os.environ.get("CI"):
            pytest.fail("chromium and chromedriver must be installed on CI (.ci/run does it)")
        pytest.skip(
            "chromium/chromedriver not installed (apt-get install chromium chromium-driver)"
        )
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
