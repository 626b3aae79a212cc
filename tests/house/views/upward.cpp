// Compiled against the include view of cosima_exec (tests/CMakeLists.txt): methods/ sits above exec/,
// so this include must not be found — the build refuses an upward include.
#include "methods/coupling_method.hpp"
