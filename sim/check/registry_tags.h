// Which image tags a registry still holds, for the image-after-reset check: a node reset loses
// its image cache, so a pod pinned to a tag the registry has since deleted cannot start again
// (ImagePullBackOff). No registry is contacted: the user lists the tags (docs/check.md).
//
// File format, one image reference a line: `registry/repository:tag`, e.g.
//   # crane ls registry.cn-hangzhou.aliyuncs.com/ai/ocr | sed
//   's|^|registry.cn-hangzhou.aliyuncs.com/ai/ocr:|'
//   registry.cn-hangzhou.aliyuncs.com/ai/ocr:v1.4.2
// `#` starts a comment (at the start of a line or after a blank), blank lines are skipped.
// A repository that appears in the file is complete: a tag of it not listed no longer exists.
// A repository absent from the file is unknown, and its tags are not judged. References are
// normalised as docker does (`nginx:1.25` is `docker.io/library/nginx:1.25`). A line without a
// tag, with a digest, or with a space inside is an error naming the file and the line.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "sim/input_error.h"

namespace knobsim {

// An image reference split as a container runtime reads it.
struct ImageRef {
  std::string repository;  // normalised: docker.io/library/nginx, registry.example.com/ai/ocr
  std::string tag;         // "latest" when none is written and there is no digest
  std::string digest;      // "sha256:..." when pinned by digest
  bool pinned() const { return !digest.empty(); }
};

// Splits `image` ("repo[:tag][@sha256:...]"); never fails, an odd string gives what it can.
ImageRef ParseImageRef(std::string_view image);

struct RegistryTags {
  std::string file;
  std::map<std::string, std::set<std::string>> tags;  // repository -> tags that exist

  bool Knows(const std::string& repository) const { return tags.count(repository) > 0; }
  bool Has(const ImageRef& ref) const;
};

Expected<RegistryTags> ParseRegistryTags(const std::string& text, const std::string& file_name);
Expected<RegistryTags> ReadRegistryTagsFile(const std::string& path);

}  // namespace knobsim
