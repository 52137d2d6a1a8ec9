#pragma once
// The four merge queue settings of labels and the browser extension, which the service has accepted in
// updateQueue and returned in getQueue/updateQueue since mid-2026 (docs/reference/merge-queue-settings.md).
// Declared once: updateQueue's request (requests.hpp) and the settings of the answers (queue_settings.hpp)
// both expand this list, so the Python keyword, the CLI option, the stubs, the OpenAPI document and the
// sandbox's state follow from these rows alone.
//
// The same type serves both sides (no enumerations here), and the rules are kNone on both: in a request each
// is optional like every setting, and an answer from a service older than these settings leaves them out
// (the tolerant decoder then reads them as absent). enqueueingLabel may be "": that is how the service answers
// for a queue with no such label, so a request may set it back to none.

#include <optional>
#include <string>

#include "trunk/describe.hpp"

// X(type, member, "wireName", init, rules, "doc"), as in describe.hpp.
#define TRUNK_QUEUE_LABEL_SETTINGS_FIELDS(X)                                                                    \
  X(std::optional<bool>, extension_enabled, "extensionEnabled", {}, ::trunk::schema::kNone,                   \
    "show the merge queue's controls on the repository's pull requests in Trunk's browser extension")         \
  X(std::optional<std::string>, enqueueing_label, "enqueueingLabel", {}, ::trunk::schema::kNone,              \
    "the GitHub label whose application submits a pull request to the queue (\"\": none)")                   \
  X(std::optional<bool>, label_commands_enabled, "labelCommandsEnabled", {}, ::trunk::schema::kNone,          \
    "accept label commands: adding or removing labels submits or cancels a pull request")                    \
  X(std::optional<bool>, state_labels_enabled, "stateLabelsEnabled", {}, ::trunk::schema::kNone,              \
    "label each pull request with its merge queue state")
