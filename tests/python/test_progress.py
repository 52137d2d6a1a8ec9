"""progress= of the listings: a tqdm.auto bar fed once per page by the C++ iterator, its total from the first
page; off (nothing called at all) when False, and with "auto" outside a notebook; a clear error without tqdm."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from collections.abc import Iterator
from datetime import timedelta

import pytest

import trunk_api
from trunk_api import _progress

from conftest import NOW, WEEK_START
from scripted_server import Received, Reply, ScriptedServer


class FakeBar:
    made: list[FakeBar] = []

    def __init__(self, *, desc: str, unit: str, total: int | None, leave: bool) -> None:
        self.desc, self.unit, self.total, self.n = desc, unit, total, 0
        self.updates: list[int] = []
        self.closed = False
        FakeBar.made.append(self)

    def update(self, count: int) -> None:
        assert not self.closed
        self.updates.append(count)
        self.n += count

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True
        self.closed_after = list(self.updates)


@pytest.fixture
def fake_tqdm(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakeBar]]:
    module = types.ModuleType("tqdm.auto")
    module.tqdm = FakeBar  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm.auto", module)
    FakeBar.made = []
    yield FakeBar


def test_a_bar_per_listing_fed_per_page_with_the_total_of_the_first(fake_tqdm, box: trunk_api.Sandbox,
                                                                     repo: trunk_api.Repo) -> None:
    client = box.client()
    page = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10)
    tests = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, progress=True).to_list()
    [bar] = fake_tqdm.made
    assert bar.total == page.page.total_rows == len(tests) == bar.n
    assert bar.updates == [10] * (len(tests) // 10) + ([len(tests) % 10] if len(tests) % 10 else [])
    assert bar.closed and bar.desc == "failing tests" and bar.unit == "rows"
    # max_results: the bar's total is the cut, and it closes there.
    got = list(client.iter_unhealthy_tests(repo, box.org_url_slug, "FLAKY", page_size=4, max_results=6,
                                           progress=True))
    bar = fake_tqdm.made[-1]
    assert len(got) == 6 and bar.total == 6 and bar.n == 6 and bar.closed and bar.desc == "flaky tests"
    # .pages and to_pandas feed it too.
    frame = client.iter_quarantined_tests(repo, box.org_url_slug, page_size=3, progress=True).to_pandas()
    assert fake_tqdm.made[-1].n == len(frame) and fake_tqdm.made[-1].closed
    pages = list(client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50,
                                           progress=True).pages)
    assert fake_tqdm.made[-1].updates == [len(p.tests) for p in pages]


def test_a_listing_without_a_total_counts_and_closes_at_the_end(fake_tqdm, box: trunk_api.Sandbox,
                                                               repo: trunk_api.Repo) -> None:
    prs = box.client().iter_pull_requests(repo, "main", take=2, progress=True).to_list()
    bar = fake_tqdm.made[-1]
    assert bar.total is None and bar.n == len(prs) and bar.closed


def test_off_and_auto_outside_a_notebook_draw_nothing(fake_tqdm, box: trunk_api.Sandbox,
                                                      repo: trunk_api.Repo) -> None:
    client = box.client()
    for progress in (False, "auto"):
        assert client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, progress=progress).to_list()
    assert fake_tqdm.made == []
    assert _progress.on_page_keywords(False, "x", None) == {}  # the C++ listing then gets no callback


def test_auto_in_a_notebook_draws_when_tqdm_is_there(fake_tqdm, monkeypatch: pytest.MonkeyPatch,
                                                     box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    class ZMQInteractiveShell:  # the shell class of a Jupyter kernel
        pass

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = ZMQInteractiveShell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert _progress.wanted("auto")
    box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_list()
    assert len(fake_tqdm.made) == 1 and fake_tqdm.made[0].closed


def test_without_tqdm_progress_true_says_what_to_install_before_fetching(monkeypatch: pytest.MonkeyPatch,
                                                                         box: trunk_api.Sandbox,
                                                                         repo: trunk_api.Repo) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    box.clear_requests()
    with pytest.raises(ModuleNotFoundError, match="pip install tqdm") as missing:
        box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, progress=True)
    assert missing.value.name == "tqdm" and box.requests == []
    with pytest.raises(ValueError, match="True, False or 'auto'"):
        box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, progress="yes")


def test_a_broken_bar_loses_no_rows(monkeypatch: pytest.MonkeyPatch, box: trunk_api.Sandbox,
                                    repo: trunk_api.Repo) -> None:
    class Broken(FakeBar):
        def update(self, count: int) -> None:
            raise RuntimeError("the terminal went away")

    module = types.ModuleType("tqdm.auto")
    module.tqdm = Broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm.auto", module)
    reported: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: reported.append(str(unraisable.exc_value)))
    client = box.client()
    expected = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=7, progress=False).to_list()
    assert client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=7,
                                     progress=True).to_list() == expected
    assert reported and set(reported) == {"the terminal went away"}  # reported, not silently dropped
    reported.clear()
    ids = box.test_ids(repo)[:12]
    assert [test.id for test in client.get_test_details_many(repo, box.org_url_slug, ids, progress=True)] == ids
    assert len(reported) == 12


def test_history_counts_windows(fake_tqdm, box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    history = box.client().iter_failing_tests_between(repo, box.org_url_slug, NOW - timedelta(days=30), NOW,
                                                      progress=True)
    history.to_list()
    [bar] = fake_tqdm.made
    assert bar.unit == "windows" and bar.total == 5 and bar.n == 5 and bar.closed


@pytest.mark.asyncio
async def test_async_listings_take_progress_too(fake_tqdm, box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    async with box.async_client() as client:
        tests = await client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=20,
                                                progress=True).to_list()
    [bar] = fake_tqdm.made
    assert bar.n == bar.total == len(tests) and bar.closed


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_bar_closes_at_the_page_that_names_no_next_one_not_at_an_empty_page(fake_tqdm, mode: str) -> None:
    # The core's rule of the last page (PageWalk), the same for the sync and the async listings: an empty page in
    # the middle is not the end (no total_rows here, so nothing else closes the bar).
    pages = {"": (["a"], "p2"), "p2": ([], "p3"), "p3": (["c"], "")}

    def serve(request: Received) -> Reply:
        ids, token = pages[json.loads(request.body)["page_query"].get("page_token", "")]
        return Reply(200, {"tests": [{"id": i} for i in ids], "page": {"next_page_token": token}})

    repo = trunk_api.Repo("github.com", "acme", "api")
    with ScriptedServer(responder=serve) as server:
        if mode == "sync":
            client = trunk_api.Client("t", server.url, max_retries=0)
            tests = client.iter_failing_tests(repo, "acme", WEEK_START, NOW, progress=True).to_list()
        else:
            async def run() -> list[trunk_api.TestCase]:
                async with trunk_api.AsyncClient("t", server.url, max_retries=0) as client:
                    return await client.iter_failing_tests(repo, "acme", WEEK_START, NOW, progress=True).to_list()
            tests = asyncio.run(run())
    [bar] = fake_tqdm.made
    assert [t.id for t in tests] == ["a", "c"]
    assert bar.updates == [1, 0, 1] and bar.closed and bar.closed_after == [1, 0, 1]


def test_with_the_real_tqdm(box: trunk_api.Sandbox, repo: trunk_api.Repo, capsys: pytest.CaptureFixture[str]) -> None:
    import tqdm.auto  # in the test extra

    assert tqdm.auto.tqdm is not None
    tests = box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=25,
                                            progress=True).to_list()
    assert f"{len(tests)}/{len(tests)}" in capsys.readouterr().err


def test_a_bulk_call_counts_its_ids_as_they_end(fake_tqdm, box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    ids = box.test_ids(repo)[:30]
    ids[4] = "00000000-0000-4000-8000-000000000000"  # unknown: its failure is counted too
    with pytest.raises(trunk_api.BulkError) as raised:
        client.get_test_details_many(repo, box.org_url_slug, iter(ids), concurrency=4, progress=True)
    [bar] = fake_tqdm.made
    assert (bar.desc, bar.unit, bar.total, bar.n, bar.closed) == ("test details", "tests", 30, 30, True)
    assert all(count >= 1 for count in bar.updates)  # told as ids end, not once at the end
    assert sorted(raised.value.errors) == [4]
    client.get_test_details_many(repo, box.org_url_slug, ids[5:9], progress=False)
    client.get_test_details_many(repo, box.org_url_slug, [], progress=True)  # nothing ends: no bar
    assert len(fake_tqdm.made) == 1


@pytest.mark.asyncio
async def test_an_async_bulk_call_draws_its_bar_on_the_loop(fake_tqdm, box: trunk_api.Sandbox,
                                                             repo: trunk_api.Repo) -> None:
    import threading

    threads: set[int] = set()

    class Watched(FakeBar):
        def update(self, count: int) -> None:
            threads.add(threading.get_ident())
            super().update(count)

    sys.modules["tqdm.auto"].tqdm = Watched  # type: ignore[attr-defined]
    ids = box.test_ids(repo)[:20]
    async with box.async_client() as client:
        tests = await client.get_test_details_many(repo, box.org_url_slug, ids, concurrency=5, progress=True)
        [bar] = fake_tqdm.made
        assert [test.id for test in tests] == ids
        assert (bar.total, bar.n, bar.closed) == (20, 20, True)  # every update ran before the result came back
        assert threads == {threading.get_ident()}  # on the loop's thread, never the engine's
        with pytest.raises(TypeError):
            await client.get_test_details_many(repo, box.org_url_slug, ids, progres=True)  # type: ignore[call-arg]


@pytest.mark.parametrize("call", ["listing", "bulk"])
def test_ctrl_c_inside_a_bar_is_not_swallowed(monkeypatch: pytest.MonkeyPatch, box: trunk_api.Sandbox,
                                             repo: trunk_api.Repo, call: str) -> None:
    # Python runs a pending SIGINT handler in whatever Python code runs next, which may be the bar's update:
    # the KeyboardInterrupt must still end the call, as Ctrl-C does anywhere else.
    class Interrupted(FakeBar):
        def update(self, count: int) -> None:
            raise KeyboardInterrupt

    module = types.ModuleType("tqdm.auto")
    module.tqdm = Interrupted  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm.auto", module)
    client = box.client()
    with pytest.raises(KeyboardInterrupt):
        if call == "listing":
            client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, progress=True).to_list()
        else:
            client.get_test_details_many(repo, box.org_url_slug, box.test_ids(repo)[:40], progress=True)
    # The next call is not cancelled by what was kept for this one.
    assert client.get_test_details_many(repo, box.org_url_slug, box.test_ids(repo)[:3])
