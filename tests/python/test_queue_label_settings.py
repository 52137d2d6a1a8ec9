"""The four label and extension settings of a merge queue (extensionEnabled, enqueueingLabel,
labelCommandsEnabled, stateLabelsEnabled), declared once in the C++ core: on the wire, in the answers, as Python
keywords, as command-line options, in the OpenAPI document, and in the sandbox's state."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import trunk_api
from trunk_api import Repo, ValidationError
from trunk_api._core import declarations

from conftest import ensure_queue

WIRE = {"extension_enabled": "extensionEnabled", "enqueueing_label": "enqueueingLabel",
        "label_commands_enabled": "labelCommandsEnabled", "state_labels_enabled": "stateLabelsEnabled"}


def model(name: str) -> dict:
    return next(m for m in declarations.schema()["models"] if m["name"] == name)


def test_python_keywords_are_the_declared_settings_in_order() -> None:
    """Client.update_queue's keywords, its help and its type checkers' TypedDict are made from the declaration:
    every setting, in order, each with its doc line."""
    fields = [field for field in model("UpdateQueueRequest")["fields"] if field["optional"]]
    declared = [field["name"] for field in fields]
    keywords = [name for name, parameter in inspect.signature(trunk_api.Client.update_queue).parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY]
    assert keywords == declared
    # The TypedDict **settings is typed with, in the generated stubs (it exists for type checkers only).
    stub = (Path(trunk_api.__file__).parent / "_core" / "client.pyi").read_text()
    block = stub.split("class QueueSettingKeywords(TypedDict, total=False):\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split(":")[0].strip() for line in block.splitlines()[1:]] == declared
    for field in fields:
        assert f"``{field['name']}``: {field['doc']}" in trunk_api.Client.update_queue.__doc__
    assert set(WIRE) <= set(declared)
    answer_fields = {field["name"]: field for field in model("QueueSettings")["fields"]}
    for name, wire in WIRE.items():
        assert answer_fields[name]["wire"] == wire


def test_a_misspelt_setting_is_a_type_error_and_sends_nothing(box: trunk_api.Sandbox,
                                                               client: trunk_api.Client, repo: Repo) -> None:
    ensure_queue(box, repo, "labels-typo")
    with pytest.raises(TypeError, match="enqueuing_label"):
        client.update_queue(repo, "labels-typo", enqueuing_label="merge")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="enqueuing_label"):
        client.update_queue(repo, "labels-typo", enqueuing_label="merge", concurrency=2)  # type: ignore[call-arg]
    assert box.requests == []


def test_a_new_queue_answers_them_off_with_no_label(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                    repo: Repo) -> None:
    ensure_queue(box, repo, "labels-default")
    settings = client.get_queue(repo, "labels-default")
    assert (settings.extension_enabled, settings.enqueueing_label, settings.label_commands_enabled,
            settings.state_labels_enabled) == (False, "", False, False)


def test_they_go_on_the_wire_in_camel_case_and_come_back(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                          repo: Repo) -> None:
    ensure_queue(box, repo, "labels-set")
    settings = client.update_queue(repo, "labels-set", extension_enabled=True, enqueueing_label="merge-queue",
                                   label_commands_enabled=True, state_labels_enabled=False)
    (request,) = box.requests
    assert request.body == {"repo": repo.to_dict(), "targetBranch": "labels-set", "extensionEnabled": True,
                            "enqueueingLabel": "merge-queue", "labelCommandsEnabled": True,
                            "stateLabelsEnabled": False}
    assert (settings.extension_enabled, settings.enqueueing_label, settings.label_commands_enabled,
            settings.state_labels_enabled) == (True, "merge-queue", True, False)
    # Not given: not sent, and unchanged.
    box.clear_requests()
    again = client.update_queue(repo, "labels-set", concurrency=2)
    assert box.requests[0].body.keys() == {"repo", "targetBranch", "concurrency"}
    assert (again.extension_enabled, again.enqueueing_label) == (True, "merge-queue")
    assert client.get_queue(repo, "labels-set").label_commands_enabled is True
    # "" sets the label back to none (how the service answers for a queue without one).
    assert client.update_queue(repo, "labels-set", enqueueing_label="").enqueueing_label == ""


@pytest.mark.parametrize(("keyword", "value", "field"), [
    ("extension_enabled", 1, "extensionEnabled"),
    ("enqueueing_label", 5, "enqueueingLabel"),
    ("label_commands_enabled", "yes", "labelCommandsEnabled"),
    ("state_labels_enabled", None, None),  # None is "not sent", never an error
])
def test_wrong_types_name_the_field(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                    keyword: str, value: object, field: str | None) -> None:
    if field is None:
        client.update_queue(repo, "main", **{keyword: value})  # type: ignore[arg-type]
        assert WIRE[keyword] not in box.requests[0].body
        return
    with pytest.raises(ValidationError) as caught:
        client.update_queue(repo, "main", **{keyword: value})  # type: ignore[arg-type]
    assert [v.field for v in caught.value.errors] == [field]
    assert box.requests == []


def test_the_sandbox_refuses_wrong_types_on_the_wire(box: trunk_api.Sandbox, repo: Repo) -> None:
    import urllib.error
    import urllib.request

    body = {"repo": repo.to_dict(), "targetBranch": "main", "enqueueingLabel": 7}
    request = urllib.request.Request(box.url + "/v1/updateQueue", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "x-api-token": box.token})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 400
    assert "enqueueingLabel: expected string, got number" in caught.value.read().decode()


def test_openapi_declares_them_in_the_request_and_the_answer() -> None:
    document = json.loads(declarations.openapi_document())
    schemas = document["components"]["schemas"]
    for schema_name in ("UpdateQueueRequest", "QueueSettings"):
        properties = schemas[schema_name]["properties"]
        assert properties["extensionEnabled"]["type"] == "boolean", schema_name
        assert properties["enqueueingLabel"]["type"] == "string", schema_name
        assert properties["labelCommandsEnabled"]["type"] == "boolean", schema_name
        assert properties["stateLabelsEnabled"]["type"] == "boolean", schema_name
        assert "browser extension" in properties["extensionEnabled"]["description"]
        assert not set(WIRE.values()) & set(schemas[schema_name].get("required", []))
