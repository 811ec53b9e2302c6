// The secret filter, and that nothing the reader keeps or says repeats a planted secret.
#include "sim/io/kube/secret_filter.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

TEST_CASE("nothing read from the export repeats the secrets its env and annotations hold") {
  std::string text = ReadText(KubeDataDir() + "ack-cluster.json");
  // A bad value next to the secrets: the error names the field, never its neighbours.
  const std::string good = "\"cpu\": \"500m\"";
  const size_t at = text.find(good, text.find("\"batch-exporter\""));
  REQUIRE(at != std::string::npos);
  text.replace(at, good.size(), "\"cpu\": \"500 millicores\"");
  const std::string error = ErrorOf(text, "ack-cluster.json");
  CHECK(error.find("items[45].spec.containers[0].resources.requests.cpu: \"500 millicores\" is "
                   "not a quantity") != std::string::npos);
  for (const char* secret : {"wJalrXUtnFEMI", "AKIAIOSFODNN7EXAMPLE", "s3cr3t", "fake-jwt-key"}) {
    CHECK(error.find(secret) == std::string::npos);
  }
}

TEST_CASE("an annotation of the wrong type is reported without its value") {
  const std::string error = ErrorOf(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    vault.hashicorp.com/token: [hunter2-secret]
spec:
  containers:
  - name: c
)");
  CHECK(error ==
        "bad.yaml:6: metadata.annotations.vault.hashicorp.com/token: expected a string, "
        "found a list");
  CHECK(ErrorOf("kind: Node\nmetadata:\n  name: n\n  annotations: hunter2-secret\n") ==
        "bad.yaml:4: metadata.annotations: expected a mapping, found a string");
}

// ---- Privacy -------------------------------------------------------------------------------

// Every secret planted in the fixtures: env values, a token-looking annotation, a bootstrap
// token, an exec probe's password, a probe URL's query token and header, the pull secret and
// the secret names, and the last-applied-configuration that repeats them.
const char* const kPlanted[] = {
    "sk-live-7Qm2Xv9Lr4Tz8Kp1Wd6Hs3Jb",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    "c2lnbmF0dXJlLXBsYW50ZWQ",
    "ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7",
    "k8s1ab.0f5e3c2a9d8b7e6f",
    "Pa55-etcd-root-2e8f",
    "tok_5f1e9a7c3b2d4e6f8a0b",
    "hdr-secret-7d1c9e2b",
    "acr-credential",
    "exporter-db",
    "last-applied-configuration",
    // ack-cluster.json's
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI",
    "s3cr3t-Pa55w0rd",
    "fake-jwt-key-9f8e7d6c5b4a39281706",
};

void CheckNoPlanted(const std::string& text) {
  for (const char* secret : kPlanted) {
    INFO(secret);
    CHECK(text.find(secret) == std::string::npos);
  }
}

TEST_CASE("no planted secret is stored in any field or warning of the objects read") {
  // The fixtures do hold them, so the check below can fail.
  const std::string raw = ReadText(KubeDataDir() + "export.json");
  for (const char* secret : {"sk-live-7Qm2", "ghp_R8f2", "Pa55-etcd", "tok_5f1e", "hdr-secret"}) {
    CHECK(raw.find(secret) != std::string::npos);
  }
  for (const char* file : {"export.json", "export.yaml", "ack-cluster.json", "pending-pods.yaml"}) {
    INFO(file);
    Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + file);
    REQUIRE(read.ok());
    std::string all = Dump(read.value());
    for (const std::string& w : read->warnings) all += w + "\n";
    CHECK(all.size() > 1000);
    CheckNoPlanted(all);
  }
}

TEST_CASE("errors next to secrets name the field, never the secret") {
  const std::string text = ReadText(KubeDataDir() + "export.json");
  struct Mutation {
    const char* near;  // the mutation is at the first `from` after this
    const char* from;
    const char* to;
    const char* message;  // the part the error must hold
  };
  const Mutation mutations[] = {
      // The exec command as one string instead of a list.
      {"\"etcd-0\"", "\"command\": [",
       "\"command\": \"/usr/local/bin/etcdctl --user=root:Pa55-etcd-root-2e8f\", \"args\": [",
       "readinessProbe.exec.command: expected a list, found a string"},
      // A token annotation as a list.
      {"", "\"example.com/registry\": \"ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7\"",
       "\"example.com/registry\": [\"ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7\"]",
       "metadata.annotations.example.com/registry: expected a string, found a list"},
      // A second handler beside the probe whose URL and headers hold tokens.
      {"\"rerank-5b8c7d9f4-g5h7j\"", "\"httpGet\": {",
       "\"exec\": {\"command\": [\"sh\"]}, \"httpGet\": {",
       "readinessProbe.httpGet: a probe has one handler, and `exec` is already given"},
      // A broken quantity in the pod whose env holds secrets.
      {"\"batch-exporter\"", "\"cpu\": \"500m\"", "\"cpu\": \"500 millicores\"",
       "requests.cpu: \"500 millicores\" is not a quantity"},
      // Broken JSON inside a secret's string.
      {"", "\"value\": \"sk-live-7Qm2Xv9Lr4Tz8Kp1Wd6Hs3Jb\"",
       "\"value\": \"sk-live-7Qm2Xv9\nLr4Tz8\"", "invalid JSON: a line break inside a string"},
  };
  for (const Mutation& m : mutations) {
    INFO(m.message);
    std::string mutated = text;
    const size_t at = mutated.find(m.from, mutated.find(m.near));
    REQUIRE(at != std::string::npos);
    mutated.replace(at, std::strlen(m.from), m.to);
    const std::string error = ErrorOf(mutated, "export.json");
    CHECK(error.find(m.message) != std::string::npos);
    CheckNoPlanted(error);
    for (const char* part : {"sk-live", "Pa55", "ghp_", "tok_", "Bearer"}) {
      CHECK(error.find(part) == std::string::npos);
    }
  }
}

struct SecretCase {
  const char* key;
  const char* value;
  bool secret;
};

const SecretCase kSecretCases[] = {
    // Keys that name a credential.
    {"vault.hashicorp.com/agent-token", "s.8fKd93", true},
    {"example.com/db-password", "hunter2", true},
    {"example.com/api-key", "x", true},
    {"example.com/credentials", "{\"user\":\"a\"}", true},
    {"example.com/token", "true", false},  // a flag, not a secret
    {"example.com/token", "", false},
    // Values shaped like one, under innocent keys, alone or inside other text.
    {"example.com/jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.abcdefghijklmn", true},
    {"example.com/config", "{\"auth\":\"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig12345\"}",
     true},
    {"example.com/aws", "AKIAIOSFODNN7EXAMPLE", true},
    {"example.com/openai", "sk-proj-4f9aXb2Lm8Qr7Tz1Wd6H", true},
    {"example.com/stripe", "sk_live_51HqLyjWDarjtT1zdp7dc", true},
    {"example.com/gh", "ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7", true},
    {"example.com/slack", "xoxb-2048-4096-abcdefABCDEF1234", true},
    {"example.com/dsn", "postgres://app:s3cr3t@db:5432/app", true},
    {"example.com/pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...", true},
    {"example.com/blob", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true},
    {"checksum/config", "8c7dd922ad47494fc02c388e12c00eac278ce4b0a1f7f2ac8c8b57f3b5a1f1d0", true},
    // What exports are full of and must survive.
    {"scheduler.framework.gpushare.allocation", "{\"0\":{\"1\":8}}", false},
    {"ALIYUN_COM_GPU_MEM_ASSUME_TIME", "1717212471834620913", false},
    {"csi.volume.kubernetes.io/nodeid",
     "{\"diskplugin.csi.alibabacloud.com\":\"i-bp130d824670e62905c4\"}", false},
    {"deployment.kubernetes.io/revision", "2", false},
    {"example.com/owner-uid", "28961f0c-c037-4169-a6bc-db9c6ff62084", false},
    {"example.com/node", "cn-hangzhou.10.0.1.21-np4b1c6e0d2f7a48c3a1", false},
    {"example.com/image",
     "registry-vpc.cn-hangzhou.aliyuncs.com/acs/gpushare-device-plugin:v1.0.1-3d0fa7c-aliyun",
     false},
    {"example.com/disk", "alicloud-disk-essd-performance-level-pl1", false},
    {"example.com/url", "https://example.com/docs?page=2", false},
    {"kubernetes.io/description", "Runs the OCR model on a shared L20 card", false},
};

TEST_CASE("LooksLikeSecret flags credentials by key or shape and keeps ordinary annotations") {
  for (const SecretCase& c : kSecretCases) {
    INFO(c.key, " = ", c.value);
    CHECK(LooksLikeSecret(c.key, c.value) == c.secret);
  }
}

TEST_CASE("annotations that look like secrets are dropped, with one warning naming the keys") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata:
  name: p
  annotations:
    example.com/api-token: abc
    example.com/team: search
    example.com/config: 'postgres://u:hunter2@db/x'
    kubectl.kubernetes.io/last-applied-configuration: '{"spec":{"env":[{"value":"hunter2"}]}}'
spec:
  containers: [{name: c}]
---
kind: Node
metadata:
  name: n
  annotations: {example.com/api-token: xyz}
)");
  CHECK(objects.pods[0].annotations == Labels{{"example.com/team", "search"}});
  CHECK(objects.nodes[0].annotations.empty());
  REQUIRE(objects.warnings.size() == 1);
  CHECK(objects.warnings[0] ==
        "test.yaml:5: metadata.annotations.example.com/api-token: 3 annotation(s) that look like "
        "secrets were dropped, never stored or shown (the first here): example.com/api-token (2), "
        "example.com/config");
  CHECK(objects.warnings[0].find("hunter2") == std::string::npos);
}

}  // namespace
}  // namespace knobsim
