#pragma once
/// \file The identity of the code a trial runs, so that a rebuilt plugin never silently reuses
/// results its old code produced.
///
/// A trial's identity maps each role to the library that plays it: `core` (the RankOne library)
/// and the name of every plugin the trial uses (its source, estimator and metrics, and every
/// plugin named inside their parameters, such as a sampler or an operator), each with the
/// library's path, a content fingerprint (XXH3-128 of the file) and the plugin's version.
#include <filesystem>
#include <string>
#include <vector>

#include "rankone/core/params.hpp"
#include "rankone/experiment/experiment.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone {

/// "xxh3-128:<32 hex digits>" of a file's content (cached per path, size and modification time).
std::string file_fingerprint(const std::filesystem::path& file);

/// The code identity of one trial (see the file comment).
Json code_identity(const TrialSpec& spec, const Registry& registry);

/// Why a trial stored with identity `stored` must not be reused under `current`: one line per
/// role whose library changed (naming it and both fingerprints); empty when it is current.
std::vector<std::string> stale_reasons(const Json& stored, const Json& current);

}  // namespace rankone
