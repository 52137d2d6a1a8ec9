"""The C++ column builder behind to_pandas() (python/src/to_columns.cpp): it pauses Python's cyclic garbage
collector while it builds (restoring whatever state it found) and shares one str
object between neighbouring rows with the same value, without changing any value."""

from __future__ import annotations

import gc

import trunk_api
from trunk_api import Repo
from trunk_api._core import tables

from conftest import NOW, WEEK_START


def test_builder_restores_the_collector_state_it_found(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    tests = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_list()
    assert len(tests) > 100
    was_enabled = gc.isenabled()
    try:
        gc.enable()
        tables.test_columns(tests)
        assert gc.isenabled()
        gc.disable()
        tables.test_columns(tests)
        assert not gc.isenabled()
    finally:
        (gc.enable if was_enabled else gc.disable)()


def test_shared_neighbour_strings_keep_every_value(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    tests = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_list()
    columns = tables.test_columns(tests)
    for name, field in (("file_path", "file_path"), ("classname", "classname"), ("parent", "parent"), ("id", "id")):
        kind, values, _ = columns[name]
        assert kind == "str"
        assert values == [getattr(test, field) for test in tests], name
    _, repository_urls, _ = columns["repository_html_url"]
    assert repository_urls == [test.repository.html_url if test.repository else None for test in tests]
    # Neighbours with equal text share one object (the listing is ordered by file, so runs are common).
    _, paths, _ = columns["file_path"]
    assert any(a is b for a, b in zip(paths, paths[1:]))
    _, statuses, _ = columns["status_value"]
    assert statuses == [test.status.value if test.status else None for test in tests]
