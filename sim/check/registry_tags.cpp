#include "sim/check/registry_tags.h"

#include <fstream>
#include <sstream>

#include "sim/text.h"

namespace knobsim {
namespace {

// Docker's reference normalisation: a first component without '.' or ':' (and not
// "localhost") is a Docker Hub path, and a one-component Hub path lives under library/.
std::string NormaliseRepository(std::string repo) {
  const size_t slash = repo.find('/');
  const std::string first = slash == std::string::npos ? std::string() : repo.substr(0, slash);
  const bool has_registry =
      slash != std::string::npos && (first.find('.') != std::string::npos ||
                                     first.find(':') != std::string::npos || first == "localhost");
  if (has_registry) return repo;
  if (slash == std::string::npos) return "docker.io/library/" + repo;
  return "docker.io/" + repo;
}

}  // namespace

ImageRef ParseImageRef(std::string_view image) {
  ImageRef ref;
  std::string name(image);
  if (const size_t at = name.find('@'); at != std::string::npos) {
    ref.digest = name.substr(at + 1);
    name.resize(at);
  }
  // The tag follows the last ':' after the last '/' (a ':' before it is a registry port).
  const size_t slash = name.rfind('/');
  const size_t colon = name.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    ref.tag = name.substr(colon + 1);
    name.resize(colon);
  } else if (ref.digest.empty()) {
    ref.tag = "latest";
  }
  ref.repository = NormaliseRepository(name);
  return ref;
}

bool RegistryTags::Has(const ImageRef& ref) const {
  auto it = tags.find(ref.repository);
  return it != tags.end() && it->second.count(ref.tag) > 0;
}

Expected<RegistryTags> ParseRegistryTags(const std::string& text, const std::string& file_name) {
  RegistryTags out;
  out.file = file_name;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        line.resize(i);
        break;
      }
    }
    const size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t");
    const std::string ref_text = line.substr(b, e - b + 1);
    auto fail = [&](std::string message, std::string hint) -> Expected<RegistryTags> {
      return InputError{file_name, number, "", std::move(message), std::move(hint)};
    };
    if (ref_text.find_first_of(" \t") != std::string::npos)
      return fail(Quote(ref_text) + " holds a space", "one `registry/repository:tag` a line");
    if (ref_text.find('@') != std::string::npos)
      return fail(Quote(ref_text) + " names a digest",
                  "list tags only (`registry/repository:tag`): a digest is not lost with a tag");
    const ImageRef ref = ParseImageRef(ref_text);
    const size_t slash = ref_text.rfind('/');
    const size_t colon = ref_text.rfind(':');
    if (colon == std::string::npos || (slash != std::string::npos && colon < slash) ||
        ref.tag.empty() || ref.repository.empty() || colon == 0)
      return fail(Quote(ref_text) + " has no tag",
                  "write `registry/repository:tag`, e.g. "
                  "registry.cn-hangzhou.aliyuncs.com/ai/ocr:v1.4.2");
    out.tags[ref.repository].insert(ref.tag);
  }
  return out;
}

Expected<RegistryTags> ReadRegistryTagsFile(const std::string& path) {
  const Expected<std::string> text = ReadFileText(path);
  if (!text) {
    InputError e = text.error();
    e.hint = "check the path given to --registry-tags";
    return e;
  }
  Expected<RegistryTags> tags = ParseRegistryTags(std::string(WithoutUtf8Bom(*text)), path);
  // No tag at all (an empty file, a closed stdin) would make every image look unknown to the
  // registry, so no missing tag would ever be found: refuse rather than pass silently.
  if (tags && tags->tags.empty()) {
    return InputError{path, 0, "", "lists no image tag (an empty file or a closed stdin)",
                      "one `registry/repository:tag` a line"};
  }
  return tags;
}

}  // namespace knobsim
