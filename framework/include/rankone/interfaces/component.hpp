#pragma once
/// \file Base of everything a plugin creates. Its out-of-line virtual destructor lives in the core
/// library, so typeinfo (and `dynamic_cast` across libraries) is shared by core and plugins.
namespace rankone {

class Component {
 public:
  virtual ~Component();
  Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;
};

}  // namespace rankone
