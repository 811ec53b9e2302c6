// The plan's image names: digests made up once per repo:tag (plan.h).
#include <fmt/format.h>

#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"

namespace knobsim::gen_export {

std::string Digest(Plan& plan, const std::string& repo, const std::string& tag) {
  const std::string key = repo + ":" + tag;
  auto it = plan.digests.find(key);
  if (it != plan.digests.end()) return it->second;
  Rng rng(HashText(key) ^ plan.o.seed);
  return plan.digests[key] = rng.Hex(64);
}

std::string ImageRef(Plan& plan, const Container& c) {
  const std::string repo = fmt::format("{}/{}", kRegistry, c.repo);
  if (c.by_digest) return repo + "@sha256:" + Digest(plan, c.repo, c.tag);
  return repo + ":" + c.tag;
}

}  // namespace knobsim::gen_export
