"""Mixed-method load on kept-alive connections, counting desynchronised answers (issue 17; scripts/loadtest).

Each of --connections connections sends --requests requests, one after the other (sometimes two in one
packet), drawn from the kinds below with a seeded random generator, and checks every answer against what
*that* request must get: its status and a mark only that request's answer carries (the test id asked for,
the method named in the 405's text, the field named in the 400's text...). An answer that is not the one
expected for the request it follows is a **desynchronised answer** -- typically the next request read from
the middle of an unread body, or an answer meant for another request. Kinds:

  valid        POST get-test-details, Content-Length            200, JSON naming the test id asked for
  split        the same, the body 20 ms after the headers        200, naming its test id
  chunked      the same, the body in two chunks                  200, naming its test id
  openapi      GET /openapi.json                                 200, the OpenAPI 3.1 document
  get          GET on the operation, with a body, split          405, Allow: POST, names GET
  options      OPTIONS on the operation, no body                 405, Allow: POST, names OPTIONS
  trace        TRACE on the operation, with a body, split        405, Allow: POST, names TRACE
  unknown      an unknown method (PURGE), with a body            405, Allow: POST, names PURGE
  bad_json     POST, a body that is not JSON                     400, "malformed JSON"
  wrong_type   POST, org_url_slug a number                       400, names org_url_slug
  no_length    POST with neither Content-Length nor chunked      400 at once, "request body must be JSON"
  pipelined    valid + wrong_type in one packet                  both answered, in order
  bad_framing  POST, Transfer-Encoding "chunked, gzip" and a      400 + Connection: close (RFC 9112 6.3: the
               chunked body 20 ms later                          length is unknown); the driver reconnects

A connection that ends (other than after bad_framing's Connection: close), or an answer that does not come
within --timeout seconds, is counted (closed, timeout) and the connection is opened again. Prints a table per kind and the totals; exits 1 when any answer
was desynchronised, timed out, or a connection ended without saying so. Traffic goes to 127.0.0.1 only.

    TRUNK_TOKEN=... TRUNK_ORG=... TRUNK_REPO_HOST=... TRUNK_REPO_OWNER=... TRUNK_REPO_NAME=... TRUNK_IDS=a,b,c \\
        python3 benchmarks/mixed_methods.py --port 8080 [--connections 16] [--requests 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import os
import random
import sys
import time
from collections.abc import Callable

DETAILS = "/v1/flaky-tests/get-test-details"
SPLIT_DELAY = 0.020  # seconds between the headers and the body


@dataclasses.dataclass
class Answer:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


@dataclasses.dataclass
class Request:
    kind: str
    parts: list[bytes]  # sent with SPLIT_DELAY between them
    expect: Callable[[Answer], bool]
    expected: str  # for the report


class Closed(Exception):
    pass


async def read_answer(reader: asyncio.StreamReader) -> Answer:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        raise ValueError(f"not an HTTP answer: {lines[0]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")  # no trailers from the sandbox
                break
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Answer(int(parts[1]), headers, body)


class Traffic:
    def __init__(self, token: str, org: str, repo: dict[str, str], ids: list[str]) -> None:
        self.token, self.org, self.repo, self.ids = token, org, repo, ids

    def head(self, method: str, path: str, extra: str = "") -> bytes:
        return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: {self.token}\r\n{extra}").encode()

    def details_body(self, test_id: str, **override: object) -> bytes:
        body: dict[str, object] = {"repo": self.repo, "org_url_slug": self.org, "test_id": test_id}
        body.update(override)
        return json.dumps(body).encode()

    @staticmethod
    def json_test_id(answer: Answer, test_id: str) -> bool:
        try:
            return bool(json.loads(answer.body)["test"]["id"].lower() == test_id.lower())
        except (ValueError, KeyError, TypeError):
            return False

    @staticmethod
    def text(answer: Answer, status: int, *marks: str) -> bool:
        text = answer.body.decode("utf-8", "replace")
        return (answer.status == status and answer.headers.get("content-type", "").startswith("text/plain")
                and all(mark in text for mark in marks))

    def make(self, kind: str, rng: random.Random) -> list[Request]:
        test_id = rng.choice(self.ids)
        json_type = "Content-Type: application/json\r\n"
        if kind in ("valid", "split", "chunked"):
            body = self.details_body(test_id)
            expect = lambda a, t=test_id: a.status == 200 and self.json_test_id(a, t)  # noqa: E731
            if kind == "chunked":
                half = len(body) // 2
                chunks = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:half], body[half:])) + b"0\r\n\r\n"
                head = self.head("POST", DETAILS, json_type + "Transfer-Encoding: chunked\r\n\r\n")
                return [Request(kind, [head + chunks[:7], chunks[7:]], expect, f"200 test {test_id}")]
            head = self.head("POST", DETAILS, json_type + f"Content-Length: {len(body)}\r\n\r\n")
            parts = [head, body] if kind == "split" else [head + body]
            return [Request(kind, parts, expect, f"200 test {test_id}")]
        if kind == "openapi":
            return [Request(kind, [b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"],
                            lambda a: a.status == 200 and b'"openapi": "3.1.0"' in a.body[:200], "200 document")]
        if kind in ("get", "options", "trace", "unknown"):
            method = {"get": "GET", "options": "OPTIONS", "trace": "TRACE", "unknown": "PURGE"}[kind]
            body = b"" if kind == "options" else self.details_body(test_id)
            head = self.head(method, DETAILS, json_type + f"Content-Length: {len(body)}\r\n\r\n" if body else "\r\n")
            parts = [head, body] if kind in ("get", "trace") else [head + body]
            expect = lambda a, m=method: (self.text(a, 405, f"method not allowed: {m}")  # noqa: E731
                                          and a.headers.get("allow") == "POST")
            return [Request(kind, parts, expect, f"405 {method}")]
        if kind == "bad_json":
            body = b'{"repo": {"host": "github.com", not json'
            return [Request(kind, [self.head("POST", DETAILS, json_type + f"Content-Length: {len(body)}\r\n\r\n") + body],
                            lambda a: self.text(a, 400, "malformed JSON"), "400 malformed JSON")]
        if kind == "wrong_type":
            body = self.details_body(test_id, org_url_slug=3)
            return [Request(kind, [self.head("POST", DETAILS, json_type + f"Content-Length: {len(body)}\r\n\r\n") + body],
                            lambda a: self.text(a, 400, "org_url_slug: expected string, got number"),
                            "400 org_url_slug")]
        if kind == "no_length":
            return [Request(kind, [self.head("POST", DETAILS, json_type + "\r\n")],
                            lambda a: self.text(a, 400, "request body must be JSON"), "400 empty body")]
        if kind == "bad_framing":
            body = self.details_body(test_id)
            chunks = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
            head = self.head("POST", DETAILS, json_type + "Transfer-Encoding: chunked, gzip\r\n\r\n")
            return [Request(kind, [head, chunks],
                            lambda a: self.text(a, 400) and a.headers.get("connection", "").lower() == "close",
                            "400 + Connection: close")]
        if kind == "pipelined":
            first, second = self.make("valid", rng)[0], self.make("wrong_type", rng)[0]
            # One packet: the second request's bytes arrive with the first's.
            return [Request("pipelined", [first.parts[0] + second.parts[0]], first.expect, first.expected),
                    Request("pipelined", [], second.expect, second.expected)]
        raise ValueError(kind)


KINDS = ["valid", "split", "chunked", "openapi", "get", "options", "trace", "unknown", "bad_json", "wrong_type",
         "no_length", "pipelined", "bad_framing"]
#: The kinds whose answer ends the connection (Connection: close expected, then a new connection).
CLOSING = {"bad_framing"}


@dataclasses.dataclass
class Counts:
    sent: int = 0
    ok: int = 0
    desync: int = 0
    timeout: int = 0
    closed: int = 0


async def connection_loop(port: int, traffic: Traffic, requests: int, seed: int, timeout: float,
                          counts: dict[str, Counts], examples: list[str]) -> None:
    rng = random.Random(seed)
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    done = 0
    while done < requests:
        if writer is None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert reader is not None
        batch = traffic.make(rng.choice(KINDS), rng)
        try:
            for request in batch:
                for i, part in enumerate(request.parts):
                    if i > 0:
                        await writer.drain()
                        await asyncio.sleep(SPLIT_DELAY)
                    writer.write(part)
                await writer.drain()
            for request in batch:
                counts[request.kind].sent += 1
                done += 1
                try:
                    answer = await asyncio.wait_for(read_answer(reader), timeout)
                except asyncio.TimeoutError:
                    counts[request.kind].timeout += 1
                    raise Closed from None
                except (asyncio.IncompleteReadError, ConnectionError) as error:
                    counts[request.kind].closed += 1
                    raise Closed from error
                if request.expect(answer):
                    counts[request.kind].ok += 1
                else:
                    counts[request.kind].desync += 1
                    if len(examples) < 10:
                        text = answer.body[:120].decode("utf-8", "replace").replace(traffic.token, "<token>")
                        examples.append(f"{request.kind}: expected {request.expected}, got {answer.status} {text!r}")
                if answer.headers.get("connection", "").lower() == "close":
                    if request.kind not in CLOSING:
                        counts[request.kind].closed += 1  # nothing in these requests is a reason to end it
                    raise Closed
                # Otherwise the connection goes on, as a client's would: if the server read less than the
                # request (bad_framing kept alive), what it answers next is counted against the next request.
        except (Closed, ConnectionError):
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def run(args: argparse.Namespace) -> int:
    traffic = Traffic(os.environ["TRUNK_TOKEN"], os.environ["TRUNK_ORG"],
                      {"host": os.environ["TRUNK_REPO_HOST"], "owner": os.environ["TRUNK_REPO_OWNER"],
                       "name": os.environ["TRUNK_REPO_NAME"]},
                      os.environ["TRUNK_IDS"].split(","))
    counts = {kind: Counts() for kind in KINDS}
    examples: list[str] = []
    started = time.monotonic()
    finished = True
    try:
        await asyncio.wait_for(asyncio.gather(*(
            connection_loop(args.port, traffic, args.requests, args.seed * 1000 + c, args.timeout, counts, examples)
            for c in range(args.connections))), args.deadline)
    except asyncio.TimeoutError:
        finished = False
    elapsed = time.monotonic() - started

    print(f"== mixed methods: {args.connections} kept-alive connections x {args.requests} requests, "
          f"{elapsed:.1f} s")
    print(f"{'kind':<12}{'sent':>8}{'as expected':>13}{'desync':>8}{'timeout':>9}{'closed':>8}")
    total = Counts()
    for kind, c in counts.items():
        print(f"{kind:<12}{c.sent:>8}{c.ok:>13}{c.desync:>8}{c.timeout:>9}{c.closed:>8}")
        for field in dataclasses.fields(Counts):
            setattr(total, field.name, getattr(total, field.name) + getattr(c, field.name))
    print(f"{'total':<12}{total.sent:>8}{total.ok:>13}{total.desync:>8}{total.timeout:>9}{total.closed:>8}")
    print(f"desynchronised answers: {total.desync}")
    for example in examples:
        print(f"  e.g. {example}")
    if not finished:
        print(f"not finished within {args.deadline:.0f} s")
    return 1 if not finished or total.desync or total.timeout or total.closed or total.ok != total.sent else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--requests", type=int, default=200, help="per connection")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for one answer")
    parser.add_argument("--deadline", type=float, default=300.0, help="seconds for the whole run")
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
