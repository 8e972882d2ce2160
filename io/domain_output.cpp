#include "io/domain_output.hpp"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace decgpe::io {

namespace fs = std::filesystem;

namespace {

fs::path parts_folder(const fs::path& path) {
  return fs::path(path.string() + ".parts");
}

std::string part_name(const std::string& tag, int rank) {
  char name[64];
  std::snprintf(name, sizeof name, "%s-rank%05d.h5", tag.c_str(), rank);
  return name;
}

/// A tag no earlier write to the same path had: the first rank's clock and process id.
std::uint64_t new_tag() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<std::uint64_t>(
             std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()) ^
         (static_cast<std::uint64_t>(getpid()) << 40);
}

} // namespace

DomainOutput::DomainOutput(ResultsFile* file, const fs::path& path, const Grid& grid,
                           const scaleout::Decomposition& layout)
    : file_(file), path_(path), grid_(grid), layout_(layout) {
  if (!layout_.distributed()) {
    return;
  }
  char tag[17];
  std::snprintf(
      tag, sizeof tag, "%016llx",
      static_cast<unsigned long long>(layout_.broadcast(layout_.rank() == 0 ? new_tag() : 0)));
  tag_ = tag;
  part_.emplace(parts_folder(path_) / part_name(tag_, layout_.rank()));
}

std::span<const Complex> DomainOutput::owned(std::span<const Complex> stored) const {
  const auto n = static_cast<std::size_t>(grid_.slice_cells());
  return stored.subspan(static_cast<std::size_t>(grid_.owned_begin) * n,
                        static_cast<std::size_t>(grid_.owned_end - grid_.owned_begin) * n);
}

std::vector<ResultsFile::VirtualPart> DomainOutput::parts() const {
  std::vector<ResultsFile::VirtualPart> parts;
  const auto n = static_cast<std::uint64_t>(grid_.slice_cells());
  const std::string folder = parts_folder(path_.filename()).string();
  for (int r = 0; r < layout_.ranks(); ++r) {
    const scaleout::SlabRange s = layout_.owned_by(r);
    parts.push_back({folder + "/" + part_name(tag_, r), static_cast<std::uint64_t>(s.begin) * n,
                     static_cast<std::uint64_t>(s.end) * n});
  }
  return parts;
}

void DomainOutput::write(const std::string& dataset, std::span<const Complex> mine,
                         ResultsFile::Checksum checksum) {
  if (!part_) {
    file_->write(dataset, mine, checksum);
    return;
  }
  part_->write(dataset, mine, checksum);
  if (file_ != nullptr) {
    file_->write_virtual(dataset, ResultsFile::Element::complex,
                         static_cast<std::uint64_t>(grid_.global_cells()), 1, parts());
  }
}

void DomainOutput::write(const std::string& dataset, std::span<const float> owned,
                         std::uint64_t width) {
  const std::uint64_t rows = owned.size() / width;
  const auto shape = [width](std::uint64_t r) {
    return width == 1 ? std::vector<std::uint64_t>{r} : std::vector<std::uint64_t>{r, width};
  };
  if (!part_) {
    file_->write(dataset, owned, shape(rows));
    return;
  }
  part_->write(dataset, owned, shape(rows));
  if (file_ != nullptr) {
    file_->write_virtual(dataset, ResultsFile::Element::single,
                         static_cast<std::uint64_t>(grid_.global_cells()), width, parts());
  }
}

void DomainOutput::attribute_of(const std::string& object, const std::string& name, double value) {
  if (file_ != nullptr) {
    file_->attribute_of(object, name, value);
  }
}

void DomainOutput::attribute_of(const std::string& object, const std::string& name,
                                const std::string& value) {
  if (file_ != nullptr) {
    file_->attribute_of(object, name, value);
  }
}

void DomainOutput::commit() {
  if (part_) {
    part_->commit();
  }
  layout_.barrier();
}

void DomainOutput::remove_superseded() const {
  if (file_ == nullptr) {
    return;
  }
  std::error_code ec;
  const fs::path folder = parts_folder(path_);
  if (!part_) {
    fs::remove_all(folder, ec);
    return;
  }
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    if (e.path().filename().string().rfind(tag_ + "-", 0) != 0) {
      fs::remove(e.path(), ec);
    }
  }
}

void remove_with_parts(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
  fs::remove_all(parts_folder(path), ec);
}

} // namespace decgpe::io
