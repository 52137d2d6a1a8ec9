"""The Sandbox facade: life cycle, properties, the request record and faults changed while running."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import trunk_api
from trunk_api import Repo, ValidationError

from conftest import NOW, SANDBOX_TOKEN, WEEK_START, ensure_queue


def test_properties(box: trunk_api.Sandbox) -> None:
    assert box.running
    assert box.url.startswith("http://127.0.0.1:") and box.port == int(box.url.rsplit(":", 1)[1])
    assert box.token == SANDBOX_TOKEN
    assert box.org_url_slug == "trunk-sandbox"
    assert all(isinstance(repo, Repo) for repo in box.repos) and len(box.repos) >= 2
    assert any("/" in repo.owner for repo in box.repos)  # a GitLab subgroup owner
    assert len(set(box.test_ids(box.repos[0]))) == len(box.test_ids(box.repos[0])) > 0
    assert box.now == NOW


def test_start_stop_and_random_token() -> None:
    sandbox = trunk_api.Sandbox(seed=1, tests=10, now=NOW)
    assert not sandbox.running and "stopped" in repr(sandbox)
    with sandbox as box:
        assert box is sandbox and box.running
        assert len(box.token) >= 16
        url = box.url
        assert url in repr(box) and box.token not in repr(box)
    assert not sandbox.running
    sandbox.stop()  # idempotent
    other = trunk_api.Sandbox(seed=1, tests=10, now=NOW).start()
    try:
        assert other.url != url or other.token != sandbox.token
    finally:
        other.stop()


def test_same_seed_same_data() -> None:
    with trunk_api.Sandbox(seed=5, tests=30, now=NOW) as a, trunk_api.Sandbox(seed=5, tests=30, now=NOW) as b:
        repo = a.repos[0]
        assert a.test_ids(repo) == b.test_ids(repo)
        test_id = a.test_ids(repo)[0]
        assert a.client().get_test_details(repo, a.org_url_slug, test_id) == \
            b.client().get_test_details(repo, b.org_url_slug, test_id)


def test_request_record(box: trunk_api.Sandbox, client: trunk_api.Client) -> None:
    ensure_queue(box, box.repos[0], "record")
    client.list_failing_tests(box.repos[0], box.org_url_slug, WEEK_START, NOW, page_size=2)
    client.update_queue(box.repos[0], "record", batch=True)
    requests = box.requests
    assert [(r.method, r.path, r.status) for r in requests] == [
        ("POST", "/v1/flaky-tests/list-failing-tests", 200),
        ("POST", "/v1/updateQueue", 200),
    ]
    assert requests[1].body == {"repo": box.repos[0].to_dict(), "targetBranch": "record", "batch": True}
    assert requests[1].raw_body.startswith(b"{")
    box.clear_requests()
    assert box.requests == []


def test_faults_adjustable_while_running(box: trunk_api.Sandbox) -> None:
    client = box.client(max_retries=0)
    repo = box.repos[0]
    box.error_rate = 1.0
    assert box.faults["error_rate"] == 1.0
    with pytest.raises(trunk_api.ServerError):
        client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
    box.set_faults(error_rate=0.0, latency_ms=5)
    assert box.latency_ms == 5 and box.error_rate == 0.0
    assert client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0]).id
    with pytest.raises(TypeError):
        box.set_faults(error_rat=0.5)  # typo: refused, not ignored
    with pytest.raises(ValidationError) as caught:
        box.set_faults(error_rate=1.5)
    assert caught.value.errors[0].field == "error_rate"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"tests": -1}, "tests"), ({"seed": "x"}, "seed"), ({"now": "not a time"}, "now"),
     ({"drop_rate": 2}, "drop_rate"), ({"latency_ms": -5}, "latency_ms")],
)
def test_bad_options_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        trunk_api.Sandbox(**kwargs)  # type: ignore[arg-type]
    assert caught.value.errors[0].field == field


def test_state_file_survives_restart(tmp_path: Path) -> None:
    state = tmp_path / "queue.json"
    with trunk_api.Sandbox(seed=2, tests=10, now=NOW, state_file=state) as box:
        box.client().update_queue(box.repos[0], "main", concurrency=17)
    assert state.exists()
    with trunk_api.Sandbox(seed=2, tests=10, now=NOW, state_file=state) as box:
        assert box.client().update_queue(box.repos[0], "main", batch=False).concurrency == 17


def test_data_file_round_trip(tmp_path: Path) -> None:
    data = tmp_path / "history.json"
    with trunk_api.Sandbox(seed=9, tests=15, now=NOW) as box:
        box.save_data(data)
        ids = box.test_ids(box.repos[0])
    with trunk_api.Sandbox(data_file=data, now=NOW) as box:
        assert box.test_ids(box.repos[0]) == ids


def test_sandbox_is_not_picklable(box: trunk_api.Sandbox) -> None:
    with pytest.raises(TypeError):
        pickle.dumps(box)


def test_request_record_labels_injected_faults(box: trunk_api.Sandbox) -> None:
    client = box.client(max_retries=0)
    repo = box.repos[0]
    box.set_faults(drop_rate=1.0)
    with pytest.raises(trunk_api.TransportError):
        client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
    box.set_faults(drop_rate=0.0, error_rate=1.0)
    with pytest.raises(trunk_api.ServerError):
        client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
    box.set_faults(error_rate=0.0)
    client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
    dropped, failed, fine = box.requests
    assert (dropped.status, failed.status, fine.status) == (0, 503, 200)
    if "rate_limited_rate" in box.faults:  # a sandbox that labels its faults
        assert (dropped.fault, failed.fault, fine.fault) == ("drop", "error", "")
    else:
        assert (dropped.fault, failed.fault, fine.fault) == ("", "", "")


def test_rate_limited_rate_when_the_sandbox_offers_it(box: trunk_api.Sandbox) -> None:
    if "rate_limited_rate" not in box.faults:
        with pytest.raises(TypeError):
            box.set_faults(rate_limited_rate=1.0)
        return
    box.set_faults(rate_limited_rate=1.0, rate_limited_retry_after_seconds=3)
    try:
        with pytest.raises(trunk_api.RateLimitError) as caught:
            box.client(max_retries=0).get_test_details(box.repos[0], box.org_url_slug, box.test_ids(box.repos[0])[0])
    finally:
        box.set_faults(rate_limited_rate=0.0)
    assert caught.value.retry_after == 3.0
    assert box.requests[-1].fault == "rate_limit"


def test_the_core_imports_nothing_from_the_package() -> None:
    """_core is a leaf: loading it in a fresh interpreter with the package's Python modules blocked works, and
    it never imports trunk_api.errors/_pandas/enums itself (the facade hands them over)."""
    import subprocess
    import sys

    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name in ('trunk_api.errors', 'trunk_api._pandas', 'trunk_api.enums', 'trunk_api.client'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "        return None\n"
        "import importlib.util, pathlib, trunk_api\n"  # locate the installed package, then load _core alone
        "path = pathlib.Path(trunk_api.__file__).parent\n"
        "for name in [n for n in sys.modules if n.startswith('trunk_api')]: del sys.modules[name]\n"
        "sys.meta_path.insert(0, Block())\n"
        "spec = importlib.util.spec_from_file_location('trunk_api._core', next(path.glob('_core*.so')))\n"
        "core = importlib.util.module_from_spec(spec); spec.loader.exec_module(core)\n"
        "assert core.models.QueueState.PAUSED == 'paused' and str(core.models.QueueState.PAUSED) == 'paused'\n"
        # Its own submodules are entered in sys.modules (module.cpp); nothing else of the package is.
        "assert not [n for n in sys.modules if n.startswith('trunk_api') and not n.startswith('trunk_api._core.')], "
        "sorted(sys.modules)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_sandbox_defaults_come_from_the_core_declaration() -> None:
    """SandboxOptions (C++) is the one place the defaults are written: the facade, the core and the command line
    show the same values."""
    import inspect

    from trunk_api._core import sandbox as engine
    from trunk_api.cli import build_parser

    defaults = engine.sandbox_defaults()
    assert defaults["seed"] == 42 and defaults["tests"] == 2000 and defaults["org_url_slug"] == "trunk-sandbox"
    signature = inspect.signature(trunk_api.Sandbox)
    for name in ("seed", "tests", "org_url_slug", "port", "record_requests", "fault_seed"):
        assert signature.parameters[name].default == defaults[name], name
    args = build_parser().parse_args(["sandbox"])
    assert (args.seed, args.tests, args.port) == (defaults["seed"], defaults["tests"], defaults["port"])
