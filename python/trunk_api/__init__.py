"""trunk_api: the Trunk v1 API (merge queue and flaky tests) from Python, with a C++ core.

```python
from trunk_api import Client
client = Client()                      # token from TRUNK_API_TOKEN (or TRUNK_API_KEY)
for test in client.iter_failing_tests("github.com/acme/widgets", "acme", start, end):
    print(test.name, test.failure_rate_last_7d)
```
"""

from trunk_api import _core
from trunk_api._core import (
    Acknowledgement,
    BatchingRule,
    FailureSummary,
    Histogram,
    HistogramBucket,
    MergeQueue,
    MergeQueueConfig,
    MergeQueueIterator,
    MergeQueueList,
    MergeQueueMetrics,
    MergeQueueStateChange,
    MetricSample,
    NoContent,
    PageInfo,
    PullRequest,
    PullRequestIterator,
    PullRequestPage,
    QuarantinedTest,
    QuarantinedTestIterator,
    QuarantinedTestPage,
    QueueSettings,
    Readiness,
    Repo,
    RepositoryRef,
    SubmittedPullRequest,
    TestCase,
    TestIterator,
    TestPage,
    TestRunDetails,
    TestStatus,
    TicketRef,
    __version__,
)
from trunk_api.async_client import AsyncClient
from trunk_api.client import Client
from trunk_api.enums import (
    AllTargets,
    BatchingRulePolicy,
    DirectMergeMode,
    GitHubMergeability,
    HealthStatus,
    ManagedState,
    MergeMethod,
    MergeQueueMode,
    MergeQueueState,
    MergeStrategy,
    OptimizationMode,
    PullRequestState,
    QuarantinedTestStatus,
    QuarantineSetting,
    QueueMode,
    QueueOptimization,
    QueueState,
    RequiredStatusesSource,
    TestBranchConstruction,
    TestHealth,
    TestingStatus,
)
from trunk_api.errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    BulkError,
    ConflictError,
    DecodeError,
    MissingTokenError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeout,
    ServerError,
    TransportError,
    TrunkError,
    ValidationError,
    Violation,
    WebhookVerificationError,
)
from trunk_api.history import FailingTestsHistory, WindowedTest
from trunk_api.sandbox import RecordedRequest, Sandbox
from trunk_api import _arrow, _display, _pandas, errors, webhooks

# The core reaches the facade's exception classes, DataFrame module and Arrow module through what is handed to
# it here; it never imports this package itself.
_core._connect_facade(errors, _pandas, _arrow)

# Notebook display (_repr_html_) for every answer model the core declares and every listing iterator (the
# classes with a page view), sync and async.
_display.install(
    *(getattr(_core, model["name"]) for model in _core.schema()["models"]
      if model["answer"] and hasattr(_core, model["name"])),
    *(cls for cls in vars(_core).values() if isinstance(cls, type) and hasattr(cls, "_page_view")),
)

# The order is the Python API reference page's (docs/reference/python.md): the three ways in first, then the rest
# alphabetically.
__all__ = [
    "Client",
    "AsyncClient",
    "Sandbox",
    "Acknowledgement",
    "AllTargets",
    "ApiError",
    "AuthenticationError",
    "BadRequestError",
    "BatchingRule",
    "BatchingRulePolicy",
    "BulkError",
    "ConflictError",
    "DecodeError",
    "DirectMergeMode",
    "FailingTestsHistory",
    "FailureSummary",
    "GitHubMergeability",
    "HealthStatus",
    "Histogram",
    "HistogramBucket",
    "ManagedState",
    "MergeMethod",
    "MergeQueue",
    "MergeQueueConfig",
    "MergeQueueIterator",
    "MergeQueueList",
    "MergeQueueMetrics",
    "MergeQueueMode",
    "MergeQueueState",
    "MergeQueueStateChange",
    "MergeStrategy",
    "MetricSample",
    "MissingTokenError",
    "NoContent",
    "NotFoundError",
    "OptimizationMode",
    "PageInfo",
    "PaginationError",
    "PermissionDeniedError",
    "PullRequest",
    "PullRequestIterator",
    "PullRequestPage",
    "PullRequestState",
    "QuarantinedTest",
    "QuarantinedTestIterator",
    "QuarantinedTestPage",
    "QuarantinedTestStatus",
    "QuarantineSetting",
    "QueueMode",
    "QueueOptimization",
    "QueueSettings",
    "QueueState",
    "RateLimitError",
    "Readiness",
    "RecordedRequest",
    "Repo",
    "RepositoryRef",
    "RequestTimeout",
    "RequiredStatusesSource",
    "ServerError",
    "SubmittedPullRequest",
    "TestBranchConstruction",
    "TestCase",
    "TestHealth",
    "TestingStatus",
    "TestIterator",
    "TestPage",
    "TestRunDetails",
    "TestStatus",
    "TicketRef",
    "TransportError",
    "TrunkError",
    "ValidationError",
    "Violation",
    "WebhookVerificationError",
    "WindowedTest",
    "__version__",
]
