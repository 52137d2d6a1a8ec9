"""A typed script using the public API; test_typing.py runs `mypy --strict` on it, so the stubs (_core/*.pyi),
py.typed and the facade's annotations are checked from a user's point of view."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import trunk_api
from trunk_api import (
    AsyncClient,
    Client,
    HealthStatus,
    QueueSettings,
    QueueState,
    Repo,
    Sandbox,
    TestCase,
    TestPage,
    TrunkError,
    ValidationError,
)


def flaky_names(client: Client, repo: Repo, org: str) -> list[str]:
    names: list[str] = []
    for test in client.iter_unhealthy_tests(repo, org, HealthStatus.FLAKY, page_size=50, max_results=10):
        if test.name is not None:
            names.append(test.name)
    return names


def worst_rate(page: TestPage) -> float:
    rates = [t.failure_rate_last_7d for t in page.tests if t.failure_rate_last_7d is not None]
    return max(rates, default=0.0)


def describe(test: TestCase) -> str:
    match test:
        case TestCase(name=str(name), quarantined=True):
            return f"{name} (quarantined)"
        case _:
            status = test.status.value if test.status is not None else None
            when = test.status.timestamp if test.status is not None else None
            return f"{test.name}: {status} since {when.isoformat() if when else '?'}"


def pause(client: Client, repo: Repo | str) -> QueueSettings:
    settings = client.update_queue(repo, "main", state=QueueState.PAUSED, concurrency=2, required_statuses=["ci"])
    state: QueueState | str | None = settings.state
    assert state is not None
    return settings


async def async_summary(client: AsyncClient, repo: Repo, org: str, now: datetime) -> tuple[int, list[str]]:
    """The async twins type-check as the sync calls do: coroutines of the same answers, typed async listings."""
    names: list[str] = []
    async for test in client.iter_failing_tests(repo, org, now - timedelta(days=7), now, max_results=5):
        names.append(test.name or "?")
    pages: list[TestPage] = [page async for page in client.iter_failing_tests(repo, org, now - timedelta(days=1),
                                                                             now).pages]
    ids = [test.id for page in pages for test in page.tests if test.id is not None][:3]
    details: list[TestCase] = await client.get_test_details_many(repo, org, ids, concurrency=2)
    settings: QueueSettings = await client.get_queue(repo, "main")
    assert settings is not None
    return len(details), names


def main() -> int:
    now = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)
    with Sandbox(seed=1, tests=20, now=now) as sandbox:
        client: Client = sandbox.client(timeout=5.0, max_retries=1)
        repo: Repo = sandbox.repos[0]
        page = client.list_failing_tests(repo, sandbox.org_url_slug, now - timedelta(days=7), now, page_size=5)
        print(worst_rate(page), page.page.next_page_token, [describe(t) for t in page.tests])
        print(flaky_names(client, repo, sandbox.org_url_slug))
        print(pause(client, str(repo)).to_dict())
        tests: list[TestCase] = client.iter_failing_tests(repo, sandbox.org_url_slug, "2026-11-13T12:00:00Z",
                                                          now).to_list()
        for one in client.iter_failing_tests(repo, sandbox.org_url_slug, now - timedelta(days=1), now).pages:
            print(one.page.page_index, len(one.tests))
        print(len(tests), [r.path for r in sandbox.requests][:3])
        try:
            client.get_test_details(repo, sandbox.org_url_slug, "not-a-uuid")
        except ValidationError as error:
            print([(v.field, v.rule) for v in error.errors])
        except TrunkError:
            raise
        async def use_async_client() -> tuple[int, list[str]]:
            async with sandbox.async_client(max_in_flight=4) as aclient:
                return await async_summary(aclient, repo, sandbox.org_url_slug, now)

        print(asyncio.run(use_async_client()))
        print(trunk_api.__version__, Repo.parse("github.com/a/b") == Repo(host="github.com", owner="a", name="b"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
