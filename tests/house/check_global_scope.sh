#!/usr/bin/env bash
# What the cosima executable puts in the global scope that every FMU's references are looked up in
# first (FMUs are opened RTLD_LOCAL without RTLD_DEEPBIND, src/fmi/common/shared_library.cpp): the
# libraries it needs at start-up, and the symbols it exports. Only the C and C++ runtimes (shared by
# every process, and by C++ FMUs with the executable: their std::cout must be one object) and fmt are
# allowed; an FMU that bundles SUNDIALS, zlib, minizip, pugixml, HDF5 or TLS then binds to its own
# copy. Usage: check_global_scope.sh BINARY
set -u
binary=$1
allowed='^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libfmt\.so\.[0-9]+)$'
command -v ldd > /dev/null && command -v nm > /dev/null || { echo "FAIL: ldd and nm are needed"; exit 1; }
[ -x "$binary" ] || { echo "FAIL: no executable $binary"; exit 1; }
failures=0
libraries=$(ldd "$binary" | awk '{print $1}')
[ -n "$libraries" ] || { echo "FAIL: ldd listed nothing for $binary"; exit 1; }
for library in $libraries; do
  if ! [[ $library =~ $allowed ]]; then
    echo "FAIL: $binary loads $library at start-up: its symbols would come before an FMU's own copy"
    failures=$((failures + 1))
  fi
done
# the executable's own dynamic symbols: nothing of the libraries it links statically
exported=$(nm -D --defined-only "$binary" | awk '{print $3}' | grep -E '^(N_V|CVode|SUN|inflate|deflate|crc32|unz|zip|_ZN4pugi)' | head -5)
if [ -n "$exported" ]; then
  echo "FAIL: $binary exports symbols of a library it links statically: $exported"
  failures=$((failures + 1))
fi
echo "global scope of $(basename "$binary"): $(echo $libraries | tr '\n' ' ')— $failures failure(s)"
[ "$failures" -eq 0 ]
