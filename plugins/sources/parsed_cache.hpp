#pragma once
/// \file Read once: a RecordReader decorator that parses its file on the first pass and replays the
/// parsed records from a compact binary file on every later pass, in this trial and in later ones.
///
/// The cache file lives in a folder shared by trial processes ($RANKONE_PARSED_CACHE, else
/// $XDG_CACHE_HOME/rankone/parsed, else ~/.cache/rankone/parsed; "off" turns it off). Its name is a
/// hash of the key: the format version, the reader's options that change parsing, and per data
/// file its canonical path, size, modification time and content hash (XXH3). It is written whole
/// or not at all (temporary file and rename), checked before it is replayed (magic, version, key,
/// length, checksum; a damaged file is ignored, rebuilt and noted) and again per 1 MiB block as a
/// replay reads it (a file changed meanwhile: the pass goes on parsed, noted), and the folder is held under a
/// size cap ($RANKONE_PARSED_CACHE_BYTES, default 4 GiB; the least recently used files go first),
/// never more than half the free space. The reader's notes, its preparation (index base, id maps,
/// column names) and its source name replay with the records, so results are bitwise identical
/// with and without the cache. See docs/plugins/file_sources.md.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "file_source.hpp"

namespace rankone::sources {

/// What a reader's parse depends on: its format and options (`reader`, a canonical text) and the
/// files it reads.
struct ParseKey {
  std::string reader;
  std::vector<std::string> files;
};

/// The key of a format's reader from its parameters: every parameter except those the FileSource
/// applies after reading (split, folds, shuffle, design, standardisation, label views, operator,
/// test_file), which must not keep the folds and repetitions of a study from sharing one parse.
ParseKey parse_key(const Params& p, const std::string& format, std::vector<std::string> files);
/// The key of the reader of the source's `file` (and its `observations`, when given).
ParseKey parse_key(const Params& p, const std::string& format);

/// Where and how much: from the environment (see the file comment); `folder` empty: off.
struct ParsedCacheSettings {
  std::filesystem::path folder;
  std::uint64_t max_bytes = std::uint64_t{4} << 30;
  static ParsedCacheSettings from_environment();
};

/// `reader` decorated with the cache, or returned as it is when the cache is off. Scoring
/// (use_preparation) reads through `reader`, uncached.
std::unique_ptr<RecordReader> cache_parsed(std::unique_ptr<RecordReader> reader, ParseKey key,
                                           ParsedCacheSettings settings = ParsedCacheSettings::from_environment());

/// The cache file of `key` in `folder` (tests damage it on purpose).
std::filesystem::path parsed_cache_file(const std::filesystem::path& folder, const ParseKey& key);

}  // namespace rankone::sources
