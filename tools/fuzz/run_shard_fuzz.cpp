// libFuzzer harness for the shards `knobsim merge` reads (sim/io/shard_json.h): up to four
// documents separated by NUL bytes, each parsed by the JSON reading rule and ParseRunShard, then
// merged by MergeRunShards. What merges must be a results document that reads back: written as
// `knobsim merge` writes it, it passes CheckResultsDocument.
#include "sim/io/json_document.h"
#include "sim/io/results_document.h"
#include "sim/io/results_json.h"
#include "sim/io/shard_json.h"
#include "tools/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> parts = knobsim::fuzz::Documents(knobsim::fuzz::Text(data, size), 4);
  std::vector<knobsim::RunShardDocument> shards;
  std::vector<std::string> files;
  for (size_t k = 0; k < parts.size(); ++k) {
    files.push_back("shard" + std::to_string(k) + ".json");
    auto doc = knobsim::ParseJsonDocument(parts[k], files.back());
    if (!doc.ok()) {
      (void)doc.error().ToString();
      return 0;
    }
    auto shard = knobsim::ParseRunShard(doc->root, files.back());
    if (!shard.ok()) {
      (void)knobsim::WithJsonLine(shard.error(), *doc).ToString();
      return 0;
    }
    shards.push_back(std::move(*shard));
  }
  auto merged = knobsim::MergeRunShards(shards, files);
  if (!merged.ok()) {
    (void)merged.error().ToString();
    return 0;
  }
  const std::string text = knobsim::ResultsJsonText(
      knobsim::ResultsToJson(*merged, shards.front().sweep.knobsim_version));
  auto back = knobsim::ParseJsonDocument(text, "merged.json");
  if (!back.ok()) knobsim::fuzz::Broken("merged document does not parse: " + back.error().ToString());
  if (knobsim::Status bad = knobsim::CheckResultsDocument(*back); !bad)
    knobsim::fuzz::Broken("merged document does not read back: " + bad.ToString());
  return 0;
}
