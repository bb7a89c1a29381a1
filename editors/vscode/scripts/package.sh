#!/usr/bin/env bash
# Builds editors/vscode/asmdbg.vsix, the VS Code extension, from a clean checkout:
#   editors/vscode/scripts/package.sh
#   code --install-extension editors/vscode/asmdbg.vsix
# or, for one platform with its asmdbg inside (what the release workflow ships):
#   editors/vscode/scripts/package.sh win32-x64 path/to/asmdbg.exe    # -> asmdbg-win32-x64.vsix
# (VS Code's platforms: linux-x64, linux-arm64, win32-x64, darwin-arm64, darwin-x64). The
# extension runs that asmdbg when the user has none of their own (extension.js).
# Needs Node.js 20 or newer and npm (it installs the pinned dev tools into node_modules/).
set -euo pipefail

platform="${1:-}"
binary="${2:-}"
if [[ -n "$platform" && ! -f "$binary" ]]; then
    echo "usage: package.sh [VSCODE_PLATFORM ASMDBG_BINARY]: no binary ${binary:-given}" >&2
    exit 2
fi
[[ -z "$binary" ]] || binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

cd "$(dirname "$0")/.."

if [[ -f package-lock.json ]]; then
    npm ci --no-audit --no-fund
else
    npm install --no-audit --no-fund
fi

# bin/ holds the platform's asmdbg only while its package is made.
rm -rf bin
trap 'rm -rf bin' EXIT
output=asmdbg.vsix
target=()
if [[ -n "$platform" ]]; then
    mkdir bin
    name=asmdbg
    [[ "$platform" != win32-* ]] || name=asmdbg.exe
    cp "$binary" "bin/$name"
    chmod +x "bin/$name"
    output="asmdbg-$platform.vsix"
    target=(--target "$platform")
fi

# --no-dependencies: the extension uses only VS Code's API, so nothing from node_modules goes
# into the package. There is no public repository URL to put in package.json.
npx --no-install vsce package --no-dependencies --allow-missing-repository "${target[@]}" -o "$output"

echo "built $(pwd)/$output"
