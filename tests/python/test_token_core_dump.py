"""Token safety, core dumps (issue 8): the library adds no copy of the token to the memory a core dump of the
process would contain.

A child process (this file run as a script) has the token in its environment and, as a caller would, in a
``str`` it passes to one Client. Before creating any Client it counts the token's occurrences in its dumpable
memory: every readable mapping of /proc/self/smaps whose VmFlags lack ``dd`` (MADV_DONTDUMP), read through
/proc/self/mem. That baseline k is the caller's own copies (the environment block, ``os.environ``, the
``str``). Then it uses the clients for everything (details, an error whose body echoes the token after a
retried 503, bulk details, paging with prefetch, repr, pickle, DEBUG logging) and counts again, and again after
deleting the clients: both counts must still be k. The servers (a sandbox and an echoing server) run in the
parent, so what they receive is not in the child's memory.

The scanner never holds the token in dumpable memory itself: the needle and the read buffer are anonymous
mmaps marked MADV_DONTDUMP, skipped by the scan, and it searches those buffers without copying them.
"""

from __future__ import annotations

import json
import mmap
import os
import sys

# The token's last 40 of 64 characters: also found in a freed block whose first bytes the allocator reused
# for its free-list pointers.
TAIL = 40
CHUNK = 1 << 20


def _mappings() -> list[tuple[int, int, bool, bool]]:
    """(start, end, readable, dont_dump) of every mapping."""
    mappings: list[list] = []
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            first, _, rest = line.partition(" ")
            if "-" in first and not first.endswith(":"):
                start, end = (int(part, 16) for part in first.split("-"))
                special = rest.rstrip().endswith(("[vvar]", "[vsyscall]"))
                mappings.append([start, end, rest.startswith("r") and not special, False])
            elif first == "VmFlags:" and mappings:
                mappings[-1][3] = "dd" in rest.split()
    return [tuple(m) for m in mappings]  # type: ignore[misc]


def count_dumpable(needle: memoryview, buffer: mmap.mmap) -> int:
    """Occurrences of `needle` in this process's dumpable memory. `buffer`: a DONTDUMP mmap to read into."""
    overlap = len(needle) - 1
    view = memoryview(buffer)
    found = 0
    with open("/proc/self/mem", "rb", buffering=0) as memory:
        fd = memory.fileno()
        for start, end, readable, dont_dump in _mappings():
            if not readable or dont_dump:
                continue  # DONTDUMP mappings (the needle, the buffer, the client's secret) are not dumped
            for at in range(start, end, CHUNK):
                size = min(end, at + CHUNK + overlap) - at
                try:
                    got = os.preadv(fd, [view[:size]], at)
                except OSError:
                    continue  # unreadable range
                limit = min(got, CHUNK + overlap)
                position = buffer.find(needle, 0, limit)
                while position != -1:
                    if position < CHUNK:  # a match starting in the overlap is counted by the next chunk
                        found += 1
                    position = buffer.find(needle, position + 1, limit)
    view.release()
    return found


def _dont_dump_map(size: int) -> mmap.mmap:
    mapped = mmap.mmap(-1, size)
    mapped.madvise(mmap.MADV_DONTDUMP)
    return mapped


def child_main(argv: list[str]) -> None:
    import io
    import logging
    import pickle

    import trunk_api

    sandbox_url, echo_url, repo, org, start, end = argv
    raw = os.environb[b"TRUNK_API_TOKEN"]  # the environment's own bytes object, not a copy
    needle_map = _dont_dump_map(4096)
    needle_map[: len(raw)] = raw
    needle = memoryview(needle_map)[len(raw) - TAIL: len(raw)]
    buffer = _dont_dump_map(CHUNK + 4096)
    log_output = io.StringIO()
    logging.basicConfig(level=logging.DEBUG, stream=log_output)
    token = os.environ["TRUNK_API_TOKEN"]  # the caller's str, as an application would hold it

    report: dict[str, object] = {"token_length": len(raw)}
    report["baseline"] = count_dumpable(needle, buffer)

    client = trunk_api.Client(token, sandbox_url)   # the str path
    echoing = trunk_api.Client(None, echo_url, max_retries=1)        # the environment path
    ids = [t.id for t in client.list_failing_tests(repo, org, start, end, page_size=20).tests]
    details = [client.get_test_details(repo, org, test_id) for test_id in ids[:5]]
    many = client.get_test_details_many(repo, org, ids, concurrency=4)
    walked = sum(1 for _ in client.iter_failing_tests(repo, org, start, end, page_size=7))
    texts = [repr(client), repr(echoing)]
    try:
        echoing.get_test_details(repo, org, ids[0])
    except trunk_api.AuthenticationError as error:
        texts += [str(error), repr(error), repr(error.__dict__)]
        report["echo_error"] = type(error).__name__
    copy = pickle.loads(pickle.dumps(client))
    texts.append(repr(copy))
    texts.append(log_output.getvalue())
    report.update(details=len(details), many=len(many), walked=walked, ids=len(ids),
                  log_lines=log_output.getvalue().count("\n"),
                  retried="retry 1 of" in log_output.getvalue(),
                  texts_quoting=sum(token in text for text in texts))
    report["alive"] = count_dumpable(needle, buffer)

    del client, echoing, copy, many, details
    import gc
    gc.collect()
    report["deleted"] = count_dumpable(needle, buffer)
    print(json.dumps(report))


def test_the_library_adds_no_dumpable_copy_of_the_token() -> None:
    import secrets
    import subprocess
    from datetime import datetime, timedelta, timezone

    import trunk_api
    from scripted_server import Received, Reply, ScriptedServer

    token = secrets.token_hex(32)  # 64 characters, known to this process and the child only

    answered: list[int] = []

    def echo(request: Received) -> Reply:
        """503 first (the client retries), then a 401 whose body echoes the token it received."""
        answered.append(1)
        if len(answered) == 1:
            return Reply(503, "busy", {"Retry-After": "0"})
        return Reply(401, {"error": f"token {request.headers.get('x-api-token', '')} is not valid"})

    now = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)
    with trunk_api.Sandbox(seed=11, tests=120, now=now, token=token) as sandbox, \
            ScriptedServer(responder=echo) as echo_server:
        env = {k: v for k, v in os.environ.items() if k not in ("TRUNK_API_KEY", "TRUNK_BASE_URL")}
        env["TRUNK_API_TOKEN"] = token
        args = [sandbox.url, echo_server.url, str(sandbox.repos[0]), sandbox.org_url_slug,
                (now - timedelta(days=7)).isoformat(), now.isoformat()]
        child = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True,
                               timeout=300)
        assert sandbox.requests, "the child never reached the sandbox"
        assert len(answered) == 2, "the echoing server did not see the retried call"
    assert token not in child.stdout + child.stderr
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.strip().splitlines()[-1])

    assert report["token_length"] == 64
    assert report["ids"] > 0 and report["details"] == 5 and report["many"] == report["ids"]
    assert report["walked"] > 7  # several pages
    assert report["echo_error"] == "AuthenticationError"
    assert report["retried"] and report["log_lines"] > 10
    assert report["texts_quoting"] == 0
    # The caller's own copies are there (environment block, os.environ, the str): the scan does see them.
    assert report["baseline"] >= 2
    # ... and the library added none, while the clients live or after they are gone.
    assert report["alive"] == report["baseline"], report
    assert report["deleted"] == report["baseline"], report


def test_the_scanner_sees_copies_in_dumpable_memory() -> None:
    import secrets

    secret = secrets.token_bytes(32).hex().encode()
    needle_map = _dont_dump_map(4096)
    needle_map[: len(secret)] = secret
    needle = memoryview(needle_map)[len(secret) - TAIL: len(secret)]
    buffer = _dont_dump_map(CHUNK + 4096)
    copies = [bytes(bytearray(secret)) for _ in range(3)]  # three more heap copies
    assert count_dumpable(needle, buffer) >= 4
    del copies
    needle.release()


if __name__ == "__main__":
    child_main(sys.argv[1:])
