// End-to-end tests of `knobsim check` (docs/check.md): the real binary on a hand-written ACK
// export with planted problems, on the same cluster without them, on the cgpu-upgrade scenario,
// and on bad input.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <tuple>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using Triple = std::tuple<std::string, std::string, std::string>;  // id, severity, object

const std::string kDir = "tools/knobsim/testdata/check-export/";

std::string ExportArgs(const std::string& suffix) {
  return "check --kube " + QuotedSourcePath(kDir + "export" + suffix + ".json") + " --prom " +
         QuotedSourcePath(kDir + "gpu-memory" + suffix + ".json") + " --registry-tags " +
         QuotedSourcePath(kDir + "registry-tags");
}

std::set<Triple> Findings(const nlohmann::json& doc, const std::string& severity_filter = "") {
  std::set<Triple> out;
  for (const auto& f : doc.at("findings")) {
    const std::string sev = f.at("severity");
    if (!severity_filter.empty() && sev != severity_filter) continue;
    for (const auto& o : f.at("objects")) {
      std::string name = o.at("kind").get<std::string>() + " ";
      if (o.contains("namespace")) name += o.at("namespace").get<std::string>() + "/";
      name += o.at("name").get<std::string>();
      out.insert({f.at("id"), sev, name});
    }
  }
  return out;
}

const nlohmann::json* FindingFor(const nlohmann::json& doc, const std::string& id,
                                 const std::string& object) {
  for (const auto& f : doc.at("findings")) {
    if (f.at("id") != id) continue;
    for (const auto& o : f.at("objects"))
      if (o.at("name") == object) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("check on the planted export finds exactly the planted problems and exits 1") {
  const Outcome o = Run(ExportArgs("") + " --json -");
  REQUIRE_MESSAGE(o.exit_code == 1, o.err);
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  CHECK(doc.at("schema") == "knobsim.check/v1");
  const std::set<Triple> expected = {
      {"quota-vs-peak", "critical", "Pod ai/ocr-7d9f8c6b5-k2x9p"},
      {"quota-vs-peak", "critical", "Pod ai/asr-5c4b7f9d8-w7t2n"},
      {"pdb-blocks-drain", "critical", "PodDisruptionBudget infra/etcd"},
      {"pdb-blocks-drain", "critical", "Node cn-hangzhou.10.0.3.31"},
      {"pdb-blocks-drain", "critical", "Node cn-hangzhou.10.0.3.32"},
      {"image-after-reset", "critical", "Pod ai/asr-5c4b7f9d8-w7t2n"},
      {"port-only-probe", "warning", "Pod ai/ocr-7d9f8c6b5-k2x9p"},
      {"port-only-probe", "warning", "Pod ai/ocr-7d9f8c6b5-m8q4r"},
      {"pvc-without-backup", "warning", "PersistentVolumeClaim ai/data-vectordb-0"},
      {"pvc-without-backup", "warning", "Pod ai/vectordb-0"},
      {"cgpu-isolation", "warning", "Node cn-hangzhou.10.0.1.11"},
      {"cgpu-isolation", "warning", "Node cn-hangzhou.10.0.1.12"},
      {"cgpu-isolation", "warning", "Pod ai/ocr-7d9f8c6b5-k2x9p"},
      {"cgpu-isolation", "warning", "Pod ai/asr-5c4b7f9d8-w7t2n"},
  };
  CHECK(Findings(doc) == expected);
  CHECK(doc.at("summary").at("critical") == 4);

  // The numbers behind the findings: 9812 MiB against floor(23028 × 4 / 22) = 4186 MiB.
  const nlohmann::json* ocr = FindingFor(doc, "quota-vs-peak", "ocr-7d9f8c6b5-k2x9p");
  REQUIRE(ocr != nullptr);
  const std::string msg = ocr->at("message");
  CHECK(msg.find("9812 MiB is 234 % of its visible quota 4186 MiB") != std::string::npos);
  CHECK(msg.find("a quota of 10 (aliyun.com/gpu-mem) holds the peak") != std::string::npos);
  // Imported with a mean of ~9300 MiB as its model, the pod cannot load under a 4186 MiB quota,
  // and its port-only probe makes that a fake Ready.
  CHECK(ocr->at("consequence_kind") == "simulated");
  CHECK(ocr->at("consequence").get<std::string>().find("FakeReady") != std::string::npos);
  const nlohmann::json* asr = FindingFor(doc, "quota-vs-peak", "asr-5c4b7f9d8-w7t2n");
  REQUIRE(asr != nullptr);
  CHECK(asr->at("message").get<std::string>().find(
            "7912 MiB is 126 % of its visible quota 6280 MiB") != std::string::npos);
  const nlohmann::json* pdb = FindingFor(doc, "pdb-blocks-drain", "etcd");
  REQUIRE(pdb != nullptr);
  const std::string pdb_msg = pdb->at("message");
  CHECK(pdb_msg.find("expected 3, desired healthy 2, current healthy 2") != std::string::npos);
  CHECK(pdb_msg.find("The disruption budget etcd needs 2 healthy pods and has 2 currently") !=
        std::string::npos);
  CHECK(pdb_msg.find("cn-hangzhou.10.0.3.33 [etcd-2 (not Ready)] drains at once") !=
        std::string::npos);
  const nlohmann::json* tag = FindingFor(doc, "image-after-reset", "asr-5c4b7f9d8-w7t2n");
  REQUIRE(tag != nullptr);
  CHECK(tag->at("consequence").get<std::string>().find("ImagePullBackOff") != std::string::npos);
}

TEST_CASE("check prints findings grouped by severity, and no secret of the export") {
  const Outcome o = Run(ExportArgs(""));
  CHECK(o.exit_code == 1);
  const size_t critical = o.out.find("\nCRITICAL\n");
  const size_t warning = o.out.find("\nWARNING\n");
  REQUIRE(critical != std::string::npos);
  REQUIRE(warning != std::string::npos);
  CHECK(critical < warning);
  CHECK(o.out.find("[pdb-blocks-drain] PodDisruptionBudget infra/etcd") != std::string::npos);
  for (const std::string& text : {o.out, o.err, Run(ExportArgs("") + " --json -").out}) {
    CHECK(text.find("PLANTEDSECRET") == std::string::npos);
    CHECK(text.find("hf_") == std::string::npos);
    CHECK(text.find("sk-live") == std::string::npos);
  }
}

TEST_CASE("check on the same cluster without the planted problems exits 0 with no warning") {
  const Outcome o = Run(ExportArgs("-clean") + " --json -");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  CHECK(Findings(doc, "critical").empty());
  CHECK(Findings(doc, "warning").empty());
  // With every etcd member Ready the budget allows one disruption: drains go one at a time.
  CHECK(Findings(doc, "info") ==
        std::set<Triple>{{"pdb-blocks-drain", "info", "PodDisruptionBudget infra/etcd"}});
}

TEST_CASE("check without metrics or registry tags says what it skipped") {
  const Outcome o = Run("check --kube " + QuotedSourcePath(kDir + "export.json") + " --json -");
  REQUIRE_MESSAGE(o.exit_code == 1, o.err);  // the blocking PDB is still critical
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  std::set<std::string> skipped;
  for (const auto& f : doc.at("findings"))
    if (!f.at("skipped").is_null()) {
      CHECK(f.at("severity") == "info");
      skipped.insert(f.at("id"));
    }
  CHECK(skipped == std::set<std::string>{"quota-vs-peak", "image-after-reset"});
  // Without tags, the tag-only asr image is a warning, not the critical ImagePullBackOff.
  CHECK(Findings(doc).count({"image-after-reset", "warning", "Pod ai/asr-5c4b7f9d8-w7t2n"}) == 1);
}

TEST_CASE("check on scenarios/cgpu-upgrade.yaml tells the upgrade story") {
  const Outcome o =
      Run("check " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") + " --registry-tags " +
          QuotedSourcePath("scenarios/cgpu-upgrade.registry-tags") + " --json -");
  REQUIRE_MESSAGE(o.exit_code == 1, o.err);
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  const std::set<Triple> expected = {
      {"quota-vs-peak", "critical", "Pod ai/ocr-0"},
      {"quota-vs-peak", "critical", "Pod ai/ocr-1"},
      {"quota-vs-peak", "critical", "Pod ai/asr-0"},
      {"image-after-reset", "critical", "Pod ai/asr-0"},
      {"port-only-probe", "warning", "Pod ai/ocr-0"},
      {"port-only-probe", "warning", "Pod ai/ocr-1"},
      {"pvc-without-backup", "warning", "PersistentVolumeClaim ai/data-vectordb-0"},
      {"pvc-without-backup", "warning", "Pod ai/vectordb-0"},
      {"cgpu-isolation", "warning", "Node cn-hangzhou.10.0.1.11"},
      {"cgpu-isolation", "warning", "Node cn-hangzhou.10.0.1.12"},
      {"cgpu-isolation", "warning", "Pod ai/ocr-0"},
      {"cgpu-isolation", "warning", "Pod ai/ocr-1"},
      {"cgpu-isolation", "warning", "Pod ai/asr-0"},
      // etcd-1 is not Ready (`ready: false`): the budget allows nothing, so the nodes of the
      // Ready members would wait; 10.0.2.21, with the unready one, drains at once.
      {"pdb-blocks-drain", "critical", "PodDisruptionBudget infra/etcd"},
      {"pdb-blocks-drain", "critical", "Node cn-hangzhou.10.0.1.11"},
      {"pdb-blocks-drain", "critical", "Node cn-hangzhou.10.0.2.22"},
  };
  CHECK(Findings(doc) == expected);
  // ocr cannot load its model under hard isolation and fakes Ready; asr loads, then fails
  // requests under load: both seen in the simulated run.
  const nlohmann::json* ocr = FindingFor(doc, "quota-vs-peak", "ocr-0");
  REQUIRE(ocr != nullptr);
  CHECK(ocr->at("consequence_kind") == "simulated");
  CHECK(ocr->at("consequence").get<std::string>().find("pod FakeReady") != std::string::npos);
  const nlohmann::json* asr = FindingFor(doc, "quota-vs-peak", "asr-0");
  REQUIRE(asr != nullptr);
  CHECK(asr->at("message").get<std::string>().find(
            "6544 MiB is 104 % of its visible quota 6280 MiB") != std::string::npos);
  CHECK(asr->at("consequence_kind") == "simulated");
  CHECK(asr->at("consequence").get<std::string>().find("CUDA OOM") != std::string::npos);
}

TEST_CASE("check: bad input exits 2 naming the file and line") {
  const std::string tags = TempPath("bad-tags");
  {
    std::ofstream out(tags);
    out << "# ok\nregistry.example.com/ai/ocr:v1\nregistry.example.com/ai/asr\n";
  }
  Outcome o = Run("check --kube " + QuotedSourcePath(kDir + "export.json") + " --registry-tags '" +
                  tags + "'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find(tags + ":3: ") != std::string::npos);
  CHECK(o.err.find("has no tag") != std::string::npos);
  std::remove(tags.c_str());

  o = Run("check");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("knobsim: say what to check") != std::string::npos);
  o = Run("check " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") + " --kube " +
          QuotedSourcePath(kDir + "export.json"));
  CHECK(o.exit_code == 2);
  o = Run("check --kube /nonexistent/export.json");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("/nonexistent/export.json") != std::string::npos);
  o = Run("check --kube " + QuotedSourcePath(kDir + "export.json") + " --window 7x");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("--window") != std::string::npos);

  // A JSON target that cannot be written: exit 2 and no half-written file.
  o = Run(ExportArgs("") + " --json /nonexistent-dir/out.json");
  CHECK(o.exit_code == 2);
}

TEST_CASE("check --json writes the document atomically and matches stdout") {
  const std::string path = TempPath("check.json");
  const Outcome file = Run(ExportArgs("") + " --quiet --json '" + path + "'");
  CHECK(file.exit_code == 1);
  CHECK(file.out.empty());
  const Outcome out = Run(ExportArgs("") + " --json -");
  CHECK(ReadFile(path) == out.out);
  std::remove(path.c_str());
}

TEST_CASE("check --report writes the findings as an HTML page; a bad path is refused first") {
  const std::string page = TempPath("check.html");
  const Outcome o = Run(ExportArgs("") + " --quiet --report '" + page + "'");
  CHECK(o.exit_code == 1);
  const std::string html = ReadFile(page);
  CHECK(html.find("<h1>Pre-upgrade check: ") != std::string::npos);
  CHECK(html.find("4 critical, ") != std::string::npos);
  CHECK(html.find("Findings per check, by severity") != std::string::npos);
  CHECK(html.find("PodDisruptionBudget infra/etcd") != std::string::npos);
  CHECK(html.find("PLANTEDSECRET") == std::string::npos);
  std::remove(page.c_str());
  const Outcome bad = Run(ExportArgs("") + " --report /nonexistent-dir/check.html");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--report") != std::string::npos);
  CHECK(bad.out.empty());  // refused before anything was checked
}

}  // namespace knobsim::e2e
