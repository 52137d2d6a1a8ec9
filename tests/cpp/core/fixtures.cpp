#include "fixtures.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace trunk::testing {

std::string fixture_text(const std::string& name) {
  // Appended piece by piece: GCC 12 wrongly reports `std::string(literal) + "/" + name` as out of bounds
  // (-Warray-bounds, a known false positive of its inlined char_traits copies).
  std::string path = TRUNK_FIXTURES_DIR;
  path += '/';
  path += name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read fixture " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Json fixture_json(const std::string& name) { return Json::parse(fixture_text(name)); }

}  // namespace trunk::testing
