"""Memory of holding N failing tests, measured in a fresh process (run by benchmarks/run.py):

    python memory_probe.py ours|dicts '<target json>'
    python memory_probe.py async-ours|async-httpx '<target json with ids, n, in_flight>'

Prints {"held": bytes, "peak": bytes}: resident memory still in use once the N results are held (after a
garbage collection), and the process's peak resident memory while getting them, both above the baseline
taken after every import. RSS rather than tracemalloc, because tracemalloc does not see the C++ heap where
the SDK's TestCase objects keep their data. The async modes run n get-test-details coroutines at once through
one client (in_flight on the network) and print {"peak": bytes, "seconds": s}."""

from __future__ import annotations

import gc
import json
import os
import resource
import sys

import peers
import trunk_api


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def concurrent_calls(mode: str, config: dict) -> None:  # type: ignore[type-arg]
    import asyncio
    import time

    ids = [config["ids"][i % len(config["ids"])] for i in range(config["n"])]
    repo = trunk_api.Repo(**config["repo"])
    target = peers.Target(config["url"], config["token"], config["org_url_slug"], config["repo"])
    gc.collect()
    baseline = rss_bytes()
    started = time.perf_counter()
    if mode == "async-ours":
        async def run() -> int:
            async with trunk_api.AsyncClient(config["token"], config["url"], max_in_flight=config["in_flight"]) as client:
                got = await asyncio.gather(*(client.get_test_details(repo, config["org_url_slug"], i) for i in ids))
                return len(got)

        count = asyncio.run(run())
    else:
        count = len(peers.httpx_details_async(target, ids, config["in_flight"]))
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert count == config["n"], count
    print(json.dumps({"peak": peak - baseline, "seconds": seconds}))


def main() -> None:
    mode = sys.argv[1]
    config = json.loads(sys.argv[2])
    if mode.startswith("async-"):
        concurrent_calls(mode, config)
        return
    target = peers.Target(config["url"], config["token"], config["org_url_slug"], config["repo"])
    client = trunk_api.Client(config["token"], config["url"])
    gc.collect()
    baseline = rss_bytes()
    if mode == "ours":
        held: object = client.iter_failing_tests(
            trunk_api.Repo(**config["repo"]), config["org_url_slug"], config["start"], config["end"],
            max_results=config["n"],
        ).to_list()
    else:
        held = peers.requests_dicts(target, config["start"], config["end"], config["n"])
    gc.collect()
    after = rss_bytes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert len(held) == config["n"], len(held)  # type: ignore[arg-type]
    print(json.dumps({"held": after - baseline, "peak": peak - baseline}))


if __name__ == "__main__":
    main()
