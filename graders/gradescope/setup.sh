#!/usr/bin/env bash
# Gradescope autograder setup (runs once when the autograder image is built).
#
# The autograder zip holds this file, run_autograder, the course's spec (spec.toml with the
# files it names: expected outputs, keys, frames) and asmdbg itself: either a built binary at
# bin/asmdbg (Linux x86-64), or asmdbg's source at asmdbg/ (this repository), which is built
# here with a Rust toolchain from rustup.
set -euo pipefail
source_dir="${AUTOGRADER_ROOT:-/autograder}/source"
if [ -f "$source_dir/bin/asmdbg" ]; then
  # A zip made without Unix permissions (Windows, some zip tools) drops the executable bit.
  chmod +x "$source_dir/bin/asmdbg"
  if ! version=$("$source_dir/bin/asmdbg" --version 2>&1); then
    echo "setup.sh: bin/asmdbg is in the zip but does not run on this image: $version" >&2
    echo "setup.sh: ship the static Linux x86-64 build (x86_64-unknown-linux-musl) or asmdbg's source as asmdbg/" >&2
    exit 1
  fi
  echo "setup.sh: using the asmdbg binary shipped in the zip ($version)"
  exit 0
fi
if [ ! -f "$source_dir/asmdbg/Cargo.toml" ]; then
  echo "setup.sh: the zip holds neither bin/asmdbg nor asmdbg's source (asmdbg/Cargo.toml)" >&2
  exit 1
fi
if ! command -v cargo >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl build-essential >/dev/null
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
  # shellcheck disable=SC1091
  source "$HOME/.cargo/env"
fi
cargo build --release --locked --manifest-path "$source_dir/asmdbg/Cargo.toml" --bin asmdbg
mkdir -p "$source_dir/bin"
cp "$source_dir/asmdbg/target/release/asmdbg" "$source_dir/bin/asmdbg"
