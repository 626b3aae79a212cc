#pragma once
// Errors raised by cosima. Every message names the file, system, variable or capability at fault.
#include <stdexcept>
#include <string>

namespace cosima {

/// Any error the user can act on (bad scenario, bad FMU, solver failure, ...).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A method asked a system for a capability it does not declare (or that the scenario withholds).
class CapabilityError : public Error {
 public:
  using Error::Error;
};

}  // namespace cosima
