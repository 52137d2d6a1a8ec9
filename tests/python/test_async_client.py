"""AsyncClient against the real local sandbox: the same answers, validation and errors as Client, cancellation of
a transfer in flight, retries, the not-safe-writes rule, the client-side rate limit, many coroutines sharing one
client, a forked child, pickling, and uvloop."""

from __future__ import annotations

import asyncio
import os
import pickle
import time
from collections.abc import Iterator

import pytest

import trunk_api
from trunk_api import TrunkError

from conftest import NOW, SANDBOX_TOKEN, WEEK_START

@pytest.fixture(scope="module")
def fault_box() -> Iterator[trunk_api.Sandbox]:
    """A sandbox of its own for fault injection, so latency and errors never reach the shared one."""
    with trunk_api.Sandbox(seed=5, tests=200, token="async-fault-token", now="2026-11-20T12:00:00Z") as box:
        yield box


@pytest.fixture
def faults(fault_box: trunk_api.Sandbox) -> trunk_api.Sandbox:
    fault_box.set_faults(latency_ms=0, jitter_ms=0, error_rate=0, rate_limit=0, drop_rate=0, truncate_rate=0,
                         drop_after_rate=0, rate_limited_rate=0)
    fault_box.clear_requests()
    return fault_box


@pytest.mark.asyncio
async def test_answers_equal_the_sync_client(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    sync = box.client()
    test_id = box.test_ids(repo)[3]
    async with box.async_client() as client:
        assert await client.get_test_details(repo, box.org_url_slug, test_id) == sync.get_test_details(
            repo, box.org_url_slug, test_id)
        page = await client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=7)
        assert page == sync.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=7)
        assert await client.get_queue(repo, "main") == sync.get_queue(repo, "main")
        metrics = await client.get_merge_queue_metrics(repo)  # a GET with a text answer
        assert metrics.text == sync.get_merge_queue_metrics(repo).text


@pytest.mark.asyncio
async def test_every_operation_of_client_is_a_coroutine() -> None:
    import inspect

    for name in ("get_test_details", "list_failing_tests", "list_unhealthy_tests", "list_quarantined_tests",
                 "get_queue", "update_queue", "create_queue", "delete_queue", "submit_pull_request",
                 "cancel_pull_request", "restart_tests_on_pull_request", "get_submitted_pull_request",
                 "get_submitted_pull_requests", "list_pull_requests", "set_impacted_targets",
                 "get_merge_queue_testing_details", "list_merge_queue_testing_results", "status",
                 "get_merge_queue_metrics", "link_ticket_to_test_case"):
        method = getattr(trunk_api.AsyncClient, name)
        assert inspect.iscoroutinefunction(method), name
        assert inspect.signature(method) == inspect.signature(getattr(trunk_api.Client, name)), name


@pytest.mark.asyncio
async def test_validation_errors_are_the_sync_ones_and_nothing_is_sent(box: trunk_api.Sandbox,
                                                                        repo: trunk_api.Repo) -> None:
    sync = box.client()
    async with box.async_client() as client:
        with pytest.raises(trunk_api.ValidationError) as raised:
            await client.get_test_details(repo, box.org_url_slug, "not-a-uuid")
        with pytest.raises(trunk_api.ValidationError) as expected:
            sync.get_test_details(repo, box.org_url_slug, "not-a-uuid")
        assert str(raised.value) == str(expected.value)
        with pytest.raises(TypeError):
            await client.get_test_details(repo)  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            await client.get_queue(repo, "main", colour="blue")  # type: ignore[call-arg]
    assert box.requests == []


@pytest.mark.asyncio
async def test_api_errors_are_the_sync_classes(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    unknown = trunk_api.Repo("github.com", "nobody", "nothing")
    async with box.async_client(max_retries=0) as client:
        with pytest.raises(trunk_api.NotFoundError):
            await client.get_queue(unknown, "main")
    async with trunk_api.AsyncClient("wrong-token", box.url, max_retries=0) as client:
        with pytest.raises(trunk_api.AuthenticationError):
            await client.get_queue(repo, "main")


@pytest.mark.asyncio
async def test_task_cancel_stops_the_transfer_at_once_and_the_client_keeps_working(
        faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    test_id = faults.test_ids(repo)[0]
    faults.set_faults(latency_ms=3000)
    async with faults.async_client(max_retries=0) as client:
        task = asyncio.create_task(client.get_test_details(repo, faults.org_url_slug, test_id))
        await asyncio.sleep(0.2)  # the request is on the wire, its answer 3 s away
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - started < 0.5
        faults.set_faults(latency_ms=0)
        assert (await client.get_test_details(repo, faults.org_url_slug, test_id)).id == test_id
        # wait_for's timeout cancels the same way.
        faults.set_faults(latency_ms=3000)
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.get_test_details(repo, faults.org_url_slug, test_id), 0.3)
        assert time.monotonic() - started < 1.0
        faults.set_faults(latency_ms=0)
        assert (await client.get_test_details(repo, faults.org_url_slug, test_id)).id == test_id


@pytest.mark.asyncio
async def test_retries_503_and_drops_with_backoff(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    ids = faults.test_ids(repo)[:30]
    faults.set_faults(error_rate=0.3, drop_rate=0.1)
    async with faults.async_client(max_retries=10) as client:
        answers = await asyncio.gather(*(client.get_test_details(repo, faults.org_url_slug, i) for i in ids))
    assert [answer.id for answer in answers] == ids
    kinds = [request.fault for request in faults.requests]
    assert kinds.count("error") > 0 and len(kinds) > len(ids)


@pytest.mark.asyncio
async def test_retry_after_is_honoured_without_blocking_the_loop(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    test_id = faults.test_ids(repo)[0]
    faults.set_faults(rate_limited_rate=1.0, rate_limited_retry_after_seconds=1)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    async with faults.async_client(max_retries=1) as client:
        beat = asyncio.create_task(ticker())
        started = time.monotonic()
        with pytest.raises(trunk_api.RateLimitError):
            await client.get_test_details(repo, faults.org_url_slug, test_id)
        elapsed = time.monotonic() - started
        beat.cancel()
    assert 0.9 <= elapsed < 3.0  # one retry after the 1 s the server asked for
    assert ticks >= 10  # the loop kept running meanwhile
    assert len(faults.requests) == 2


@pytest.mark.asyncio
async def test_a_not_safe_write_is_not_repeated_after_the_service_acted(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    async with faults.async_client(max_retries=5) as client:
        faults.set_faults(drop_after_rate=1.0)
        with pytest.raises(trunk_api.TransportError):
            await client.submit_pull_request(repo, 4242, "main")
    assert len([r for r in faults.requests if r.path.endswith("/submitPullRequest")]) == 1


@pytest.mark.asyncio
async def test_rate_limit_spaces_the_calls(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    ids = faults.test_ids(repo)[:12]
    async with faults.async_client(max_requests_per_second=20) as client:
        started = time.monotonic()
        await asyncio.gather(*(client.get_test_details(repo, faults.org_url_slug, i) for i in ids))
        elapsed = time.monotonic() - started
    assert elapsed >= 0.4  # 12 requests at 20/s (the first ones may go at once)


@pytest.mark.asyncio
async def test_a_thousand_coroutines_share_one_client(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    ids = box.test_ids(repo)
    wanted = [ids[i % len(ids)] for i in range(1000)]
    async with box.async_client() as client:
        answers = await asyncio.gather(*(client.get_test_details(repo, box.org_url_slug, i) for i in wanted))
    assert [answer.id for answer in answers] == wanted


@pytest.mark.asyncio
async def test_closing_cancels_the_pending_calls_and_refuses_new_ones(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    test_id = faults.test_ids(repo)[0]
    faults.set_faults(latency_ms=3000)
    client = faults.async_client(max_retries=0)
    task = asyncio.create_task(client.get_test_details(repo, faults.org_url_slug, test_id))
    await asyncio.sleep(0.2)
    started = time.monotonic()
    await client.aclose()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5
    with pytest.raises(TrunkError, match="closed"):
        await client.get_test_details(repo, faults.org_url_slug, test_id)


@pytest.mark.asyncio
async def test_pickled_client_has_no_token_and_reads_it_from_the_environment(
        box: trunk_api.Sandbox, repo: trunk_api.Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    client = box.async_client(timeout=12.5, max_retries=1)
    data = pickle.dumps(client)
    assert SANDBOX_TOKEN.encode() not in data
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)
    with pytest.raises(TrunkError, match="TRUNK_API_TOKEN"):
        pickle.loads(data)
    monkeypatch.setenv("TRUNK_API_TOKEN", SANDBOX_TOKEN)
    restored = pickle.loads(data)
    assert isinstance(restored, trunk_api.AsyncClient) and restored.base_url == box.url
    assert SANDBOX_TOKEN not in repr(client)
    test_id = box.test_ids(repo)[0]
    assert (await restored.get_test_details(repo, box.org_url_slug, test_id)).id == test_id
    await restored.aclose()
    await client.aclose()


def test_works_in_a_forked_child_while_the_parent_keeps_calling(box: trunk_api.Sandbox) -> None:
    repo = box.repos[0]
    ids = box.test_ids(repo)[:20]
    client = box.async_client(max_retries=0)

    async def details(order: list[str]) -> bool:
        answers = await asyncio.gather(*(client.get_test_details(repo, box.org_url_slug, i) for i in order))
        return [answer.id for answer in answers] == order

    assert asyncio.run(details(ids[:3]))  # the engine thread runs and holds warm connections
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery here, only an exit code
        os.close(read_end)
        try:
            ok = asyncio.run(details(list(reversed(ids))))
            os.write(write_end, b"ok" if ok else b"mismatch")
        except BaseException as error:  # noqa: BLE001 - report anything to the parent
            os.write(write_end, type(error).__name__.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    parent_ok = asyncio.run(details(ids))
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as pipe:
        child_said = pipe.read().decode()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert child_said == "ok"
    assert parent_ok
    assert asyncio.run(details(ids[:5]))


def test_runs_under_asyncio_run_and_uvloop(box: trunk_api.Sandbox) -> None:
    repo = box.repos[0]
    test_id = box.test_ids(repo)[1]

    async def main() -> str:
        async with box.async_client() as client:
            return (await client.get_test_details(repo, box.org_url_slug, test_id)).id

    assert asyncio.run(main()) == test_id
    import uvloop  # in the test extra: a missing uvloop fails here rather than skipping the check

    assert uvloop.run(main()) == test_id


@pytest.mark.asyncio
async def test_a_listing_continues_where_it_is(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    expected = box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10).to_list()
    assert len(expected) > 25
    async with box.async_client() as client:
        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10)
        assert aiter(listing) is listing and "not started" in repr(listing)
        first = await anext(listing)
        assert repr(listing).endswith(", started>")
        rest = [test async for test in listing]
        assert [first] + rest == expected
        box.clear_requests()
        assert [test async for test in listing] == [] and await listing.to_list() == []  # finished
        assert [page async for page in listing.pages] == [] and box.requests == []

        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, max_results=25)
        head = [await anext(listing) for _ in range(10)]  # exactly the first page
        pages = [page async for page in listing.pages]  # then the next pages, the last cut at max_results
        assert head + [test for page in pages for test in page.tests] == expected[:25]
        assert await listing.to_list() == []

        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, max_results=12)
        head = [await anext(listing)]
        pages = [page async for page in listing.pages]  # the rest of the first page, then what is left
        assert [len(page.tests) for page in pages] == [9, 2]
        assert head + [test for page in pages for test in page.tests] == expected[:12]
        await listing.aclose()
        assert await listing.to_list() == []


@pytest.mark.asyncio
async def test_listings_are_async_iterators_with_the_sync_items(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    sync = box.client()
    expected = sync.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10).to_list()
    assert len(expected) > 25
    async with box.async_client() as client:
        got = [test async for test in client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10)]
        assert got == expected
        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, max_results=25)
        assert await listing.to_list() == expected[:25]
        box.clear_requests()
        pages = [page async for page in
                 client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, max_results=25).pages]
        assert [len(page.tests) for page in pages] == [10, 10, 5]  # as the sync .pages: cut at max_results
        assert len(box.requests) == 3  # no page past max_results
        frame = await client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50).to_pandas()
        expected_frame = sync.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50).to_pandas()
        assert frame.equals(expected_frame)
        quarantined = await client.iter_quarantined_tests(repo, box.org_url_slug, page_size=5).to_list()
        assert quarantined == sync.iter_quarantined_tests(repo, box.org_url_slug, page_size=5).to_list()
        prs = await client.iter_pull_requests(repo, "main", take=3).to_list()
        assert prs == sync.iter_pull_requests(repo, "main", take=3).to_list()
        with pytest.raises(trunk_api.ValidationError):
            client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=-1)
        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW)
        await listing.to_list()
        assert await listing.to_list() == []  # finished: nothing more, as an async generator
        for name, call in (("quarantined", lambda c: c.iter_quarantined_tests(repo, box.org_url_slug, page_size=5)),
                           ("pull requests", lambda c: c.iter_pull_requests(repo, "main", take=3))):
            assert (await call(client).to_pandas()).equals(call(sync).to_pandas()), name


@pytest.mark.asyncio
async def test_a_listing_checks_its_arguments_when_made_and_sends_nothing(box: trunk_api.Sandbox,
                                                                          repo: trunk_api.Repo) -> None:
    async with box.async_client() as client:
        box.clear_requests()
        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW)
        assert repr(listing) == "<AsyncListing iter_failing_tests, not started>"
        with pytest.raises(trunk_api.ValidationError) as caught:
            client.iter_failing_tests(repo, "", WEEK_START, NOW, page_size=101)  # no await, no async for
        assert {v.field for v in caught.value.errors} == {"org_url_slug", "page_query.page_size"}
        with pytest.raises(trunk_api.ValidationError, match="7 days"):
            client.iter_failing_tests(repo, box.org_url_slug, "2026-11-01T00:00:00Z", "2026-11-09T00:00:00Z")
        with pytest.raises(TypeError):
            client.iter_unhealthy_tests(repo, box.org_url_slug, "FLAKY", page_sise=5)
        assert box.requests == []
        await listing.to_list()
        assert repr(listing) == "<AsyncListing iter_failing_tests, started>"


@pytest.mark.asyncio
async def test_get_test_details_many_in_order_with_bulk_error(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    ids = box.test_ids(repo)[:30]
    sync = box.client()
    async with box.async_client() as client:
        got = await client.get_test_details_many(repo, box.org_url_slug, iter(ids), concurrency=4)
        assert got == sync.get_test_details_many(repo, box.org_url_slug, ids)
        assert [test.id for test in got] == ids
        unknown = "00000000-0000-4000-8000-000000000000"
        with pytest.raises(trunk_api.BulkError) as caught:
            await client.get_test_details_many(repo, box.org_url_slug, [ids[0], unknown, ids[2]])
        assert [None if r is None else r.id for r in caught.value.results] == [ids[0], None, ids[2]]
        assert list(caught.value.errors) == [1]
        assert isinstance(caught.value.errors[1], trunk_api.NotFoundError)
        assert await client.get_test_details_many(repo, box.org_url_slug, []) == []
        box.clear_requests()
        with pytest.raises(trunk_api.ValidationError) as invalid:
            await client.get_test_details_many(repo, "", [ids[0], "x", ids[1], ""])
        assert [v.field for v in invalid.value.errors] == ["org_url_slug", "test_ids[1]", "test_ids[3]"]
        for refused in (0, 257):
            with pytest.raises(trunk_api.ValidationError, match="concurrency"):
                await client.get_test_details_many(repo, box.org_url_slug, ids[:1], concurrency=refused)
        assert box.requests == []
        for accepted in (1, 256):
            assert len(await client.get_test_details_many(repo, box.org_url_slug, ids[:2], concurrency=accepted)) == 2


@pytest.mark.asyncio
async def test_cancelling_get_test_details_many_stops_it_at_once(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    ids = faults.test_ids(repo)[:40]
    async with faults.async_client() as client:
        faults.set_faults(latency_ms=2000)
        task = asyncio.ensure_future(client.get_test_details_many(repo, faults.org_url_slug, ids, concurrency=4))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - started < 1.0
        assert len(faults.requests) <= 4  # no id after the first four was sent
        faults.set_faults(latency_ms=0)
        assert len(await client.get_test_details_many(repo, faults.org_url_slug, ids[:3])) == 3


@pytest.mark.asyncio
async def test_leaving_a_listing_early_cancels_the_prefetched_page(faults: trunk_api.Sandbox) -> None:
    repo = faults.repos[0]
    start, end = "2026-11-13T12:00:00Z", "2026-11-20T12:00:00Z"
    async with faults.async_client() as client:
        faults.set_faults(latency_ms=300)
        started = time.monotonic()
        async for _ in client.iter_failing_tests(repo, faults.org_url_slug, start, end, page_size=2):
            break
        assert time.monotonic() - started < 0.55  # the prefetch of page 2 is not waited for
        faults.set_faults(latency_ms=0)
        assert len(await client.iter_failing_tests(repo, faults.org_url_slug, start, end, max_results=3).to_list()) == 3


def test_options_are_clients_and_max_in_flight_has_bounds(box: trunk_api.Sandbox) -> None:
    with pytest.raises(TypeError):
        trunk_api.AsyncClient("t", box.url, timout=5)  # a misspelt option is Client's TypeError
    with pytest.raises(TypeError):
        trunk_api.AsyncClient("t", box.url, log=print)  # the log hook is the client's own, not an option
    for refused in (0, 4097, -1):
        with pytest.raises(trunk_api.ValidationError) as caught:
            trunk_api.AsyncClient("t", box.url, max_in_flight=refused)
        assert [v.field for v in caught.value.errors] == ["max_in_flight"]
    for accepted in (1, 4096):
        assert trunk_api.AsyncClient("t", box.url, max_in_flight=accepted).base_url == box.url
    secret = "secret-token-4242"
    client = trunk_api.AsyncClient(secret, box.url, timeout=2.5, prefetch_pages=False, max_in_flight=3)
    settings = client.__reduce__()[1][0]
    assert settings["timeout"] == 2.5 and settings["prefetch_pages"] is False and settings["max_in_flight"] == 3
    assert "token" not in settings and secret not in repr(settings) and secret not in repr(client)
