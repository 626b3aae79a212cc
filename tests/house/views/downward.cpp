// Compiled against the include view of cosima_exec (tests/CMakeLists.txt): model/ sits below exec/ and
// is one of its dependencies, so this include compiles (the control of upward.cpp).
#include "model/modular_model.hpp"
