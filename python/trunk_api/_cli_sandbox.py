"""`trunk-api sandbox`: the local sandbox of the service in the foreground, until Ctrl-C or SIGTERM.

Its options and their defaults come from the core (``_core.sandbox_defaults()``, SandboxOptions in C++).
"""

from __future__ import annotations

import signal
import threading
from typing import Any

import trunk_api
from trunk_api import _core


def add_command(commands: Any) -> None:
    """Adds the `sandbox` command to the command line's subcommands."""
    sandbox = commands.add_parser(
        "sandbox", help="run a local sandbox of the service (Ctrl-C stops)",
        description="Run the local sandbox of the service in the foreground on 127.0.0.1 and print its address "
                    "and throwaway token. Ctrl-C (or SIGTERM) stops it.")
    defaults = _core.sandbox_defaults()
    sandbox.add_argument("--port", type=int, default=defaults["port"],
                         help="port on 127.0.0.1 (default %(default)s: any free port)")
    sandbox.add_argument("--seed", type=int, default=defaults["seed"],
                         help="seed of the generated data (default %(default)s)")
    sandbox.add_argument("--tests", type=int, default=defaults["tests"], help="test cases generated (default %(default)s)")
    sandbox.add_argument("--token", dest="sandbox_token", metavar="TOKEN", default=None,
                         help="token the sandbox accepts (default: a random one, printed)")
    sandbox.add_argument("--org", dest="sandbox_org", metavar="SLUG", default=None,
                         help=f"organization URL slug it serves (default {defaults['org_url_slug']})")
    sandbox.add_argument("--now", metavar="RFC3339", default=None,
                         help="end of the generated history (default: now)")
    sandbox.add_argument("--state-file", metavar="PATH", help="keep merge queues in PATH across restarts")
    sandbox.add_argument("--clock", choices=("real", "virtual"), default=defaults["clock"],
                         help="clock of the merge queues: real time, or virtual (moves only with POST "
                              "/sandbox/advance {\"minutes\": N}) (default %(default)s)")
    sandbox.add_argument("--webhook", dest="webhooks", metavar="URL", action="append", default=[],
                         help="send every webhook event to URL (repeatable); its secret is printed")
    faults = sandbox.add_argument_group("fault injection")
    faults.add_argument("--latency-ms", type=int, help="added to every response")
    faults.add_argument("--jitter-ms", type=int, help="plus a uniform random 0..N ms")
    faults.add_argument("--error-rate", type=float, help="fraction of requests answered 503")
    faults.add_argument("--rate-limit", type=float, metavar="RPS", help="requests per second, then 429")
    faults.add_argument("--drop-rate", type=float, help="fraction of connections closed without an answer")
    faults.add_argument("--truncate-rate", type=float, help="fraction of responses cut short")
    faults.add_argument("--drop-after-rate", type=float,
                        help="fraction of requests processed, then closed without an answer")
    faults.add_argument("--rate-limited-rate", type=float,
                        help="fraction of requests answered 429, whatever the load")
    faults.add_argument("--rate-limited-retry-after", type=int, dest="rate_limited_retry_after_seconds",
                        metavar="SECONDS", help="Retry-After of those 429s (default 1)")
    faults.add_argument("--webhook-duplicate-rate", type=float, help="fraction of webhook messages delivered twice")
    faults.add_argument("--webhook-delay-ms", type=int, help="webhook messages sent N ms (sandbox clock) after their event")
    faults.add_argument("--webhook-jitter-ms", type=int, help="plus a uniform random 0..N ms")
    sandbox.set_defaults(handler=run)


def run(ctx: Any) -> int:
    args = ctx.args
    options: dict[str, Any] = {"seed": args.seed, "tests": args.tests, "clock": args.clock}
    for name in ("latency_ms", "jitter_ms", "error_rate", "rate_limit", "drop_rate", "truncate_rate", "drop_after_rate",
                 "rate_limited_rate", "rate_limited_retry_after_seconds", "state_file", "webhook_duplicate_rate",
                 "webhook_delay_ms", "webhook_jitter_ms"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.sandbox_token is not None:
        options["token"] = args.sandbox_token
    if args.sandbox_org is not None:
        options["org_url_slug"] = args.sandbox_org
    if args.now is not None:
        options["now"] = args.now
    if args.port:
        options["port"] = args.port
    stop = threading.Event()
    # SIGINT and SIGTERM both stop it cleanly. SIGINT gets an explicit handler too, because a shell starting a
    # program in the background (`trunk-api sandbox &`) makes it ignore SIGINT otherwise.
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            previous[number] = signal.signal(number, lambda *_: stop.set())
    try:
        with trunk_api.Sandbox(**options) as sandbox:
            out = ctx.stdout
            # The sandbox's token is its own throwaway secret: printing it is the point of this command.
            print(f"trunk-api sandbox listening on {sandbox.url}", file=out)
            print(f"org:   {sandbox.org_url_slug}", file=out)
            for repo in sandbox.repos:
                print(f"repo:  {repo.host}/{repo.owner}/{repo.name}", file=out)
            for url in args.webhooks:
                endpoint = sandbox.add_webhook(url)
                # Printed for the same reason: the endpoint's owner verifies deliveries with it.
                print(f"webhook: {endpoint.id} {endpoint.url} secret {endpoint.secret.reveal()}", file=out)
            # The publisher's spelling (with the version, and the token under both names its tools read), so
            # that trunk-api, the Terraform provider and the GitHub Action's script all work from these lines.
            print(f"export TRUNK_BASE_URL={sandbox.url}/v1", file=out)
            print(f"export TRUNK_API_TOKEN={sandbox.token}", file=out)
            print(f"export TRUNK_API_KEY={sandbox.token}", file=out)
            print("Press Ctrl-C to stop.", file=out, flush=True)
            while not stop.wait(0.2):  # a short wait keeps the signal handlers responsive
                pass
            print("trunk-api sandbox: stopped", file=ctx.stderr)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0
