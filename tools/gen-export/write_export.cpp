// WriteExport (export_generator.h): the export, truth.json and the metrics as files under one
// directory.
//
// Contract: each file is written to a temporary name beside it and renamed into place, so a
// reader never sees half a file; an error names the file or directory it could not write.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <system_error>

#include <nlohmann/json.hpp>

#include "tools/gen-export/export_generator.h"

namespace knobsim::gen_export {
namespace {

// Writes through a temporary file in the same directory and renames it into place.
Status WriteAtomically(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& fill,
                       std::vector<WrittenFile>& written) {
  const std::filesystem::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  auto fail = [&](const std::string& what) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    InputError e;
    e.file = path.string();
    e.message = what;
    return Status(std::move(e));
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot create the file");
    fill(out);
    out.flush();
    if (!out) return fail("write failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail("cannot rename into place: " + ec.message());
  written.push_back({path.string(), std::filesystem::file_size(path, ec)});
  return Status::Ok();
}

}  // namespace

Expected<std::vector<WrittenFile>> WriteExport(const GeneratedCluster& cluster,
                                               const std::string& dir, ExportFormat format) {
  namespace fs = std::filesystem;
  std::vector<WrittenFile> written;
  std::error_code ec;
  const fs::path root(dir);
  fs::create_directories(root, ec);
  if (!ec && cluster.options.with_metrics) fs::create_directories(root / "prom", ec);
  if (ec) {
    InputError e;
    e.file = dir;
    e.message = "cannot create the directory: " + ec.message();
    return e;
  }
  if (format != ExportFormat::kYaml) {
    if (Status e = WriteAtomically(
            root / "export.json", [&](std::ostream& out) { out << ExportJson(cluster); }, written);
        !e) {
      return e.error();
    }
  }
  if (format != ExportFormat::kJson) {
    if (Status e = WriteAtomically(
            root / "export.yaml", [&](std::ostream& out) { out << ExportYaml(cluster); }, written);
        !e) {
      return e.error();
    }
  }
  if (Status e = WriteAtomically(
          root / "truth.json",
          [&](std::ostream& out) { out << TruthJson(cluster).dump(2) << "\n"; }, written);
      !e) {
    return e.error();
  }
  if (cluster.options.with_metrics) {
    for (const std::string& metric : MetricNames(cluster)) {
      if (Status e = WriteAtomically(
              root / "prom" / (metric + ".json"),
              [&](std::ostream& out) { WritePromJson(cluster, metric, out); }, written);
          !e) {
        return e.error();
      }
    }
  }
  return written;
}

}  // namespace knobsim::gen_export
