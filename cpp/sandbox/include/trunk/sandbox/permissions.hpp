#pragma once
// The permissions a v2 API key may hold, as Trunk's settings page lists them (docs/sandbox.md#api-keys). A key
// with none can read merge queues and change nothing in them. The sandbox's own key (Sandbox::api_key) holds every
// one; Sandbox::create_api_key makes a key with the ones given. Which v2 operation needs which is the sandbox's
// reading of the docs (cpp/sandbox/src/v2_permissions.hpp).

#include <array>
#include <optional>
#include <string_view>

namespace trunk::sandbox {

/// X(enumerator, "name": the enumerator's own spelling, as Python and the CLI take it, "the settings page's label")
#define TRUNK_SANDBOX_PERMISSIONS(X)                                                                          \
  X(merge_and_cancel_prs, "Merge and cancel PRs")                                                             \
  X(set_priority, "Set priority on PRs")                                                                      \
  X(skip_batching, "Skip batching")                                                                           \
  X(direct_to_queue, "Merge PRs with direct to queue")                                                        \
  X(update_merge_queue_settings, "Update Merge Queue settings")                                               \
  X(upload_test_results, "Upload test results")                                                               \
  X(quarantine_tests, "Quarantine tests")                                                                     \
  X(flag_tests, "Flag tests")                                                                                 \
  X(manage_monitors, "Manage monitors")                                                                       \
  X(mute_monitors, "Mute monitors")                                                                           \
  X(link_tickets, "Link tickets")                                                                             \
  X(create_tickets, "Create tickets")

enum class Permission {
#define TRUNK_PERMISSION_ENUMERATOR_(name, label) name,
  TRUNK_SANDBOX_PERMISSIONS(TRUNK_PERMISSION_ENUMERATOR_)
#undef TRUNK_PERMISSION_ENUMERATOR_
};

/// Every permission's name (its enumerator's spelling), in declaration order.
inline constexpr std::array kPermissionNames = {
#define TRUNK_PERMISSION_NAME_(name, label) std::string_view(#name),
    TRUNK_SANDBOX_PERMISSIONS(TRUNK_PERMISSION_NAME_)
#undef TRUNK_PERMISSION_NAME_
};
/// Every permission's label on Trunk's settings page, in declaration order.
inline constexpr std::array kPermissionLabels = {
#define TRUNK_PERMISSION_LABEL_(name, label) std::string_view(label),
    TRUNK_SANDBOX_PERMISSIONS(TRUNK_PERMISSION_LABEL_)
#undef TRUNK_PERMISSION_LABEL_
};

constexpr std::string_view permission_name(Permission p) noexcept { return kPermissionNames[static_cast<std::size_t>(p)]; }
constexpr std::string_view permission_label(Permission p) noexcept {
  return kPermissionLabels[static_cast<std::size_t>(p)];
}
/// The permission a name stands for (exactly its enumerator's spelling); nullopt for any other text.
constexpr std::optional<Permission> permission_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kPermissionNames.size(); ++i) {
    if (kPermissionNames[i] == name) return static_cast<Permission>(i);
  }
  return std::nullopt;
}

}  // namespace trunk::sandbox
