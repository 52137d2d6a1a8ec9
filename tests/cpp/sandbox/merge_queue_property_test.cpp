// Property test of the merge queue: for each seed, a deterministic random sequence of operations (submissions
// with priorities and noBatch, cancel, restart, settings, pause / drain / resume, mode switches, impacted
// targets, advancing the clock), checking after every step what must always hold:
//  - no pull request is lost or doubled (the listing and getQueue's list agree with what was submitted);
//  - a concluded pull request never changes;
//  - a broken pull request never merges;
//  - a queue paused for a whole step merges nothing;
//  - the slots held never exceed the concurrency of their queue type (after a lowering, they only shrink);
//  - the metrics (the exposition itself) agree with the listing.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "queue_harness.hpp"
#include "queue_metrics.hpp"
#include "random.hpp"

namespace sandbox_test {
namespace {

using State = trunk::PullRequestState;
using trunk::sandbox::QueueType;

bool concluded(State s) { return s == State::merged || s == State::failed || s == State::cancelled; }

class PropertyRun {
 public:
  explicit PropertyRun(std::uint64_t seed) : h_(0.15, 0.15, seed), dice_(seed * 7919 + 1) {
    for (std::int64_t n = 1; n <= kNumbers; ++n) broken_[n] = h_.broken(n);
  }

  void step() {
    const auto merged_before = merged_count();
    const bool paused_before = h_.settings.state == trunk::QueueState::paused;
    const auto held_before = std::pair{h_.queue().slots_held(QueueType::main), h_.queue().slots_held(QueueType::bisection)};
    const std::int64_t number = 1 + static_cast<std::int64_t>(pick(kNumbers));
    switch (pick(10)) {
      case 0:
      case 1: {
        static const std::optional<trunk::Priority> priorities[] = {
            std::nullopt, trunk::Priority{std::string("urgent")}, trunk::Priority{std::string("high")},
            trunk::Priority{std::string("low")}, trunk::Priority{std::int64_t{37}}};
        if (!h_.submit(number, priorities[pick(5)], pick(4) == 0)) ++submitted_;
        break;
      }
      case 2: {
        trunk::QueueSettings settings = h_.settings;
        (void)h_.queue().cancel(number, settings);
        break;
      }
      case 3:
        (void)h_.queue().restart(number, h_.settings);
        break;
      case 4:
        h_.settings.concurrency = 1 + static_cast<std::int64_t>(pick(4));
        h_.settings.batch = pick(2) == 0;
        h_.settings.batching_min_size = 1 + static_cast<std::int64_t>(pick(4));
        h_.settings.pending_failure_depth = static_cast<std::int64_t>(pick(3));
        h_.settings.can_optimistically_merge = pick(2) == 0;
        h_.settings.bisection_concurrency = pick(2) == 0 ? std::optional<std::int64_t>{} : 1 + static_cast<std::int64_t>(pick(3));
        h_.settings.optimization_mode = pick(2) == 0 ? trunk::OptimizationMode::off
                                                     : trunk::OptimizationMode::bisection_skip_redundant_tests;
        h_.settings.testing_timeout_minutes = pick(4) == 0 ? 20 : 300;
        h_.settings.direct_merge_mode = pick(3) == 0 ? trunk::DirectMergeMode::always : trunk::DirectMergeMode::off;
        h_.apply();
        break;
      case 5: {
        static const trunk::QueueState states[] = {trunk::QueueState::running, trunk::QueueState::paused,
                                                   trunk::QueueState::draining};
        h_.settings.state = states[pick(3)];
        h_.apply();
        break;
      }
      case 6:
        h_.settings.mode = h_.settings.mode == trunk::QueueMode::single ? trunk::QueueMode::parallel : trunk::QueueMode::single;
        h_.queue().begin_mode_switch();
        h_.apply();
        break;
      case 7: {
        static const char* names[] = {"a", "b", "c"};
        if (h_.queue().submitted(number).index() != 0) break;
        if (pick(4) == 0) {
          h_.targets(number, std::nullopt);
        } else {
          std::vector<std::string> targets{names[pick(3)]};
          if (pick(2) == 0) targets.emplace_back(names[pick(3)]);
          std::sort(targets.begin(), targets.end());
          targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
          h_.targets(number, targets);
        }
        break;
      }
      default:
        h_.minutes(1 + static_cast<int>(pick(30)));
        break;
    }
    check(merged_before, paused_before && h_.settings.state == trunk::QueueState::paused, held_before);
  }

  const trunk::sandbox::QueueTally& tally() const { return h_.queue().tally(); }

 private:
  static constexpr std::int64_t kNumbers = 40;

  std::uint64_t pick(std::uint64_t n) { return dice_.next() % n; }

  std::vector<trunk::PullRequest> listing() {
    std::vector<trunk::PullRequest> out;
    trunk::ListPullRequestsRequest request;
    request.take = 100;
    for (;;) {
      auto page = std::get<trunk::PullRequestPage>(h_.queue().list(request));
      for (auto& pr : page.pull_requests) out.push_back(std::move(pr));
      if (!page.next_cursor) break;
      request.cursor = page.next_cursor;
    }
    return out;
  }

  std::size_t merged_count() const { return h_.queue().tally().merged; }

  void check(std::size_t merged_before, bool paused_throughout, std::pair<std::size_t, std::size_t> held_before) {
    auto& q = h_.queue();
    const auto listed = listing();
    // No pull request lost or doubled.
    ASSERT_EQ(listed.size(), submitted_);
    std::map<std::int64_t, int> open_per_number;
    std::map<State, std::size_t> per_state;
    for (std::size_t i = 0; i < listed.size(); ++i) {
      const auto& pr = listed[i];
      const State state = *pr.state->known();
      const std::int64_t number = pr.pr_number.value_or(0);
      const std::optional<trunk::Timestamp> changed_at = pr.state_changed_at;
      ++per_state[state];
      if (!concluded(state)) ++open_per_number[number];
      // A concluded pull request never changes (the listing keeps submission order: index i is one submission).
      if (const auto it = concluded_.find(i); it != concluded_.end()) {
        ASSERT_EQ(state, it->second.first) << "submission " << i << " changed after it concluded";
        ASSERT_EQ(changed_at, it->second.second);
      } else if (concluded(state)) {
        concluded_[i] = {state, changed_at};
      }
      if (state == State::merged) {
        ASSERT_FALSE(broken_[number]) << "broken pull request " << number << " merged";
      }
    }
    for (const auto& [number, count] : open_per_number) ASSERT_EQ(count, 1) << "pull request " << number << " twice";
    const auto enqueued = q.enqueued();
    ASSERT_EQ(enqueued.size(), q.unconcluded());
    std::set<std::int64_t> enqueued_numbers;
    for (const auto& pr : enqueued) enqueued_numbers.insert(pr.pr_number.value_or(0));
    ASSERT_EQ(enqueued_numbers.size(), enqueued.size());
    ASSERT_EQ(enqueued.size(), open_per_number.size());
    // A paused queue never merges.
    if (paused_throughout) {
      ASSERT_EQ(merged_count(), merged_before) << "merged while paused";
    }
    // Slots never exceed the concurrency of their queue type (a lowered concurrency only lets them shrink).
    const auto concurrency = static_cast<std::size_t>(h_.settings.concurrency.value_or(1));
    const auto bisection = static_cast<std::size_t>(h_.settings.bisection_concurrency.value_or(h_.settings.concurrency.value_or(1)));
    const auto main_held = q.slots_held(QueueType::main), bisection_held = q.slots_held(QueueType::bisection);
    ASSERT_TRUE(main_held <= concurrency || main_held <= held_before.first) << main_held << " > " << concurrency;
    ASSERT_TRUE(bisection_held <= bisection || bisection_held <= held_before.second) << bisection_held << " > " << bisection;
    // The metrics agree with the listing.
    trunk::QueueSettings settings = h_.settings;
    const auto metrics = trunk::MergeQueueMetrics::parse(
        trunk::sandbox::prometheus_metrics({{"acme/storefront", "main", &q, settings}}));
    const auto value = [&](const char* name, trunk::Json labels = trunk::Json::object()) {
      return metrics.value_of(name, labels).value_or(-1);
    };
    const double open = static_cast<double>(q.unconcluded());
    ASSERT_EQ(value("mq_depth_current", {{"queue_type", "main"}}) + value("mq_depth_current", {{"queue_type", "bisection"}}) +
                  value("mq_awaiting_mergeability"),
              open);
    ASSERT_EQ(value("mq_testing_slots_active", {{"queue_type", "main"}}) +
                  value("mq_testing_slots_active", {{"queue_type", "bisection"}}),
              static_cast<double>(per_state[State::testing]));
    for (const State s : {State::merged, State::failed, State::cancelled}) {
      const std::string conclusion(trunk::to_wire(s));
      ASSERT_EQ(value("mq_prs_concluded_total", {{"conclusion", conclusion}}), static_cast<double>(per_state[s])) << conclusion;
      std::size_t last_hour = 0;
      for (const auto& pr : listed) {
        if (*pr.state->known() == s && pr.state_changed_at &&
            *pr.state_changed_at >= q.now() - trunk::sandbox::kTransitionWindow) {
          ++last_hour;
        }
      }
      ASSERT_EQ(value("mq_pr_conclusions_1h_total", {{"queue_type", "main"}, {"conclusion", conclusion}}) +
                    value("mq_pr_conclusions_1h_total", {{"queue_type", "bisection"}, {"conclusion", conclusion}}),
                static_cast<double>(last_hour))
          << conclusion;
    }
  }

  QueueHarness h_;
  trunk::sandbox::Random dice_;
  std::map<std::int64_t, bool> broken_;
  std::size_t submitted_ = 0;
  std::map<std::size_t, std::pair<State, std::optional<trunk::Timestamp>>> concluded_;
};

TEST(MergeQueueProperties, RandomOperationSequencesKeepEveryInvariant) {
  std::uint64_t merged = 0, failed = 0, cancelled = 0, bisection_runs = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    PropertyRun run(seed);
    for (int step = 0; step < 400; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      ASSERT_NO_FATAL_FAILURE(run.step());
    }
    merged += run.tally().merged;
    failed += run.tally().failed;
    cancelled += run.tally().cancelled;
    bisection_runs += run.tally().bisection_runs_started;
  }
  // The sequences reached every outcome the invariants are about.
  EXPECT_GT(merged, 0U);
  EXPECT_GT(failed, 0U);
  EXPECT_GT(cancelled, 0U);
  EXPECT_GT(bisection_runs, 0U);
}

}  // namespace
}  // namespace sandbox_test
