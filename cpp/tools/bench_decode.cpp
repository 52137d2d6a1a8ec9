// Decode time of one 100-test page (the answer a listing reads a thousand times), for the closing notes and
// README: `trunk_bench_decode tests/fixtures/test_case_full.json [rounds]` prints the median microseconds per
// page. The page repeats the fixture's test, which has every field of a test case.
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trunk/codec.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TEST_CASE_JSON [ROUNDS]\n", argv[0]);
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  const std::string test = text.str();
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2000;

  std::string page = R"({"page":{"total_rows":1000,"total_pages":10,"next_page_token":"abc","prev_page_token":"",)"
                     R"("last_page_token":"xyz","page_index":0},"tests":[)";
  for (int i = 0; i < 100; ++i) page += (i ? "," : "") + test;
  page += "]}";

  std::vector<double> micros;
  std::size_t tests = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const auto decoded = trunk::decode<trunk::TestPage>(page);
    const auto end = std::chrono::steady_clock::now();
    tests += decoded.tests.size();
    micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf("page of 100 tests, %zu bytes: median %.1f us, p10 %.1f us, p90 %.1f us (%d rounds, %zu tests)\n",
              page.size(), micros[micros.size() / 2], micros[micros.size() / 10], micros[micros.size() * 9 / 10],
              rounds, tests);
  return 0;
}
