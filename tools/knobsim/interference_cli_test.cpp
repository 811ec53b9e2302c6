// End-to-end tests of `knobsim interference fit` and `predict` on synthetic co-location
// measurements with a known truth that is not the model's own form
// (tools/knobsim/testdata/interference, made by its generate.py): the fit prints its
// cross-validated error against the baselines, the model file reads back, predictions on the
// held-out half beat both baselines, and bad tables are refused naming file, line and column.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

const std::string kDir = "tools/knobsim/testdata/interference/";

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

std::string FitArgs(const std::string& model) {
  return "interference fit --solo " + QuotedSourcePath(kDir + "solo.csv") + " --pairs " +
         QuotedSourcePath(kDir + "train_pairs.csv") + " -o " + Quoted(model);
}

TEST_CASE("interference fit, then predict on held-out pairs: better than both baselines") {
  const std::string model = TempPath("model.json");
  const std::string cv = TempPath("cv.json");
  const Outcome fit = Run(FitArgs(model) + " --json " + Quoted(cv));
  REQUIRE_MESSAGE(fit.exit_code == 0, fit.err);
  CHECK(Has(fit.out, "Fitted on 390 pairs of 40 jobs (40 profiled)"));
  CHECK(Has(fit.out, "Cross-validated (5 folds over 390 pairs)"));
  CHECK(Has(fit.out, "baseline: speed = 1 (no slowdown)"));
  CHECK_FALSE(Has(fit.out, "no better than a baseline"));
  const nlohmann::json cv_doc = nlohmann::json::parse(ReadFile(cv));
  CHECK(cv_doc.at("model_mae").get<double>() < 0.5 * cv_doc.at("train_mean_mae").get<double>());
  CHECK(cv_doc.at("model_mae").get<double>() < 0.5 * cv_doc.at("speed_one_mae").get<double>());

  const nlohmann::json m = nlohmann::json::parse(ReadFile(model));
  CHECK(m.at("schema") == "knobsim.interference/v1");
  CHECK(m.at("jobs").size() == 40);
  CHECK(m.at("surface").at("weights").size() == 13);

  const std::string out = TempPath("predicted.json");
  const Outcome predict = Run("interference predict --model " + Quoted(model) + " --pairs " +
                              QuotedSourcePath(kDir + "test_pairs.csv") + " --json " +
                              Quoted(out));
  REQUIRE_MESSAGE(predict.exit_code == 0, predict.err);
  CHECK(Has(predict.out, "Predicted 390 pairs: mean absolute error of the co-located speed"));
  const nlohmann::json p = nlohmann::json::parse(ReadFile(out));
  REQUIRE(p.at("pairs").size() == 390);
  const nlohmann::json& first = p.at("pairs")[0];
  CHECK(first.contains("job_a"));
  CHECK(first.contains("predicted_b"));
  const nlohmann::json& error = p.at("error");
  // The truth's noise is uniform ±0.015 (mean absolute 0.0075).
  CHECK(error.at("model_mae").get<double>() < 0.025);
  CHECK(error.at("model_mae").get<double>() < 0.4 * error.at("train_mean_mae").get<double>());
  CHECK(error.at("model_mae").get<double>() < 0.4 * error.at("speed_one_mae").get<double>());

  // Deterministic: the same fit writes the same model, byte for byte.
  const std::string again = TempPath("model-again.json");
  REQUIRE(Run(FitArgs(again) + " --quiet").exit_code == 0);
  CHECK(ReadFile(again) == ReadFile(model));
  for (const std::string& f : {model, cv, out, again}) std::remove(f.c_str());
}

TEST_CASE("interference predict without speeds or output files writes the CSV to stdout") {
  const std::string model = TempPath("model-csv.json");
  REQUIRE(Run(FitArgs(model) + " -q").exit_code == 0);
  const std::string pairs = Write("pairs.csv", "job_a,job_b\njob-00,job-01\njob-05,new-job\n");
  const std::string solo =
      Write("extra-solo.csv", "job,gpu_util_pct,mem_bw_util_pct,memory_mib\nnew-job,90,40,9000\n");
  const Outcome o = Run("interference predict --model " + Quoted(model) + " --pairs " +
                        Quoted(pairs) + " --solo " + Quoted(solo));
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(Has(o.out, "job_a,job_b,predicted_a,predicted_b\njob-00,job-01,"));
  CHECK(Has(o.out, "\njob-05,new-job,"));
  CHECK_FALSE(Has(o.out, "mean absolute error"));  // nothing measured to compare with

  // Without --solo the unknown job is an error at its line.
  const Outcome missing =
      Run("interference predict --model " + Quoted(model) + " --pairs " + Quoted(pairs));
  CHECK(missing.exit_code == 2);
  CHECK(Has(missing.err, pairs + ":3: job_b: \"new-job\" has no solo profile"));
  for (const std::string& f : {model, pairs, solo}) std::remove(f.c_str());
}

TEST_CASE("interference fit refuses bad tables naming the file, line and column") {
  const std::string solo = QuotedSourcePath(kDir + "solo.csv");
  struct Case {
    std::string name, pairs, expected;
  };
  const std::vector<Case> cases = {
      {"no speeds", "job_a,job_b\njob-00,job-01\n", ":1: the header has no speed_a, speed_b"},
      {"speed not normalised", "job_a,job_b,speed_a,speed_b\njob-00,job-01,512.5,0.9\n",
       ":2: speed_a: \"512.5\" is not a speed from 0 to 3"},
      {"not a number", "job_a,job_b,speed_a,speed_b\njob-00,job-01,fast,0.9\n",
       ":2: speed_a: \"fast\" is not a number"},
      {"unknown job", "job_a,job_b,speed_a,speed_b\njob-00,job-99,0.9,0.9\n",
       ":2: job_b: \"job-99\" has no solo profile"},
      {"short row", "job_a,job_b,speed_a,speed_b\njob-00,job-01,0.9\n",
       ":2: has 3 cells where the header names 4"},
      {"one pair", "job_a,job_b,speed_a,speed_b\njob-00,job-01,0.9,0.8\n",
       "a fit needs at least 2 pairs"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string pairs = Write("bad-pairs.csv", c.pairs);
    const std::string model = TempPath("never.json");
    const Outcome o = Run("interference fit --solo " + solo + " --pairs " + Quoted(pairs) +
                          " -o " + Quoted(model));
    CHECK(o.exit_code == 2);
    CHECK_MESSAGE(Has(o.err, c.expected), o.err);
    CHECK_FALSE(std::ifstream(model).good());  // no half-written output
    std::remove(pairs.c_str());
  }

  const std::string bad_solo =
      Write("bad-solo.csv", "job,gpu_util_pct,mem_bw_util_pct,memory_mib\nx,140,20,100\n");
  const Outcome o = Run("interference fit --solo " + Quoted(bad_solo) + " --pairs " +
                        QuotedSourcePath(kDir + "train_pairs.csv") + " -o -");
  CHECK(o.exit_code == 2);
  CHECK(Has(o.err, bad_solo + ":2: gpu_util_pct: \"140\" is not a percentage from 0 to 100"));
  std::remove(bad_solo.c_str());
}

TEST_CASE("interference: extra columns are warned about, not silently dropped") {
  const std::string solo = Write(
      "wide-solo.csv",
      "job,model,gpu_util_pct,mem_bw_util_pct,memory_mib\na,ResNet,50,20,1000\nb,BERT,90,60,9000\n"
      "c,VGG,70,40,5000\n");
  const std::string pairs = Write(
      "wide-pairs.csv", "job_a,job_b,speed_a,speed_b\na,b,0.8,0.7\nb,c,0.6,0.65\na,c,0.9,0.85\n");
  const Outcome o = Run("interference fit --solo " + Quoted(solo) + " --pairs " + Quoted(pairs) +
                        " -o - -q");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(Has(o.err, "warning: " + solo + ": column model ignored"));
  CHECK(Has(o.out, "\"schema\": \"knobsim.interference/v1\""));
  for (const std::string& f : {solo, pairs}) std::remove(f.c_str());
}

TEST_CASE("interference predict refuses a model file it did not write") {
  const std::string model = Write("bad-model.json", "{\"schema\": \"knobsim.interference/v1\", "
                                                    "\"surface\": {\"terms\": [\"1\"]}}");
  const std::string pairs = Write("p.csv", "job_a,job_b\na,b\n");
  const Outcome o =
      Run("interference predict --model " + Quoted(model) + " --pairs " + Quoted(pairs));
  CHECK(o.exit_code == 2);
  CHECK(Has(o.err, model + ":1: surface.terms"));
  CHECK(Has(o.err, "are not the terms of this knobsim's surface"));
  for (const std::string& f : {model, pairs}) std::remove(f.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
