"""`trunk-api sandbox`: the local sandbox of the service in the foreground, until Ctrl-C or SIGTERM.

Its flags are made from the rows of the sandbox's options (SandboxOptions and FaultOptions in C++, as
``_core.declarations.option_rows("sandbox")`` gives them): name, default, rule and doc written once, there.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

import trunk_api
from trunk_api._core.declarations import option_rows
from trunk_api._cli_common import option_flag


def add_command(commands: Any) -> None:
    """Adds the `sandbox` command to the command line's subcommands."""
    sandbox = commands.add_parser(
        "sandbox", help="run a local sandbox of the service (Ctrl-C stops)",
        description="Run the local sandbox of the service in the foreground on 127.0.0.1 and print its address "
                    "and throwaway token. Ctrl-C (or SIGTERM) stops it.")
    sandbox.add_argument("--webhook", dest="webhooks", metavar="URL", action="append", default=[],
                         help="send every webhook event to URL (repeatable); its secret is printed")
    options = sandbox.add_argument_group("options (the rows of SandboxOptions)")
    faults = sandbox.add_argument_group("fault injection")
    fault_names = {row["name"] for row in option_rows("faults")}
    for row in option_rows("sandbox"):
        option_flag(faults if row["name"] in fault_names else options, row)
    sandbox.set_defaults(handler=run)


def run(ctx: Any) -> int:
    args = ctx.args
    # Every row's flag, under its row's name (None = the core's default).
    options = {row["name"]: getattr(args, row["name"]) for row in option_rows("sandbox")}
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
            # v2's API key, on its own line: TRUNK_API_KEY above holds the v1 token the Terraform provider reads.
            print(f"api key (v2): {sandbox.api_key}", file=out)
            print("Press Ctrl-C to stop.", file=out, flush=True)
            while not stop.wait(0.2):  # a short wait keeps the signal handlers responsive
                pass
            print("trunk-api sandbox: stopped", file=ctx.stderr)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0
