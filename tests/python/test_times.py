"""Times in every accepted form: aware datetime (any offset), aware pandas.Timestamp, RFC 3339 strings with
their offset; bad forms, naive times among them (test_newcomer.py), are a ValidationError naming the field.
Returned times are aware UTC."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

import trunk_api
from trunk_api import Repo, ValidationError

from conftest import NOW, WEEK_START

EXPECTED = {"start_time": "2026-11-13T12:00:00Z", "end_time": "2026-11-20T12:00:00Z"}


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (WEEK_START, NOW),
        (WEEK_START.astimezone(timezone(timedelta(hours=5, minutes=30))), NOW.astimezone(ZoneInfo("America/New_York"))),
        (pd.Timestamp("2026-11-13T12:00:00Z"), pd.Timestamp("2026-11-20 13:00", tz="Europe/Paris")),
        (pd.Timestamp("2026-11-13 12:00").tz_localize("UTC"), NOW),  # localized pandas.Timestamp
        ("2026-11-13T12:00:00Z", "2026-11-20T14:00:00+02:00"),
        ("2026-11-13 12:00:00+00:00", "2026-11-20t12:00:00.000z"),
    ],
    ids=["aware", "offsets", "pandas", "pandas-localized", "rfc3339", "rfc3339-variants"],
)
def test_accepted_forms(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, start: object,
                        end: object) -> None:
    client.list_failing_tests(repo, box.org_url_slug, start, end, page_size=1)  # type: ignore[arg-type]
    body = box.requests[-1].body
    assert {key: body[key] for key in EXPECTED} == EXPECTED


def test_microseconds_kept_and_nanoseconds_truncated(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                     repo: Repo) -> None:
    start = pd.Timestamp("2026-11-13T12:00:00.123456789Z")
    client.list_failing_tests(repo, box.org_url_slug, start, NOW, page_size=1)
    assert box.requests[-1].body["start_time"] == "2026-11-13T12:00:00.123456Z"


def test_exactly_seven_days_passes_one_microsecond_more_fails(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                             repo: Repo) -> None:
    client.list_failing_tests(repo, box.org_url_slug, NOW - timedelta(days=7), NOW, page_size=1)
    with pytest.raises(ValidationError) as caught:
        client.list_failing_tests(repo, box.org_url_slug, NOW - timedelta(days=7, microseconds=1), NOW)
    assert {v.field for v in caught.value.errors} & {"start_time", "end_time"}
    with pytest.raises(ValidationError):
        client.list_failing_tests(repo, box.org_url_slug, NOW, NOW)  # empty window
    assert len(box.requests) == 1


@pytest.mark.parametrize(
    ("start", "rule_part"),
    [
        ("yesterday", ""),
        ("2026-02-30T00:00:00Z", ""),
        ("2026-11-13T25:00:00Z", ""),
        ("", ""),
        (date(2026, 11, 13), "datetime"),
        (1763035200, "datetime"),
        (pd.NaT, "datetime"),
        (None, "datetime"),
    ],
)
def test_bad_times_name_the_field(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, start: object,
                                  rule_part: str) -> None:
    with pytest.raises(ValidationError) as caught:
        client.list_failing_tests(repo, box.org_url_slug, start, NOW)  # type: ignore[arg-type]
    violation = caught.value.errors[0]
    assert violation.field == "start_time"
    assert rule_part in violation.rule
    assert "start_time" in str(caught.value)
    assert box.requests == []


def test_both_bad_times_reported_together(client: trunk_api.Client, repo: Repo, box: trunk_api.Sandbox) -> None:
    with pytest.raises(ValidationError) as caught:
        client.list_failing_tests(repo, box.org_url_slug, "nope", "never")
    assert [v.field for v in caught.value.errors] == ["start_time", "end_time"]


def test_returned_times_are_aware_utc(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    test = client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
    assert test.status is not None and test.status.timestamp is not None
    assert test.status.timestamp.tzinfo is timezone.utc
    assert test.status.timestamp <= NOW
    for failure in test.most_common_failures or []:
        assert failure.last_occurrence is not None and failure.last_occurrence.tzinfo is timezone.utc
    assert box.now == NOW and box.now.tzinfo is timezone.utc
    assert isinstance(box.now, datetime)
