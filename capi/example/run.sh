#!/usr/bin/env bash
# Builds loom's C ABI as a shared library and as a static archive, compiles
# the C example against each with the system C compiler (cc), and runs it.
# Usage: capi/example/run.sh [BUILD_DIR]   (default: a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
CC=${CC:-cc}
export CGO_ENABLED=1

go build -buildmode=c-shared -o "$out/libloom.so" ./capi
"$CC" -std=c11 -Wall -Wextra -Werror -Icapi -o "$out/cape-shared" capi/example/cape.c \
  -L"$out" -lloom -Wl,-rpath,"$out" -lm
"$out/cape-shared" capi/example/cape.json

go build -buildmode=c-archive -o "$out/libloom.a" ./capi
"$CC" -std=c11 -Wall -Wextra -Werror -Icapi -o "$out/cape-static" capi/example/cape.c \
  "$out/libloom.a" -lpthread -ldl -lm
"$out/cape-static" capi/example/cape.json
echo "capi: shared and static builds ok"
