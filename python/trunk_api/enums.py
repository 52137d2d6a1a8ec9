"""The enumerations of the Trunk API (v1 and v2) as real :class:`enum.Enum` classes.

Every member is also a ``str`` whose value is the exact wire string, so ``QueueState.PAUSED == "paused"``
and members can be used anywhere a string is expected; ``str()`` and ``format()`` give the wire string.
Results carry the member when the value is one this library knows, and the raw string otherwise (the
service adds values over time).

The classes are made by the C++ core from its declarations of the API (one list of wire values per
enumeration); this module is where they live for users, type checkers and pickles.
"""

from __future__ import annotations

from trunk_api._core import (
    AllTargets,
    BatchingRulePolicy,
    DirectMergeMode,
    GitHubMergeability,
    HealthStatus,
    ManagedState,
    Mergeability,
    MergeabilityReasonCode,
    MergeMethod,
    MergeQueueMode,
    MergeQueueState,
    MergeStrategy,
    MonitorStatus,
    OptimizationMode,
    PullRequestProviderState,
    PullRequestState,
    QuarantinedTestStatus,
    QuarantineSetting,
    QuarantiningSetting,
    QueueEntryState,
    QueueEventAction,
    QueueMode,
    QueueOptimization,
    QueueState,
    RepositoryProvider,
    RequiredStatusesSource,
    TestBranchConstruction,
    TestHealth,
    TestingStatus,
    WebhookEventType,
)

__all__ = [
    "AllTargets",
    "BatchingRulePolicy",
    "DirectMergeMode",
    "GitHubMergeability",
    "HealthStatus",
    "ManagedState",
    "Mergeability",
    "MergeabilityReasonCode",
    "MergeMethod",
    "MergeQueueMode",
    "MergeQueueState",
    "MergeStrategy",
    "MonitorStatus",
    "OptimizationMode",
    "PullRequestProviderState",
    "PullRequestState",
    "QuarantinedTestStatus",
    "QuarantineSetting",
    "QuarantiningSetting",
    "QueueEntryState",
    "QueueEventAction",
    "QueueMode",
    "QueueOptimization",
    "QueueState",
    "RepositoryProvider",
    "RequiredStatusesSource",
    "TestBranchConstruction",
    "TestHealth",
    "TestingStatus",
    "WebhookEventType",
]
