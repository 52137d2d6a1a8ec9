"""What a newcomer tripped on (issue 14), each pinned down: the missing-token message in the caller's language,
repositories given as web addresses, TestStatus.value as an enumeration, the listing iterators' repr, a clear
message when numpy or pandas is missing, and naive times refused rather than guessed."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

import trunk_api
from trunk_api import MissingTokenError, Repo, TestHealth, TestStatus, TrunkError, ValidationError

from cli_support import cli, one_line_error, sandbox, target  # noqa: F401  (fixtures are used by name)
from conftest import NOW, WEEK_START


# ---- (a) no token: the remedy in the caller's terms ------------------------------------------------------------

@pytest.fixture
def no_token_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)


@pytest.mark.usefixtures("no_token_anywhere")
def test_python_names_the_token_argument_and_the_variables_it_reads() -> None:
    with pytest.raises(MissingTokenError) as caught:
        trunk_api.Client(base_url="http://127.0.0.1:1")
    message = str(caught.value)
    assert "Client(token=...)" in message and "TRUNK_API_TOKEN" in message and "TRUNK_API_KEY" in message
    assert "ClientOptions" not in message  # the C++ name is C++'s
    assert caught.value.variables == ("TRUNK_API_TOKEN", "TRUNK_API_KEY")  # as the core reads them, in order
    assert isinstance(caught.value, TrunkError)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert str(copy) == message and copy.variables == caught.value.variables


@pytest.mark.usefixtures("no_token_anywhere")
def test_an_empty_variable_is_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUNK_API_TOKEN", "")
    with pytest.raises(MissingTokenError):
        trunk_api.Client(base_url="http://127.0.0.1:1")
    monkeypatch.setenv("TRUNK_API_KEY", "from-the-second-variable")
    assert trunk_api.Client(base_url="http://127.0.0.1:1").base_url == "http://127.0.0.1:1"


def test_the_command_line_names_its_option_and_the_variables(cli, target, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    run = cli("unhealthy", *target)
    assert run.code == 2
    message = one_line_error(run)
    assert "--token" in message and "TRUNK_API_TOKEN" in message and "TRUNK_API_KEY" in message
    assert "ClientOptions" not in message and "Client(token" not in message


# ---- (b) a repository given as its web address --------------------------------------------------------------

STOREFRONT = Repo("github.com", "acme", "storefront")


@pytest.mark.parametrize("written", [
    "github.com/acme/storefront",
    "https://github.com/acme/storefront",
    "http://github.com/acme/storefront",
    "HTTPS://github.com/acme/storefront",
    "https://github.com/acme/storefront/",
    "https://github.com/acme/storefront.git",
    "https://github.com/acme/storefront.git/",
    "github.com/acme/storefront.git",
    "github.com/acme/storefront//",
])
def test_a_web_or_clone_address_names_the_same_repository(client, box, written: str) -> None:
    box.clear_requests()
    client.list_unhealthy_tests(written, box.org_url_slug, "FLAKY", page_size=1)
    assert box.requests[-1].body["repo"] == {"host": "github.com", "owner": "acme", "name": "storefront"}


def test_repo_parse_applies_the_same_rule() -> None:
    assert Repo.parse("https://github.com/acme/storefront.git") == STOREFRONT
    assert Repo.parse("github.com/acme/storefront.git.git") == Repo("github.com", "acme", "storefront.git")  # one
    assert Repo.parse("github.com/acme/.git").name == ".git"  # a name is never stripped to nothing


def test_gitlab_subgroups_still_work_from_an_address(client, box) -> None:
    box.clear_requests()
    client.list_unhealthy_tests("https://gitlab.com/acme-labs/platform/payments.git", box.org_url_slug, "FLAKY",
                                page_size=1)
    assert box.requests[-1].body["repo"] == {"host": "gitlab.com", "owner": "acme-labs/platform", "name": "payments"}


@pytest.mark.parametrize(("written", "reason"), [
    ("ssh://git@github.com/acme/storefront.git", "only https:// and http://"),
    ("ftp://github.com/acme/storefront", "only https:// and http://"),
    ("https://github.com/acme/storefront?tab=readme", "query or fragment"),
    ("https://github.com/acme/storefront#readme", "query or fragment"),
    ("https://github.com/acme/storefront/pull/42", "exactly three parts"),
    ("github.com/acme/storefront/tree/main", "exactly three parts"),
    ("https://github.com/acme", "at least three parts"),
    ("https:///acme/storefront", "the host is empty"),
    ("https://github.com//storefront", "the owner has an empty part"),
])
def test_addresses_that_name_no_repository_are_refused_before_sending(client, box, written: str,
                                                                      reason: str) -> None:
    box.clear_requests()
    with pytest.raises(ValidationError) as caught:
        client.list_unhealthy_tests(written, box.org_url_slug, "FLAKY")
    violation = caught.value.errors[0]
    assert violation.field == "repo" and reason in violation.rule and "host/owner/name" in violation.rule
    assert box.requests == []


@pytest.mark.parametrize("written", ["https://ci-bot:ghp_secret123@github.com/acme/storefront.git",
                                     "https://ghp_secret123@github.com/acme/storefront",
                                     "git@github.com:acme/storefront.git"])
def test_an_address_with_a_credential_is_refused_without_repeating_it(client, box, written: str) -> None:
    with pytest.raises(ValidationError) as caught:
        client.list_unhealthy_tests(written, box.org_url_slug, "FLAKY")
    assert "credential" in caught.value.errors[0].rule
    for shown in (str(caught.value), repr(caught.value.errors), caught.value.errors[0].value):
        assert "ghp_secret123" not in shown and "ci-bot" not in shown and "git@" not in shown
    assert box.requests == []


def test_repo_and_the_command_line_share_the_rule(cli, sandbox, target):
    repo = sandbox.repos[0]
    address = f"https://{repo.host}/{repo.owner}/{repo.name}.git"
    assert cli("unhealthy", "--repo", address, "--org", sandbox.org_url_slug, "--max-results", "1").code == 0
    run = cli("unhealthy", "--repo", f"https://{repo.host}/{repo.owner}/{repo.name}/pull/1", "--org",
              sandbox.org_url_slug)
    assert run.code == 2 and "exactly three parts" in one_line_error(run)


# ---- (c) TestStatus.value is an enumeration, like the queue's --------------------------------------------------

def test_test_status_value_is_a_member_equal_to_its_wire_string(client, box, repo) -> None:
    tests = client.iter_unhealthy_tests(repo, box.org_url_slug, "FLAKY", max_results=3).to_list()
    assert tests
    for test in tests:
        assert test.status.value is TestHealth.FLAKY
        assert test.status.value == "flaky" and str(test.status.value) == "flaky" and f"{test.status.value}" == "flaky"
        assert test.to_dict()["status"]["value"] == "flaky"  # the wire is unchanged
    assert [member.value for member in TestHealth] == ["healthy", "flaky", "broken"]
    assert TestHealth("broken") is TestHealth.BROKEN
    assert pickle.loads(pickle.dumps(TestHealth.FLAKY)) is TestHealth.FLAKY


def test_a_health_this_library_does_not_know_stays_a_plain_string() -> None:
    status = TestStatus.from_dict({"value": "quarantine-candidate", "reason": ""})
    assert type(status.value) is str and status.value == "quarantine-candidate"
    assert status.to_dict()["value"] == "quarantine-candidate"
    assert TestStatus.from_dict({"value": "healthy"}).value is TestHealth.HEALTHY


def test_the_dataframe_column_stays_text(client, box, repo) -> None:
    frame = client.iter_unhealthy_tests(repo, box.org_url_slug, "BROKEN", max_results=5).to_pandas()
    assert str(frame["status_value"].dtype) == "string" and set(frame["status_value"]) == {"broken"}


# ---- (d) the iterators say what they will ask for ----------------------------------------------------------------

def test_iterator_reprs_name_their_class_and_query_and_fetch_nothing(client, box, repo) -> None:
    box.clear_requests()
    failing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=5)
    assert repr(failing) == (
        f"<TestIterator iter_failing_tests(repo='{repo.host}/{repo.owner}/{repo.name}', org_url_slug='{box.org_url_slug}', "
        "start_time='2026-11-13T12:00:00Z', end_time='2026-11-20T12:00:00Z', page_size=100, max_results=5), "
        "not started>")
    unhealthy = client.iter_unhealthy_tests(repo, box.org_url_slug, "flaky", page_size=20)
    assert repr(unhealthy).startswith("<TestIterator iter_unhealthy_tests(") and "status='FLAKY'" in repr(unhealthy)
    assert "page_size=20, max_results=None" in repr(unhealthy)
    quarantined = client.iter_quarantined_tests(repo, box.org_url_slug)
    assert repr(quarantined).startswith(f"<QuarantinedTestIterator iter_quarantined_tests(repo='{repo.host}/{repo.owner}/{repo.name}'")
    pulls = client.iter_pull_requests(repo, "main", state="merged", since=WEEK_START)
    assert repr(pulls) == (
        f"<PullRequestIterator iter_pull_requests(repo='{repo.host}/{repo.owner}/{repo.name}', target_branch='main', "
        "state='merged', since='2026-11-13T12:00:00Z', take=50, max_results=None), not started>")
    assert box.requests == []  # showing an iterator fetches nothing
    next(failing)
    assert repr(failing).endswith(", started>")
    for shown in map(repr, (failing, unhealthy, quarantined, pulls)):
        assert box.token not in shown


# ---- (e) to_pandas() without numpy or pandas ---------------------------------------------------------------------

_WITHOUT = textwrap.dedent("""
    import sys
    for name in sys.argv[1:]:
        sys.modules[name] = None  # as if not installed: importing it raises ModuleNotFoundError
    import trunk_api
    with trunk_api.Sandbox(tests=30, now="2026-11-20T12:00:00Z") as box:
        tests = box.client().iter_unhealthy_tests(box.repos[0], box.org_url_slug, "FLAKY")
        try:
            tests.to_pandas()
        except ModuleNotFoundError as error:
            print("error:", error.name, "|", error)
        print("still whole:", len(tests.to_list()) > 0, len(box.requests))
""")


@pytest.mark.parametrize(("missing", "named"), [(["numpy"], "numpy"), (["pandas"], "pandas"),
                                                (["numpy", "pandas"], "numpy")])  # the first that fails
def test_to_pandas_without_its_libraries_says_what_to_install(missing: list[str], named: str) -> None:
    result = subprocess.run([sys.executable, "-c", _WITHOUT, *missing], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    error_line, whole_line = result.stdout.strip().splitlines()
    assert error_line.startswith(f"error: {named} | to_pandas() needs numpy and pandas, ")
    assert f"cannot import {named}:" in error_line
    assert "pip install 'trunk-api[pandas]'" in error_line and "-m pip install pandas" in error_line
    assert whole_line == "still whole: True 1"  # nothing was fetched before the check; the listing is intact


# ---- (f) naive times are refused, for every time argument ------------------------------------------------------

NAIVE = NOW.replace(tzinfo=None)


def _refusal(call) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        call()
    return caught.value


def test_every_time_argument_refuses_a_naive_datetime(client, box, repo) -> None:
    box.clear_requests()
    cases = {
        "start_time": lambda: client.list_failing_tests(repo, box.org_url_slug, NAIVE - timedelta(days=1), NOW),
        "end_time": lambda: client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NAIVE),
        "since": lambda: client.list_pull_requests(repo, "main", since=NAIVE),
        "now": lambda: trunk_api.Sandbox(now=NAIVE),
    }
    for field, call in cases.items():
        error = _refusal(call)
        assert error.errors[0].field == field  # (a window's end is then also reported against its placeholder)
        assert "time-zone aware" in error.errors[0].rule and "astimezone()" in error.errors[0].rule
    assert box.requests == []


def test_a_naive_pandas_timestamp_and_offsetless_text_are_refused_too(client, box, repo) -> None:
    for naive in (pd.Timestamp("2026-11-19 12:00"), "2026-11-19T12:00:00", "2026-11-19 12:00:00.5"):
        error = _refusal(lambda: client.list_failing_tests(repo, box.org_url_slug, naive, NOW))
        assert error.errors[0].field == "start_time"
        assert "not guessed" in error.errors[0].rule
    assert box.requests == []


def test_aware_times_in_any_zone_give_the_same_instant(client, box, repo) -> None:
    los_angeles = timezone(timedelta(hours=-8))
    for start in (NOW - timedelta(days=1), (NOW - timedelta(days=1)).astimezone(los_angeles),
                  pd.Timestamp("2026-11-19T04:00:00-08:00"), "2026-11-19T12:00:00Z", "2026-11-19T04:00:00-08:00"):
        box.clear_requests()
        client.list_failing_tests(repo, box.org_url_slug, start, NOW, page_size=1)
        assert box.requests[-1].body["start_time"] == "2026-11-19T12:00:00Z"


def test_local_time_is_one_call_away() -> None:
    """The remedy the message gives for local time works: astimezone() makes a naive local time aware."""
    local = datetime(2026, 11, 19, 12, 0).astimezone()
    assert local.utcoffset() is not None


def test_the_command_line_refuses_an_offsetless_start(cli, target):
    run = cli("failing", *target, "--start", "2026-11-19T12:00:00", "--end", "2026-11-20T12:00:00Z")
    assert run.code == 2 and "start_time" in one_line_error(run) and "offset" in one_line_error(run)
