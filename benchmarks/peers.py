"""What users would write without the SDK, for the benchmark's side-by-side runs: requests and httpx calls, JSON
decoding, paging loops, dataclasses and pandas. Each function mirrors one of ours in benchmarks/run.py and does
the same work: same requests, same pages, same results kept."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import datetime
from typing import Any

import httpx
import requests
from trunk_api._core import twin as twin_core

DETAILS = "/v1/flaky-tests/get-test-details"
FAILING = "/v1/flaky-tests/list-failing-tests"
# What requests and httpx send by default, and what the SDK sends too: the server's work is the same for all.
HEADERS_JSON = {"Content-Type": "application/json", "Accept": "application/json"}


@dataclasses.dataclass
class Failure:
    summary: str | None
    occurrence_count: int | None
    last_occurrence: datetime | None


@dataclasses.dataclass
class Status:
    value: str | None
    reason: str | None
    timestamp: datetime | None


@dataclasses.dataclass
class TestRecord:
    """A hand-written model of one test, as a careful user would write it (typed times, nested objects)."""

    id: str
    name: str | None
    classname: str | None
    file_path: str | None
    parent: str | None
    variant: str | None
    html_url: str | None
    repository_html_url: str | None
    codeowners: list[str]
    quarantined: bool | None
    status: Status | None
    failure_rate_last_24h: float | None
    failure_rate_last_7d: float | None
    pull_requests_impacted_last_7d: int | None
    most_common_failures: list[Failure]
    ticket_html_url: str | None

    __test__ = False  # not a pytest class

    @staticmethod
    def from_json(data: dict[str, Any]) -> TestRecord:
        status = data.get("status")
        return TestRecord(
            id=data["id"],
            name=data.get("name"),
            classname=data.get("classname"),
            file_path=data.get("file_path"),
            parent=data.get("parent"),
            variant=data.get("variant"),
            html_url=data.get("html_url"),
            repository_html_url=(data.get("repository") or {}).get("html_url"),
            codeowners=list(data.get("codeowners") or []),
            quarantined=data.get("quarantined"),
            status=None
            if status is None
            else Status(status.get("value"), status.get("reason"), _time(status.get("timestamp"))),
            failure_rate_last_24h=data.get("failure_rate_last_24h"),
            failure_rate_last_7d=data.get("failure_rate_last_7d"),
            pull_requests_impacted_last_7d=data.get("pull_requests_impacted_last_7d"),
            most_common_failures=[
                Failure(f.get("summary"), f.get("occurrence_count"), _time(f.get("last_occurrence")))
                for f in data.get("most_common_failures") or []
            ],
            ticket_html_url=(data.get("ticket") or {}).get("html_url"),
        )


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


class Target:
    """Where the peers send their requests (the same sandbox the SDK uses)."""

    def __init__(self, url: str, token: str, org_url_slug: str, repo: dict[str, str]) -> None:
        self.url = url
        self.org_url_slug = org_url_slug
        self.repo = repo
        self.headers = {**HEADERS_JSON, "x-api-token": token}

    def details_body(self, test_id: str) -> dict[str, Any]:
        return {"repo": self.repo, "org_url_slug": self.org_url_slug, "test_id": test_id}

    def failing_body(self, start: str, end: str, page_size: int, token: str) -> dict[str, Any]:
        query: dict[str, Any] = {"page_size": page_size}
        if token:
            query["page_token"] = token
        return {
            "repo": self.repo,
            "org_url_slug": self.org_url_slug,
            "start_time": start,
            "end_time": end,
            "page_query": query,
        }


# ---- scenario 1 and 4: get-test-details ------------------------------------------------------------------
def requests_details_sequential(target: Target, ids: list[str]) -> list[dict[str, Any]]:
    with requests.Session() as session:
        session.headers.update(target.headers)
        results = []
        for test_id in ids:
            response = session.post(target.url + DETAILS, json=target.details_body(test_id), timeout=30)
            response.raise_for_status()
            results.append(response.json()["test"])
        return results


def httpx_details_sequential(target: Target, ids: list[str]) -> list[dict[str, Any]]:
    with httpx.Client(headers=target.headers, timeout=30) as client:
        results = []
        for test_id in ids:
            response = client.post(target.url + DETAILS, json=target.details_body(test_id))
            response.raise_for_status()
            results.append(response.json()["test"])
        return results


def httpx_details_async(target: Target, ids: list[str], concurrency: int) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(headers=target.headers, timeout=30, limits=limits) as client:
            gate = asyncio.Semaphore(concurrency)

            async def one(test_id: str) -> dict[str, Any]:
                async with gate:
                    response = await client.post(target.url + DETAILS, json=target.details_body(test_id))
                    response.raise_for_status()
                    return response.json()["test"]  # type: ignore[no-any-return]

            return list(await asyncio.gather(*(one(test_id) for test_id in ids)))

    return asyncio.run(run())


# ---- scenarios 2, 3, 5: paging ---------------------------------------------------------------------------
def requests_failing_pages(target: Target, start: str, end: str, limit: int, page_size: int = 100):  # type: ignore[no-untyped-def]
    """Yields the decoded test dicts of every page (requests + json), stopping after `limit` tests."""
    with requests.Session() as session:
        session.headers.update(target.headers)
        token = ""
        seen = 0
        while True:
            response = session.post(target.url + FAILING, json=target.failing_body(start, end, page_size, token), timeout=30)
            response.raise_for_status()
            page = json.loads(response.content)
            for test in page["tests"]:
                yield test
                seen += 1
                if seen >= limit:
                    return
            token = page["page"].get("next_page_token") or ""
            if not token:
                return


def _bare_walk(url: str, next_cursor: bytes, request: Any, pages: int | None = None) -> int:
    """Moves a listing's pages over one kept-alive connection (http.client) with no decoding at all: each page's next
    cursor is cut out of its bytes by the JSON key `next_cursor`, and request(connection, cursor) sends the request
    for it ("" = the first page). Stops at a page without a cursor (or an empty one), or after `pages`. Returns the
    bytes received."""
    import http.client
    import re
    import urllib.parse

    split = urllib.parse.urlsplit(url)
    cursor_in = re.compile(rb'"' + next_cursor + rb'"\s*:\s*"([^"]*)"')
    connection = http.client.HTTPConnection(split.hostname, split.port, timeout=30)
    received = 0
    cursor = ""
    try:
        while pages is None or pages > 0:
            request(connection, cursor)
            response = connection.getresponse()
            data = response.read()
            if response.status != 200:
                raise RuntimeError(f"bare transfer: HTTP {response.status}")
            received += len(data)
            found = cursor_in.search(data)
            cursor = found.group(1).decode() if found else ""
            if not cursor:
                break
            if pages is not None:
                pages -= 1
    finally:
        connection.close()
    return received


def bare_failing_transfer(target: Target, start: str, end: str, limit: int, page_size: int = 100) -> int:
    """The physical floor of a listing: the same pages moved with no decoding (_bare_walk), as many as hold `limit`
    tests. Returns the bytes received."""
    def request(connection: Any, token: str) -> None:
        body = json.dumps(target.failing_body(start, end, page_size, token)).encode()
        connection.request("POST", FAILING, body=body, headers=target.headers)

    return _bare_walk(target.url, b"next_page_token", request, pages=-(-limit // page_size))


def bare_v2_transfer(url: str, api_key: str, path: str, limit: int = 100) -> int:
    """The floor of a v2 listing: its pages (GET path?limit=...&cursor=..., after the path's own query when it has
    one) moved with no decoding (_bare_walk). Returns the bytes received."""
    import urllib.parse

    headers = {"Authorization": f"Bearer {api_key}"}
    separator = "&" if "?" in path else "?"

    def request(connection: Any, cursor: str) -> None:
        query = f"limit={limit}" + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else "")
        connection.request("GET", f"{path}{separator}{query}", headers=headers)

    return _bare_walk(url, b"nextCursor", request)


#: The page size of the listings twin.calibrate() reads: v2's largest (kV2MaxLimit in trunk/v2_page.hpp).
CALIBRATE_PAGE_SIZE = 100
#: The runs twin.calibrate() fetches one by one for their impacted targets (kTargetSample in
#: trunk/twin/queue_history.hpp, which the bindings name).
CALIBRATE_TARGET_SAMPLE = twin_core.TARGET_SAMPLE


@dataclasses.dataclass(frozen=True)
class QueueHistoryPages:
    """What requests_queue_history() read: the items kept and the pages requested, per listing."""

    testing_results: int
    testing_result_pages: int
    pull_requests: int
    pull_request_pages: int
    sampled_runs: int


def requests_queue_history(url: str, api_key: str, queue_id: str, since: datetime, until: datetime,
                           page_size: int = CALIBRATE_PAGE_SIZE) -> QueueHistoryPages:
    """The transfer twin.calibrate() makes, as a user would write it with requests: the queue, then every page of
    its testing results over [since, until], then its pull requests (newest submission first) until one was
    submitted before `since`, then the same sample of runs of one pull request fetched by id for their impacted
    targets (every k-th, up to CALIBRATE_TARGET_SAMPLE), each answer decoded with json; the items are kept as dicts
    and nothing is computed beyond picking the sample."""
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {api_key}", "Accept": "application/json"})
    base = f"{url}/v2/merge-queues/{queue_id}"

    def pages(path: str, params: dict[str, Any]):  # type: ignore[no-untyped-def]
        cursor = None
        while True:
            answer = session.get(base + path, params={**params, "limit": page_size,
                                                      **({"cursor": cursor} if cursor else {})})
            answer.raise_for_status()
            page = answer.json()
            yield page["data"]
            cursor = page.get("nextCursor")
            if not cursor:
                return

    session.get(base).raise_for_status()
    window = {"since": since.isoformat().replace("+00:00", "Z"), "until": until.isoformat().replace("+00:00", "Z")}
    results: list[dict[str, Any]] = []
    result_pages = 0
    for data in pages("/testing-results", window):
        results.extend(data)
        result_pages += 1
    pulls: list[dict[str, Any]] = []
    pull_pages = 0
    for data in pages("/pull-requests", {}):
        pull_pages += 1
        submitted_before = False
        for pull in data:
            submitted = _time((pull.get("queueEntry") or {}).get("createdAt"))
            if submitted is not None and submitted < since:
                submitted_before = True
                break
            if submitted is None or submitted < until:
                pulls.append(pull)
        if submitted_before:
            break
    # The runs of one pull request, not bisections, in the order their first result came; every k-th of them.
    members: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        if result.get("verificationRunId"):
            members.setdefault(result["verificationRunId"], []).append(result)
    single = [run for run, rows in members.items() if len(rows) == 1 and not rows[0].get("isBisection")]
    step = max(1, len(single) // CALIBRATE_TARGET_SAMPLE)
    sample = single[::step][:CALIBRATE_TARGET_SAMPLE]
    for run in sample:
        answer = session.get(f"{url}/v2/merge-queue-verification-runs/{run}")
        answer.raise_for_status()
        answer.json()
    return QueueHistoryPages(len(results), result_pages, len(pulls), pull_pages, len(sample))


def requests_dataclasses(target: Target, start: str, end: str, limit: int) -> list[TestRecord]:
    return [TestRecord.from_json(test) for test in requests_failing_pages(target, start, end, limit)]


def requests_dicts(target: Target, start: str, end: str, limit: int) -> list[dict[str, Any]]:
    return list(requests_failing_pages(target, start, end, limit))


def pandas_from_dicts(target: Target, start: str, end: str, limit: int) -> Any:
    import pandas as pd

    return pd.DataFrame(list(requests_failing_pages(target, start, end, limit)))


def raw_answers(url: str, requests: dict[str, tuple[str, str, dict[str, str], str | None]]) -> dict[str, bytes]:
    """The bodies a server answers, by name, to requests given as (method, path, headers, body or None), sent over
    one connection (http.client): the bytes a client would decode."""
    import http.client
    import urllib.parse

    split = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(split.hostname, split.port, timeout=30)
    answers: dict[str, bytes] = {}
    try:
        for name, (method, path, headers, body) in requests.items():
            connection.request(method, path, body=body, headers={"Content-Type": "application/json", **headers})
            response = connection.getresponse()
            answers[name] = response.read()
            if response.status != 200:
                raise RuntimeError(f"raw answer {name}: HTTP {response.status}")
    finally:
        connection.close()
    return answers


class CannedServer:
    """A keep-alive HTTP server on 127.0.0.1 (port 0) that answers every GET with one body and every POST with
    another (its request body read and dropped), each in one write with TCP_NODELAY: the same server cost for both,
    so what two calls against it cost apart is the clients' own. Use as a context manager."""

    def __init__(self, get_body: bytes, post_body: bytes) -> None:
        import http.server
        import socket
        import socketserver
        import threading

        class Answer(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = 1 << 16  # headers and body leave in one segment (no delayed-ACK stall)

            def setup(self) -> None:
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args: Any) -> None:
                pass

            def answer(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()

            def do_GET(self) -> None:  # noqa: N802 - the handler's protocol
                self.answer(get_body)

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.answer(post_body)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Answer)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def __enter__(self) -> CannedServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

