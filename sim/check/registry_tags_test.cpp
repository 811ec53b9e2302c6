#include "sim/check/registry_tags.h"

#include <doctest/doctest.h>

namespace knobsim {

TEST_CASE("Image references split into repository, tag and digest as docker reads them") {
  ImageRef a = ParseImageRef("registry.cn-hangzhou.aliyuncs.com/ai/ocr:v1.4.2");
  CHECK(a.repository == "registry.cn-hangzhou.aliyuncs.com/ai/ocr");
  CHECK(a.tag == "v1.4.2");
  CHECK_FALSE(a.pinned());
  ImageRef b = ParseImageRef("nginx");
  CHECK(b.repository == "docker.io/library/nginx");
  CHECK(b.tag == "latest");
  ImageRef c = ParseImageRef("localhost:5000/team/app@sha256:abc");
  CHECK(c.repository == "localhost:5000/team/app");
  CHECK(c.tag.empty());
  CHECK(c.digest == "sha256:abc");
  CHECK(c.pinned());
  ImageRef d = ParseImageRef("bitnami/etcd:3.5.12@sha256:def");
  CHECK(d.repository == "docker.io/bitnami/etcd");
  CHECK(d.tag == "3.5.12");
  CHECK(d.pinned());
}

TEST_CASE("Registry tags list complete repositories; unlisted repositories are unknown") {
  Expected<RegistryTags> t = ParseRegistryTags(
      "# tags that exist\n"
      "registry.example.com/ai/ocr:v1.4.2   # current\n"
      "\n"
      "nginx:1.25\r\n",
      "tags.txt");
  REQUIRE(t.ok());
  CHECK(t->Has(ParseImageRef("registry.example.com/ai/ocr:v1.4.2")));
  CHECK_FALSE(t->Has(ParseImageRef("registry.example.com/ai/ocr:v1.3.0")));
  CHECK(t->Knows("registry.example.com/ai/ocr"));
  CHECK(t->Has(ParseImageRef("docker.io/library/nginx:1.25")));
  CHECK_FALSE(t->Knows("registry.example.com/ai/asr"));
}

TEST_CASE(
    "Registry tags lines without a tag, with a digest or a space are errors with their line") {
  Expected<RegistryTags> a =
      ParseRegistryTags("ok/repo:1\nregistry.example.com:5000/ai/ocr\n", "t");
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().line == 2);
  CHECK(a.error().message.find("has no tag") != std::string::npos);
  Expected<RegistryTags> b = ParseRegistryTags("repo@sha256:abc\n", "t");
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message.find("digest") != std::string::npos);
  Expected<RegistryTags> c = ParseRegistryTags("\n\nrepo:1 repo:2\n", "t");
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().line == 3);
  CHECK(c.error().ToString().rfind("t:3: ", 0) == 0);
}

}  // namespace knobsim
