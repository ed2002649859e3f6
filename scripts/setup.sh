#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, test and benchmark splitprove.
# Idempotent: packages already present are skipped; only apt-get and npm are used.
set -euo pipefail

APT_PACKAGES=(
  g++ cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgrpc++-dev protobuf-compiler-grpc protobuf-compiler libprotobuf-dev libsqlite3-dev libssl-dev
  libtomlplusplus-dev prometheus-cpp-dev libcpp-httplib-dev libspdlog-dev openssl
  libpq-dev postgresql
  clang clang-format clang-tidy libclang-rt-14-dev lld time bc
  nodejs npm
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # nodejs/npm may come from elsewhere (e.g. a newer Node.js already on PATH).
    if [[ "$p" == nodejs && -x "$(command -v node)" ]] || [[ "$p" == npm && -x "$(command -v npm)" ]]; then
      continue
    fi
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# npm packages (pinned in package.json / package-lock.json) for the cross-check and interop scripts.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -f "$root/package.json" ]]; then
  if [[ ! -d "$root/node_modules" ]] || [[ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]]; then
    echo "setup: installing npm packages"
    (cd "$root" && npm ci --no-audit --no-fund --loglevel=error)
  else
    echo "setup: npm packages present"
  fi
fi
