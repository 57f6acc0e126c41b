#pragma once
/// \file Error types. Bad input (usage, configuration, plugin, data file) maps to exit code 2,
/// anything else to exit code 1 (see cli/main.cpp).
#include <stdexcept>
#include <string>

namespace rankone {

/// Bad input from the user: the message names the file, JSON path or line, and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~InputError() override;
};

/// An experiment file or parameter set that does not validate.
class ConfigError : public InputError {
 public:
  using InputError::InputError;
  ~ConfigError() override;
};

/// A plugin library that cannot be loaded or registered, or a plugin name that does not exist.
class PluginError : public InputError {
 public:
  using InputError::InputError;
  ~PluginError() override;
};

/// A malformed data file (file sources).
class DataError : public InputError {
 public:
  using InputError::InputError;
  ~DataError() override;
};

/// Command-line misuse.
class UsageError : public InputError {
 public:
  using InputError::InputError;
  ~UsageError() override;
};

}  // namespace rankone
