"""Dataclass-like behaviour of every result class: repr, ==, immutability, pickle, copy, to_dict/from_dict
(unknown keys kept), match statements; and Repo construction and parsing."""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timezone
from typing import Any

import pytest

import trunk_api
from trunk_api import (
    DecodeError,
    FailureSummary,
    PageInfo,
    QueueSettings,
    QueueState,
    Repo,
    RepositoryRef,
    TestCase,
    TestPage,
    TestStatus,
    TicketRef,
    ValidationError,
)

FULL_TEST: dict[str, Any] = {
    "id": "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80",
    "repository": {"html_url": "https://github.com/acme/widgets"},
    "html_url": "https://app.trunk.io/acme/flaky-tests/test/0f3c6a8e",
    "name": "test_checkout",
    "variant": "linux",
    "status": {"reason": " flaky since Tuesday", "timestamp": "2026-11-19T08:30:00.125000Z", "value": "flaky"},
    "most_common_failures": [
        {"summary": "AssertionError", "occurrence_count": 4, "last_occurrence": "2026-11-19T08:30:00Z"}
    ],
    "failure_rate_last_7d": 0.25,
    "failure_rate_last_24h": 0.0,
    "codeowners": ["@acme/web"],
    "pull_requests_impacted_last_7d": 3,
    "quarantined": True,
    "file_path": "tests/test_checkout.py",
    "parent": "TestCheckout",
    "classname": "tests.test_checkout.TestCheckout",
    "ticket": {"html_url": "https://linear.app/acme/issue/WEB-1"},
}

QUEUE: dict[str, Any] = {
    "state": "running",
    "branch": "main",
    "concurrency": 2,
    "testingTimeoutMinutes": 60,
    "mode": "parallel",
    "canOptimisticallyMerge": True,
    "pendingFailureDepth": 1,
    "batch": False,
    "batchingMaxWaitTimeMinutes": 5,
    "batchingMinSize": 1,
    "createPrsForTestingBranches": True,
    "commentsEnabled": True,
    "commandsEnabled": False,
    "statusCheckEnabled": True,
    "bisectionConcurrency": 3,
    "requiredStatuses": ["ci/test"],
    "directMergeMode": "off",
    "optimizationMode": "bisection_skip_redundant_tests",
    "mergeMethod": "squash",
}

PAGE: dict[str, Any] = {
    "tests": [FULL_TEST],
    "page": {
        "total_rows": 1,
        "total_pages": 1,
        "next_page_token": "",
        "prev_page_token": "",
        "last_page_token": "",
        "page_index": 0,
    },
}


def samples() -> list[Any]:
    return [
        TestCase.from_dict(FULL_TEST),
        TestCase.from_dict({"id": FULL_TEST["id"]}),
        QueueSettings.from_dict(QUEUE),
        TestPage.from_dict(PAGE),
        PageInfo.from_dict(PAGE["page"]),
        TestStatus.from_dict(FULL_TEST["status"]),
        FailureSummary.from_dict(FULL_TEST["most_common_failures"][0]),
        RepositoryRef.from_dict(FULL_TEST["repository"]),
        TicketRef.from_dict(FULL_TEST["ticket"]),
        Repo(host="github.com", owner="acme", name="widgets"),
    ]


def test_test_case_fields_under_wire_names() -> None:
    test = TestCase.from_dict(FULL_TEST)
    assert test.id == FULL_TEST["id"]
    assert test.repository == RepositoryRef.from_dict({"html_url": "https://github.com/acme/widgets"})
    assert test.repository is not None and test.repository.html_url == "https://github.com/acme/widgets"
    assert test.status is not None
    assert test.status.reason == " flaky since Tuesday"  # free text kept exactly, leading space included
    assert test.status.value == "flaky"
    assert test.status.timestamp == datetime(2026, 11, 19, 8, 30, 0, 125000, tzinfo=timezone.utc)
    assert test.most_common_failures is not None
    assert test.most_common_failures[0].occurrence_count == 4
    assert test.failure_rate_last_7d == 0.25 and test.failure_rate_last_24h == 0.0
    assert test.codeowners == ["@acme/web"]
    assert test.pull_requests_impacted_last_7d == 3
    assert test.quarantined is True
    assert (test.file_path, test.parent, test.classname) == (
        "tests/test_checkout.py",
        "TestCheckout",
        "tests.test_checkout.TestCheckout",
    )
    assert test.ticket is not None and test.ticket.html_url == "https://linear.app/acme/issue/WEB-1"


def test_absent_fields_are_none() -> None:
    test = TestCase.from_dict({"id": "x", "status": None})
    for name in TestCase.__match_args__:
        if name != "id":
            assert getattr(test, name) is None, name


def test_queue_settings_snake_case_and_enum_members() -> None:
    settings = QueueSettings.from_dict(QUEUE)
    assert settings.state is QueueState.RUNNING
    assert settings.state == "running"
    assert settings.mode is trunk_api.QueueMode.PARALLEL
    assert settings.optimization_mode is trunk_api.OptimizationMode.BISECTION_SKIP_REDUNDANT_TESTS
    assert settings.merge_method is trunk_api.MergeMethod.SQUASH
    assert settings.direct_merge_mode is trunk_api.DirectMergeMode.OFF
    assert settings.testing_timeout_minutes == 60
    assert settings.bisection_concurrency == 3
    assert settings.batching_max_wait_time_minutes == 5
    assert settings.can_optimistically_merge is True and settings.commands_enabled is False
    assert settings.required_statuses == ["ci/test"]


def test_unknown_enum_value_stays_raw_string_and_round_trips() -> None:
    data = dict(QUEUE, state="frozen", mode="hyper", mergeMethod="octopus")
    settings = QueueSettings.from_dict(data)
    assert settings.state == "frozen" and type(settings.state) is str
    assert settings.mode == "hyper" and type(settings.mode) is str
    assert settings.merge_method == "octopus"
    assert settings.to_dict() == data


def test_repr_names_class_and_fields() -> None:
    text = repr(TestCase.from_dict(FULL_TEST))
    assert text.startswith("TestCase(id='0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80', name='test_checkout', ")
    assert "repository=RepositoryRef(html_url=" in text
    assert "failure_rate_last_7d=0.25" in text and "ticket=TicketRef(html_url=" in text
    assert repr(Repo(host="h", owner="o", name="n")) == "Repo(host='h', owner='o', name='n')"
    # The queue's branch, then its settings in their declared order (queue_setting_rows.hpp).
    assert repr(QueueSettings.from_dict(QUEUE)).startswith(
        "QueueSettings(branch='main', state=<QueueState.RUNNING: 'running'>, concurrency=2, ")


@pytest.mark.parametrize("value", samples(), ids=lambda v: type(v).__name__)
def test_equality_by_value_and_false_for_foreign_types(value: Any) -> None:
    same = type(value).from_dict(value.to_dict())
    assert value == same and not (value != same)
    assert value != value.to_dict()
    assert (value == object()) is False
    assert value != "text" and value != None  # noqa: E711 - comparing with None on purpose


def test_inequality_when_one_field_differs() -> None:
    assert TestCase.from_dict(FULL_TEST) != TestCase.from_dict(dict(FULL_TEST, quarantined=False))
    assert TestCase.from_dict(FULL_TEST) != TestCase.from_dict(dict(FULL_TEST, extra_key=1))


@pytest.mark.parametrize("value", samples(), ids=lambda v: type(v).__name__)
def test_immutable(value: Any) -> None:
    name = type(value).__match_args__[0]
    with pytest.raises(AttributeError):
        setattr(value, name, None)
    with pytest.raises(AttributeError):
        value.brand_new_attribute = 1


@pytest.mark.parametrize("value", samples(), ids=lambda v: type(v).__name__)
def test_pickle_copy_deepcopy_round_trip(value: Any) -> None:
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(value, protocol=protocol))
        assert restored == value and type(restored) is type(value)
    assert copy.copy(value) == value and copy.copy(value) is not value
    assert copy.deepcopy(value) == value and copy.deepcopy(value) is not value


def test_a_model_inside_a_model_is_a_view_that_keeps_its_parent() -> None:
    """Reading a nested model copies nothing: the same object while one is alive, valid after its parent goes."""
    import gc

    test = TestCase.from_dict(FULL_TEST)
    status = test.status
    assert status is test.status and test.repository is test.repository
    assert TestCase.from_dict({"id": "x"}).status is None
    copied = copy.deepcopy(status)
    del test
    gc.collect()
    assert status.reason == " flaky since Tuesday" and status.value == "flaky"  # the parent is kept alive
    assert copied == status and copied is not status
    assert pickle.loads(pickle.dumps(status)) == status
    with pytest.raises(AttributeError):
        status.reason = "changed"  # type: ignore[misc]


def test_pickle_state_is_versioned() -> None:
    state = TestCase.from_dict(FULL_TEST).__getstate__()
    assert state == (1, TestCase.from_dict(FULL_TEST).to_dict())
    with pytest.raises(DecodeError):
        TestCase.__new__(TestCase).__setstate__((99, {}))


@pytest.mark.parametrize(
    ("cls", "data"),
    [(TestCase, FULL_TEST), (QueueSettings, QUEUE), (TestPage, PAGE), (PageInfo, PAGE["page"])],
    ids=["TestCase", "QueueSettings", "TestPage", "PageInfo"],
)
def test_to_dict_is_the_wire_json_and_keeps_unknown_keys(cls: Any, data: dict[str, Any]) -> None:
    assert cls.from_dict(data).to_dict() == data
    with_unknown = dict(data, brand_new_field={"nested": [1, 2.5, None, True]}, another="x")
    value = cls.from_dict(with_unknown)
    assert value.to_dict() == with_unknown
    assert value.extra == {"brand_new_field": {"nested": [1, 2.5, None, True]}, "another": "x"}


def test_nested_unknown_keys_kept() -> None:
    data = dict(FULL_TEST, status=dict(FULL_TEST["status"], since="2026-01-01"))
    test = TestCase.from_dict(data)
    assert test.status is not None and test.status.extra == {"since": "2026-01-01"}
    assert test.to_dict() == data


def test_hash_policy() -> None:
    assert hash(Repo(host="h", owner="o", name="n")) == hash(Repo.parse("h/o/n"))
    assert len({Repo(host="h", owner="o", name="n"), Repo.parse("h/o/n")}) == 1
    with pytest.raises(TypeError):
        hash(TestCase.from_dict(FULL_TEST))


def test_match_statement() -> None:
    test = TestCase.from_dict(FULL_TEST)
    match test:
        case TestCase(id=test_id, quarantined=True, status=TestStatus(value="flaky", reason=reason)):
            assert test_id == FULL_TEST["id"]
            assert reason == " flaky since Tuesday"
        case _:
            pytest.fail("the class pattern did not match")
    match Repo.parse("gitlab.com/group/sub/project"):
        case Repo(host, owner, name):
            assert (host, owner, name) == ("gitlab.com", "group/sub", "project")
        case _:
            pytest.fail("positional pattern did not match")


def test_from_dict_wrong_type_names_the_path() -> None:
    with pytest.raises(DecodeError) as caught:
        TestCase.from_dict(dict(FULL_TEST, failure_rate_last_7d="high"))
    assert caught.value.path == "failure_rate_last_7d"
    with pytest.raises(DecodeError) as caught:
        TestPage.from_dict({"tests": [{}, {"codeowners": [1]}], "page": {}})
    assert caught.value.path.startswith("tests[1].codeowners")
    with pytest.raises(DecodeError) as caught:
        TestCase.from_dict({"status": {"timestamp": datetime(2026, 1, 1)}})
    assert "status.timestamp" in str(caught.value)
    with pytest.raises(DecodeError):
        TestCase.from_dict({"pull_requests_impacted_last_7d": 2**70})


def test_repo_construction_parse_and_validation() -> None:
    repo = Repo(host="gitlab.com", owner="group/sub", name="project")
    assert str(repo) == "gitlab.com/group/sub/project"
    assert Repo.parse(str(repo)) == repo
    assert Repo("github.com", "acme", "widgets") == Repo.parse("github.com/acme/widgets")
    assert repo.to_dict() == {"host": "gitlab.com", "owner": "group/sub", "name": "project"}
    with pytest.raises(ValidationError) as caught:
        Repo.parse("github.com/acme")
    assert caught.value.errors[0].field == "repo"
    with pytest.raises(ValidationError) as caught:
        Repo(host="", owner="acme", name=7)  # type: ignore[arg-type]
    fields = {violation.field for violation in caught.value.errors}
    assert fields == {"repo.host", "repo.name"}
    assert isinstance(caught.value, ValueError)


def test_models_have_no_public_constructor_surprises() -> None:
    with pytest.raises(TypeError):
        TestCase()  # type: ignore[call-arg]
