"""Runs one trunk_api.Sandbox in its own process for the benchmark (so the server's CPU is not the client's
interpreter), prints one JSON line describing it, and serves until its stdin closes.

    python sandbox_server.py '{"tests": 2000, "latency_ms": 20, "ids": 1000}'
"""

from __future__ import annotations

import json
import sys

import trunk_api


def main() -> None:
    config = json.loads(sys.argv[1])
    # The library's default threads unless "threads" says otherwise: the event-driven server holds no thread per
    # connection or per injected latency, and more threads than cores only add switching (issue 17's profile).
    threads = config.get("threads")
    sandbox = trunk_api.Sandbox(
        tests=int(config.get("tests", 2000)),
        latency_ms=int(config.get("latency_ms", 0)),
        seed=int(config.get("seed", 42)),
        record_requests=False,
        **({} if threads is None else {"threads": int(threads)}),
    ).start()
    repo = sandbox.repos[0]
    ids = sandbox.test_ids(repo)[: int(config.get("ids", 0))]
    # Pull requests in the main queue of the first repository, for the v2 listing (scenario 12): submitted through
    # v1, read through v2.
    client = sandbox.client()
    for number in range(1, int(config.get("queue_prs", 0)) + 1):
        client.submit_pull_request(repo, number, "main")
    description = {
        "url": sandbox.url,
        "token": sandbox.token,
        "api_key": sandbox.api_key,
        "org_url_slug": sandbox.org_url_slug,
        "repo": {"host": repo.host, "owner": repo.owner, "name": repo.name},
        "now": sandbox.now.isoformat(),
        "ids": ids,
    }
    print(json.dumps(description), flush=True)
    sys.stdin.read()  # until the parent closes our stdin (or dies)
    sandbox.stop()


if __name__ == "__main__":
    main()
